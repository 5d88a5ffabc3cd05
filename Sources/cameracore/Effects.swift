import ArgumentParser
import CameraCommon
import CameraEffects
import CameraIO
import CameraTransform
import CommandLineSupport
import FoundationEssentials

struct Effects: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a video through an effect stack (filters, text, overlays) into a new MP4.",
        discussion: """
            The stack is a JSON file listing layers bottom to top, for example:

              {"layers": [
                {"type": "filter",
                  "filter": {"kind": "sepia", "amount": 0.8, "radius": 0.5}},
                {"type": "text", "zIndex": 1,
                  "text": {"text": "Round 1", "font": "DejaVu Sans", "bold": true,
                  "size": 0.08, "color": "#FFCC00", "outlineColor": "#000000",
                  "outlineWidth": 0.08, "x": 0.05, "y": 0.05}}
              ]}

            Layer types: filter (brightness, contrast, saturation, grayscale, sepia, invert, blur, \
            vignette), text, pen, photo, sticker, frame, board. Video is re-encoded with libx264; \
            audio is copied. Use --write-example to get a starting file.
            """)

    @Argument(help: "The source video.")
    var input: String?

    @Option(help: "The effect stack JSON file.")
    var stack: String?

    @Option(name: .shortAndLong, help: "The MP4 to write.")
    var output: String?

    @Option(help: "x264 constant quality (0 best … 51 worst).")
    var crf: Int = 20

    @Option(help: "x264 preset (ultrafast … veryslow).")
    var preset: String = "veryfast"

    @Option(help: "Write an example stack to this path and exit.")
    var writeExample: String?

    func validate() throws {
        if writeExample == nil {
            guard input != nil, stack != nil, output != nil else {
                throw ValidationError("give an input video, --stack FILE and -o OUTPUT (or --write-example FILE)")
            }
        }
        guard (0...51).contains(crf) else { throw ValidationError("--crf must be between 0 and 51") }
    }

    func run() throws {
        if let writeExample {
            let example = EffectStackConfiguration(layers: [
                .filter(.init(kind: .vignette, amount: 0.5)),
                .text(
                    .init(text: "CameraCore", bold: true, size: 0.07, color: RGBAColor(red: 255, green: 204, blue: 0))),
            ])
            try AtomicFile.write(example.encoded(), to: writeExample)
            print("Wrote \(writeExample)")
            return
        }
        guard let input, let stackPath = stack, let output else { return }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stackPath)))
        } catch {
            throw MediaError(.notFound, operation: "read effect stack \(stackPath)", message: "cannot read the file")
        }
        let layers = try EffectStackConfiguration.decode(bytes).makeStack(updateMode: .inline)
        let result = try EffectRenderer.render(
            source: MediaSource(parsing: input), through: layers, to: output, crf: crf, preset: preset,
            progress: Terminal.ProgressBar("effects"))
        print(
            "Wrote \(output): \(result.frames) frames through \(layers.entries.count) layers, audio \(result.audioCopied ? "copied" : "none")"
        )
    }
}

/// Decode → layer stack → encode, with audio copied alongside.
enum EffectRenderer {
    struct Result {
        var frames: Int
        var audioCopied: Bool
    }

    static func render(
        source: MediaSource, through stack: LayerStack, to output: String, crf: Int, preset: String,
        progress: Terminal.ProgressBar
    ) throws -> Result {
        let reader = try MediaReader(source)
        // The picture as it is shown: a phone's video stored turned is rendered upright (text and
        // overlays where the stack puts them on what the user sees), and written without a turn.
        guard let video = reader.videoStream, let (width, height) = video.shownSize else {
            throw ValidationError("\(reader.source) has no video stream")
        }
        let frameRate = video.frameRate ?? Rational(30, 1)
        let fps = max(1, Int(frameRate.doubleValue.rounded()))
        let encoder = try VideoEncoder(
            settings: .init(
                width: width & ~1, height: height & ~1, frameRate: frameRate, crf: crf, gopSize: 2 * fps, preset: preset
            ))
        var videoOut = encoder.stream
        videoOut.index = video.index
        let audio = reader.audioStream
        let writer = try MediaWriter(destination: .file(output), streams: [videoOut] + (audio.map { [$0] } ?? []))
        let decoder = try VideoDecoder(reader: reader, format: .rgba)
        decoder.upright = true
        let origin = reader.startTime ?? .zero
        let total = reader.duration?.seconds ?? 0
        var frames = 0

        func encode(_ decoded: [VideoFrame]) throws {
            for frame in decoded {
                let time = (frame.pts ?? .zero) - origin
                var styled = stack.render(frame, time: time)
                styled.pts = time
                for var sample in try encoder.encode(styled) {
                    sample.streamIndex = video.index
                    try writer.write(sample)
                }
                frames += 1
                if total > 0 { progress.update(time.seconds / total) }
            }
        }
        while let sample = try reader.nextSample() {
            if sample.streamIndex == video.index {
                try encode(decoder.decode(sample))
            } else if sample.streamIndex == audio?.index {
                try writer.write(sample.shifted(by: -origin))
            }
        }
        try encode(decoder.flush())
        for var sample in try encoder.finish() {
            sample.streamIndex = video.index
            try writer.write(sample)
        }
        try writer.finish()
        progress.finish()
        return Result(frames: frames, audioCopied: audio != nil)
    }
}
