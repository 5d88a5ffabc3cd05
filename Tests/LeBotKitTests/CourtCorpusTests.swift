import CameraCommon
import Foundation
import LeBotKit
import Testing

@testable import CameraTesting

/// `lebot analyze` without `--rim` on workouts rendered from a 3D gym through cameras placed at
/// the side (either side), at 45° (either side) and behind the shooter: shaded, spinning,
/// motion-blurred balls, a net that hides the ball and swings, people walking by (one in orange), a
/// second ball rolling, dim to bright light. One video per placement, 960×540, 6 events; the seeds
/// are ``CourtCorpus/tuningSeeds`` and ``CourtCorpus/heldOutSeeds`` (the rules were built looking at
/// the first only; `cameracore-bench --only court` scores all of both at 1280×720).
@Suite(.serialized) struct CourtCorpusTests {
    func render(seed: UInt64, name: String, handheld: Bool = false) throws -> [BasketballCorpus.Video] {
        var videos: [BasketballCorpus.Video] = []
        for placement in CourtCorpus.Placement.allCases {
            var options = CourtCorpus.Options(placement: placement, width: 960, height: 540, events: 6)
            options.handheld = handheld
            videos += try CourtCorpus.generate(in: Corpus.folder + "/court-\(name)", seeds: [seed], options: options)
        }
        return videos
    }

    func check(seed: UInt64, name: String, handheld: Bool = false) async throws {
        let videos = try render(seed: seed, name: name, handheld: handheld)
        let scored = try await RimFinderTests().score(videos)
        print("court \(name) seed \(seed):\n" + scored.lines.joined(separator: "\n"))
        // Every hoop found with no help, whatever the camera's place.
        #expect(scored.found == videos.count, "\(scored.lines)")
        // Below the goals (0.98 found, 0.97 right, ≤ 1 extra per 100): floors that catch a
        // regression. Measured at stop 29: tuning seed 1 25/25 found, 25 right, 0 extra; held-out
        // seed 501 25/25, 24 right, 0 extra (stop 28: 25, 22, 0 and 24, 23, 1). The 720p table of
        // every seed is `cameracore-bench --only court` (BENCHMARKS.md).
        #expect(Double(scored.detected) >= 0.9 * Double(scored.attempts), "\(scored.lines)")
        #expect(Double(scored.correct) >= 0.85 * Double(scored.detected), "\(scored.lines)")
        #expect(Double(scored.extra) <= 0.1 * Double(scored.attempts), "\(scored.lines)")
        checkNumbers(scored.numbers)
    }

    /// Noah's numbers where the view gives them, against the 3D scene's. From the side: how deep,
    /// for nearly every shot, within inches (720p, `cameracore-bench --only court`: median 1.1–4.1
    /// in on every slice since the bracket is left out of the rim's box), and the entry angle
    /// (3.0–4.8° on the tuning seeds and the slices first scored at stops 31 and 32, 6.8–13.9° on
    /// the older held-out slices); from behind: left or right (median 0.7–1.7 in), and neither depth nor
    /// the picture's entry angle, which from there are the camera's, not the ball's (before the
    /// view was told apart they were given, 35 in and 40° off). At 45° neither is reliable yet
    /// (BENCHMARKS.md), so nothing is asserted there.
    func checkNumbers(_ numbers: [String: NumbersScore]) {
        let side = (numbers["sideLeft"] ?? NumbersScore()) + (numbers["sideRight"] ?? NumbersScore())
        let behind = numbers["behind"] ?? NumbersScore()
        let summary = numbers.sorted { $0.key < $1.key }.map { placement, score in
            "\(placement): "
                + NumbersScore.Number.allCases.map { "\($0.rawValue) \(score.cell($0))" }.joined(separator: ", ")
        }
        print("numbers: \(summary)")
        #expect(side.shots >= 6 && behind.shots >= 3, "\(summary)")
        #expect(Double(side.errors[.depth]?.count ?? 0) >= 0.8 * Double(side.shots), "\(summary)")
        #expect((side.median(.depth) ?? .infinity) <= 8, "\(summary)")
        // The entry angle from the side: the slope of the fall's parabola where it reaches the rim
        // (the two frames around the crossing gave 40° and 54° off on this seed).
        #expect(Double(side.errors[.entryAngle]?.count ?? 0) >= 0.6 * Double(side.shots), "\(summary)")
        #expect((side.median(.entryAngle) ?? .infinity) <= 8, "\(summary)")
        #expect(Double(behind.errors[.leftRight]?.count ?? 0) >= 0.7 * Double(behind.shots), "\(summary)")
        #expect((behind.median(.leftRight) ?? .infinity) <= 4, "\(summary)")
        #expect((behind.errors[.depth]?.count ?? 0) + (behind.errors[.entryAngle]?.count ?? 0) <= 1, "\(summary)")
    }

    @Test func everyPlacementWithoutARimOnATuningSeed() async throws {
        try await check(seed: CourtCorpus.tuningSeeds[0], name: "tuning")
    }

    @Test func everyPlacementWithoutARimOnAHeldOutSeed() async throws {
        try await check(seed: CourtCorpus.heldOutSeeds[0], name: "held-out")
    }

    /// A phone held by hand: the picture wanders by up to about a degree the whole time. Without
    /// holding it still no rim was found on this seed at 720p (the rim is the orange that stays
    /// put, and the tracker's background saw the whole picture move); with ``FrameStabilizer`` the
    /// same floors as on a tripod hold. Measured at stop 30: 5/5 rims, 24/25 found, 24 right,
    /// 1 extra.
    @Test func aHandheldPhoneOnATuningSeed() async throws {
        try await check(seed: CourtCorpus.tuningSeeds[0], name: "handheld", handheld: true)
    }

