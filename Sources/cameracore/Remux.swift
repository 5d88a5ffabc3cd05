import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport

struct Remux: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a time range into a new MP4 without re-encoding.",
        discussion: """
            The copy starts at the keyframe at or before --from (a stream copy cannot start between \
            keyframes) and includes every frame up to --to; timestamps start at zero. Times are \
            seconds (12.5), units (90s, 500ms) or clock times (1:05, 0:01:05.250). The output file \
            appears only when it is complete.
            """)

    @Argument(help: "The source: a file, stream URL or FORMAT:DEVICE.")
    var input: String

    @Argument(help: "The MP4 to write.")
    var output: String

    @Option(help: "Start of the range (default: the beginning).")
    var from: MediaTime?

    @Option(help: "End of the range (default: the end).")
    var to: MediaTime?

    @Flag(help: "Leave audio out.")
    var noAudio = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        if let from, from < .zero { throw ValidationError("--from must not be negative") }
        if let from, let to, to <= from {
            throw ValidationError("--to (\(to.seconds)s) must be after --from (\(from.seconds)s)")
        }
    }

    func run() throws {
        let source = MediaSource(parsing: input)
        var range: TimeRange?
        if from != nil || to != nil {
            range = TimeRange(start: from ?? .zero, end: to ?? MediaTime(value: Int64(Int32.max), timescale: 1))
        }
        let bar = Terminal.ProgressBar("remux")
        let result = try Remuxer.copy(
            from: source, to: output, range: range, includeAudio: !noAudio, readerOptions: inputOptions.readerOptions(),
            progress: bar.update)
        bar.finish()
        if json {
            try printJSON(result)
        } else {
            var note = ""
            if let from, result.sourceStart < from {
                note = " (keyframe before \(clock(from.seconds)))"
            }
            print(
                "Wrote \(output): \(clock(result.duration.seconds)) from \(clock(result.sourceStart.seconds))\(note), \(result.videoFrames) frames, no re-encoding"
            )
        }
    }
}
