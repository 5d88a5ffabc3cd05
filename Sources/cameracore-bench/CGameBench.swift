import CGameKit
import CameraCommon
import CameraIO
import CameraTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CGame's benchmarks: OCR in-process against the `tesseract` command line on the same crops, the
/// memory of a 30 s buffer, and exporting a 20 s clip from it. (`cgame detect` against plain
/// decoding runs with the child-process cases.)
enum CGameBench {
    /// 60 s of 1080p60 gameplay at 8 Mbit/s with a kill-feed line every 6 s, generated once.
    static func gameplayVideo(in work: String) throws -> String {
        let path = "\(work)/gameplay-1080p60-60s.mp4"
        if FileManager.default.fileExists(atPath: path) { return path }
        FileHandle.standardError.write(Data("generating \(path) (once, about a minute)…\n".utf8))
        var feed: [GameplayCorpus.Line] = []
        for index in 0..<9 {
            let start = 3.0 + Double(index) * 6
            feed.append(
                .init(
                    type: "Kill", text: "Ninja eliminated \(GameplayCorpus.names[index])", start: start,
                    end: start + 3.5))
        }
        let video = try GameplayCorpus.make(
            in: work, name: "gameplay.tmp.mp4", region: ProfileLibrary.builtIn[0].region, feed: feed, width: 1920,
            height: 1080, frameRate: 60, seconds: 60, gopSize: 120, bitRate: "8M", audio: true)
        try FileManager.default.moveItem(atPath: video.path, toPath: path)
        return path
    }

    static func run(work: String, gameplay: String, runs: Int) throws {
        try ocr(work: work, gameplay: gameplay, runs: runs)
        try bufferAndExport(work: work, gameplay: gameplay, runs: runs)
    }

    /// The same 20 prepared crops through one in-process engine and through `tesseract` once each.
    static func ocr(work: String, gameplay: String, runs: Int) throws {
        let profile = ProfileLibrary.builtIn[0]
        let reader = try MediaReader(.file(gameplay))
        let decoder = try VideoDecoder(reader: reader, format: .yuv420p, every: 90)
        var crops: [String] = []
        var images: [VideoFrame] = []
        while crops.count < 20, let sample = try reader.nextSample() {
            for frame in try decoder.decode(sample) where crops.count < 20 {
                // Every crop, with text or without, as the detector would hand it over.
                let prepared =
                    try TextPreprocessor.prepare(frame, region: profile.region, options: profile.recognitionOptions)
                    ?? VideoFrame(format: .gray8, width: 652, height: 260, fill: [255])
                let path = "\(work)/crop\(crops.count).png"
                try ImageEncoder.write(prepared, to: path)
                crops.append(path)
                images.append(prepared)
            }
        }
        let clock = ContinuousClock()
        var engine: TesseractRecognizer?
        let load = try clock.measure { engine = try TesseractRecognizer() }
        var inProcess: [Double] = []
        for _ in 0..<runs {
            let elapsed = try clock.measure {
                for image in images { _ = try engine!.recognize(image, options: profile.recognitionOptions) }
            }
            inProcess.append(elapsed.milliseconds / Double(images.count))
        }
        var commandLine: [Double] = []
        for _ in 0..<max(1, runs / 2) {
            let started = Date()
            for crop in crops { _ = try Measurement.run(["tesseract", crop, "-", "--psm", "6"]) }
            commandLine.append(Date().timeIntervalSince(started) * 1000 / Double(crops.count))
        }
        let ours = median(inProcess)
        let theirs = median(commandLine)
        print("| case | ours (ms) | tesseract CLI (ms) | speed-up | goal |")
        print("|---|---|---|---|---|")
        print(
            "| OCR per 1080p kill-feed crop (\(images.count) crops, psm 6; engine load \(format(load.milliseconds, digits: 0)) ms once) | \(format(ours, digits: 1)) | \(format(theirs, digits: 1)) | \(format(theirs / ours, digits: 1))× | ≥ 5× |"
        )
        print("")
    }

    /// Fills a 30 s buffer from the 1080p60 video and exports a 20 s clip from it.
    static func bufferAndExport(work: String, gameplay: String, runs: Int) throws {

        let before = residentBytes()
        let reader = try MediaReader(.file(gameplay))
        let buffer = ContinuousBuffer()
        var peak = before
        var count = 0
        while let sample = try reader.nextSample() {
            buffer.add(sample)
            count += 1
            if count % 256 == 0 { peak = max(peak, residentBytes()) }
        }
        peak = max(peak, residentBytes())
        let held = Double(buffer.byteCount) / 1_048_576
        let growth = Double(peak - before) / 1_048_576
        let span = buffer.range?.duration.seconds ?? 0
        // Export the last 20 s ending 2 s before the newest sample.
        let end = buffer.range!.end - MediaTime(seconds: 2)
        let highlight = Highlight(
            range: TimeRange(start: end - MediaTime(seconds: 20), end: end),
            events: [DetectedEvent(type: "Kill", text: "bench", confidence: 1, time: end - MediaTime(seconds: 5))])
        let store = try PendingClipStore(root: "\(work)/cgame-store")
        let exporter = ClipExporter(store: store, streams: reader.streams, game: "Fortnite")
        let clock = ContinuousClock()
        var exports: [Double] = []
        for _ in 0..<max(3, runs) {
            var clip: ClipMetadata?
            exports.append(try clock.measure { clip = try exporter.export(highlight, from: buffer) }.milliseconds)
            if let clip {
                store.clearPending(id: clip.id)
                unlink(clip.localPath)
            }
        }
        let from = (end - MediaTime(seconds: 20)).seconds
        var ffmpeg: [Double] = []
        for _ in 0..<max(3, runs) {
            ffmpeg.append(
                try Measurement.run([
                    "ffmpeg", "-v", "error", "-y", "-ss", String(format: "%.3f", from), "-t", "20", "-i", gameplay,
                    "-c", "copy", "-movflags", "+faststart", "\(work)/ffmpeg-clip.mp4",
                ]).wallSeconds * 1000)
        }
        print("| case | ours | reference | goal |")
        print("|---|---|---|---|")
        print(
            "| 30 s buffer of 1080p60 at 8 Mbit/s: sample bytes held / process memory growth | \(format(held, digits: 1)) MB / \(format(growth, digits: 1)) MB (\(format(span, digits: 1)) s held) | raw frames: \(format(span * 60 * 1920 * 1080 * 1.5 / 1_073_741_824, digits: 1)) GB | ≤ 40 MB |"
        )
        print(
            "| export a 20 s clip from the buffer (stream copy, faststart MP4) | \(format(median(exports), digits: 1)) ms | ffmpeg -ss -t -c copy from the file: \(format(median(ffmpeg), digits: 1)) ms | ≤ 100 ms |"
        )
        print("")
    }

    /// Resident bytes of a process (`/proc/PID/statm`; this one by default).
    static func residentBytes(process: String = "self") -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
