import ArgumentParser
import CameraAssemble
import CameraCommon
import CameraEffects
import CameraIO
import CameraTesting
import CameraTransform
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Side-by-side benchmarks: each case runs our command and the obvious alternative (usually the
/// ffmpeg command line) as child processes, alternating, and compares median wall time and peak
/// memory (the child's maximum resident set).
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameracore-bench",
        abstract: "Measure CameraCore against the ffmpeg command line, side by side.",
        discussion: """
            Generates a 60 s 1080p30 H.264 test video (cached in --work), then times each case \
            --runs times, alternating ours and theirs, and prints a Markdown table with median wall \
            times, their ratio (ours / theirs; below 1.0 means we are faster) and peak memory. \
            Run through `make bench`, which builds in release mode first.

            `--only court` is LeBot's accuracy table on the 3D court corpus instead: every camera \
            placement, tuning and held-out seeds, 1280×720, `lebot analyze` with no `--rim` (the \
            videos are rendered into --work the first time, ~5 minutes). `--only real-footage` \
            scores the rim finder and `lebot analyze` on real phone videos of outdoor courts \
            (scripts/real-footage.sh fetches them; they are not ours to ship). `--only rim-taps` \
            taps the rim of those videos and of the 3D court's (five taps each, a finger's error \
            apart) and scores the ring fitted there and what `lebot analyze --rim x,y` then finds. \
            `--only capture-encodes` counts CGame's kills on the server's capture test video \
            encoded as a browser would (VP8 in real time) at 600k–2M, read whole and with frames \
            dropped, and how many were named wrong as first reported and after corrections.
            """)

    @Option(help: "Folder for generated media and outputs.")
    var work: String = "bench-out"

    @Option(help: "Runs of each command per case (the median is reported).")
    var runs: Int = 5

    @Option(help: "Only run cases whose name contains this text.")
    var only: String?

    @Option(help: "With --only court: picture size and frame rate of the court videos, e.g. 1920x1080@60.")
    var courtFormat: String = "1280x720@30"

    @Flag(help: "With --only court: a handheld phone's camera (the picture wanders about a degree).")
    var courtHandheld = false

    @Flag(help: "With --only court: grey steel rims, as outdoors, not orange ones (the finder reads the board).")
    var courtSteelRim = false

    @Flag(help: "With --only court: the camera is knocked halfway through each video (the rim must be followed).")
    var courtKnock = false

    @Flag(
        help:
            "With --only court: score the tuning seeds alone (while changing the analyzer, so the held-out seeds stay unseen)."
    )
    var courtTuningOnly = false

    @Option(
        help:
            "With --only court or rim-taps: score these seeds alone, comma-separated (e.g. 701,702,703: one slice looked at closely; rim-taps then taps the court alone)."
    )
    var courtSeeds: String?

    @Option(
        help:
            "With --only real-footage: the folder of real basketball videos (filled by scripts/real-footage.sh)."
    )
    var realFootage: String = "real-footage"

    @Flag(
        help:
            "With --only real-footage or rim-taps: score the held-out videos (and with rim-taps the court's held-out seeds) too (once, at the end of a change)."
    )
    var realFootageHeldOut = false

    @Option(
        help:
            "With --only lebot: also time `lebot analyze` with no --rim on these videos, comma-separated (e.g. the 3D court's steel-rim videos)."
    )
    var lebotVideos: String?

    @Option(help: "With --lebot-videos: another lebot executable (e.g. the previous build) timed side by side.")
    var lebotBaseline: String?

    @Option(help: "With --only rim-taps: how far off the rim's centre the taps land, as a fraction of the picture.")
    var tapError = 0.01

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard (0...0.1).contains(tapError) else {
            throw ValidationError("--tap-error must be a fraction of the picture from 0 to 0.1, not \(tapError)")
        }
        if let lebotVideos {
            let missing = lebotVideos.split(separator: ",").filter {
                !FileManager.default.fileExists(atPath: String($0))
            }
            guard missing.isEmpty else {
                throw ValidationError("--lebot-videos: no such file: \(missing.joined(separator: ", "))")
            }
        }
        if let lebotBaseline, !FileManager.default.isExecutableFile(atPath: lebotBaseline) {
            throw ValidationError("--lebot-baseline must be an executable lebot, not '\(lebotBaseline)'")
        }
        if let courtSeeds, Self.seeds(courtSeeds) == nil {
            throw ValidationError(
                "--court-seeds must be whole numbers separated by commas, e.g. 701,702,703, not '\(courtSeeds)'")
        }
        guard CourtBench.Format(courtFormat) != nil else {
            throw ValidationError(
                "--court-format must be WIDTHxHEIGHT@FPS, e.g. 1920x1080@60 (at least 160x90, 10 to 120 fps), not '\(courtFormat)'"
            )
        }
    }

    /// `701,702,703` as seeds; nil when any part is not a whole number.
    static func seeds(_ text: String) -> [UInt64]? {
        let parts = text.split(separator: ",").map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        return parts.isEmpty || parts.contains(nil) ? nil : parts.compactMap { $0 }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        if only == "court" {
            // Accuracy alone: none of the speed cases' media is needed.
            var format = CourtBench.Format(courtFormat) ?? .standard
            format.handheld = courtHandheld
            format.steelRim = courtSteelRim
            format.knock = courtKnock
            try CourtBench.run(
                work: work, lebot: Self.siblingExecutable("lebot"), format: format, tuningOnly: courtTuningOnly,
                seeds: courtSeeds.flatMap(Self.seeds))
            return
        }
        if only == "capture-encodes" {
            // CGame's kill count on a browser's capture encoded in real time, at several qualities.
            try CGameBench.captureEncodes(work: work, drops: 20)
            return
        }
        if only == "real-footage" {
            try RealFootageBench.run(
                folder: realFootage, lebot: Self.siblingExecutable("lebot"), heldOut: realFootageHeldOut)
            return
        }
        if only == "rim-taps" {
            try RimTapBench.run(
                folder: realFootage, work: work, lebot: Self.siblingExecutable("lebot"), heldOut: realFootageHeldOut,
                courtSeeds: courtSeeds.flatMap(Self.seeds), error: tapError)
            return
        }
        if only == "lebot" {
            // LeBot's speed alone: its workout video is all it needs.
            if let lebotVideos {
                // Those videos alone.
                try LeBotBench.runVideos(
                    lebotVideos.split(separator: ",").map(String.init), lebot: Self.siblingExecutable("lebot"),
                    baseline: lebotBaseline, runs: runs)
                return
            }
            try LeBotBench.run(work: work, lebot: Self.siblingExecutable("lebot"), runs: runs)
            return
        }
        let cameracore = Self.siblingExecutable("cameracore")
        guard FileManager.default.isExecutableFile(atPath: cameracore) else {
            throw ValidationError("\(cameracore) is missing; build it first (make bench does)")
        }
        let source = try Self.sourceVideo(in: work)
        var cases: [BenchCase] = [
            BenchCase(
                name: "remux 30 s of 60 s 1080p30 (stream copy, faststart)",
                goal: "≤ 1.0",
                ours: [cameracore, "remux", source, "\(work)/ours-cut.mp4", "--from", "15", "--to", "45"],
                theirs: [
                    "ffmpeg", "-v", "error", "-y", "-ss", "15", "-to", "45", "-i", source, "-c", "copy",
                    "-movflags", "+faststart", "\(work)/ffmpeg-cut.mp4",
                ]),
            BenchCase(
                name: "decode 60 s 1080p30 to RGBA",
                goal: "≤ 1.1",
                ours: [cameracore, "check", source, "--pixel-format", "rgba"],
                theirs: ["ffmpeg", "-v", "error", "-i", source, "-pix_fmt", "rgba", "-f", "null", "-"]),
        ]
        // Three 10 s clips of the source; cuts at 0/20/40 s fall on keyframes (every 2 s).
        let ranges = [(0, 10), (20, 30), (40, 50)]
        let cutClips = ranges.enumerated().map { index, range in
            Clip(
                id: "c\(index)", source: source,
                range: TimeRange(
                    start: MediaTime(value: Int64(range.0), timescale: 1),
                    end: MediaTime(value: Int64(range.1), timescale: 1)))
        }
        try Project(timeline: Timeline(clips: cutClips)).save(to: "\(work)/cut-only.json")
        var fadeClips = cutClips
        for index in 0..<2 {
            fadeClips[index].transitionToNext = Transition(
                kind: .crossfade, duration: MediaTime(value: 1, timescale: 1))
        }
        try Project(timeline: Timeline(clips: fadeClips)).save(to: "\(work)/crossfades.json")
        let concatList = ranges.map {
            "file '\(URL(fileURLWithPath: source).path)'\ninpoint \($0.0)\noutpoint \($0.1)\n"
        }.joined()
        try concatList.write(toFile: "\(work)/concat.txt", atomically: true, encoding: .utf8)
        cases += [
            BenchCase(
                name: "cut-only timeline, 3 × 10 s 1080p (stream copy)",
                goal: "≤ 1.0",
                ours: [cameracore, "edit", "export", "\(work)/cut-only.json", "-o", "\(work)/ours-cuts.mp4"],
                theirs: [
                    "ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", "\(work)/concat.txt", "-c",
                    "copy",
                    "-movflags", "+faststart", "\(work)/ffmpeg-cuts.mp4",
                ]),
            BenchCase(
                name: "3 × 10 s 1080p with two 1 s crossfades (re-encode, x264 veryfast crf 20)",
                goal: "≤ 1.2",
                ours: [cameracore, "edit", "export", "\(work)/crossfades.json", "-o", "\(work)/ours-fades.mp4"],
                theirs: [
                    "ffmpeg", "-v", "error", "-y", "-ss", "0", "-t", "10", "-i", source, "-ss", "20", "-t", "10", "-i",
                    source,
                    "-ss", "40", "-t", "10", "-i", source, "-filter_complex",
                    "[0:v][1:v]xfade=transition=fade:duration=1:offset=9[v01];[v01][2:v]xfade=transition=fade:duration=1:offset=18[v];[0:a][1:a]acrossfade=d=1[a01];[a01][2:a]acrossfade=d=1[a]",
                    "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", "60",
                    "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "\(work)/ffmpeg-fades.mp4",
                ],
                maxRuns: 2),
        ]
        // The replay copy of a phone's H.265 workout, as the server makes it, against the same
        // conversion on the ffmpeg command line.
        let phone = try Self.phoneVideo(in: work)
        cases.append(
            BenchCase(
                name: "browser copy: 20 s 1080p60 H.265 to 720p30 H.264 (x264 veryfast crf 26, AAC)",
                goal: "≤ 1.2",
                ours: [cameracore, "playable", phone, "\(work)/ours-playable.mp4"],
                theirs: [
                    "ffmpeg", "-v", "error", "-y", "-i", phone, "-vf", "scale=1280:720,fps=30", "-c:v", "libx264",
                    "-preset", "veryfast", "-crf", "26", "-c:a", "aac", "\(work)/ffmpeg-playable.mp4",
                ],
                maxRuns: 3))
        // CGame: the whole detection pipeline on 60 s of 1080p60 against decoding alone.
        let cgame = Self.siblingExecutable("cgame")
        let gameplay = try CGameBench.gameplayVideo(in: work)
        cases.append(
            BenchCase(
                name: "cgame detect, 60 s 1080p60 gameplay, OCR at 10 Hz (vs decoding alone)",
                goal: "≥ 4× realtime",
                ours: [cgame, "detect", gameplay, "--profile", "fortnite"],
                theirs: ["ffmpeg", "-v", "error", "-i", gameplay, "-f", "null", "-"],
                maxRuns: 3))
        let runLayers = only.map { $0.contains("layer") } ?? true
        let runCGame = only.map { $0.contains("cgame") } ?? true
        let runWatchBox = only.map { $0.contains("watchbox") } ?? true
        let runLeBot = only.map { $0.contains("lebot") } ?? true
        let runServer = only.map { $0.contains("server") } ?? true
        let runCourt = only == nil
        if let only { cases = cases.filter { $0.name.contains(only) } }

        if !cases.isEmpty {
            print("| case | ours (s) | ffmpeg (s) | ratio | goal | ours peak MB | ffmpeg peak MB |")
            print("|---|---|---|---|---|---|---|")
        }
        for benchCase in cases {
            var ours: [Measurement] = []
            var theirs: [Measurement] = []
            for _ in 0..<min(runs, benchCase.maxRuns) {
                ours.append(try Measurement.run(benchCase.ours))
                theirs.append(try Measurement.run(benchCase.theirs))
            }
            let oursWall = median(ours.map(\.wallSeconds))
            let theirsWall = median(theirs.map(\.wallSeconds))
            print(
                "| \(benchCase.name) | \(format(oursWall)) | \(format(theirsWall)) | \(format(oursWall / theirsWall)) | \(benchCase.goal) | \(format(Double(ours.map(\.peakKilobytes).max() ?? 0) / 1024, digits: 1)) | \(format(Double(theirs.map(\.peakKilobytes).max() ?? 0) / 1024, digits: 1)) |"
            )
        }
        // In-process last: a child's peak-memory reading includes its parent's memory at spawn.
        if runLayers {
            print("")
            try LayerBench.run(source: source)
        }
        if runCGame {
            try CGameBench.run(work: work, gameplay: gameplay, runs: runs)
        }
        if runWatchBox {
            try WatchBoxBench.run(runs: runs)
        }
        if runLeBot {
            try LeBotBench.run(work: work, lebot: Self.siblingExecutable("lebot"), runs: runs)
        }
        if runServer {
            try ServerBench.run(work: work, server: Self.siblingExecutable("cameracore-server"), runs: runs)
        }
        if runCourt {
            try CourtBench.run(work: work, lebot: Self.siblingExecutable("lebot"))
        }
    }

    /// The 60 s 1080p30 source, generated once: testsrc2 (moving, detailed), x264 veryfast at
    /// 8 Mbit/s, a keyframe every 2 s, AAC audio.
    static func sourceVideo(in work: String) throws -> String {
        try generatedOnce(
            "\(work)/source-1080p30-60s.mp4", size: "1920x1080", rate: 30, seconds: 60,
            video: [
                "-c:v", "libx264", "-preset", "veryfast", "-b:v", "8M", "-maxrate", "8M", "-bufsize", "16M",
                "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-movflags", "+faststart",
            ])
    }

    /// 20 s of 1080p60 H.265 with sound, as a phone records, generated once.
    static func phoneVideo(in work: String) throws -> String {
        try generatedOnce(
            "\(work)/phone-1080p60-hevc-20s.mp4", size: "1920x1080", rate: 60, seconds: 20,
            video: ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1"])
    }

    /// `path`: testsrc2 at `size` and `rate` for `seconds` with a 440 Hz tone (AAC), encoded with
    /// the `video` arguments; made the first time, then reused.
    static func generatedOnce(_ path: String, size: String, rate: Int, seconds: Int, video: [String]) throws
        -> String
    {
        if FileManager.default.fileExists(atPath: path) { return path }
        FileHandle.standardError.write(Data("generating \(path) (once)…\n".utf8))
        try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            ] + video + ["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "\(path).tmp.mp4"])
        try FileManager.default.moveItem(atPath: "\(path).tmp.mp4", toPath: path)
        return path
    }

    static func siblingExecutable(_ name: String) -> String {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent(name).path
    }
}

