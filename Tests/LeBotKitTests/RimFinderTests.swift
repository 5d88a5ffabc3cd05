import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import Testing

@testable import LeBotKit

/// How close a found rim is to the true one: centre error and width ratio, in rim widths.
func rimError(_ found: RimCalibration, _ truth: [Double]) -> RimScore {
    RimScore(found: [found.x, found.y, found.width, found.height], truth: truth)
}

/// Seeds the finder was tuned on, and seeds kept back and looked at only to report.
enum RimSeeds {
    static let tuning: [UInt64] = [101, 102, 103, 104, 105, 106]
    static let heldOut: [UInt64] = [901, 902, 903, 904, 905, 906]
    /// Videos whose camera is knocked halfway.
    static let movedTuning: [UInt64] = [311, 312, 313]
    static let movedHeldOut: [UInt64] = [941, 942, 943]
}

@Suite(.serialized) struct RimFinderTests {
    /// Short workouts with the hoop moved and seen from both sides; one video per seed.
    func corpus(_ seeds: [UInt64], _ name: String) throws -> [BasketballCorpus.Video] {
        try seeds.flatMap { seed in
            try BasketballCorpus.generate(
                in: Corpus.folder + "/rim-\(name)-\(seed)", videos: 1, eventsPerVideo: 5, seed: seed, layout: .varied)
        }
    }

    /// What ``score(_:)`` measured over a set of videos.
    struct Score {
        /// Videos whose rim was found (``RimScore/isFound``), and shots taken, found and judged right.
        var found = 0
        var attempts = 0
        var detected = 0
        var correct = 0
        /// Shots reported that were not taken.
        var extra = 0
        /// Videos in which the rim was looked for again (the camera was thought to move).
        var moved = 0
        /// One line per video, for the test's output.
        var lines: [String] = []
        /// Noah's numbers against the truth's, per placement (3D court videos only).
        var numbers: [String: NumbersScore] = [:]
    }

    /// Runs `lebot analyze --json` without `--rim` on each video and scores the rim it found and
    /// the shots it judged with that rim.
    func score(_ videos: [BasketballCorpus.Video]) async throws -> Score {
        var score = Score()
        for video in videos {
            let run = try await lebot(["analyze", video.path, "--json"])
            guard run.status == 0, let data = run.stdout.data(using: .utf8),
                let analysis = try? JSONDecoder().decode(WorkoutAnalysis.self, from: data)
            else {
                score.lines.append("\(video.path): \(run.stderr.trimmingWhitespace()) (truth \(video.rim))")
                score.attempts += video.events.filter(\.kind.isShot).count
                continue
            }
            let error = rimError(analysis.rim, video.rim)
            if error.isFound { score.found += 1 }
            let scored = Scored(truth: video.events, shots: analysis.shots)
            score.attempts += scored.attempts
            score.detected += scored.found
            score.correct += scored.correct
            score.extra += scored.extra.count
            if !analysis.rimMoves.isEmpty { score.moved += 1 }
            for (event, shot) in scored.matched {
                score.numbers[video.placement ?? "flat", default: NumbersScore()].add(
                    event.atRim, entryAngle: shot.entryAngle, depth: shot.depth, leftRight: shot.leftRight,
                    arcFeet: shot.arcFeet)
            }
            score.lines.append(
                "\(video.path): rim centre off by \(String(format1: error.centre * 100)) % of its width, width ×\(String(format1: error.width)), confidence \(analysis.rimFound?.confidence ?? -1); shots \(scored.found)/\(scored.attempts), right \(scored.correct), extra \(scored.extra.count)"
            )
        }
        return score
    }

    /// Every rim found, ≥ 90 % of shots detected and ≥ 90 % of those judged right, nothing extra.
    func check(_ seeds: [UInt64], _ name: String) async throws {
        let videos = try corpus(seeds, name)
        let scored = try await score(videos)
        print("\(name) seeds:\n" + scored.lines.joined(separator: "\n"))
        #expect(scored.found == videos.count, "\(scored.lines)")
        #expect(Double(scored.detected) >= 0.9 * Double(scored.attempts), "\(scored.lines)")
        #expect(Double(scored.correct) >= 0.9 * Double(scored.detected), "\(scored.lines)")
        #expect(scored.extra == 0, "\(scored.lines)")
        // The camera never moves in these: the rim is never looked for again.
        #expect(scored.moved == 0, "\(scored.lines)")
    }

    @Test func findsTheRimWhereverTheHoopStandsOnTuningSeeds() async throws {
        try await check(RimSeeds.tuning, "tuning")
    }

    /// Scored once, after tuning ended on the seeds above (6/6 rims, 24/24 shots right), so a
    /// finder that gets worse on layouts it was not tuned on fails.
    @Test func heldOutSeedsScoredOnlyAtTheEnd() async throws {
        try await check(RimSeeds.heldOut, "held-out")
    }

