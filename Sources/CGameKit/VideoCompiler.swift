import CameraAssemble
import CameraCommon
import CameraEffects
import CameraIO
import CameraTransform

#if canImport(Glibc)
    import Glibc
#endif

/// Stitches clips into a highlight reel (the spec's VideoCompiler) with CameraAssemble: crossfades
/// by default, an optional title card, and an optional target length that trims every clip around
/// its events by the same proportion.
public enum VideoCompiler {
    /// One clip of a reel.
    public struct Item: Sendable {
        public var path: String
        /// Seconds into the clip that matter most (its events); trimming keeps them in view.
        public var focus: Double?

        public init(path: String, focus: Double? = nil) {
            self.path = path
            self.focus = focus
        }
    }

    public struct Options: Sendable {
        /// Transition between clips; nil for hard cuts (then the reel is a stream copy when it can be).
        public var transition: Transition.Kind?
        public var transitionDuration: Double
        /// Text of a title card shown first; nil for none.
        public var title: String?
        public var titleDuration: Double
        /// Length to fit the reel into, in seconds; nil keeps every clip whole.
        public var targetDuration: Double?
        public var crf: Int
        public var preset: String

        public init(
            transition: Transition.Kind? = .crossfade, transitionDuration: Double = 0.5, title: String? = nil,
            titleDuration: Double = 2, targetDuration: Double? = nil, crf: Int = 20, preset: String = "veryfast"
        ) {
            self.transition = transition
            self.transitionDuration = transitionDuration
            self.title = title
            self.titleDuration = titleDuration
            self.targetDuration = targetDuration
            self.crf = crf
            self.preset = preset
        }
    }

    /// The project that ``compile(_:to:options:workDirectory:progress:)`` exports (for inspection).
    ///
    /// - Throws: ``MediaError`` for an unreadable clip or an impossible target length.
    public static func project(
        _ items: [Item], options: Options, titleCardPath: String? = nil
    ) throws(MediaError) -> Project {
        let operation = "compile reel"
        guard !items.isEmpty else {
            throw MediaError(.invalidArgument, operation: operation, message: "no clips given")
        }
        var durations: [Double] = []
        for item in items {
            let reader = try MediaReader(.file(item.path))
            guard reader.videoStream != nil, let duration = reader.duration?.seconds, duration > 0 else {
                throw MediaError(.invalidArgument, operation: operation, message: "\(item.path) has no video")
            }
            durations.append(duration)
        }
        let transition = options.transition.map { _ in options.transitionDuration } ?? 0
        var keep = durations
        if let target = options.targetDuration {
            let fixed = (options.title != nil ? options.titleDuration - transition : 0)
            let overlaps = transition * Double(items.count - 1)
            let available = target - fixed + overlaps
            let total = durations.reduce(0, +)
            let minimum = Double(items.count) * max(2 * transition, 0.5)
            guard available >= minimum else {
                throw MediaError(
                    .invalidArgument, operation: operation,
                    message: "a \(target) s reel cannot hold \(items.count) clips with transitions")
            }
            if available < total { keep = durations.map { $0 * available / total } }
        }
        var clips: [Clip] = []
        if let titleCardPath {
            clips.append(
                Clip(
                    id: "title", source: titleCardPath,
                    range: TimeRange(start: .zero, end: MediaTime(seconds: options.titleDuration))))
        }
        for (index, item) in items.enumerated() {
            let length = keep[index]
            let full = durations[index]
            let focus = item.focus ?? full / 2
            let start = min(max(0, focus - length / 2), full - length)
            clips.append(
                Clip(
                    id: "clip\(index + 1)", source: item.path,
                    range: TimeRange(start: MediaTime(seconds: start), end: MediaTime(seconds: start + length))))
        }
        if let kind = options.transition {
            for index in clips.indices.dropLast() {
                clips[index].transitionToNext = Transition(
                    kind: kind, duration: MediaTime(seconds: options.transitionDuration))
            }
        }
        return Project(timeline: Timeline(clips: clips))
    }

    /// Writes the reel to `path` (MP4).
    ///
    /// - Parameter workDirectory: where the title card is rendered (default: beside `path`).
    @discardableResult
    public static func compile(
        _ items: [Item], to path: String, options: Options = Options(), workDirectory: String? = nil,
        progress: ((Double) -> Void)? = nil
    ) throws(MediaError) -> ExportResult {
        var titlePath: String?
        if let title = options.title, let first = items.first {
            let directory = workDirectory ?? AtomicFile.folder(of: path)
            let card = directory + "/.title-\(getpid()).mp4"
            try renderTitleCard(title, like: first.path, duration: options.titleDuration, to: card)
            titlePath = card
        }
        defer { if let titlePath { unlink(titlePath) } }
        let project = try project(items, options: options, titleCardPath: titlePath)
        return try TimelineExporter.export(
            project, to: path, mode: .automatic, crf: options.crf, preset: options.preset, progress: progress)
    }

    /// A title card the size and frame rate of `reference`: the text centred in white on black.
    static func renderTitleCard(_ title: String, like reference: String, duration: Double, to path: String)
        throws(MediaError)
    {
        let reader = try MediaReader(.file(reference))
        guard let video = reader.videoStream, let width = video.width, let height = video.height else {
            throw MediaError(.invalidArgument, operation: "render title card", message: "\(reference) has no video")
        }
        let rate = video.frameRate.flatMap { $0.numerator > 0 ? $0 : nil } ?? Rational(30, 1)
        let encoder = try VideoEncoder(
            settings: .init(width: width & ~1, height: height & ~1, frameRate: rate, crf: 18, maxBFrames: 0))
        let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
        let size = 0.08
        let text = TextEffect(
            .init(
                text: title, bold: true, size: size, color: .white, outlineColor: nil,
                x: max(0.02, 0.5 - Double(title.count) * size * 0.3 * Double(height) / Double(width)),
                y: 0.5 - size / 2))
        let frames = max(1, Int((duration * rate.doubleValue).rounded()))
        for index in 0..<frames {
            let time = MediaTime(value: Int64(index) * Int64(rate.denominator), timescale: rate.numerator)
            var frame = VideoFrame(
                format: .rgba, width: width & ~1, height: height & ~1, fill: [0, 0, 0, 255], pts: time)
            _ = text.apply(to: &frame, context: RenderContext(renderSize: (frame.width, frame.height), time: time))
            for sample in try encoder.encode(frame) { try writer.write(sample) }
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
    }
}
