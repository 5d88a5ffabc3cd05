import CCairo
import CameraCommon
import CameraTransform

/// Freehand drawing kept as timed vector strokes, so a drawing replays as it was drawn.
public final class PenEffect: InPlaceTransformLayer {
    /// One point of a stroke: normalised position and the media time it was drawn at.
    public struct Point: Sendable, Codable, Equatable {
        public var x: Double
        public var y: Double
        /// Seconds from the start of the video.
        public var time: Double

        public init(x: Double, y: Double, time: Double) {
            self.x = x
            self.y = y
            self.time = time
        }
    }

    public struct Stroke: Sendable, Codable, Equatable {
        public var color: RGBAColor
        /// Line width as a fraction of the frame width.
        public var width: Double
        public var points: [Point]

        public init(color: RGBAColor, width: Double, points: [Point]) {
            self.color = color
            self.width = width
            self.points = points
        }
    }

    public struct Configuration: Sendable, Codable, Equatable {
        public var strokes: [Stroke]
        public init(strokes: [Stroke]) { self.strokes = strokes }
    }

    public let configuration: Configuration

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba else { return false }
        let now = context.time.seconds
        let visible = configuration.strokes.compactMap { stroke -> Stroke? in
            var partial = stroke
            partial.points = stroke.points.filter { $0.time <= now }
            return partial.points.isEmpty ? nil : partial
        }
        guard !visible.isEmpty, let canvas = CairoCanvas(width: frame.width, height: frame.height) else { return true }
        let cairo = canvas.context
        let width = Double(frame.width)
        let height = Double(frame.height)
        cairo_set_line_cap(cairo, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cairo, CAIRO_LINE_JOIN_ROUND)
        for stroke in visible {
            canvas.setColor(stroke.color)
            cairo_set_line_width(cairo, max(0.5, stroke.width * width))
            let first = stroke.points[0]
            cairo_move_to(cairo, first.x * width, first.y * height)
            // A single point still leaves a dot.
            if stroke.points.count == 1 { cairo_line_to(cairo, first.x * width, first.y * height) }
            for point in stroke.points.dropFirst() { cairo_line_to(cairo, point.x * width, point.y * height) }
            cairo_stroke(cairo)
        }
        canvas.composite(onto: &frame)
        return true
    }
}
