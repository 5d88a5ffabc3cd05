import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import LeBotKit
import Testing

/// Runs the built `lebot` next to the test bundle, off Swift's cooperative threads (this process's
/// test servers need them to answer it).
func lebot(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let run = try await SiblingTool.detached("lebot", arguments)
    return (run.status, run.stdout, run.stderr)
}

/// Every frame of a video (or one image) as 240×136 grey bytes, decoded by ffmpeg.
func grayFrames(_ path: String) throws -> [[UInt8]] {
    let bytes = try Subprocess.runBinary(
        "ffmpeg", ["-v", "error", "-i", path, "-vf", "scale=240:136", "-pix_fmt", "gray", "-f", "rawvideo", "-"])
    let size = 240 * 136
    return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
}

/// Sum of absolute differences of two equally sized grey pictures.
func difference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            var sum = 0
            for index in 0..<min(a.count, b.count) { sum &+= abs(Int(a[index]) &- Int(b[index])) }
            return sum
        }
    }
}

extension BasketballCorpus.Video {
    var rimArgument: String { rim.map { String($0) }.joined(separator: ",") }
}

/// The shot chart has the picture's shape: drawn on a 16:9 panel, a phone's portrait video had
/// its arcs stretched three times wider than they flew.
@Test func theShotChartHasThePicturesShape() throws {
    var analysis = WorkoutAnalysis(
        source: "portrait.mp4", rim: try RimCalibration(x: 0.8, y: 0.44, width: 0.06, height: 0.02), duration: 10,
        frames: 300, shots: [], processingSeconds: 1, detectorMillisecondsPerFrame: 1)
    let unknown = ShotChart(analysis: analysis)
    #expect((unknown.width, unknown.height) == (960, 540), "an analysis saved before the picture was kept")
    analysis.picture = .init(width: 720, height: 1280)
    let portrait = ShotChart(analysis: analysis)
    #expect((portrait.width, portrait.height) == (540, 960))
    #expect(portrait.svg().contains("width=\"540\" height=\"960\""))
    // The rim's bar sits where the rim is on the picture: 0.8 of 540 px across, 0.44 of 960 down.
    #expect(portrait.svg().contains("<rect x=\"432.0\" y=\"422.4\""), "\(portrait.svg().prefix(400))")
    analysis.picture = .init(width: 1920, height: 1080)
    let landscape = ShotChart(analysis: analysis)
    #expect((landscape.width, landscape.height) == (960, 540))
    // Kept in the JSON, and read back.
    let decoded = try JSONDecoder().decode(WorkoutAnalysis.self, from: try JSONEncoder().encode(analysis))
    #expect(decoded.picture == .init(width: 1920, height: 1080))
}

