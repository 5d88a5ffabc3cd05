import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A short tour on generated media: encode, probe, cut and take thumbnails.",
        discussion: """
            Encodes a 10 s 1280x720 test video in-process (libx264), probes it, cuts 4 s out of the \
            middle without re-encoding, and saves one thumbnail per second, printing each step. Files \
            go to --out (default ./demo).
            """)

    @Option(help: "Folder for the demo's files.")
    var out: String = "demo"

    func run() throws {
        try WorkingDirectory.createDirectories(out)
        let width = 1280
        let height = 720
        let fps: Int32 = 30
        let frameCount = 300
        let source = "\(out)/demo-source.mp4"

        print("1. Encoding \(frameCount) frames (\(width)x\(height), \(fps) fps, keyframe every second) to \(source)")
        let encoder = try VideoEncoder(
            settings: .init(
                width: width, height: height, frameRate: Rational(fps, 1), gopSize: Int(fps), preset: "ultrafast"))
        let writer = try MediaWriter(destination: .file(source), streams: [encoder.stream])
        let bar = Terminal.ProgressBar("   encode")
        for index in 0..<frameCount {
            var frame = DemoPicture.frame(index: index, width: width, height: height)
            frame.pts = MediaTime(value: Int64(index), timescale: fps)
            for sample in try encoder.encode(frame) { try writer.write(sample) }
            bar.update(Double(index) / Double(frameCount))
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        bar.finish()

        print("2. Probing it")
        let report = try ProbeReport.probe(.file(source))
        if let video = report.streams.first(where: { $0.type == .video }) {
            let gop = video.keyframeInterval.map { "keyframe every \($0.maxFrames) frames" } ?? ""
            print(
                "   \(video.codec) \(video.width ?? 0)x\(video.height ?? 0), \(video.sampleCount) frames, \(clock(video.duration ?? 0)), \(gop)"
            )
        }

        let cut = "\(out)/demo-cut.mp4"
        print("3. Cutting 0:03.500–0:07.500 without re-encoding to \(cut)")
        let result = try Remuxer.copy(
            from: .file(source), to: cut,
            range: TimeRange(start: MediaTime(value: 7, timescale: 2), end: MediaTime(value: 15, timescale: 2)))
        print(
            "   starts at the keyframe at \(clock(result.sourceStart.seconds)), \(result.videoFrames) frames, \(clock(result.duration.seconds)) long"
        )

        let thumbs = "\(out)/thumbs"
        try WorkingDirectory.createDirectories(thumbs)
        print("4. Saving one 320x180 thumbnail per second to \(thumbs)/")
        let reader = try MediaReader(.file(source))
        let decoder = try VideoDecoder(reader: reader, format: .rgba, size: (320, 180), every: Int(fps))
        var saved = 0
        func save(_ frames: [VideoFrame]) throws {
            for frame in frames {
                try ImageEncoder.write(frame, to: "\(thumbs)/second-\(saved).png")
                saved += 1
            }
        }
        while let sample = try reader.nextSample() { try save(decoder.decode(sample)) }
        try save(decoder.flush())
        print("   \(saved) thumbnails")
        print("Done. Try: cameracore probe \(source) --json")
    }
}

/// A picture that shows motion and the frame number's binary code as blocks, so cuts are visible.
enum DemoPicture {
    static func frame(index: Int, width: Int, height: Int) -> VideoFrame {
        var frame = VideoFrame(format: .yuv420p, width: width, height: height, fill: [16, 128, 128])
        let barX = (index * 8) % width
        frame.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    luma[row + x] = UInt8(16 + ((x + y + index * 4) % 200))
                }
                for x in barX..<min(width, barX + 40) { luma[row + x] = 235 }
            }
            // 12 blocks encode the frame number in binary along the top.
            for bit in 0..<12 where index & (1 << bit) != 0 {
                for y in 10..<50 {
                    for x in (20 + bit * 60)..<(60 + bit * 60) { luma[y * width + x] = 235 }
                }
            }
        }
        return frame
    }
}
