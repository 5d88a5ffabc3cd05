/// Pixel layouts the engine converts to and from.
public enum PixelFormat: String, Sendable, Codable, CaseIterable {
    /// One 8-bit luma plane; what detectors and OCR want.
    case gray8
    /// Planar Y, U, V with chroma at half width and half height (what H.264 usually carries).
    case yuv420p
    /// Y plane plus one interleaved UV plane at half resolution (camera and hardware decoder output).
    case nv12
    /// Packed 8-bit red, green, blue, alpha; straight (not premultiplied) alpha.
    case rgba

    /// Number of planes.
    public var planeCount: Int {
        switch self {
        case .gray8, .rgba: 1
        case .nv12: 2
        case .yuv420p: 3
        }
    }

    /// Bytes per pixel of a plane's samples (UV in NV12 is two bytes per chroma sample pair).
    public func bytesPerPixel(plane: Int) -> Int {
        switch self {
        case .gray8, .yuv420p: 1
        case .rgba: 4
        case .nv12: plane == 0 ? 1 : 2
        }
    }

    /// Pixel size of a plane for a frame of `width` × `height`.
    public func planeSize(_ plane: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        switch (self, plane) {
        case (.yuv420p, 1), (.yuv420p, 2), (.nv12, 1): ((width + 1) / 2, (height + 1) / 2)
        default: (width, height)
        }
    }

    /// Whether chroma is subsampled, so crops and sizes should be even.
    public var isSubsampled: Bool { self == .yuv420p || self == .nv12 }
}

/// One plane of pixels: `height` rows of `bytesPerRow` bytes, of which the first
/// `width × bytesPerPixel` are picture and the rest padding.
public struct Plane: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytesPerRow: Int, bytes: [UInt8]) {
        precondition(bytes.count >= bytesPerRow * height, "plane storage smaller than bytesPerRow × height")
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.bytes = bytes
    }
}

/// A decoded picture: planar pixels with strides, its format and size, and its presentation time.
///
/// Frames are values: copying one shares the pixel storage until one side writes (copy-on-write).
public struct VideoFrame: Sendable, Equatable {
    public var format: PixelFormat
    public var width: Int
    public var height: Int
    public var planes: [Plane]
    /// Presentation time of the frame in its source, when known.
    public var pts: MediaTime?

    /// Wraps existing planes. Plane count and sizes must match the format.
    public init(format: PixelFormat, width: Int, height: Int, planes: [Plane], pts: MediaTime? = nil) {
        precondition(planes.count == format.planeCount, "\(format) needs \(format.planeCount) planes")
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.pts = pts
    }

    /// A new frame of the given size filled with zero bytes (black for gray and RGBA, with alpha 0),
    /// or with `fill` per plane when given (e.g. `[16, 128, 128]` is black in YUV).
    public init(format: PixelFormat, width: Int, height: Int, fill: [UInt8]? = nil, pts: MediaTime? = nil) {
        precondition(width > 0 && height > 0, "frame size must be positive")
        var planes: [Plane] = []
        for index in 0..<format.planeCount {
            let size = format.planeSize(index, width: width, height: height)
            let rowBytes = size.width * format.bytesPerPixel(plane: index)
            let value = fill.map { $0[min(index, $0.count - 1)] } ?? 0
            planes.append(
                Plane(
                    width: size.width, height: size.height, bytesPerRow: rowBytes,
                    bytes: [UInt8](repeating: value, count: rowBytes * size.height)))
        }
        self.init(format: format, width: width, height: height, planes: planes, pts: pts)
    }

