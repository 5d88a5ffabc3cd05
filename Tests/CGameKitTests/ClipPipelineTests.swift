import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CameraTestPeers
import CameraTesting
import Foundation
import Testing

/// The built `cgame` executable next to the test bundle.
let cgameBinary: String = {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if folder.path.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
    return folder.appendingPathComponent("cgame").path
}()

@Suite(.serialized) struct ClipPipelineTests {
    /// 24 s at 30 fps, keyframes every second, AAC audio: a triple kill at 3, 4.5, 6 s and a single
    /// kill at 17 s.
    static func gameplay(in directory: String) throws -> GameplayCorpus.Video {
        try GameplayCorpus.make(
            in: directory, name: "match.mp4", region: ProfileLibrary.builtIn[0].region,
            feed: [
                Line(type: "Kill", text: "Ninja eliminated Bot42", start: 3, end: 6.5),
                Line(type: "Kill", text: "Ninja eliminated Raven", start: 4.5, end: 8),
                Line(type: "Kill", text: "Ninja eliminated Echo", start: 6, end: 9.5),
                Line(type: "Kill", text: "Ninja eliminated Quill", start: 17, end: 20.5),
            ], seconds: 24, audio: true)
    }

    @Test func exportedClipsCoverTheHighlightPlusOnlyTheKeyframeLeadIn() throws {
        let directory = try temporaryDirectory()
        let video = try Self.gameplay(in: directory)
        let store = try PendingClipStore(root: directory + "/store")
        let settings = HighlightSettings(preRoll: 2, postRoll: 2, cooldown: 4)
        let summary = try HighlightPipeline(
            configuration: .init(source: .file(video.path), profile: ProfileLibrary.builtIn[0], highlights: settings)
        ).run(store: store)
        #expect(summary.events.count == 4)
        try #require(summary.clips.count == 2, "\(summary.failures)")
        let triple = summary.clips[0]
        let single = summary.clips[1]
        #expect(triple.name == "Triple Kill" && triple.events == ["Kill", "Kill", "Kill"])
        #expect(single.name == "Kill")
        let frame = 1.0 / 30
        for (clip, first, last) in [(triple, 3.0, 6.0), (single, 17.0, 17.0)] {
            let wantedStart = first - 2
            let wantedEnd = last + 2
            // Starts at the keyframe at or before first − preRoll: at most one GOP (1 s) early.
            #expect(clip.sourceStart <= wantedStart + 0.15)
            #expect(clip.sourceStart >= wantedStart - 1 - frame)
            #expect(clip.sourceStart.truncatingRemainder(dividingBy: 1) < 0.001)  // on a keyframe
            // Ends at last + postRoll: detection may be one sampling step late (reference frames come
            // every 4th frame here, 0.13 s) and a stream copy keeps the B-frames' forward reference
            // (up to 4 frames).
            #expect(clip.sourceStart + clip.duration >= wantedEnd - frame)
            #expect(clip.sourceStart + clip.duration <= wantedEnd + 0.14 + 4 * frame)
            // ffprobe decodes every frame of the file, which has video and audio of the right length.
            let probe = try FFprobeReport.read(clip.localPath)
            let expectedFrames = Int((clip.duration * 30).rounded())
            #expect(abs(probe.videoFrames.count - expectedFrames) <= 3)
            #expect(probe.videoFrames.first?.isKeyframe == true)
            #expect(!probe.audioFrames.isEmpty)
            #expect(abs((probe.formatDuration ?? 0) - clip.duration) < 0.1)
            // Event offsets point into the clip; the thumbnail is a JPEG of the first event.
            #expect(abs(clip.eventOffsets[0] - (first - clip.sourceStart)) < 0.15)
            let thumbnail = try ImageDecoder.load(try #require(clip.thumbnailPath), format: .rgba)
            #expect(thumbnail.width == 640 && thumbnail.height == 360)
        }
        // The store lists exactly these clips, readable after a restart.
        let reopened = try PendingClipStore(root: directory + "/store")
        #expect(reopened.loadPendingClipMetadata().map(\.id).sorted() == summary.clips.map(\.id).sorted())
    }

    /// A phone's screen recording may be stored turned, with a display matrix players follow: the
    /// kill feed is then read where the profile's region is drawn on the picture as shown, the
    /// clips (stream copies) keep the matrix, and the thumbnails are of the picture as shown.
    @Test func aRecordingStoredTurnedIsReadAsItIsShown() throws {
        let directory = try temporaryDirectory()
        let video = try Self.gameplay(in: directory)
        let turned = try TestMedia.storedTurned(video.path, to: directory + "/turned.mp4", degrees: 90)
        let store = try PendingClipStore(root: directory + "/store")
        let summary = try HighlightPipeline(
            configuration: .init(
                source: .file(turned), profile: ProfileLibrary.builtIn[0],
                highlights: HighlightSettings(preRoll: 2, postRoll: 2, cooldown: 4))
        ).run(store: store)
        #expect(summary.events.count == 4, "\(summary.events.map(\.text))")
        try #require(summary.clips.count == 2, "\(summary.failures)")
        #expect(summary.clips[0].name == "Triple Kill" && summary.clips[1].name == "Kill")
        for clip in summary.clips {
            #expect(
                try MediaReader(.file(clip.localPath)).videoStream?.rotation == 90, "a stream copy keeps the matrix")
            let thumbnail = try ImageDecoder.load(try #require(clip.thumbnailPath), format: .rgba)
            #expect(thumbnail.width == 640 && thumbnail.height == 360, "the picture as shown")
        }
    }

    @Test func keepingAClipMovesItsFilesAndEntry() throws {
        let directory = try temporaryDirectory()
        let video = try TestMedia.lavfi(in: directory, seconds: 2)
        let store = try PendingClipStore(root: directory + "/store")
        let path = store.pendingVideoPath(id: "abc")
        try FileManager.default.copyItem(atPath: video.path, toPath: path)
        let clip = ClipMetadata(
            id: "abc", game: "Fortnite", events: ["Kill"], timestamp: Date(), duration: 2, name: "Kill",
            eventOffsets: [1], localPath: path, thumbnailPath: nil, sourceStart: 0, sourceEnd: 2)
        try store.saveClipMetadata(clip)
        #expect(store.loadPendingClipMetadata() == [clip])
        let kept = try store.keep(clip)
        #expect(store.loadPendingClipMetadata().isEmpty)
        #expect(store.loadSavedClips().map(\.id) == ["abc"])
        #expect(FileManager.default.fileExists(atPath: kept.localPath))
        #expect(!FileManager.default.fileExists(atPath: path))
        // An entry whose video vanished is not listed, and is reported.
        var ghost = clip
        ghost.id = "ghost"
        ghost.localPath = store.pendingVideoPath(id: "ghost")
        try FileManager.default.copyItem(atPath: video.path, toPath: ghost.localPath)
        try store.saveClipMetadata(ghost)
        try FileManager.default.removeItem(atPath: ghost.localPath)
        #expect(store.loadPendingClipMetadata().isEmpty)
        #expect(store.problems.count == 1)
    }

    /// kill -9 the `cgame run` process at random moments, many times: whatever the store lists must
    /// be complete, decodable clips; leftovers are unlisted and cleaned up.
    @Test func theStoreSurvivesKillNineAtAnyMoment() throws {
        let directory = try temporaryDirectory()
        // A kill every 4.5 s (cooldown 1 s) so clips are written all the time.
        var feed: [Line] = []
        for index in 0..<8 {
            let start = 1.0 + Double(index) * 4.5
            feed.append(
                Line(
                    type: "Kill", text: "Ninja eliminated \(GameplayCorpus.names[index])", start: start, end: start + 3)
            )
        }
        let video = try GameplayCorpus.make(
            in: directory, name: "long.mp4", region: ProfileLibrary.builtIn[0].region, feed: feed, width: 960,
            height: 540, seconds: 38)
        let storePath = directory + "/store"
        var generator = SeededGenerator(seed: 5)
        var listedOverall = Set<String>()
        for trial in 0..<6 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: cgameBinary)
            process.arguments = [
                "run", video.path, "--profile", "fortnite", "--store", storePath, "--pre-roll", "1", "--post-roll",
                "0.5", "--cooldown", "1", "--json",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double.random(in: 1.0...6.0, using: &generator)
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let store = try PendingClipStore(root: storePath)
            for clip in store.loadPendingClipMetadata() {
                listedOverall.insert(clip.id)
                let reader = try MediaReader(.file(clip.localPath))
                #expect(reader.videoStream != nil, "trial \(trial): \(clip.localPath)")
                var frames = 0
                while let sample = try reader.nextSample() {
                    if sample.mediaType == .video { frames += 1 }
                }
                #expect(frames > 0)
                if let thumbnail = clip.thumbnailPath { #expect(FileManager.default.fileExists(atPath: thumbnail)) }
            }
            #expect(store.problems.isEmpty, "trial \(trial): \(store.problems)")
            store.removeOrphans()
            let left = try FileManager.default.contentsOfDirectory(atPath: store.pendingDirectory)
            #expect(left.allSatisfy { !$0.hasPrefix(".") })
        }
        #expect(!listedOverall.isEmpty)  // the kills did not all land before the first clip
    }

    @Test func reelsJoinClipsWithCrossfadesATitleAndATargetLength() throws {
        let directory = try temporaryDirectory()
        var items: [VideoCompiler.Item] = []
        for index in 0..<3 {
            let clip = try TestMedia.lavfi(
                in: directory, name: "clip\(index).mp4", width: 320, height: 180, seconds: 3, audio: index != 1)
            items.append(VideoCompiler.Item(path: clip.path, focus: 1.5))
        }
        let reel = directory + "/reel.mp4"
        let result = try VideoCompiler.compile(
            items, to: reel, options: .init(transitionDuration: 0.5, title: "Best of", titleDuration: 1))
        // 1 + 3 × 3 − 3 overlaps of 0.5 = 8.5 s.
        #expect(abs(result.duration - 8.5) < 0.05)
        let probe = try FFprobeReport.read(reel)
        #expect(abs(probe.videoFrames.count - 255) <= 2)
        #expect(!probe.audioFrames.isEmpty)
        #expect(probe.width == 320 && probe.height == 180)
        // The title card is dark with white text; the first clip is a bright test pattern.
        let reader = try MediaReader(.file(reel))
        let decoder = try VideoDecoder(reader: reader, format: .gray8)
        var firstFrame: VideoFrame?
        while firstFrame == nil, let sample = try reader.nextSample() { firstFrame = try decoder.decode(sample).first }
        let luma = try #require(firstFrame).planes[0].bytes
        let mean = Double(luma.reduce(0) { $0 + Int($1) }) / Double(luma.count)
        #expect(mean < 60 && luma.contains { $0 > 200 })

        let short = directory + "/short.mp4"
        let fitted = try VideoCompiler.compile(items, to: short, options: .init(targetDuration: 5))
        #expect(abs(fitted.duration - 5) < 0.1)
        let impossible = Result { () throws(MediaError) in
            try VideoCompiler.compile(items, to: directory + "/x.mp4", options: .init(targetDuration: 0.5))
        }
        guard case .failure(let error) = impossible else {
            Issue.record("a 0.5 s reel of 3 clips was made")
            return
        }
        #expect(error.kind == .invalidArgument)
    }

    @Test func theCommandValidatesProfilesAndReportsEventsAsJSON() throws {
        let directory = try temporaryDirectory()
        let bad = directory + "/bad.json"
        try #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "events": [{"type":"Kill"}]}"#.write(
            toFile: bad, atomically: true, encoding: .utf8)
        let validation = try Subprocess.run(cgameBinary, ["profiles", "validate", bad], check: false)
        #expect(validation.status == 1)
        #expect(validation.stderr.contains("events[0]: needs keywords or patterns"))

        let video = try GameplayCorpus.make(
            in: directory, name: "short.mp4", region: ProfileLibrary.builtIn[0].region,
            feed: [Line(type: "Kill", text: "Ninja eliminated Bot42", start: 1, end: 3)], seconds: 4)
        let output = try Subprocess.run(cgameBinary, ["detect", video.path, "--profile", "fn", "--json"], check: false)
        #expect(output.status == 0, "\(output.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let events = try #require(json["events"] as? [[String: Any]])
        #expect(events.count == 1)
        #expect(events.first?["type"] as? String == "Kill")
        // --trace: every line read and what became of it; in the report with --json, else on stderr.
        // Timed as the events are, from the file's start, also when its clock starts elsewhere (a
        // screen grab's wall clock).
        let late = directory + "/late.mkv"
        _ = try Subprocess.run(
            "ffmpeg", ["-v", "error", "-y", "-i", video.path, "-c", "copy", "-output_ts_offset", "1000", late])
        let traced = try Subprocess.run(
            cgameBinary, ["detect", late, "--profile", "fn", "--json", "--trace"], check: false)
        #expect(traced.status == 0, "\(traced.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(traced.stdout.utf8)) as? [String: Any])
        let trace = try #require(report["trace"] as? [[String: Any]])
        let reported = trace.filter { $0["event"] != nil }
        #expect(reported.count == 1 && (reported.first?["text"] as? String)?.contains("Bot42") == true, "\(reported)")
        #expect(
            (reported.first?["decision"] as? String)?.hasPrefix("agrees with the line's first reading") == true)
        #expect(
            trace.count > 10 && trace.allSatisfy { (0...4).contains($0["time"] as? Double ?? -1) },
            "\(trace.map { $0["time"] ?? "" })")
        let event = try #require((report["events"] as? [[String: Any]])?.first?["time"] as? [String: Any])
        let eventTime = Double(event["value"] as? Int ?? 0) / Double(event["timescale"] as? Int ?? 1)
        #expect(
            abs((reported.first?["event"] as? Double ?? -1) - eventTime) < 0.001, "\(eventTime) \(reported)")
        #expect(json["trace"] == nil, "a trace without --trace")
        let told = try Subprocess.run(cgameBinary, ["detect", video.path, "--profile", "fn", "--trace"], check: false)
        #expect(told.status == 0)
        let lines = told.stderr.split(separator: "\n").filter { $0.contains(" → ") }
        #expect(lines.count == trace.count, "\(told.stderr)")
        #expect(
            lines.first?.contains(" s  Kill 0.") == true
                && lines.first?.hasSuffix("→ a new line: an event when the next reading agrees") == true,
            "\(told.stderr)")
        #expect(
            lines.contains { $0.contains("→ [the event at 1.00 s] agrees with the line's first reading: an event, “") },
            "\(told.stderr)")
        #expect(lines.contains { $0.hasSuffix(", read again") }, "\(told.stderr)")

        let missing = try Subprocess.run(
            cgameBinary, ["detect", directory + "/nope.mp4", "--profile", "fn"], check: false)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("nope.mp4"))
    }
}

