import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// The hoop's rim in the picture: a normalised box (origin top left) around the rim as seen from
/// the camera. The rim line is its vertical middle; the hoop's opening is its width.
public struct RimCalibration: Sendable, Codable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    /// - Throws: ``MediaError`` `invalidArgument` when the box is not inside the frame.
    public init(x: Double, y: Double, width: Double, height: Double) throws(MediaError) {
        guard [x, y, width, height].allSatisfy(\.isFinite), x >= 0, y >= 0, width > 0.005, height > 0, x + width <= 1,
            y + height <= 1
        else {
            throw MediaError(
                .invalidArgument, operation: "read rim box",
                message:
                    "x, y, width, height must be fractions of the frame (0-1) with the box inside it, got \(x),\(y),\(width),\(height)"
            )
        }
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `[x, y, width, height]`, as the ground truth of the test corpora writes a rim.
    public var values: [Double] { [x, y, width, height] }

    /// The box `[x, y, width, height]` (``values``).
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when there are not four values or the box is not
    ///   inside the frame.
    public init(values: [Double]) throws(MediaError) {
        guard values.count == 4 else {
            throw MediaError(
                .invalidArgument, operation: "read rim box", message: "expected x, y, width, height, got \(values)")
        }
        try self.init(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    /// The same box moved by `offset` (fractions of the frame); nil when it would leave the frame.
    public func shifted(by offset: (x: Double, y: Double)) -> RimCalibration? {
        try? RimCalibration(x: x + offset.x, y: y + offset.y, width: width, height: height)
    }

    /// `x,y,w,h` as `--rim` and `?rim=` take it (three decimals).
    public var argument: String {
        values.map { String(format3: $0) }.joined(separator: ",")
    }

    /// Parses `x,y,w,h` as fractions of the frame, or `x,y,w,hpx` in pixels of a picture of
    /// `pixels` (its width and height; the video's, when the user measured the box on a frame of it).
    public init(parsing text: String, pixels: (width: Int, height: Int)? = nil) throws(MediaError) {
        let trimmed = text.trimmingWhitespace()
        let inPixels = trimmed.hasSuffix("px")
        let numbers = inPixels ? String(trimmed.dropLast(2)) : text
        let values = numbers.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard values.count == 4, var x = values[0], var y = values[1], var w = values[2], var h = values[3] else {
            throw MediaError(
                .invalidArgument, operation: "read rim box",
                message:
                    "expected x,y,width,height as fractions of the frame, e.g. 0.85,0.42,0.08,0.02, or in pixels, e.g. 601,176,43,10px; got \(text.debugDescription)"
            )
        }
        if inPixels {
            guard let pixels, pixels.width > 0, pixels.height > 0 else {
                throw MediaError(
                    .invalidArgument, operation: "read rim box",
                    message: "a box in pixels (\(text.debugDescription)) needs the picture's size; give fractions here")
            }
            (x, w) = (x / Double(pixels.width), w / Double(pixels.width))
            (y, h) = (y / Double(pixels.height), h / Double(pixels.height))
        }
        do {
            try self.init(x: x, y: y, width: w, height: h)
        } catch {
            guard inPixels, let pixels else { throw error }
            throw MediaError(
                .invalidArgument, operation: "read rim box",
                message:
                    "the box \(text.debugDescription) is not inside the \(pixels.width)×\(pixels.height) picture (x, y from its top left; width over 0.5 % of it)"
            )
        }
    }
}
