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

    /// `x,y,w,h` as `--rim` and `?rim=` take it (three decimals).
    public var argument: String {
        [x, y, width, height].map { String(format3: $0) }.joined(separator: ",")
    }

    /// Parses `x,y,w,h`.
    public init(parsing text: String) throws(MediaError) {
        let values = text.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard values.count == 4, let x = values[0], let y = values[1], let w = values[2], let h = values[3] else {
            throw MediaError(
                .invalidArgument, operation: "read rim box",
                message:
                    "expected x,y,width,height as fractions of the frame, e.g. 0.85,0.42,0.08,0.02; got \(text.debugDescription)"
            )
        }
        try self.init(x: x, y: y, width: w, height: h)
    }
}
