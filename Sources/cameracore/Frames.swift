import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save every Nth frame as a PNG (or JPEG) image.",
        discussion: """
            Every frame is decoded (later frames depend on earlier ones) but only every Nth is \
            converted and saved, as frame-000000.png, frame-000030.png, ... named by frame number.
            """)

    @Argument(help: "A file, stream URL or FORMAT:DEVICE.")
    var input: String

    @Option(help: "Save one frame out of every N.")
    var every: Int = 1

    @Option(help: "Folder for the images (created if missing).")
    var out: String

    @Option(help: "Image width; the height keeps the aspect ratio.")
    var width: Int?

    @Option(help: "png or jpeg.")
    var imageFormat: ImageEncoder.Format = .png

    @Option(help: "Stop after saving this many images.")
    var limit: Int?

    @Flag(help: "Print the saved paths and times as JSON.")
    var json = false

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        guard every >= 1 else { throw ValidationError("--every must be at least 1") }
        if let width, width < 2 || width > 8192 { throw ValidationError("--width must be between 2 and 8192") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    struct SavedFrame: Encodable {
        var path: String
        var frame: Int
        var time: Double?
    }

    func run() throws {
        let reader = try MediaReader(MediaSource(parsing: input), options: inputOptions.readerOptions())
        // Saved as the picture is shown (a phone's video may be stored turned), as ffmpeg saves it.
        guard let video = reader.videoStream, let (sourceWidth, sourceHeight) = video.shownSize, sourceWidth > 0 else {
            throw ValidationError("\(reader.source) has no video stream")
        }
        var size: (width: Int, height: Int)?
        if let width {
            size = (width, max(2, Int((Double(width) * Double(sourceHeight) / Double(sourceWidth)).rounded())))
        }
        try WorkingDirectory.createDirectories(out)
        let decoder = try VideoDecoder(reader: reader, format: .rgba, size: size, every: every)
        decoder.upright = true
        let bar = Terminal.ProgressBar("frames")
        let total = reader.duration?.seconds ?? 0
        var saved: [SavedFrame] = []
        let suffix = imageFormat == .png ? "png" : "jpg"
        func save(_ frames: [VideoFrame]) throws -> Bool {
            for frame in frames {
                // The decoder hands out frames 0, N, 2N, ... in presentation order.
                let index = saved.count * every
                var name = String(index)
                while name.count < 6 { name = "0" + name }
                let path = "\(out)/frame-\(name).\(suffix)"
                try ImageEncoder.write(frame, to: path)
                saved.append(
                    SavedFrame(
                        path: path, frame: index, time: frame.pts.map { ($0 - (reader.startTime ?? .zero)).seconds }))
                if let time = frame.pts?.seconds, total > 0 { bar.update(time / total) }
                if let limit, saved.count >= limit { return false }
            }
            return true
        }
        reading: while let sample = try reader.nextSample() {
            guard sample.streamIndex == video.index else { continue }
            if try !save(decoder.decode(sample)) { break reading }
        }
        if limit.map({ saved.count < $0 }) ?? true { _ = try save(decoder.flush()) }
        bar.finish()
        if json {
            try printJSON(saved)
        } else {
            print(
                "Saved \(saved.count) images to \(out) (one every \(every) of \(decoder.decodedFrameCount) decoded frames)"
            )
        }
    }
}

extension ImageEncoder.Format: ExpressibleByArgument {}