@Suite(.serialized) struct LiveInputTests {
    /// A live RTSP stream: frames may be dropped rather than stall, and stop() ends the run cleanly
    /// with a summary.
    @Test func aLiveStreamRunsUntilStoppedAndReportsWhatItRead() throws {
        let server = RTSPTestServer(auth: .none, width: 640, height: 360, fps: 30)
        try server.start()
        defer { server.stop() }
        let pipeline = HighlightPipeline(
            configuration: .init(
                source: MediaSource(parsing: server.url()), readerOptions: ReaderOptions(timeout: .seconds(5)),
                profile: ProfileLibrary.builtIn[0]))
        #expect(pipeline.configuration.detector.dropWhenBusy)  // network sources drop rather than stall
        let stopper = Thread {
            Thread.sleep(forTimeInterval: 5)
            pipeline.stop()
        }
        stopper.start()
        let summary = try pipeline.run(store: nil)
        #expect(summary.events.isEmpty)  // a bouncing ball announces no kills
        #expect(summary.mediaSeconds > 1.5)
        #expect(summary.statistics.submitted + summary.statistics.dropped >= 10)
        #expect(summary.peakBufferBytes > 0)
    }
}

@Suite struct ObituaryTests {
    @Test(
        "cgame detect --profile oa-kills --player NAME counts the kills of that player in an obituary feed; without --player it says what is missing"
    )
    func obituaryFeedForOnePlayer() throws {
        let directory = try temporaryDirectory()
        let profile = try ProfileLibrary.profile(named: "oa-kills", userDirectory: directory)
        let lines = [
            ("Grism was railed by Sarge", 1.0), ("Sarge was railed by Major", 5.0),
            ("Kyonshi was machinegunned by Sarge", 9.0), ("Angelyss was railed by Gargoyle", 13.0),
        ]
        let video = try GameplayCorpus.make(
            in: directory, name: "obituaries.mp4", region: profile.region,
            feed: lines.map { Line(type: nil, text: $0.0, start: $0.1, end: $0.1 + 3) }, seconds: 17)
        let environment = ["env", "CGAME_HOME=\(directory)/home", cgameBinary]
        let detected = try Subprocess.run(
            environment[0],
            Array(environment.dropFirst()) + [
                "detect", video.path, "--profile", "oa-kills", "--player", "Sarge", "--json",
            ])
        let events =
            (try JSONSerialization.jsonObject(with: Data(detected.stdout.utf8)) as? [String: Any])?["events"]
            as? [[String: Any]] ?? []
        let texts = events.map { $0["text"] as? String ?? "" }
        #expect(texts.count == 2, "\(texts)")
        #expect(texts.first?.contains("Grism") == true && texts.last?.contains("Kyonshi") == true, "\(texts)")
        let missing = try Subprocess.run(
            environment[0], Array(environment.dropFirst()) + ["detect", video.path, "--profile", "oa-kills"],
            check: false)
        #expect(missing.status != 0 && missing.stderr.contains("--player NAME"), "\(missing.stderr)")
    }
}