    /// The camera knocked halfway (40–80 px sideways, 10–25 px up or down at 640×360): the rim is
    /// found again, and the shots after the knock are judged against the new rim (two makes and
    /// two misses follow the knock in each video; judged against the old rim, the makes fail).
    func checkMoved(_ seeds: [UInt64], _ name: String) async throws {
        let videos = try seeds.flatMap { seed in
            try BasketballCorpus.generate(
                in: Corpus.folder + "/moved-\(name)-\(seed)", videos: 1, eventsPerVideo: 12, seed: seed,
                layout: .varied, cameraMoves: true)
        }
        var (attempts, detected, correct, extra) = (0, 0, 0, 0)
        var lines: [String] = []
        for video in videos {
            let movedAt = try #require(video.movedAt)
            let after = try #require(video.rimAfterMove)
            let run = try await lebot(["analyze", video.path, "--json"])
            let analysis = try #require(
                try? JSONDecoder().decode(WorkoutAnalysis.self, from: Data(run.stdout.utf8)), "\(run.stderr)")
            let scored = Scored(truth: video.events, shots: analysis.shots)
            (attempts, detected) = (attempts + scored.attempts, detected + scored.found)
            (correct, extra) = (correct + scored.correct, extra + scored.extra.count)
            let moves = analysis.rimMoves.map { "\(String(format1: $0.time)) s" }
            lines.append(
                "\(video.path): moved at \(String(format1: movedAt)) s, found again at \(moves); shots \(scored.found)/\(scored.attempts), right \(scored.correct), extra \(scored.extra.count)"
            )
            #expect(analysis.rimMoves.count == 1, "\(lines.last!)")
            guard let move = analysis.rimMoves.first else { continue }
            // Noticed within the 2 s a rim may look bare; used from the first bare frame.
            #expect(move.time >= movedAt - 0.3 && move.time <= movedAt + 1, "\(lines.last!)")
            let error = rimError(move.found.rim, after)
            #expect(error.isFound, "\(lines.last!): \(error)")
        }
        print("\(name) seeds, camera knocked:\n" + lines.joined(separator: "\n"))
        #expect(Double(detected) >= 0.9 * Double(attempts), "\(lines)")
        #expect(Double(correct) >= 0.9 * Double(detected), "\(lines)")
        #expect(extra == 0, "\(lines)")
    }

    @Test func aKnockedCameraOnTuningSeeds() async throws {
        try await checkMoved(RimSeeds.movedTuning, "tuning")
    }

    /// Scored once, after the rule was set on the seeds above.
    @Test func aKnockedCameraOnHeldOutSeeds() async throws {
        try await checkMoved(RimSeeds.movedHeldOut, "held-out")
    }

    /// A 320 × 180 picture of a wall of brightness `wall` with a hoop on it: an ellipse
    /// 2·`radii.x` × 2·`radii.y` px around `centre`, 2 px thick; a bracket out of its right end
    /// toward the board, `bracket` px long and 6 px thick (none when 0); and the tan stripes
    /// `stripes` (x range, first row; 2 px tall).
    static func hoop(
        wall: UInt8, stripes: [(Range<Int>, Int)] = [], centre: (x: Double, y: Double) = (220, 60),
        radii: (x: Double, y: Double) = (14, 4), bracket: Int = 0
    ) -> VideoFrame {
        var frame = VideoFrame(format: .yuv420p, width: 320, height: 180, fill: [wall, 128, 128])
        func paint(_ x: Int, _ y: Int, _ colour: (y: UInt8, u: UInt8, v: UInt8)) {
            frame.planes[0].bytes[y * frame.planes[0].bytesPerRow + x] = colour.y
            frame.planes[1].bytes[(y / 2) * frame.planes[1].bytesPerRow + x / 2] = colour.u
            frame.planes[2].bytes[(y / 2) * frame.planes[2].bytesPerRow + x / 2] = colour.v
        }
        for (columns, row) in stripes { for x in columns { for y in row..<row + 2 { paint(x, y, (120, 108, 150)) } } }
        for step in 0..<720 {
            let angle = Double(step) / 720 * 2 * .pi
            for thickness in 0..<2 {
                let x = Int((centre.x + (radii.x - Double(thickness)) * cos(angle)).rounded())
                let y = Int((centre.y + (radii.y - Double(thickness)) * sin(angle)).rounded())
                paint(x, y, (110, 100, 170))
            }
        }
        let end = Int(centre.x + radii.x)
        for x in end..<end + bracket { for y in Int(centre.y) - 2..<Int(centre.y) + 4 { paint(x, y, (110, 100, 170)) } }
        return frame
    }

    /// A light wall with a tan stripe along it: pieces of the stripe are flat, still and orange
    /// enough, with "white" all round, and flatter than a hoop seen at 45°. One runs out of the
    /// side of the picture; one is wider than a rim that lets a shot fit in the picture. The hoop
    /// is found, not either of them.
    @Test func aStripeOnTheWallIsNotTakenForTheRim() throws {
        // One stripe runs out of the left side; one is 70 px, over a sixth of 320. The white wall
        // below the hoop is its net.
        let frame = Self.hoop(wall: 200, stripes: [(0..<50, 120), (150..<220, 140)])
        var accumulator = RimFinder.Accumulator(width: 320, height: 180)
        for _ in 0..<5 { accumulator.add(frame) }
        let found = try #require(accumulator.result(minimumConfidence: 0.3))
        let centre = (x: (found.rim.x + found.rim.width / 2) * 320, y: (found.rim.y + found.rim.height / 2) * 180)
        #expect(abs(centre.x - 220) < 4 && abs(centre.y - 60) < 4, "found \(found.rim) (\(found.evidence))")
        #expect(found.netBelow == true)
    }

    /// A rim seen from the side, 36 × 14 px, with its bracket to the board: a bar 10 px long and
    /// 6 px thick, two fifths of the rim's height, out of its end (on two held-out side views of
    /// stop 46 the bracket was that thick and was kept in the box, which came out 1.3 rim widths
    /// wide). The box is the rim's, and the bracket is said to be left out.
    @Test func aThickBracketBesideASideOnRimIsLeftOutOfItsBox() throws {
        let frame = Self.hoop(wall: 200, centre: (160, 60), radii: (18, 7), bracket: 10)
        var accumulator = RimFinder.Accumulator(width: 320, height: 180)
        for _ in 0..<5 { accumulator.add(frame) }
        guard let found = accumulator.result(minimumConfidence: 0.3) else {
            Issue.record("no rim found")
            return
        }
        let (left, right) = (found.rim.x * 320, (found.rim.x + found.rim.width) * 320)
        #expect(abs(left - 142) <= 3 && abs(right - 178) <= 4, "box \(left)–\(right) px (\(found.evidence))")
        #expect(found.evidence.contains("its bracket to the board left out"), "\(found.evidence)")
    }

    /// A rim seen from the side, 36 × 8 px, with a strand of its net (1 px wide, 8 px long)
    /// still and orange under its left side, on a light wall; a piece of a ceiling's light
    /// stripe near the top, one chroma row tall, the light wall above it and a grey one below
    /// (no net under it). Measured with
    /// the strand the rim is nearly as tall as wide and the stripe looks flatter and surer (3D
    /// court, orange sideRight-4785: a 40×2 px piece of a ceiling stripe at 55 % was taken over
    /// the rim, whose still orange had a tail a net's strand long). The rim is found, and its box
    /// leaves the strand out.
    @Test func aStrandHangingFromTheRimDoesNotMakeItLessARimThanAStripe() throws {
        var frame = Self.hoop(wall: 200, stripes: [(60..<90, 40)], centre: (160, 80), radii: (18, 4))
        for y in 42..<70 { for x in 40..<110 { frame.planes[0].bytes[y * frame.planes[0].bytesPerRow + x] = 120 } }
        for y in 84..<92 {
            frame.planes[0].bytes[y * frame.planes[0].bytesPerRow + 150] = 110
            frame.planes[1].bytes[(y / 2) * frame.planes[1].bytesPerRow + 75] = 100
            frame.planes[2].bytes[(y / 2) * frame.planes[2].bytesPerRow + 75] = 170
        }
        var accumulator = RimFinder.Accumulator(width: 320, height: 180)
        for _ in 0..<5 { accumulator.add(frame) }
        let found = try #require(accumulator.result(minimumConfidence: 0.3))
        let centre = (x: (found.rim.x + found.rim.width / 2) * 320, y: (found.rim.y + found.rim.height / 2) * 180)
        #expect(abs(centre.x - 160) < 4 && abs(centre.y - 80) < 3, "found \(found.rim) (\(found.evidence))")
        #expect(found.rim.height * 180 <= 10, "the box is \(found.rim.height * 180) px tall (\(found.evidence))")
        #expect(found.evidence.contains("a thin tail off it left out"), "\(found.evidence)")
    }

    /// Whether a net hangs under the rim is kept with the rim (the shot detector believes a still
    /// net from the first shot on when there is one): white under it is a net, a dark wall is not.
    @Test func theFinderSaysWhetherANetHangsUnderTheRim() throws {
        for (wall, net) in [(UInt8(200), true), (60, false)] {
            var accumulator = RimFinder.Accumulator(width: 320, height: 180)
            for _ in 0..<5 { accumulator.add(Self.hoop(wall: wall)) }
            let found = try #require(accumulator.result(minimumConfidence: 0.2))
            #expect(found.netBelow == net, "wall \(wall): \(found.evidence)")
            #expect(found.evidence.contains("a net below") == net)
        }
    }

    /// What the finder (sure at 50 % or more) makes of five frames of a white `width`×`height`
    /// picture with a still maroon-orange bar over `rows` and `columns` (pixels).
    static func orangeBar(rows: Range<Int>, columns: Range<Int>, width: Int, height: Int) -> RimFinder.Result? {
        var frame = VideoFrame(format: .yuv420p, width: width, height: height, fill: [200, 128, 128])
        for y in rows {
            for x in columns {
                frame.planes[0].bytes[y * frame.planes[0].bytesPerRow + x] = 110
                frame.planes[1].bytes[(y / 2) * frame.planes[1].bytesPerRow + x / 2] = 118
                frame.planes[2].bytes[(y / 2) * frame.planes[2].bytesPerRow + x / 2] = 152
            }
        }
        var accumulator = RimFinder.Accumulator(width: width, height: height)
        for _ in 0..<5 { accumulator.add(frame) }
        return accumulator.result(minimumConfidence: 0.5)
    }

    /// A flat maroon bar on a white ground: up where a rim hangs it is taken for one, down where
    /// the floor is it is not (on phone videos of outdoor courts the finder took a maroon band
    /// of the court beside its white lines for the rim, sure at 62 and 88 %, and in a gym a piece
    /// of a maroon arc painted on the wooden floor just under the picture's middle), nor at the
    /// very top.
    @Test func aFlatOrangeBarLowInThePictureIsFloorNotARim() throws {
        func found(barAt row: Int) -> RimFinder.Result? {
            Self.orangeBar(rows: row..<row + 4, columns: 140..<180, width: 320, height: 180)
        }
        let high = try #require(found(barAt: 60), "the bar up high should pass for a rim")
        #expect(abs(high.rim.y * 180 + high.rim.height * 90 - 62) < 3, "\(high.rim)")
        #expect(found(barAt: 130) == nil)
        // At 0.57 down, where a gym's maroon floor arc was taken for the rim (0.58 and 0.59 down),
        // it is floor too; at 0.53, as high as the flat side views stand their hoop, a rim.
        #expect(found(barAt: 100) == nil, "\(found(barAt: 100)?.evidence ?? "")")
        #expect(found(barAt: 93) != nil, "a bar 0.53 down should still pass for a rim")
        // At the very top (its centre 6 px down, closer than its 40 px width) it is a stripe where
        // the wall meets the ceiling: a rim there would leave its board and every arc out of sight.
        #expect(found(barAt: 4) == nil)
        #expect(found(barAt: 40) != nil, "a bar a rim width down should still pass for a rim")
    }

    /// An orange line one chroma pixel tall and 40 wide, up where a rim hangs, with white all
    /// round, in a 640×360 picture (under a sixth of its width): thinner than any rim looks, even
    /// edge-on, so not one (3D court, sideRight-4608: such a line near the picture's edge was
    /// taken for the rim). Twice as tall (20:1), a rim seen nearly level could look like it.
    @Test func anOrangeLineThinnerThanARimsTubeIsNotARim() throws {
        func found(rows: Int) -> RimFinder.Result? {
            Self.orangeBar(rows: 120..<120 + rows, columns: 300..<380, width: 640, height: 360)
        }
        #expect(found(rows: 2) == nil, "\(found(rows: 2)?.evidence ?? "")")
        let level = try #require(found(rows: 4), "a line 20 times as wide as it is tall should pass for a rim")
        #expect(level.evidence.hasPrefix("an orange bar 80×4 px"), "\(level.evidence)")
    }

    /// A grey ring (no orange anywhere) under a backboard's painted square, 640×360: a white
    /// board 160×120 px on a `wall` of that luma, a dark square outline 60×52 px (4 px lines) on
    /// it, the ring 60×8 px centred at (315, 148), 3 px under the square's bottom line and left of
    /// its middle, as a rim seen at an angle is. With a white wall the board has no edge: the pale
    /// piece round the square is the whole picture, as the page round a letter is in a picture of
    /// text. `line` thickens the square's line outward; `ring` (centre and half-axes, px) moves the
    /// ring or, nil, leaves it out.
    static func boardWithGreyRing(
        at path: String, wall: Int, line: Int = 4,
        ring: (x: Int, y: Int, a: Int, b: Int)? = (315, 148, 30, 4)
    ) throws {
        let outer = (left: 304 - line, top: 94 - line, right: 355 + line, bottom: 137 + line)
        let square =
            "between(X\\,\(outer.left)\\,\(outer.right))*between(Y\\,\(outer.top)\\,\(outer.bottom))*not(between(X\\,304\\,355)*between(Y\\,94\\,137))"
        let board = "between(X\\,250\\,409)*between(Y\\,50\\,169)"
        var picture = "if(\(square)\\,60\\,if(\(board)\\,215\\,\(wall)))"
        if let ring {
            let (x, y, a, b) = ring
            let outline =
                "lt(abs(pow((X-\(x))/\(a)\\,2)+pow((Y-\(y))/\(b)\\,2)-1)/(2*hypot((X-\(x))/\(a * a)\\,(Y-\(y))/\(b * b))+0.001)\\,1.1)"
            picture = "if(\(outline)\\,70\\,\(picture))"
        }
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i",
                "color=c=gray:s=640x360:d=1:r=30,format=gray,geq=lum='\(picture)'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
    }

    /// Most outdoor rims are not orange; the finder looks under the backboard's inner square for
    /// the ring. On a board with an edge it finds the ring's box; where the pale piece round the
    /// square has no edge (a page of text, a white wall) it finds nothing and the user is asked.
    @Test func aGreyRimIsFoundUnderTheBoardsSquareAndAPageIsNoBoard() throws {
        let board = Corpus.folder + "/grey-rim-board.mp4"
        try Self.boardWithGreyRing(at: board, wall: 110)
        let found = try #require(try RimFinder().find(in: board), "no rim under the square")
        let score = rimError(found.rim, [285.0 / 640, 144.0 / 360, 60.0 / 640, 8.0 / 360])
        #expect(
            score.isFound, "found \(found.rim) (\(found.evidence)): centre off \(score.centre), width ×\(score.width)")
        #expect(found.evidence.contains("inner square") && found.evidence.contains("ring"), "\(found.evidence)")
        #expect(found.confidence >= RimFinder().minimumConfidence && found.confidence <= 1)
        let page = Corpus.folder + "/grey-rim-page.mp4"
        try Self.boardWithGreyRing(at: page, wall: 215)
        #expect(try RimFinder().find(in: page) == nil)
    }

    /// A grey rim hung at the bottom of a square painted with a thick line (6 px), seen from a
    /// little below: its far half lies along the line, as dark as the rim, so only its near half
    /// shows against the board (two steel rims behind the shooter on the 3D court were not found
    /// for this). It is found; the same board with no rim under its square is not taken for one.
    @Test func aGreyRimWhoseFarSideLiesAlongTheSquaresThickLineIsFound() throws {
        let board = Corpus.folder + "/grey-rim-thick-line.mp4"
        try Self.boardWithGreyRing(at: board, wall: 110, line: 6, ring: (330, 142, 31, 5))
        let found = try #require(try RimFinder().find(in: board), "no rim under the square")
        let score = rimError(found.rim, [299.0 / 640, 137.0 / 360, 62.0 / 640, 10.0 / 360])
        #expect(
            score.isFound, "found \(found.rim) (\(found.evidence)): centre off \(score.centre), width ×\(score.width)")
        let bare = Corpus.folder + "/grey-rim-thick-line-bare.mp4"
        try Self.boardWithGreyRing(at: bare, wall: 110, line: 6, ring: nil)
        let none = try RimFinder().find(in: bare)
        #expect(none == nil, "found \(String(describing: none?.rim)) (\(none?.evidence ?? ""))")
    }

    /// The 3D court with grey steel rims (seed 1, tuning, six events): at 45° and from behind the board faces
    /// the camera and the rim is found under its square; from the side the square is a narrow,
    /// slanting parallelogram and the rim is found beside it (before, no hoop was found there, and
    /// the user had to tap it). The same seed with its orange rim
    /// is still found by the orange (and its evidence says so). Read as a camera stream
    /// (`lebot live`, no `--rim`), the steel rim from behind is found the same way and every
    /// shot is counted.
    @Test func steelRimsOnTheCourtAreFoundUnderTheSquareWhereTheBoardShowsIt() async throws {
        for placement in [CourtCorpus.Placement.angledLeft, .behind, .sideLeft] {
            for steel in [true, false] {
                // The steel rims at 720p, as the court bench renders them (at 540p this seed's
                // rim never looked bare for long enough to be taken for a moved camera).
                var options = CourtCorpus.Options(
                    placement: placement, width: steel ? 1280 : 960, height: steel ? 720 : 540, events: 6)
                options.steelRim = steel
                let video = try #require(
                    try CourtCorpus.generate(
                        in: Corpus.folder + "/court-steel-\(steel)-\(placement.rawValue)",
                        seeds: [CourtCorpus.tuningSeeds[0]], options: options
                    ).first)
                let found = try RimFinder().find(in: video.path)
                let result = try #require(found, "\(placement) steel \(steel): no rim")
                let score = rimError(result.rim, video.rim)
                #expect(score.isFound, "\(placement) steel \(steel): \(result.rim) (\(result.evidence))")
                #expect(result.evidence.contains("inner square") == steel, "\(result.evidence)")
                #expect(
                    result.evidence.contains("seen from the side, and beside it") == (steel && placement == .sideLeft),
                    "\(result.evidence)")
                // An analysis with no rim reads the file once: the finder's frames are decoded at
                // its size beside the analysis's. It finds what the finder finds, and the shots
                // are those of an analysis given that rim.
                // Progress moves while the start is read for the rim (it was 0 until the rim was
                // known), and never goes back.
                var told: [RimFinder.Result] = []
                var (fractions, beforeTheRim) = ([Double](), 0.0)
                let once = try WorkoutAnalyzer(rim: nil).analyze(
                    video.path, progress: { fractions.append($0) },
                    onRim: {
                        told.append($0)
                        beforeTheRim = fractions.last ?? 0
                    })
                #expect(told == [result] && once.rimFound == result && once.rim == result.rim)
                #expect(beforeTheRim >= 0.2 && fractions == fractions.sorted() && fractions.last == 1, "\(fractions)")
                var given = WorkoutAnalyzer(rim: result.rim)
                given.rimFound = result
                let twice = try given.analyze(video.path)
                #expect(once.shots == twice.shots && once.frames == twice.frames && once.rimMoves == twice.rimMoves)
                #expect(once.attempts == video.events.filter(\.kind.isShot).count, "\(placement) steel \(steel)")
                if placement == .behind {
                    // Where the frames held would be too many (a fast frame rate), the finder reads
                    // the start on its own first: the same rim, the same shots.
                    var bounded = WorkoutAnalyzer(rim: nil)
                    bounded.heldBytesLimit = 0
                    told = []
                    let first = try bounded.analyze(video.path, onRim: { told.append($0) })
                    #expect(told == [result] && first.rimFound == result && first.shots == once.shots)
                }
                guard steel else { continue }
                // The camera never moves. A grey rim is not watched by its orange: an orange ball
                // passing it made it look orange, then bare, and the camera was taken to move.
                let analysis = try await lebot(["analyze", video.path, "--json"])
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any],
                    "\(analysis.stderr)")
                #expect(object["rimFound"] != nil && object["shots"] != nil, "\(object.keys)")
                #expect(((object["rimMoves"] as? [Any]) ?? []).isEmpty, "\(placement): \(object["rimMoves"] ?? "")")
                guard placement == .behind else { continue }
                let run = try await lebot(["live", video.path, "--quiet", "--json"])
                #expect(run.status == 0, "\(run.stderr)")
                let lines = run.stdout.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                let live = try #require(lines.first?["rimFound"] as? [String: Any], "\(run.stdout)")
                #expect((live["evidence"] as? String)?.contains("inner square") == true, "\(live)")
                let box = try #require(live["rim"] as? [String: Double])
                let liveScore = RimScore(
                    found: [box["x"] ?? 0, box["y"] ?? 0, box["width"] ?? 0, box["height"] ?? 0], truth: video.rim)
                #expect(liveScore.isFound, "live: \(box) against \(video.rim)")
                let shots = lines.filter { $0["shot"] != nil }.count
                #expect(shots == video.events.filter(\.kind.isShot).count, "\(run.stdout)")
            }
        }
    }

    /// The rim the finder finds on one steel-rimmed video of the 3D court (one event: the finder
    /// reads only the start), with its score against the true rim and what the finder said,
    /// ready for a failed expectation.
    static func steelCourtRim(_ placement: CourtCorpus.Placement, seed: UInt64, events: Int = 1) throws -> (
        result: RimFinder.Result, score: RimScore, said: String
    ) {
        var options = CourtCorpus.Options(placement: placement, events: events)
        options.steelRim = true
        let video = try #require(
            try CourtCorpus.generate(
                in: Corpus.folder + "/court-steel-\(placement.rawValue)-\(seed)-\(events)", seeds: [seed],
                options: options
            ).first)
        let result = try #require(try RimFinder().find(in: video.path), "\(placement)-\(seed): no rim")
        let score = rimError(result.rim, video.rim)
        return (
            result, score,
            "\(placement)-\(seed): \(result.rim) (\(result.evidence)): centre off \(score.centre), width ×\(score.width)"
        )
    }

    /// A board turned more than 60° from the camera (steel, from the side, seeds 3501 and 4010 of
    /// the court's seen slices): its inner square is 1.7 times as tall as it is wide, not the
    /// narrow parallelogram of a board seen edge on, and was taken for a board facing the camera.
    /// The ring was then looked for under the square, where the board's bottom edge and the rim
    /// together made a ring half a rim width off and up to 1.3 times too wide. A square that tall
    /// is a board seen from the side (head on it is 0.75 as tall as wide, at 45° about 1.06): the
    /// rim is found beside it.
    @Test func aSquareTallerThanABoardTurnedSixtyDegreesIsSeenFromTheSide() throws {
        for (placement, seed) in [(CourtCorpus.Placement.sideRight, UInt64(4010)), (.sideLeft, 3501)] {
            let found = try Self.steelCourtRim(placement, seed: seed)
            #expect(found.score.isFound, "\(found.said)")
            #expect(found.result.evidence.contains("seen from the side, and beside it"), "\(found.said)")
        }
    }

    /// A beige wall in a warm light passes the finder's test for orange (Cr 137–139, Cb 116), and
    /// any ellipse laid on it lies on orange all round. On the 3D court (steel, behind the shooter,
    /// seed 4208 of the seen slices) such a ring on the wall beside the board outscored the grey
    /// rim under the board's square, two rim widths off, and two shots were lost. An orange line
    /// must be a line: the orange ends across it within a rim's tube. The grey rim is found.
    @Test func aWarmWallBesideTheBoardIsNoOrangeRing() throws {
        let found = try Self.steelCourtRim(.behind, seed: 4208)
        #expect(found.score.isFound, "\(found.said)")
        #expect(found.result.evidence.contains("under it a dark ring"), "\(found.said)")
    }

    /// A ring is fitted on a thin line, the middle of the rim's tube, and the rim's box under or
    /// beside the board's square bounds the tube's outside (as the orange finder's box bounds the
    /// orange). Steel sideLeft-4301 (the held-out slice of stop 56, seen since): its grey rim
    /// beside the board was boxed 0.74 of its true width when the box ran along the tube's
    /// middle, and scored not found.
    @Test func aRingsBoxBoundsTheOutsideOfTheRimsTube() throws {
        let found = try Self.steelCourtRim(.sideLeft, seed: 4301)
        #expect(found.score.isFound, "\(found.said)")
    }

    /// The largest pale patch enclosed by a thin line is not always the board's square. Steel
    /// sideLeft-4407 (the held-out slice of stop 57, seen since): the net's loops under the grey
    /// rim enclose a patch of pale wall larger than the board's square turned far away, no ring is
    /// beside that patch, and no hoop was found. The next patch is the square, with the rim beside it.
    @Test func aPatchOfWallInsideTheNetIsNotTheBoardsSquare() throws {
        // The bench's video (six events).
        let found = try Self.steelCourtRim(.sideLeft, seed: 4407, events: 6)
        #expect(found.score.isFound, "\(found.said)")
        #expect(found.result.evidence.contains("seen from the side, and beside it"), "\(found.said)")
    }

    /// A pale tiled wall behind the board encloses its tiles as a square is enclosed, and tiles
    /// nearer the camera are larger than the board's square: steel behind-4757 (the held-out slice
    /// of stop 66, seen since) had six, tried before it, none with a ring under it, and no hoop
    /// was found. A board's square is painted with a broad dark line, a wall's tiles have thin
    /// faint joints: the square is tried first and the grey rim under it found.
    @Test func aTiledWallsLargerTilesAreNotTakenForTheBoardsSquare() throws {
        let found = try Self.steelCourtRim(.behind, seed: 4757)
        #expect(found.score.isFound, "\(found.said)")
        #expect(found.result.evidence.contains("inner square"), "\(found.said)")
    }

    /// A grey rim in a warm light is orange along part of its length, and the orange finder took
    /// that part for the rim. Steel sideRight-4403 (the held-out slice of stop 57, seen since): an
    /// orange bar 44 px wide, still in 90 % of frames, a net under it, on a rim 73 px wide; its
    /// shots were judged against a box 0.6 of the rim. The ring beside the board's square holds the
    /// bar and is the rim.
    @Test func aGreyRimOrangeInPartIsTheRingBesideTheBoard() throws {
        // The bench's video (six events): the rim is orange in part over its first 20 s.
        let found = try Self.steelCourtRim(.sideRight, seed: 4403, events: 6)
        #expect(found.score.isFound, "\(found.said)")
        #expect(found.result.evidence.contains("only a part of the ring"), "\(found.said)")
        #expect(found.result.underBoard == true, "\(found.said)")
    }

    /// A short lit part of a grey rim is its tube's top, above the ring's middle by more than a
    /// quarter of its own width: steel sideRight-4608 (seen, stop 61), as the finder found them at
    /// 1280×720, an orange bar 16 px wide 11 px above the middle of the ring beside the square,
    /// 72 px wide, is a part of it. An orange rim as wide as the ring is not a part of it, nor is
    /// the short bar 30 px above the ring.
    @Test func aShortLitPartOfAGreyRimAboveItsMiddleIsAPartOfTheRing() throws {
        let bar = try RimCalibration(x: 0.20625, y: 0.35289, width: 0.0125, height: 0.022)
        let ring = try RimCalibration(x: 0.18002, y: 0.37017, width: 0.0559, height: 0.01911)
        #expect(RimFinder.isPart(bar, of: ring, width: 1280, height: 720))
        let whole = try RimCalibration(x: 0.181, y: 0.368, width: 0.052, height: 0.022)
        #expect(!RimFinder.isPart(whole, of: ring, width: 1280, height: 720))
        let high = try RimCalibration(x: 0.20625, y: 0.35289 - 19.0 / 720, width: 0.0125, height: 0.022)
        #expect(!RimFinder.isPart(high, of: ring, width: 1280, height: 720))
    }

    /// A still orange bar far from the ring by the board's square is not the rim: steel
    /// angledRight-4712 (held out at stop 62, seen since), as the finder found them at 1280×720: a
    /// 24 px piece of the light stripe where the far wall meets the ceiling, 10.7 ring widths from
    /// the grey ring under the square. A bar two ring widths off is still left to the orange finder.
    @Test func anOrangeBarFarFromTheRingByTheBoardIsNotTheRim() throws {
        let ring = try RimCalibration(x: 0.31991, y: 0.38375, width: 0.04144, height: 0.01417)
        let stripe = try RimCalibration(x: 0.73125, y: 0.089, width: 0.01875, height: 0.022)
        #expect(RimFinder.isAway(stripe, from: ring, width: 1280, height: 720))
        let near = try RimCalibration(x: 0.31991 + 2 * 0.04144, y: 0.38375, width: 0.04144, height: 0.01417)
        #expect(!RimFinder.isAway(near, from: ring, width: 1280, height: 720))
        // The bench's video (six events): the stripe's piece was orange enough in 90 % of frames.
        let found = try Self.steelCourtRim(.angledRight, seed: 4712, events: 6)
        #expect(found.score.isFound, "\(found.said)")
        #expect(found.result.evidence.contains("an orange bar 24 px wide, away from the board"), "\(found.said)")
        #expect(found.result.underBoard == true, "\(found.said)")
    }

    /// The camera knocked halfway on the 3D court (``CourtCorpus/Options/knock``): the rim is
    /// followed by the picture around it, one move, noticed within a second, to where the rim
    /// truly went, and every shot after it found and judged there. A grey rim found under the
    /// board's square (not watched by its orange) and a rim the user gave (never looked for again)
    /// did not move at all before, and the shots after the knock were judged against an empty spot;
    /// an orange rim found by its orange, side-on on seed 2, was found again too wide.
    @Test func aKnockedCameraIsFollowedByThePictureAroundTheRim() async throws {
        let cases: [(placement: CourtCorpus.Placement, steel: Bool, seed: UInt64, given: Bool)] = [
            (.behind, true, CourtCorpus.tuningSeeds[0], false), (.sideLeft, false, CourtCorpus.tuningSeeds[0], true),
            (.sideLeft, false, CourtCorpus.tuningSeeds[1], false),
        ]
        for (placement, steel, seed, given) in cases {
            // 720p as the court bench renders them; the rim given at 540p, quicker.
            var options = CourtCorpus.Options(
                placement: placement, width: given ? 960 : 1280, height: given ? 540 : 720, events: 6)
            options.steelRim = steel
            options.knock = true
            let video = try #require(
                try CourtCorpus.generate(
                    in: Corpus.folder + "/court-knocked-\(steel)-\(placement.rawValue)-\(seed)-\(given)",
                    seeds: [seed], options: options
                ).first)
            let movedAt = try #require(video.movedAt)
            let after = try #require(video.rimAfterMove)
            var arguments = ["analyze", video.path, "--json"]
            if given { arguments += ["--rim", video.rim.map { String($0) }.joined(separator: ",")] }
            let run = try await lebot(arguments)
            let analysis = try #require(
                try? JSONDecoder().decode(WorkoutAnalysis.self, from: Data(run.stdout.utf8)), "\(run.stderr)")
            let moves = analysis.rimMoves.map { "\(String(format1: $0.time)) s: \($0.found.evidence)" }
            let line =
                "\(placement)-\(seed) steel \(steel) given \(given): knocked at \(String(format1: movedAt)) s, moves \(moves)"
            #expect(analysis.rimMoves.count == 1, "\(line)")
            guard let move = analysis.rimMoves.first else { continue }
            #expect(move.time >= movedAt - 0.3 && move.time <= movedAt + 1, "\(line)")
            #expect(rimError(move.found.rim, after).isFound, "\(line): \(move.found.rim) against \(after)")
            #expect(move.found.evidence.hasPrefix("the picture around the rim went"), "\(line)")
            let scored = Scored(truth: video.events, shots: analysis.shots)
            #expect(scored.found == scored.attempts && scored.extra.isEmpty, "\(line): \(analysis.shots)")
            #expect(scored.correct >= scored.found - 1, "\(line): \(scored.wrong)")
        }
    }

    @Test func noHoopMeansNoGuessAndTheUserIsToldWhatToGive() async throws {
        // A still orange shelf (flat, like a rim, but no net and no board) and a ball flying past.
        let path = Corpus.folder + "/no-hoop.mp4"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x5a6e82:s=640x360:d=6:r=30", "-f", "lavfi", "-i",
                "color=c=0xe06a1c:s=22x22:d=6:r=30", "-filter_complex",
                "[0][1]overlay=x='mod(t*180,600)':y='200-60*sin(t*3)',drawbox=x=300:y=120:w=70:h=6:color=0xe06a1c:t=fill",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
        #expect(try RimFinder().find(in: path) == nil)
        let run = try await lebot(["analyze", path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no hoop found") && run.stderr.contains("--rim"), "\(run.stderr)")
        // It names the picture's size and how to give the box in its pixels.
        #expect(run.stderr.contains("640×360") && run.stderr.contains("px"), "\(run.stderr)")
        // The simplest answer first: a point on the rim, whose ring is then fitted.
        #expect(run.stderr.contains("a point on the rim with --rim x,y"), "\(run.stderr)")
        // The same video with the rim given is analysed (nothing to find, but no error), as
        // fractions or as pixels of the picture, and the two are the same box.
        let fractions = try await lebot(["analyze", path, "--rim", "0.47,0.32,0.11,0.02", "--json"])
        let pixels = try await lebot(["analyze", path, "--rim", "300.8,115.2,70.4,7.2px", "--json"])
        #expect(fractions.status == 0 && pixels.status == 0, "\(pixels.stderr)")
        let rims = try [fractions, pixels].map {
            try JSONDecoder().decode(WorkoutAnalysis.self, from: Data($0.stdout.utf8)).rim
        }
        #expect(abs(rims[0].x - rims[1].x) < 1e-9 && abs(rims[0].width - rims[1].width) < 1e-9)
        #expect(abs(rims[0].y - rims[1].y) < 1e-9 && abs(rims[0].height - rims[1].height) < 1e-9)
        // A box in pixels outside the picture is named as such.
        let outside = try await lebot(["analyze", path, "--rim", "620,115,70,7px"])
        #expect(outside.status != 0 && outside.stderr.contains("not inside the 640×360 picture"), "\(outside.stderr)")
    }

    @Test func aTapNearADarkRingIsFittedToTheRingAndATapOnNothingKeepsABoxOfTypicalSize() async throws {
        // A grey ring 32 px wide and 10 px tall (5 % of the picture wide, not the 7 % a tap marked
        // before) on a white board: not orange, so the finder finds no hoop and the user taps it.
        let path = Corpus.folder + "/grey-ring.mp4"
        try TestMedia.greyRing(at: path, seconds: 2, frameRate: 10)
        let truth = TestMedia.greyRingBox
        #expect(try RimFinder().find(in: path) == nil)
        // Tapped on its centre and a finger's error (1 % of the picture) off it.
        for (dx, dy) in [(0.0, 0.0), (0.01, 0.01), (-0.01, -0.01)] {
            let tap = try RimPoint(x: 0.625 + dx, y: 1.0 / 3 + dy)
            let fit = try RimFinder().fit(near: tap, in: path)
            let error = rimError(fit.rim, truth)
            #expect(fit.fitted, "\(fit)")
            #expect(error.centre < 0.25 && (0.85...1.2).contains(error.width), "tap \(tap): \(fit.rim), \(error)")
        }
        // The command line takes the point, says what it fitted, and keeps it in --json.
        let said = try await lebot(["analyze", path, "--rim", "0.625,0.333"])
        #expect(said.status == 0 && said.stderr.contains("Rim fitted at"), "\(said.stderr)")
        let json = try await lebot(["analyze", path, "--rim", "400,120px", "--json"])
        let analysis = try JSONDecoder().decode(WorkoutAnalysis.self, from: Data(json.stdout.utf8))
        #expect(analysis.rimFitted?.fitted == true && (0.85...1.2).contains(rimError(analysis.rim, truth).width))
        // A stream cannot be read twice: the analyzer given the point fits the ring on the frames as
        // they come, and gets the same ring as the fit on the file.
        let tap = try RimPoint(x: 0.635, y: 1.0 / 3 + 0.01)
        var streaming = WorkoutAnalyzer(rim: nil)
        streaming.rimPoint = tap
        var told: RimFinder.Fit?
        let streamed = try streaming.analyze(source: .file(path), onFit: { told = $0 })
        #expect(streamed.rimFitted == (try RimFinder().fit(near: tap, in: path)) && told == streamed.rimFitted)
        #expect(streamed.rimFitted?.fitted == true && streamed.rim == streamed.rimFitted?.rim)
        // `lebot live` (a camera stream) takes the point too, and asks for it when no hoop is found.
        let live = try await lebot(["live", path, "--rim", "0.635,0.343", "--quiet"])
        #expect(
            live.status == 0 && live.stdout.contains("Rim fitted at ") && live.stdout.contains("a dark ring"),
            "\(live.stdout) \(live.stderr)")
        let unfound = try await lebot(["live", path, "--quiet"])
        #expect(unfound.status != 0 && unfound.stderr.contains("--rim x,y"), "\(unfound.stderr)")
        // A tap on the bare board: no ring there, so a box of typical size centred on the tap.
        let bare = try RimFinder().fit(near: try RimPoint(x: 0.2, y: 0.7), in: path)
        #expect(!bare.fitted && bare.evidence.contains("no ring clear"))
        #expect(
            abs(bare.rim.x + bare.rim.width / 2 - 0.2) < 1e-9 && abs(bare.rim.width - RimFinder.tapBox.width) < 1e-9)
        // What is wrong with a point is named.
        for (text, words) in [
            ("0.5", "x,y,width,height"), ("1.2,0.5", "fractions of the frame"), ("a,b", "x,y of a point"),
        ] {
            let run = try await lebot(["analyze", path, "--rim", text])
            #expect(run.status != 0 && run.stderr.contains(words), "\(text): \(run.stderr)")
        }
    }
}
