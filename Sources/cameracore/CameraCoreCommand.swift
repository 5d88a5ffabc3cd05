import ArgumentParser
import CameraCommon
import CameraIO

@main
struct CameraCoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameracore",
        abstract: "Inspect, cut and sample video with CameraCore's FFmpeg engine.",
        discussion: """
            Inputs can be files, stream URLs (rtsp://, rtmp://, srt://, udp://, http://) or capture \
            devices written as FORMAT:NAME (v4l2:/dev/video0, x11grab::0.0). Passwords in URLs are \
            never printed.

            Examples:
              cameracore probe match.mp4
              cameracore probe rtsp://user:pass@camera.local/stream --seconds 5 --json
              cameracore remux match.mp4 highlight.mp4 --from 1:05 --to 1:35
              cameracore frames match.mp4 --every 30 --out thumbs/
              cameracore check match.mp4
              cameracore effects match.mp4 --stack stack.json -o styled.mp4
              cameracore edit new reel.json intro.mp4 match.mp4
              cameracore edit export reel.json -o reel.mp4
              cameracore playable IMG_0042.MOV workout.mp4
            """,
        version: cameraCoreVersion,
        subcommands: [
            Probe.self, Remux.self, Frames.self, Check.self, Effects.self, EditCommand.self, Playable.self, Demo.self,
        ]
    )
}

/// Options every command that opens an input shares.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("transport"), help: "RTSP transport: tcp or udp.")
    var transport: ReaderOptions.Transport = .tcp

    @Option(help: "Seconds a network read may stall before giving up.")
    var timeout: Double = 10

    @Option(name: .customLong("format"), help: "Force an input format (mp4, mpegts, v4l2, x11grab, ...).")
    var inputFormat: String?

    @Option(
        name: .customLong("input-option"), parsing: .singleValue,
        help: ArgumentHelp(
            "Extra FFmpeg input option KEY=VALUE (repeatable), e.g. video_size=1920x1080.", valueName: "key=value"))
    var inputOptions: [String] = []

    func readerOptions() throws -> ReaderOptions {
        var options: [String: String] = [:]
        for pair in inputOptions {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--input-option expects KEY=VALUE, got \"\(pair)\"")
            }
            options[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        return ReaderOptions(
            rtspTransport: transport, timeout: .milliseconds(Int64(timeout * 1000)), inputFormat: inputFormat,
            options: options)
    }
}

extension ReaderOptions.Transport: ExpressibleByArgument {}

extension MediaTime: ExpressibleByArgument {
    public init?(argument: String) {
        guard let time = try? MediaTime(parsing: argument) else { return nil }
        self = time
    }
}