    /// Reads one RGBA pixel (format must be `.rgba`).
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(format == .rgba, "rgba(x:y:) needs an .rgba frame")
        let plane = planes[0]
        let offset = y * plane.bytesPerRow + x * 4
        return (plane.bytes[offset], plane.bytes[offset + 1], plane.bytes[offset + 2], plane.bytes[offset + 3])
    }

    /// Reads the luma (or gray) value at a pixel (`.gray8`, `.yuv420p`, `.nv12`).
    public func luma(x: Int, y: Int) -> UInt8 {
        precondition(format != .rgba, "luma(x:y:) needs a gray or YUV frame")
        let plane = planes[0]
        return plane.bytes[y * plane.bytesPerRow + x]
    }

    /// The luma plane alone as a `.gray8` frame, sharing storage where possible.
    public var lumaFrame: VideoFrame? {
        guard format != .rgba else { return nil }
        return VideoFrame(format: .gray8, width: width, height: height, planes: [planes[0]], pts: pts)
    }

    /// A new frame holding the pixels inside the rectangle (clamped to the frame). For subsampled
    /// formats the edges move outwards to even coordinates, so chroma stays aligned and the crop
    /// still covers everything asked for.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when the clamped rectangle is empty.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) throws(MediaError) -> VideoFrame {
        var left = max(0, min(x, width))
        var top = max(0, min(y, height))
        var right = max(left, min(x + cropWidth, width))
        var bottom = max(top, min(y + cropHeight, height))
        if format.isSubsampled {
            left &= ~1
            top &= ~1
            right = min((right + 1) & ~1, width & ~1)
            bottom = min((bottom + 1) & ~1, height & ~1)
        }
        guard right > left, bottom > top else {
            throw MediaError(
                .invalidArgument, operation: "crop \(cropWidth)x\(cropHeight) at \(x),\(y)",
                message: "the rectangle lies outside the \(width)x\(height) frame")
        }
        let newWidth = right - left
        let newHeight = bottom - top
        var newPlanes: [Plane] = []
        for (index, plane) in planes.enumerated() {
            let size = format.planeSize(index, width: newWidth, height: newHeight)
            let planeLeft = index == 0 || !format.isSubsampled ? left : left / 2
            let planeTop = index == 0 || !format.isSubsampled ? top : top / 2
            let bpp = format.bytesPerPixel(plane: index)
            let rowBytes = size.width * bpp
            var bytes = [UInt8](repeating: 0, count: rowBytes * size.height)
            plane.bytes.withUnsafeBufferPointer { source in
                bytes.withUnsafeMutableBufferPointer { destination in
                    for row in 0..<size.height {
                        let from = (planeTop + row) * plane.bytesPerRow + planeLeft * bpp
                        let to = row * rowBytes
                        destination.baseAddress!.advanced(by: to)
                            .update(from: source.baseAddress!.advanced(by: from), count: rowBytes)
                    }
                }
            }
            newPlanes.append(Plane(width: size.width, height: size.height, bytesPerRow: rowBytes, bytes: bytes))
        }
        return VideoFrame(format: format, width: newWidth, height: newHeight, planes: newPlanes, pts: pts)
    }

    /// The picture moved by (`dx`, `dy`) pixels (right and down positive) in a frame of the same
    /// size; what comes into view repeats the old picture's nearest edge. Subsampled chroma moves
    /// by half (rounded towards zero), so odd moves leave it half a pixel behind.
    public func translated(dx: Int, dy: Int) -> VideoFrame {
        guard dx != 0 || dy != 0 else { return self }
        var copy = self
        copy.planes = planes.enumerated().map { index, plane in
            let half = index > 0 && format.isSubsampled
            let (sx, sy) = half ? (dx / 2, dy / 2) : (dx, dy)
            let bpp = format.bytesPerPixel(plane: index)
            var bytes = plane.bytes
            let columns = plane.width
            // The source column of each destination column, clamped at the edges.
            let from = (0..<columns).map { min(max($0 - sx, 0), columns - 1) }
            let inside = max(0, columns - abs(sx))
            plane.bytes.withUnsafeBufferPointer { source in
                bytes.withUnsafeMutableBufferPointer { destination in
                    for row in 0..<plane.height {
                        let sourceRow =
                            source.baseAddress! + min(max(row - sy, 0), plane.height - 1) * plane.bytesPerRow
                        let destinationRow = destination.baseAddress! + row * plane.bytesPerRow
                        // The part still in the picture in one copy, then the edges pixel by pixel.
                        let start = max(sx, 0)
                        if inside > 0 {
                            (destinationRow + start * bpp).update(
                                from: sourceRow + (start - sx) * bpp, count: inside * bpp)
                        }
                        for column in 0..<columns where column < start || column >= start + inside {
                            for byte in 0..<bpp {
                                destinationRow[column * bpp + byte] = sourceRow[from[column] * bpp + byte]
                            }
                        }
                    }
                }
            }
            return Plane(width: plane.width, height: plane.height, bytesPerRow: plane.bytesPerRow, bytes: bytes)
        }
        return copy
    }

    /// The picture turned clockwise by `degrees` (a multiple of 90; others are rounded down to
    /// one): as a player shows a video whose display matrix says so (``StreamInfo/rotation``), a
    /// phone's portrait or upside-down landscape recording. A quarter turn swaps width and height;
    /// every plane turns with the picture, subsampled chroma included.
    public func rotated(clockwise degrees: Int) -> VideoFrame {
        let turns = ((degrees / 90) % 4 + 4) % 4
        guard turns != 0 else { return self }
        let (newWidth, newHeight) = turns == 2 ? (width, height) : (height, width)
        var output = VideoFrame(format: format, width: newWidth, height: newHeight, pts: pts)
        for index in planes.indices {
            switch format.bytesPerPixel(plane: index) {
            case 4: Self.turn(planes[index], into: &output.planes[index], turns: turns, as: UInt32.self)
            case 2: Self.turn(planes[index], into: &output.planes[index], turns: turns, as: UInt16.self)
            default: Self.turn(planes[index], into: &output.planes[index], turns: turns, as: UInt8.self)
            }
        }
        return output
    }

    /// Copies `plane` turned by `turns` quarter turns clockwise into `target` (of the turned size,
    /// rows packed), a pixel being one `Pixel`. Each source row is walked with a fixed step
    /// through the target: a quarter turn puts row `y` in column `h − 1 − y`, top to bottom.
    @inline(__always)
    private static func turn<Pixel>(_ plane: Plane, into target: inout Plane, turns: Int, as _: Pixel.Type) {
        let (w, h) = (plane.width, plane.height)
        let sourceStride = plane.bytesPerRow
        let pitch = target.bytesPerRow / MemoryLayout<Pixel>.stride
        plane.bytes.withUnsafeBytes { source in
            target.bytes.withUnsafeMutableBytes { destination in
                let to = destination.baseAddress!.assumingMemoryBound(to: Pixel.self)
                for y in 0..<h {
                    let from = (source.baseAddress! + y * sourceStride).assumingMemoryBound(to: Pixel.self)
                    // Where the row's first pixel lands, and how far on each next one does.
                    let (start, step) =
                        switch turns {
                        case 1: (h - 1 - y, pitch)
                        case 2: ((h - 1 - y) * pitch + w - 1, -1)
                        default: ((w - 1) * pitch + y, -pitch)
                        }
                    var index = start
                    for x in 0..<w {
                        to[index] = from[x]
                        index += step
                    }
                }
            }
        }
    }

    /// The crop of a normalised rectangle (0...1 in both axes, origin top-left), e.g. a kill-feed region.
    public func cropped(normalized rect: NormalizedRect) throws(MediaError) -> VideoFrame {
        try cropped(
            x: Int((rect.x * Double(width)).rounded(.down)),
            y: Int((rect.y * Double(height)).rounded(.down)),
            width: Int((rect.width * Double(width)).rounded(.up)),
            height: Int((rect.height * Double(height)).rounded(.up)))
    }

    /// A resized copy (bilinear per plane). Sizes of subsampled formats are rounded up to even.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` for a non-positive size.
    public func scaled(width newWidth: Int, height newHeight: Int) throws(MediaError) -> VideoFrame {
        guard newWidth > 0, newHeight > 0, newWidth <= 16384, newHeight <= 16384 else {
            throw MediaError(
                .invalidArgument, operation: "scale to \(newWidth)x\(newHeight)",
                message: "width and height must be between 1 and 16384")
        }
        let targetWidth = format.isSubsampled ? (newWidth + 1) & ~1 : newWidth
        let targetHeight = format.isSubsampled ? (newHeight + 1) & ~1 : newHeight
        var newPlanes: [Plane] = []
        for (index, plane) in planes.enumerated() {
            let size = format.planeSize(index, width: targetWidth, height: targetHeight)
            newPlanes.append(
                BilinearScaler.scale(
                    plane, channels: format.bytesPerPixel(plane: index), toWidth: size.width,
                    height: size.height))
        }
        return VideoFrame(format: format, width: targetWidth, height: targetHeight, planes: newPlanes, pts: pts)
    }
}