@Suite(.serialized) struct LeBotCommandTests {
    @Test func analyzePrintsShotsAsJSONAndDrawsTheChart() async throws {
        let video = try Corpus.videos.get()[1]
        let chart = Corpus.folder + "/chart.svg"
        let run = try await lebot(["analyze", video.path, "--rim", video.rimArgument, "--json", "--chart", chart])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        let shots = video.events.filter(\.kind.isShot)
        #expect(report["attempts"] as? Int == shots.count)
        #expect(report["makes"] as? Int == shots.filter(\.made).count)
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.components(separatedBy: "class=\"shot make\"").count - 1 == shots.filter(\.made).count)
        #expect(svg.components(separatedBy: "class=\"shot miss\"").count - 1 == shots.filter { !$0.made }.count)
        let png = Corpus.folder + "/chart.png"
        let annotated = Corpus.folder + "/annotated.mp4"
        let track = Corpus.folder + "/balls.csv"
        let drawn = try await lebot([
            "analyze", video.path, "--rim", video.rimArgument, "--chart", png, "--annotate", annotated, "--track",
            track,
        ])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        // The ball as tracked: a row per ball per frame, and at each release it is where the
        // video's truth put it (fractions of the frame).
        let rows = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "time,track,x,y,radius,confidence")
        let balls = rows.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(!balls.isEmpty && balls.allSatisfy { $0.count == 6 })
        for shot in shots {
            let there = balls.contains {
                abs($0[0] - shot.release) < 0.05 && abs($0[2] - shot.releaseX) < 0.03
                    && abs($0[3] - shot.releaseY) < 0.03
            }
            #expect(there, "no ball tracked near (\(shot.releaseX), \(shot.releaseY)) at \(shot.release) s")
        }
        // Every analysed frame is in the annotated video, and it decodes.
        let frames = report["frames"] as? Int ?? -1
        let probe = try Subprocess.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of",
                "csv=p=0", annotated,
            ])
        #expect(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == frames)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    /// `--help` says what is true now (the rim is found; there is no `lebot rim`) and reads as
    /// paragraphs: each line of prose is filled before the next begins (the texts were broken at 100
    /// columns and wrapped again at 80, leaving lines of two words).
    @Test func helpTeachesInWholeParagraphs() async throws {
        let top = try await lebot(["--help"])
        #expect(top.stdout.contains("The rim is found in the video by itself"), "\(top.stdout)")
        #expect(!top.stdout.contains("lebot rim"))
        for arguments in [["--help"], ["analyze", "--help"], ["live", "--help"]] {
            let help = try await lebot(arguments)
            #expect(
                HelpText.underfilledLines(help.stdout).isEmpty,
                "\(arguments): \(HelpText.underfilledLines(help.stdout))")
        }
    }

    @Test func liveGivesEveryShotATipFromGeminiOrLocally() async throws {
        let video = try Corpus.videos.get()[2]
        let shots = video.events.filter(\.kind.isShot).count
        let local = try await lebot(["live", video.path, "--rim", video.rimArgument, "--quiet", "--json"])
        #expect(local.status == 0, "\(local.stderr)")
        let lines = local.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let shotLines = lines.filter { $0["shot"] != nil }
        #expect(shotLines.count == shots)
        #expect(
            shotLines.allSatisfy { $0["tipSource"] as? String == "local" && ($0["tip"] as? String)?.isEmpty == false })
        #expect(lines.last?["attempts"] as? Int == shots)

        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        // The development path: Gemini directly with a key (through our server: CameraServerTests).
        let coached = try await lebot([
            "live", video.path, "--rim", video.rimArgument, "--quiet", "--json", "--api-key", server.apiKey,
            "--gemini-live-url", server.liveBase, "--gemini-url", server.restBase,
        ])
        #expect(coached.status == 0, "\(coached.stderr)")
        let coachedShots = coached.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["shot"] != nil }
        #expect(coachedShots.count == shots)
        #expect(coachedShots.allSatisfy { $0["tipSource"] as? String == "gemini-live" }, "\(coached.stdout)")
        #expect(server.liveTurns == shots)
        #expect(!coached.stdout.contains(server.apiKey) && !coached.stderr.contains(server.apiKey))
        // The smart frame selector: the last shot's frames sent to Gemini are the video's frames at
        // its release and at the rim (found by matching each sent JPEG against every decoded frame).
        // Shots are asked about at once, each on its own connection, so the requests may arrive in
        // any order: the last shot's is the one that carries its facts.
        let lastLine = try #require(coachedShots.last?["shot"])
        let last = try JSONDecoder().decode(ShotEvent.self, from: JSONSerialization.data(withJSONObject: lastLine))
        let asked = server.requests.filter { $0.prompt == ShotFacts(last).prompt }
        #expect(!asked.isEmpty, "no request with the last shot's facts: \(server.requests.map(\.prompt))")
        // At the rim; a shot that never reached it: when it was decided.
        let moments = [last.releaseTime, last.rimTime ?? last.decidedTime]
        let frames = try grayFrames(video.path)
        let period = 1 / Double(video.frameRate)
        // Frames a step apart can look alike (a ball that barely moved, under the JPEG's own error):
        // a sent picture is the moment's when a frame within a step of it matches the picture as
        // well as any frame of the video does (within 2 %).
        var sentFrames: [[Int]] = []
        var right = false
        for request in asked where request.images.count >= 2 {
            var best: [Int] = []
            var atMoments = true
            for (image, moment) in zip([request.images.first, request.images.last], moments) {
                let jpeg = Corpus.folder + "/sent.jpg"
                try Data(try #require(image)).write(to: URL(fileURLWithPath: jpeg))
                let picture = try #require(try grayFrames(jpeg).first)
                let scores = frames.map { Double(difference($0, picture)) }
                let lowest = scores.min() ?? 0
                best.append(scores.firstIndex(of: lowest) ?? -1)
                let index = Int((moment / period).rounded())
                let near = max(0, index - 1)...min(frames.count - 1, index + 1)
                if !near.contains(where: { scores[$0] <= lowest * 1.02 }) { atMoments = false }
            }
            sentFrames.append(best)
            if atMoments { right = true }
        }
        #expect(right, "frames \(sentFrames) (the best match of each) sent for the moments \(moments) s")
        let both = try await lebot([
            "live", video.path, "--rim", video.rimArgument, "--api-key", "k", "--proxy", "http://127.0.0.1:9",
        ])
        #expect(both.status != 0 && both.stderr.contains("not both"))
    }

    @Test func badInputIsNamedAndNothingCrashes() async throws {
        let missing = try await lebot(["analyze", "/nonexistent/workout.mp4", "--rim", "0.8,0.4,0.1,0.02"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("workout.mp4"))
        let badRim = try await lebot(["analyze", "/nonexistent/workout.mp4", "--rim", "2,0.4,0.1"])
        #expect(badRim.status != 0)
        #expect(badRim.stderr.contains("x,y,width,height"))
        let tipsFile = Corpus.folder + "/bad-tips.json"
        try Data(#"{"tips": [], "makes": ["ok"]}"#.utf8).write(to: URL(fileURLWithPath: tipsFile))
        let tips = try await lebot(["tips", "validate", tipsFile])
        #expect(tips.status != 0)
        #expect(tips.stderr.contains("\"tips\" is empty") && tips.stderr.contains("\"misses\" is missing"))
        let shown = try await lebot(["tips", "show"])
        let shownFile = Corpus.folder + "/shown.json"
        try Data(shown.stdout.utf8).write(to: URL(fileURLWithPath: shownFile))
        #expect(try await lebot(["tips", "validate", shownFile]).status == 0)
        // A file that is not a video.
        let junk = Corpus.folder + "/junk.mp4"
        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: junk))
        let garbage = try await lebot(["analyze", junk, "--rim", "0.8,0.4,0.1,0.02"])
        #expect(garbage.status != 0 && garbage.status != 134 && garbage.status < 128)
    }
}