@Suite struct CalibrationTests {
    @Test("cgame calibrate finds where a keyword is written, saves a profile, and that profile finds every kill")
    func calibrateThenDetect() throws {
        let directory = try temporaryDirectory()
        // A game no shipped profile knows: its feed sits bottom right.
        let truth = NormalizedRect(x: 0.55, y: 0.68, width: 0.4, height: 0.16)
        let kills: [(String, Double)] = [("Bot42", 2), ("Raven", 9), ("Echo", 16), ("Quill", 23)]
        let video = try GameplayCorpus.make(
            in: directory, name: "unknown.mp4", region: truth,
            feed: kills.map { Line(type: "Kill", text: "Ninja eliminated \($0.0)", start: $0.1, end: $0.1 + 3.5) },
            seconds: 28)
        let home = directory + "/home"
        let environment = ["env", "CGAME_HOME=\(home)", cgameBinary]
        let calibrated = try Subprocess.run(
            environment[0],
            Array(environment.dropFirst()) + [
                "calibrate", video.path, "--keyword", "eliminated", "--name", "Unknown Game", "--json",
            ], check: false)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(calibrated.stdout.utf8)) as? [String: Any]
        let calibration = report?["calibration"] as? [String: Any]
        let region = try #require(calibration?["region"] as? [String: Double])
        let (x, y, width, height) = (region["x"] ?? 0, region["y"] ?? 0, region["width"] ?? 0, region["height"] ?? 0)
        // Around the feed's lines (left edge at most a few words left of the truth's), and not the
        // whole screen.
        #expect(x <= truth.x + 0.02 && x >= truth.x - 0.15, "\(region)")
        // The corpus draws the line 2.6 % of the height tall, half that below the region's top.
        #expect(y <= truth.y + 0.013 && y + height >= truth.y + 0.039, "\(region)")
        #expect(width * height < 0.2, "the region covers \(Int(width * height * 100)) % of the frame")
        #expect(calibration?["alignment"] as? String == "left")
        #expect(FileManager.default.fileExists(atPath: home + "/profiles/unknown-game.json"))

