import CCairo
import CameraCommon
import CameraTransform

/// UTF-8 text drawn with Cairo in a DejaVu (or any installed) font, with colour and outline.
public final class TextEffect: InPlaceTransformLayer {
    /// What to draw and where; saved in effect stacks as JSON.
    public struct Configuration: Sendable, Codable, Equatable {
        public var text: String
        /// Font family as fontconfig knows it.
        public var font: String
        public var bold: Bool
        /// Font size as a fraction of the frame height (0.05 is 54 px at 1080p).
        public var size: Double
        public var color: RGBAColor
        public var outlineColor: RGBAColor?
        /// Outline width as a fraction of the font size.
        public var outlineWidth: Double
        /// Top-left corner of the text box, normalised to the frame.
        public var x: Double
        public var y: Double

        public init(
            text: String, font: String = "DejaVu Sans", bold: Bool = false, size: Double = 0.06,
            color: RGBAColor = .white, outlineColor: RGBAColor? = .black, outlineWidth: Double = 0.08,
            x: Double = 0.05, y: Double = 0.05
        ) {
            self.text = text
            self.font = font
            self.bold = bold
            self.size = size
            self.color = color
            self.outlineColor = outlineColor
            self.outlineWidth = outlineWidth
            self.x = x
            self.y = y
        }
    }

    public let configuration: Configuration
    private let cache = LayerState<CachedText?>(nil)

    private struct CachedText: Sendable {
        var width: Int
        var height: Int
        var canvas: CairoCanvas
        var ink: (x: Int, y: Int, width: Int, height: Int)?
    }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// The text's box in pixels for a frame size (for tests and hit-testing).
    public func boundingBox(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let canvas = CairoCanvas(width: 1, height: 1) else { return nil }
        let extents = setUpFont(canvas, frameHeight: height)
        return (
            Int(configuration.x * Double(width)), Int(configuration.y * Double(height)),
            Int(extents.x_advance.rounded(.up)), Int((extents.height).rounded(.up))
        )
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba, !configuration.text.isEmpty else { return false }
        let width = frame.width
        let height = frame.height
        // Text does not change between frames: draw once per frame size, blend every frame.
        let text: CachedText? = cache.withLock { cached in
            if let cached, cached.width == width, cached.height == height { return cached }
            guard let canvas = CairoCanvas(width: width, height: height) else { return nil }
            draw(on: canvas)
            cached = CachedText(width: width, height: height, canvas: canvas, ink: canvas.inkBounds())
            return cached
        }
        guard let text else { return false }
        if let ink = text.ink { text.canvas.composite(onto: &frame, region: ink) }
        return true
    }

    @discardableResult
    private func setUpFont(_ canvas: CairoCanvas, frameHeight: Int) -> cairo_text_extents_t {
        cairo_select_font_face(
            canvas.context, configuration.font, CAIRO_FONT_SLANT_NORMAL,
            configuration.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(canvas.context, max(1, configuration.size * Double(frameHeight)))
        var extents = cairo_text_extents_t()
        cairo_text_extents(canvas.context, configuration.text, &extents)
        return extents
    }

    private func draw(on canvas: CairoCanvas) {
        let context = canvas.context
        setUpFont(canvas, frameHeight: canvas.height)
        var fontExtents = cairo_font_extents_t()
        cairo_font_extents(context, &fontExtents)
        // y is the top of the box; Cairo draws from the baseline.
        cairo_move_to(
            context, configuration.x * Double(canvas.width),
            configuration.y * Double(canvas.height) + fontExtents.ascent)
        cairo_text_path(context, configuration.text)
        canvas.setColor(configuration.color)
        if let outline = configuration.outlineColor, configuration.outlineWidth > 0 {
            cairo_fill_preserve(context)
            canvas.setColor(outline)
            cairo_set_line_width(context, configuration.outlineWidth * configuration.size * Double(canvas.height))
            cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke_preserve(context)
            // Fill again so the outline sits outside the letters, not over them.
            canvas.setColor(configuration.color)
            cairo_fill(context)
        } else {
            cairo_fill(context)
        }
    }
}
