import CCairo
import CameraCommon
import FoundationEssentials

/// A shot chart in the camera's view: the rim, every release point coloured by outcome (green
/// made, red missed, grey unclear), each shot's arc, and the totals. SVG for the web, PNG for
/// people (Cairo).
public struct ShotChart: Sendable {
    public var analysis: WorkoutAnalysis
    public var width: Int
    public var height: Int

    /// A chart `width` × `height` pixels; by default of the picture's shape
    /// (``WorkoutAnalysis/picture``: a phone's portrait video gives a tall chart, so an arc keeps
    /// the shape it had), 960 px on its longer side, or 960×540 when the shape is not known.
    public init(analysis: WorkoutAnalysis, width: Int? = nil, height: Int? = nil) {
        let shape = analysis.picture.map { Double($0.width) / Double(max(1, $0.height)) } ?? 16.0 / 9
        // 960 px on the longer side, the shorter by the shape.
        let shorter = max(1, Int((960 * min(shape, 1 / shape)).rounded()))
        self.analysis = analysis
        self.width = width ?? (shape >= 1 ? 960 : shorter)
        self.height = height ?? (shape >= 1 ? shorter : 960)
    }

    static func color(_ outcome: ShotOutcome) -> (r: Double, g: Double, b: Double) {
        switch outcome {
        case .make: (0.18, 0.75, 0.35)
        case .miss: (0.90, 0.25, 0.22)
        case .indeterminate: (0.6, 0.6, 0.6)
        }
    }

    /// Points along a shot's fitted arc from release to the rim, in chart pixels.
    func arc(_ shot: ShotEvent) -> [(Double, Double)] {
        guard let trajectory = shot.trajectory, trajectory.equation.count == 3 else { return [] }
        let (a, b, c) = (trajectory.equation[0], trajectory.equation[1], trajectory.equation[2])
        let start = shot.releasePoint.x
        let end = analysis.rim.x + analysis.rim.width / 2
        return (0...24).map { step in
            let x = start + (end - start) * Double(step) / 24
            return (x * Double(width), (a * x * x + b * x + c) * Double(height))
        }
    }

    /// "2 of 3 made — 67 %"; with unclear shots, the percentage is of those decided, and says so
    /// ("2 of 3 made, 1 unclear — 100 % of 2 decided"), so it does not disagree with the count.
    var title: String {
        let decided = analysis.makes + analysis.misses
        guard let share = analysis.fieldGoalPercentage else { return "\(analysis.makes) of \(analysis.attempts) made" }
        let percent = "\(Int((share * 100).rounded())) %"
        guard analysis.indeterminate > 0 else { return "\(analysis.makes) of \(analysis.attempts) made — \(percent)" }
        return
            "\(analysis.makes) of \(analysis.attempts) made, \(analysis.indeterminate) unclear — \(percent) of \(decided) decided"
    }

    public func svg() -> String {
        let w = Double(width)
        let h = Double(height)
        var parts: [String] = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"#1d2230\"/>",
            "<rect x=\"\(analysis.rim.x * w)\" y=\"\(analysis.rim.y * h)\" width=\"\(analysis.rim.width * w)\" height=\"\(max(3, analysis.rim.height * h))\" fill=\"#f07c22\"><title>rim</title></rect>",
        ]
        for shot in analysis.shots {
            let (r, g, b) = Self.color(shot.outcome)
            let rgb = "rgb(\(Int(r * 255)),\(Int(g * 255)),\(Int(b * 255)))"
            let points = arc(shot).map { "\(String(format1: $0.0)),\(String(format1: $0.1))" }.joined(separator: " ")
            if !points.isEmpty {
                parts.append(
                    "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(rgb)\" stroke-opacity=\"0.35\" stroke-width=\"2\"/>"
                )
            }
            let x = shot.releasePoint.x * w
            let y = shot.releasePoint.y * h
            parts.append(
                "<circle class=\"shot \(shot.outcome.rawValue.lowercased())\" cx=\"\(String(format1: x))\" cy=\"\(String(format1: y))\" r=\"9\" fill=\"\(rgb)\"><title>shot \(shot.number): \(shot.outcome.rawValue.lowercased()) — \(xmlText(shot.reason))</title></circle>"
            )
        }
        parts.append(
            "<text x=\"16\" y=\"32\" fill=\"white\" font-family=\"sans-serif\" font-size=\"22\">\(xmlText(title))</text>"
        )
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// Writes SVG, or PNG when `path` ends in `.png`.
    ///
    /// - Throws: ``MediaError`` `writeFailed` naming the path.
    public func write(to path: String) throws(MediaError) {
        if path.lowercased().hasSuffix(".png") {
            try png(to: path)
        } else {
            do {
                try Data(svg().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw MediaError(.writeFailed, operation: "write shot chart \(path)", message: "\(error)")
            }
        }
    }

    func png(to path: String) throws(MediaError) {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw MediaError(.other, operation: "draw shot chart", message: "out of memory")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else {
            throw MediaError(.other, operation: "draw shot chart", message: "out of memory")
        }
        defer { cairo_destroy(cr) }
        let w = Double(width)
        let h = Double(height)
        cairo_set_source_rgb(cr, 0.114, 0.133, 0.188)
        cairo_paint(cr)
        cairo_set_source_rgb(cr, 0.94, 0.49, 0.13)
        cairo_rectangle(
            cr, analysis.rim.x * w, analysis.rim.y * h, analysis.rim.width * w, max(3, analysis.rim.height * h))
        cairo_fill(cr)
        for shot in analysis.shots {
            let (r, g, b) = Self.color(shot.outcome)
            let points = arc(shot)
            if let first = points.first {
                cairo_set_source_rgba(cr, r, g, b, 0.35)
                cairo_set_line_width(cr, 2)
                cairo_move_to(cr, first.0, first.1)
                for point in points.dropFirst() { cairo_line_to(cr, point.0, point.1) }
                cairo_stroke(cr)
            }
            cairo_set_source_rgb(cr, r, g, b)
            cairo_arc(cr, shot.releasePoint.x * w, shot.releasePoint.y * h, 9, 0, 2 * .pi)
            cairo_fill(cr)
        }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, 22)
        cairo_move_to(cr, 16, 32)
        cairo_show_text(cr, title)
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MediaError(
                .writeFailed, operation: "write shot chart \(path)",
                message: String(cString: cairo_status_to_string(status)))
        }
    }
}

func xmlText(_ text: String) -> String {
    text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
        .replacing("\"", with: "&quot;")
}
