import CCairo
import CameraCommon
import CameraIO

/// Writes the annotated video of `lebot analyze --annotate`: the rim box, the ball's recent path,
/// the running count, and the last shot's outcome, drawn with Cairo on a transparent layer and
/// blended into the decoded YUV frames before encoding (no RGB round trip for the picture).
public final class ShotAnnotator {
    private let encoder: VideoEncoder
    private let writer: MediaWriter
    private let rim: RimCalibration
    private var trail: [BallObservation] = []
    private var makes = 0
    private var attempts = 0
    private var banner: (text: String, outcome: ShotOutcome, until: Double)?
    public private(set) var frames = 0
    public let path: String

    /// - Throws: ``MediaError`` when the output cannot be created.
    public init(path: String, width: Int, height: Int, frameRate: Int, rim: RimCalibration) throws(MediaError) {
        self.path = path
        self.rim = rim
        encoder = try VideoEncoder(
            settings: .init(
                width: width, height: height, frameRate: Rational(Int32(frameRate), 1), crf: 23, gopSize: frameRate * 2,
                preset: "veryfast"))
        writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
    }

    /// Counts a decided shot (shown from its decision for 2 s).
    public func add(_ shot: ShotEvent) {
        attempts += 1
        if shot.outcome == .make { makes += 1 }
        let label =
            switch shot.outcome {
            case .make: "MAKE"
            case .miss: "MISS"
            case .indeterminate: "?"
            }
        banner = (label, shot.outcome, shot.decidedTime + 2)
    }

    /// Draws on `frame` (YUV 4:2:0 at the analysis size) and encodes it.
    public func write(_ frame: VideoFrame, time: Double, observations: [BallObservation]) throws(MediaError) {
        if let best = observations.first { trail.append(best) }
        trail.removeAll { time - $0.time > 1.5 }
        var picture = frame
        let width = frame.width
        let height = frame.height
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
            let cr = cairo_create(surface)
        else { throw MediaError(.other, operation: "annotate", message: "out of memory") }
        defer {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
        }
        let w = Double(width)
        let h = Double(height)
        // Rim.
        cairo_set_source_rgba(cr, 1, 0.6, 0.1, 0.9)
        cairo_set_line_width(cr, 2)
        cairo_rectangle(cr, rim.x * w, rim.y * h, rim.width * w, max(2, rim.height * h))
        cairo_stroke(cr)
        // The ball's last 1.5 s, fading.
        for point in trail {
            let age = max(0, min(1, (time - point.time) / 1.5))
            cairo_set_source_rgba(cr, 0.2, 0.9, 1, 0.85 * (1 - age))
            cairo_arc(cr, point.x, point.y, max(2, point.radius * 0.45), 0, 2 * .pi)
            cairo_fill(cr)
        }
        if let current = observations.first {
            cairo_set_source_rgba(cr, 1, 1, 1, 0.9)
            cairo_set_line_width(cr, 2)
            cairo_arc(cr, current.x, current.y, current.radius + 3, 0, 2 * .pi)
            cairo_stroke(cr)
        }
        // Counters and the last outcome.
        cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, h * 0.06)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.55)
        cairo_rectangle(cr, 8, 8, h * 0.42, h * 0.09)
        cairo_fill(cr)
        cairo_set_source_rgba(cr, 1, 1, 1, 1)
        cairo_move_to(cr, 16, 8 + h * 0.068)
        cairo_show_text(cr, "\(makes)/\(attempts) made")
        if let banner, time <= banner.until {
            let (r, g, b) =
                banner.outcome == .make
                ? (0.2, 0.85, 0.3) : banner.outcome == .miss ? (0.95, 0.25, 0.2) : (0.7, 0.7, 0.7)
            cairo_set_font_size(cr, h * 0.1)
            cairo_set_source_rgba(cr, r, g, b, 1)
            cairo_move_to(cr, w * 0.42, h * 0.14)
            cairo_show_text(cr, banner.text)
        }
        cairo_surface_flush(surface)
        Self.blend(surface, into: &picture)
        frames += 1
        for sample in try encoder.encode(picture) { try writer.write(sample) }
    }

    public func finish() throws(MediaError) {
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
    }

    /// Alpha-blends a premultiplied ARGB32 layer into a YUV 4:2:0 frame (BT.601 limited range).
    static func blend(_ surface: OpaquePointer, into frame: inout VideoFrame) {
        guard let data = cairo_image_surface_get_data(surface) else { return }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let width = frame.width
        let height = frame.height
        let chromaWidth = frame.planes[1].bytesPerRow
        for y in 0..<height {
            let row = data + y * stride
            for x in 0..<width {
                // Little-endian ARGB32: bytes are B, G, R, A, premultiplied.
                let alpha = Int(row[x * 4 + 3])
                guard alpha > 0 else { continue }
                let b = Int(row[x * 4])
                let g = Int(row[x * 4 + 1])
                let r = Int(row[x * 4 + 2])
                // Premultiplied colour → Y'CbCr contributions.
                let yOver = (66 * r + 129 * g + 25 * b + 128) >> 8 + 16 * alpha / 255
                let index = y * frame.planes[0].bytesPerRow + x
                let old = Int(frame.planes[0].bytes[index])
                frame.planes[0].bytes[index] = UInt8(clamping: yOver + old * (255 - alpha) / 255)
                if x % 2 == 0, y % 2 == 0 {
                    let c = (y / 2) * chromaWidth + x / 2
                    let uOver = (-38 * r - 74 * g + 112 * b + 128) >> 8 + 128 * alpha / 255
                    let vOver = (112 * r - 94 * g - 18 * b + 128) >> 8 + 128 * alpha / 255
                    let oldU = Int(frame.planes[1].bytes[c])
                    let oldV = Int(frame.planes[2].bytes[c])
                    frame.planes[1].bytes[c] = UInt8(clamping: uOver + oldU * (255 - alpha) / 255)
                    frame.planes[2].bytes[c] = UInt8(clamping: vOver + oldV * (255 - alpha) / 255)
                }
            }
        }
    }
}