struct BenchCase {
    var name: String
    var goal: String
    var ours: [String]
    var theirs: [String]
    /// Long cases run fewer times.
    var maxRuns: Int = .max
}

/// One child process's wall time and peak resident memory.
struct Measurement {
    var wallSeconds: Double
    var peakKilobytes: Int

    static func run(_ command: [String]) throws -> Measurement {
        let started = Date()
        let exit = try ChildProcess.run(command)
        let wall = Date().timeIntervalSince(started)
        guard exit.status == 0 else {
            throw ValidationError("\(command.joined(separator: " ")) failed with status \(exit.status)")
        }
        return Measurement(wallSeconds: wall, peakKilobytes: exit.peakKilobytes)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double, digits: Int = 3) -> String {
    String(format: "%.\(digits)f", value)
}

/// In-process: milliseconds per 1080p frame through a three-layer effect stack versus decoding
/// that frame (goal: the stack costs less than the decode).
enum LayerBench {
    static func run(source: String) throws {
        let reader = try MediaReader(.file(source))
        let decoder = try VideoDecoder(reader: reader, format: .rgba)
        // Decode 240 frames, keeping every fourth for the stack (keeping all would be 1 GB).
        var frames: [VideoFrame] = []
        var decoded = 0
        let clock = ContinuousClock()
        let decodeTime = try clock.measure {
            while decoded < 240, let sample = try reader.nextSample() {
                guard sample.mediaType == .video else { continue }
                for frame in try decoder.decode(sample) {
                    if decoded % 4 == 0 { frames.append(frame) }
                    decoded += 1
                }
            }
        }
        let stack = LayerStack(updateMode: .inline)
        stack.add(try FilterEffect(.init(kind: .sepia, amount: 0.6)))
        stack.add(try FilterEffect(.init(kind: .vignette, amount: 0.5)))
        stack.add(TextEffect(.init(text: "CameraCore 1080p", bold: true, size: 0.06)))
        _ = stack.render(frames[0], time: .zero)  // warm caches (text raster, vignette map)
        let probe = frames[0]
        // Each frame is handed over uniquely owned, as a decoder hands it, so layers work in place.
        var stackTime = Duration.zero
        for index in frames.indices {
            let frame = frames[index]
            frames[index] = VideoFrame(format: .gray8, width: 2, height: 2)
            stackTime += clock.measure { _ = stack.render(frame, time: MediaTime(value: Int64(index), timescale: 30)) }
        }
        if getenv("BENCH_LAYER_DETAIL") != nil {
            let layers: [(String, any TransformLayer)] = [
                ("sepia", try FilterEffect(.init(kind: .sepia, amount: 0.6))),
                ("vignette", try FilterEffect(.init(kind: .vignette, amount: 0.5))),
                ("text", TextEffect(.init(text: "CameraCore 1080p", bold: true, size: 0.06))),
            ]
            for (name, layer) in layers {
                let single = LayerStack(updateMode: .inline)
                single.add(layer)
                _ = single.render(probe)
                var total = Duration.zero
                for _ in 0..<10 {
                    var copy = probe
                    copy.planes[0].bytes[0] ^= 1  // a private copy before timing
                    let started = clock.now
                    _ = layer.renderInPlace(
                        &copy, context: RenderContext(renderSize: (copy.width, copy.height), time: .zero))
                    total += clock.now - started
                    if copy.planes[0].bytes[5] == 42 { print("", terminator: "") }
                }
                print("\(name): \(format(total.milliseconds / 10, digits: 2)) ms")
            }
        }
        let decodeMs = decodeTime.milliseconds / Double(decoded)
        let stackMs = stackTime.milliseconds / Double(frames.count)
        print("| case | ours (ms/frame) | decode (ms/frame) | ratio | goal |")
        print("|---|---|---|---|---|")
        print(
            "| 1080p RGBA through sepia + vignette + text (\(frames.count) frames) | \(format(stackMs, digits: 2)) | \(format(decodeMs, digits: 2)) | \(format(stackMs / decodeMs)) | < 1.0 |"
        )
        print("")
    }
}

extension Duration {
    var milliseconds: Double {
        seconds * 1000
    }
}