/// A rectangle in normalised coordinates: x and y from the top-left corner, all values in 0...1.
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether the rectangle has positive size and lies inside the unit square.
    public var isValid: Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= 1.000_001 && y + height <= 1.000_001
    }
}

enum BilinearScaler {
    /// Bilinear resampling of interleaved 8-bit samples with fixed-point weights.
    static func scale(_ plane: Plane, channels: Int, toWidth width: Int, height: Int) -> Plane {
        let rowBytes = width * channels
        var output = [UInt8](repeating: 0, count: rowBytes * height)
        let sourceWidth = plane.width
        let sourceHeight = plane.height
        // Sample centres map as in most resamplers: (dst + 0.5) * ratio - 0.5, in 16.16 fixed point.
        let xRatio = (sourceWidth << 16) / max(width, 1)
        let yRatio = (sourceHeight << 16) / max(height, 1)
        plane.bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for row in 0..<height {
                    let sy = max(0, ((((row << 16) + 0x8000) * yRatio) >> 16) - 0x8000)
                    let y0 = min(sy >> 16, sourceHeight - 1)
                    let y1 = min(y0 + 1, sourceHeight - 1)
                    let fy = sy & 0xFFFF
                    let row0 = y0 * plane.bytesPerRow
                    let row1 = y1 * plane.bytesPerRow
                    let outRow = row * rowBytes
                    for column in 0..<width {
                        let sx = max(0, ((((column << 16) + 0x8000) * xRatio) >> 16) - 0x8000)
                        let x0 = min(sx >> 16, sourceWidth - 1)
                        let x1 = min(x0 + 1, sourceWidth - 1)
                        let fx = sx & 0xFFFF
                        for channel in 0..<channels {
                            let a = Int(source[row0 + x0 * channels + channel])
                            let b = Int(source[row0 + x1 * channels + channel])
                            let c = Int(source[row1 + x0 * channels + channel])
                            let d = Int(source[row1 + x1 * channels + channel])
                            let top = a * (0x10000 - fx) + b * fx
                            let bottom = c * (0x10000 - fx) + d * fx
                            let value = ((top >> 8) * (0x10000 - fy) + (bottom >> 8) * fy) >> 24
                            destination[outRow + column * channels + channel] = UInt8(clamping: value)
                        }
                    }
                }
            }
        }
        return Plane(width: width, height: height, bytesPerRow: rowBytes, bytes: output)
    }
}
