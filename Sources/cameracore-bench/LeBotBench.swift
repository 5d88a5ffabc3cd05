import CameraTesting
import Foundation
import LeBotKit

/// LeBot: `lebot analyze` on 60 s of 720p30 pinned to one core, against ffmpeg decoding and
/// scaling the same file to the analysis size on the same core (the part of the work that is not
/// ours); and the tracker + detector's milliseconds per frame.
enum LeBotBench {
    /// A 60 s 720p30 workout from the basketball corpus, generated once.
    static func workoutVideo(in work: String) throws -> BasketballCorpus.Video {
        let folder = "\(work)/lebot-720p"
        let truth = "\(folder)/truth.json"
        if let data = FileManager.default.contents(atPath: truth),
            let videos = try? JSONDecoder().decode([BasketballCorpus.Video].self, from: data), let video = videos.first
        {
            return video
        }
        FileHandle.standardError.write(Data("generating a 720p workout in \(folder) (once)…\n".utf8))
        guard
            let video = try BasketballCorpus.generate(
                in: folder, videos: 1, eventsPerVideo: 19, width: 1280, height: 720, seed: 99
            ).first
        else { throw ValidationFailure("no video generated") }
        return video
    }

    /// The reference: ffmpeg decoding `path` and scaling it to the analysis size on one core, wall seconds.
    static func decodeSeconds(_ path: String) throws -> Double {
        try Measurement.run([
            "taskset", "-c", "0", "ffmpeg", "-v", "error", "-threads", "1", "-i", path, "-vf", "scale=640:360",
            "-pix_fmt", "yuv420p", "-f", "null", "-",
        ]).wallSeconds
    }

    static func run(work: String, lebot: String, runs: Int) throws {
        let video = try workoutVideo(in: work)
        let rim = video.rim.map { String($0) }.joined(separator: ",")
        var ours: [Double] = []
        var found: [Double] = []
        var theirs: [Double] = []
        var perFrame: [Double] = []
        var attempts = 0
        for _ in 0..<max(1, runs) {
            let started = Date()
            let output = try Subprocess.run(
                "taskset", ["-c", "0", lebot, "analyze", video.path, "--rim", rim, "--threads", "1", "--json"])
            ours.append(Date().timeIntervalSince(started))
            let report = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] ?? [:]
            perFrame.append(report["detectorMillisecondsPerFrame"] as? Double ?? 0)
            attempts = report["attempts"] as? Int ?? 0
            // The same without --rim: the rim finder reads the first 20 s once more.
            let finding = Date()
            _ = try Subprocess.run("taskset", ["-c", "0", lebot, "analyze", video.path, "--threads", "1", "--json"])
            found.append(Date().timeIntervalSince(finding))
            theirs.append(try decodeSeconds(video.path))
        }
        let shots = video.events.filter(\.kind.isShot).count
        print("")
        print("| case | ours | reference | ratio | goal |")
        print("|---|---|---|---|---|")
        print(
            "| `lebot analyze`, \(format(video.duration, digits: 0)) s 720p30 on one core (\(attempts) of \(shots) shots found) | \(format(median(ours), digits: 2)) s = \(format(video.duration / median(ours), digits: 1))× realtime | ffmpeg decode + scale to 640×360 on one core: \(format(median(theirs), digits: 2)) s | \(format(median(ours) / median(theirs), digits: 2)) | ≥ 3× realtime |"
        )
        print(
            "| the same without `--rim` (the rim found first) | \(format(median(found), digits: 2)) s = \(format(video.duration / median(found), digits: 1))× realtime | the same reference | \(format(median(found) / median(theirs), digits: 2)) | ≥ 3× realtime |"
        )
        print(
            "| ball tracker + shot detector per frame (640×360) | \(format(median(perFrame), digits: 2)) ms | | | ≤ 8 ms |"
        )
    }
}

extension LeBotBench {
    /// `lebot analyze` with no `--rim` on each of `paths` (e.g. the 3D court's steel-rim videos,
    /// whose grey rim takes the finder longest), pinned to one core, `runs` times, alternating with
    /// `baseline` (another `lebot`, e.g. the previous build) when given and with ffmpeg decoding and
    /// scaling the same file on the same core.
    static func runVideos(_ paths: [String], lebot: String, baseline: String?, runs: Int) throws {
        func analyze(_ executable: String, _ path: String) throws -> (seconds: Double, duration: Double) {
            let started = Date()
            let output = try Subprocess.run(
                "taskset", ["-c", "0", executable, "analyze", path, "--threads", "1", "--json"])
            let seconds = Date().timeIntervalSince(started)
            let report = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] ?? [:]
            return (seconds, report["duration"] as? Double ?? 0)
        }
        print("")
        print(
            "| video (no `--rim`, one core) | length | ours | baseline | ours / baseline | ffmpeg decode + scale | ours / ffmpeg |"
        )
        print("|---|---|---|---|---|---|---|")
        for path in paths {
            var (ours, theirs, decode) = ([Double](), [Double](), [Double]())
            var duration = 0.0
            for _ in 0..<max(1, runs) {
                let run = try analyze(lebot, path)
                ours.append(run.seconds)
                duration = run.duration
                if let baseline { theirs.append(try analyze(baseline, path).seconds) }
                decode.append(try decodeSeconds(path))
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            let realtime = { (seconds: Double) in
                "\(format(seconds, digits: 2)) s = \(format(duration / seconds, digits: 1))×"
            }
            print(
                "| \(name) | \(format(duration, digits: 1)) s | \(realtime(median(ours))) | \(theirs.isEmpty ? "-" : realtime(median(theirs))) | \(theirs.isEmpty ? "-" : format(median(ours) / median(theirs), digits: 2)) | \(format(median(decode), digits: 2)) s | \(format(median(ours) / median(decode), digits: 2)) |"
            )
        }
        print("")
        print("Medians of \(max(1, runs)) runs, alternating; ×: times realtime (goal ≥ 3×).")
    }
}

struct ValidationFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