    /// A phone stores a portrait video, or a landscape one held the other way up, turned, with a
    /// display matrix that players follow. LeBot read the stored picture: the same workout turned
    /// 180° found 2 of 5 shots at a rim on the wrong side, and in portrait no hoop at all, with
    /// pixel examples in a 720×1280 picture the user never saw (720p, sideLeft-4101). Read as it is
    /// shown, the rim is where the user sees it and the shots are the untouched video's.
    @Test func aPhonesTurnedVideoIsAnalysedAsItIsShown() throws {
        let video = try #require(
            try CourtCorpus.generate(
                in: Corpus.folder + "/court-turned", seeds: [CourtCorpus.tuningSeeds[0]],
                options: .init(placement: .sideLeft, width: 960, height: 540, events: 4)
            ).first)
        func scored(_ analysis: WorkoutAnalysis) -> (ShotScore<ShotEvent>, String) {
            let score = ShotScore(
                truth: video.events, shots: analysis.shots, release: \.releaseTime,
                made: { $0.outcome == .indeterminate ? nil : $0.outcome == .make })
            return (
                score,
                "rim \(analysis.rim) against \(video.rim); \(score.found)/\(score.attempts) found, \(score.correct) right, \(score.extra.count) extra"
            )
        }
        let (original, said) = scored(try WorkoutAnalyzer(rim: nil).analyze(video.path))
        #expect(original.found == original.attempts && original.correct == original.found, "\(said)")
        for degrees in [90, 180] {
            let path = try TestMedia.storedTurned(
                video.path, to: Corpus.folder + "/court-turned/turned-\(degrees).mp4", degrees: degrees)
            let analysis = try WorkoutAnalyzer(rim: nil).analyze(path)
            let (turned, told) = scored(analysis)
            #expect(rimError(analysis.rim, video.rim).isFound, "\(degrees)°: \(told)")
            #expect(analysis.picture == .init(width: 960, height: 540), "\(degrees)°: the picture as shown")
            #expect(
                turned.found == original.found && turned.correct == original.correct
                    && turned.extra.count == original.extra.count,
                "\(degrees)°: \(told); untouched: \(said)")
        }
    }

    /// The scene is 3D for real: the rim's box is where the projection puts it, narrower from the
    /// side at 45°, and the shooter stands on the side the placement names.
    @Test func placementsPutTheHoopWhereTheyName() throws {
        var centres: [CourtCorpus.Placement: Double] = [:]
        for placement in CourtCorpus.Placement.allCases {
            let video = try #require(
                try CourtCorpus.generate(
                    in: Corpus.folder + "/court-geometry", seeds: [7],
                    options: .init(placement: placement, width: 320, height: 180, events: 1)
                ).first)
            centres[placement] = video.rim[0] + video.rim[2] / 2
            #expect(video.placement == placement.rawValue)
        }
        #expect(centres[.sideLeft]! > 0.6 && centres[.angledLeft]! > 0.5, "hoop on the right: \(centres)")
        #expect(centres[.sideRight]! < 0.4 && centres[.angledRight]! < 0.5, "hoop on the left: \(centres)")
        #expect(abs(centres[.behind]! - 0.5) < 0.1, "behind: the hoop in the middle: \(centres)")
    }
    /// After a make the net moves in the picture from every placement, also once the ball is out of
    /// it, as a real net does: its bottom ring moves at least 2 px at 1280×720 in the half second
    /// after the ball has gone through. Until stop 66 the net only swung along the ball's way across
    /// the floor, and a make whose way was along the line of sight (from behind, or sent across by a
    /// knock on the rim, sideLeft-4742's at 60 fps) left it still.
    @Test func aMakeMovesTheNetInThePictureFromEveryPlacement() throws {
        typealias V3 = CourtCorpus.V3
        var least: [CourtCorpus.Placement: Double] = [:]
        for placement in CourtCorpus.Placement.allCases {
            for seed in 1...12 as ClosedRange<UInt64> {
                var generator = SeededGenerator(seed: seed)
                let camera = CourtCorpus.camera(for: .init(placement: placement), generator: &generator)
                let spot = CourtCorpus.shooterSpot(placement, generator: &generator)
                let release = spot + (V3(x: 0, y: 0, z: 0) - spot).normalized * 0.3 + V3(x: 0, y: 0, z: 2.2)
                for kind in [BasketballCorpus.Kind.clean, .bank] {
                    guard
                        let flight = CourtCorpus.shot(kind, from: release, frameRate: 30, generator: &generator),
                        flight.made
                    else { continue }
                    let way = CourtCorpus.swingWay(flight)
                    var most = 0.0
                    for age in stride(from: 0.15, through: 0.65, by: 1.0 / 60) {
                        let offset = CourtCorpus.netOffset(way: way, made: true, age: age)
                        for step in 0..<24 {
                            let angle = Double(step) / 24 * 2 * .pi
                            let ring = V3(
                                x: CourtCorpus.Court.netBottomRadius * cos(angle),
                                y: CourtCorpus.Court.netBottomRadius * sin(angle),
                                z: CourtCorpus.Court.rimHeight - CourtCorpus.Court.netDepth)
                            guard let still = camera.project(ring), let moved = camera.project(ring + offset) else {
                                continue
                            }
                            let (dx, dy) = (moved.x - still.x, moved.y - still.y)
                            most = max(most, (dx * dx + dy * dy).squareRoot())
                        }
                    }
                    least[placement] = min(least[placement] ?? .infinity, most)
                }
            }
        }
        #expect(least.count == CourtCorpus.Placement.allCases.count, "makes on every placement: \(least)")
        #expect(least.values.allSatisfy { $0 >= 2 }, "the least the net moved after a make, px: \(least)")
    }
}
