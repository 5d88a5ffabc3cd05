import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport

#if canImport(Glibc)
    import Glibc
#endif

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode every frame to confirm a video plays to the end, and time the decode.",
        discussion: """
            Like `ffmpeg -i INPUT -pix_fmt rgba -f null -`: every video frame is decoded and converted \
            to the pixel format, nothing is written. Reports frames, decode speed and any error.
            """)

    @Argument(help: "A file, stream URL or FORMAT:DEVICE.")
    var input: String

    @Option(help: "Pixel format to convert to: rgba, yuv420p, nv12 or gray8.")
    var pixelFormat: PixelFormat = .rgba

    @Option(help: "Decoder threads (0 = one per core).")
    var threads: Int = 0

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var inputOptions: InputOptions

    struct Result: Encodable {
        var frames: Int
        var seconds: Double
        var framesPerSecond: Double
    }

    func run() throws {
        let started = monotonicSeconds()
        let reader = try MediaReader(MediaSource(parsing: input), options: inputOptions.readerOptions())
        let decoder = try VideoDecoder(reader: reader, format: pixelFormat, threads: threads)
        let videoIndex = decoder.stream.index
        var frames = 0
        let bar = Terminal.ProgressBar("check")
        let total = reader.duration?.seconds ?? 0
        while let sample = try reader.nextSample() {
            guard sample.streamIndex == videoIndex else { continue }
            let decoded = try decoder.decode(sample)
            frames += decoded.count
            if total > 0, let time = decoded.last?.pts?.seconds { bar.update(time / total) }
        }
        frames += try decoder.flush().count
        bar.finish()
        let elapsed = monotonicSeconds() - started
        let result = Result(frames: frames, seconds: elapsed, framesPerSecond: Double(frames) / max(elapsed, 1e-9))
        if json {
            try printJSON(result)
        } else {
            print(
                "OK: decoded \(frames) frames to \(pixelFormat.rawValue) in \(formatNumber(elapsed)) s (\(Int(result.framesPerSecond)) frames/s)"
            )
        }
    }
}

extension PixelFormat: ExpressibleByArgument {}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