        // The saved profile is used by name, and finds each kill once.
        let detected = try Subprocess.run(
            environment[0],
            Array(environment.dropFirst()) + ["detect", video.path, "--profile", "Unknown Game", "--json"])
        let events =
            (try JSONSerialization.jsonObject(with: Data(detected.stdout.utf8)) as? [String: Any])?["events"]
            as? [[String: Any]] ?? []
        #expect(events.count == kills.count, "\(events.map { $0["text"] ?? "" })")
        for (name, _) in kills {
            #expect(events.contains { ($0["text"] as? String ?? "").contains(name) }, "\(name) not found")
        }

        // Run again: the profile is not silently replaced; a keyword never shown is an error in words.
        let again = try Subprocess.run(
            environment[0],
            Array(environment.dropFirst()) + [
                "calibrate", video.path, "--keyword", "eliminated", "--name", "Unknown Game",
            ],
            check: false)
        #expect(again.status == 1 && again.stderr.contains("--force"), "\(again.stderr)")
        let absent = try Subprocess.run(
            environment[0],
            Array(environment.dropFirst()) + [
                "calibrate", video.path, "--keyword", "headshot", "--name", "Other", "--max-frames", "8",
            ], check: false)
        #expect(absent.status == 1 && absent.stderr.contains("\"headshot\" was not read"), "\(absent.stderr)")
    }
}
