import ArgumentParser
import CameraAssemble
import CameraCommon
import CommandLineSupport
import Foundation

struct Playable: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a video into a form every browser plays (H.264 and AAC in MP4).",
        discussion: """
            Phones record H.265 (HEVC) by default. Safari plays it; Chromium and Firefox on Linux \
            and many Android browsers show a black picture with sound. The copy is re-encoded \
            with libx264 (veryfast, CRF 26), turned upright, scaled down to fit 1280×720 (720×1280 \
            upright) and at most 30 frames a second, with the sound kept. The server makes the same \
            copy of an H.265 workout, for its replay.

            A video that every browser plays already (H.264, VP8, VP9, AV1) is left alone unless \
            --force is given. The output file appears only when it is complete.

            Examples:
              cameracore playable IMG_0042.MOV workout.mp4
              cameracore playable IMG_0042.MOV workout.mp4 --json
            """)

    @Argument(help: "The video to copy (a file).")
    var input: String

    @Argument(help: "The MP4 to write.")
    var output: String

    @Flag(help: "Copy even a video every browser plays already.")
    var force = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    struct Result: Encodable {
        /// Why a copy was needed; nil when none was.
        var reason: String?
        var copied: Bool
        var output: String?
        var width: Int?
        var height: Int?
        var videoFrames: Int?
        var duration: Double?
        var hasAudio: Bool?
    }

    func run() throws {
        let reason = try BrowserCopy.reason(for: input)
        guard reason != nil || force else {
            if json {
                try printJSON(Result(reason: nil, copied: false))
            } else {
                print("\(input) plays in every browser already: nothing written (--force copies it anyway)")
            }
            return
        }
        let bar = Terminal.ProgressBar("copy")
        let result = try BrowserCopy.make(of: input, to: output, progress: bar.update)
        bar.finish()
        let size = try BrowserCopy.size(of: output)
        if json {
            try printJSON(
                Result(
                    reason: reason, copied: true, output: output, width: size.width, height: size.height,
                    videoFrames: result.videoFrames, duration: result.duration, hasAudio: result.hasAudio))
        } else {
            let why = reason.map { " (\($0))" } ?? ""
            print(
                "Wrote \(output): H.264 \(size.width)×\(size.height), \(clock(result.duration)), \(result.videoFrames) frames\(result.hasAudio ? ", with its sound" : ""); every browser plays it\(why)"
            )
        }
    }
}
