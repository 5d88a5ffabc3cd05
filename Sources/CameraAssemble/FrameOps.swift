import CameraCommon

/// Whole-frame RGBA operations the timeline needs: mirror, fit, blend (a turn is
/// ``VideoFrame/rotated(clockwise:)``).
enum FrameOps {
    static func mirrored(_ frame: VideoFrame) -> VideoFrame {
        var output = frame
        let width = frame.width
        let stride = frame.planes[0].bytesPerRow
        frame.planes[0].bytes.withUnsafeBytes { source in
            output.planes[0].bytes.withUnsafeMutableBytes { target in
                for y in 0..<frame.height {
                    let from = (source.baseAddress! + y * stride).assumingMemoryBound(to: UInt32.self)
                    let to = (target.baseAddress! + y * stride).assumingMemoryBound(to: UInt32.self)
                    for x in 0..<width { to[x] = from[width - 1 - x] }
                }
            }
        }
        return output
    }

    /// `a·(1 − t) + b·t` per channel (both RGBA, same size).
    static func blend(_ a: VideoFrame, _ b: VideoFrame, weight t: Double) -> VideoFrame {
        var output = a
        let wb = UInt32(min(1, max(0, t)) * 256)
        let wa = 256 - wb
        b.planes[0].bytes.withUnsafeBufferPointer { second in
            output.planes[0].bytes.withUnsafeMutableBufferPointer { first in
                for index in 0..<min(first.count, second.count) {
                    first[index] = UInt8((UInt32(first[index]) * wa + UInt32(second[index]) * wb) >> 8)
                }
            }
        }
        return output
    }

    /// Scales `frame` into `width × height`, keeping its aspect ratio, centred on black.
    static func fitted(_ frame: VideoFrame, width: Int, height: Int) -> VideoFrame {
        if frame.width == width && frame.height == height { return frame }
        let scale = min(Double(width) / Double(frame.width), Double(height) / Double(frame.height))
        let scaledWidth = max(1, Int((Double(frame.width) * scale).rounded()))
        let scaledHeight = max(1, Int((Double(frame.height) * scale).rounded()))
        guard let scaled = try? frame.scaled(width: scaledWidth, height: scaledHeight) else { return frame }
        if scaledWidth == width && scaledHeight == height { return scaled }
        var canvas = VideoFrame(format: .rgba, width: width, height: height, fill: [0])
        for index in 0..<(width * height) { canvas.planes[0].bytes[index * 4 + 3] = 255 }
        let left = (width - scaledWidth) / 2
        let top = (height - scaledHeight) / 2
        for y in 0..<scaledHeight {
            let from = y * scaled.planes[0].bytesPerRow
            let to = (top + y) * width * 4 + left * 4
            canvas.planes[0].bytes.replaceSubrange(
                to..<(to + scaledWidth * 4), with: scaled.planes[0].bytes[from..<(from + scaledWidth * 4)])
        }
        canvas.pts = frame.pts
        return canvas
    }

    static func black(width: Int, height: Int) -> VideoFrame {
        var frame = VideoFrame(format: .rgba, width: width, height: height, fill: [0])
        for index in 0..<(width * height) { frame.planes[0].bytes[index * 4 + 3] = 255 }
        return frame
    }
}
