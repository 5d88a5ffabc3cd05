import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a video's streams, duration, frame count and keyframe interval.",
        discussion: """
            Reads every packet (without decoding) so frame counts and keyframe positions are exact, \
            not estimates from the container header. For live sources, --seconds limits the scan.
            """)

    @Argument(help: "A file, stream URL or FORMAT:DEVICE.")
    var input: String

    @Option(help: "Stop after this many seconds of media (use for live streams).")
    var seconds: Double?

    @Flag(help: "Print JSON (with every keyframe time) instead of text.")
    var json = false

    @OptionGroup var inputOptions: InputOptions

    func run() throws {
        let source = MediaSource(parsing: input)
        let limit = seconds ?? (source.isNetwork ? 5 : nil)
        let report = try ProbeReport.probe(source, maxSeconds: limit, options: inputOptions.readerOptions())
        if json {
            try printJSON(report)
            return
        }
        let duration = report.duration.map { ", \(clock($0))" } ?? ""
        print("\(report.source)  (\(report.format)\(duration))")
        for stream in report.streams {
            var parts = ["#\(stream.index) \(stream.type.rawValue)", stream.codec]
            if let width = stream.width, let height = stream.height { parts.append("\(width)x\(height)") }
            if let fps = stream.frameRate { parts.append("\(formatNumber(fps)) fps") }
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let channels = stream.channels { parts.append("\(channels) ch") }
            if let bitRate = stream.bitRate { parts.append("\(bitRate / 1000) kb/s") }
            if stream.rotation != 0 { parts.append("rotated \(stream.rotation)°") }
            parts.append("\(stream.sampleCount) \(stream.type == .video ? "frames" : "packets")")
            if let duration = stream.duration { parts.append(clock(duration)) }
            if let keys = stream.keyframeTimes {
                parts.append("\(keys.count) keyframes")
            }
            if let gop = stream.keyframeInterval {
                let frames = gop.minFrames == gop.maxFrames ? "\(gop.minFrames)" : "\(gop.minFrames)–\(gop.maxFrames)"
                parts.append("keyframe every \(frames) frames (\(formatNumber(gop.meanSeconds)) s)")
            }
            print("  " + parts.joined(separator: "  "))
        }
    }
}

func formatNumber(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
