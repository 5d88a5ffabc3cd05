import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// An RGBA image prepared for compositing: premultiplied alpha, so bilinear sampling does not
/// bleed dark fringes from transparent pixels.
public struct OverlayImage: Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied RGBA, `width * 4` bytes per row.
    let pixels: [UInt8]

    /// Prepares a straight-alpha RGBA frame.
    public init(_ frame: VideoFrame) throws(MediaError) {
        guard frame.format == .rgba else {
            throw MediaError(
                .invalidArgument, operation: "prepare overlay", message: "overlays need RGBA, got \(frame.format)")
        }
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
        let plane = frame.planes[0]
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let source = y * plane.bytesPerRow + x * 4
                let target = (y * frame.width + x) * 4
                let alpha = UInt32(plane.bytes[source + 3])
                pixels[target] = UInt8((UInt32(plane.bytes[source]) * alpha + 127) / 255)
                pixels[target + 1] = UInt8((UInt32(plane.bytes[source + 1]) * alpha + 127) / 255)
                pixels[target + 2] = UInt8((UInt32(plane.bytes[source + 2]) * alpha + 127) / 255)
                pixels[target + 3] = UInt8(alpha)
            }
        }
        self.width = frame.width
        self.height = frame.height
        self.pixels = pixels
    }

    init(width: Int, height: Int, premultiplied pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A solid colour of the given size.
    public static func solid(_ color: RGBAColor, width: Int, height: Int) -> OverlayImage {
        let alpha = UInt32(color.alpha)
        let pixel: [UInt8] = [
            UInt8((UInt32(color.red) * alpha + 127) / 255), UInt8((UInt32(color.green) * alpha + 127) / 255),
            UInt8((UInt32(color.blue) * alpha + 127) / 255), color.alpha,
        ]
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            pixels[index * 4] = pixel[0]
            pixels[index * 4 + 1] = pixel[1]
            pixels[index * 4 + 2] = pixel[2]
            pixels[index * 4 + 3] = pixel[3]
        }
        return OverlayImage(width: width, height: height, premultiplied: pixels)
    }
}

/// Where and how an overlay sits on the frame.
public struct Placement: Sendable, Codable, Equatable {
    /// Centre of the overlay, normalised to the frame (0…1 from the top-left).
    public var centerX: Double
    public var centerY: Double
    /// Overlay width as a fraction of the frame width; the height keeps the image's aspect ratio.
    public var width: Double
    /// Clockwise degrees.
    public var rotation: Double
    /// 0 (invisible) … 1 (as the image's own alpha says).
    public var opacity: Double

    public init(
        centerX: Double = 0.5, centerY: Double = 0.5, width: Double = 0.25, rotation: Double = 0, opacity: Double = 1
    ) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.rotation = rotation
        self.opacity = opacity
    }

    /// Linear interpolation, for keyframed animation.
    func interpolated(to other: Placement, fraction t: Double) -> Placement {
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * t }
        return Placement(
            centerX: mix(centerX, other.centerX), centerY: mix(centerY, other.centerY), width: mix(width, other.width),
            rotation: mix(rotation, other.rotation), opacity: mix(opacity, other.opacity))
    }
}

/// An 8-bit straight-alpha colour; JSON as `"#RRGGBB"` or `"#RRGGBBAA"`.
public struct RGBAColor: Sendable, Equatable, Codable {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)

    /// Parses `#RRGGBB` or `#RRGGBBAA`.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(
            red: UInt8(full >> 24), green: UInt8((full >> 16) & 0xFF), blue: UInt8((full >> 8) & 0xFF),
            alpha: UInt8(full & 0xFF))
    }

    public var hex: String {
        let value = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
        let digits = String(value, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let color = RGBAColor(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\"\(text)\" is not a colour like #FF8800 or #FF880080"))
        }
        self = color
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

enum Compositor {
    /// Draws `image` onto an RGBA frame with the placement: scaled, rotated about its centre,
    /// bilinear-sampled, alpha-blended ("over").
    static func draw(_ image: OverlayImage, on frame: inout VideoFrame, placement: Placement) {
        let frameWidth = Double(frame.width)
        let targetWidth = placement.width * frameWidth
        guard targetWidth >= 1, image.width > 0, image.height > 0, placement.opacity > 0 else { return }
        let scale = targetWidth / Double(image.width)
        let angle = placement.rotation * .pi / 180
        let (cosA, sinA) = (cos(angle), sin(angle))
        let cx = placement.centerX * frameWidth
        let cy = placement.centerY * Double(frame.height)
        let halfW = Double(image.width) * scale / 2
        let halfH = Double(image.height) * scale / 2
        // Bounding box of the rotated rectangle, clipped to the frame.
        let extentX = abs(halfW * cosA) + abs(halfH * sinA)
        let extentY = abs(halfW * sinA) + abs(halfH * cosA)
        let x0 = max(0, Int((cx - extentX).rounded(.down)))
        let x1 = min(frame.width, Int((cx + extentX).rounded(.up)))
        let y0 = max(0, Int((cy - extentY).rounded(.down)))
        let y1 = min(frame.height, Int((cy + extentY).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let opacity = UInt32(min(1, max(0, placement.opacity)) * 256)
        let stride = frame.planes[0].bytesPerRow
        let sourceWidth = image.width
        let sourceHeight = image.height
        // Inverse mapping: destination pixel centre → source coordinates.
        let inverse = 1 / scale
        image.pixels.withUnsafeBufferPointer { source in
            frame.planes[0].bytes.withUnsafeMutableBufferPointer { bytes in
                for y in y0..<y1 {
                    let dy = Double(y) + 0.5 - cy
                    let line = bytes.baseAddress! + y * stride
                    for x in x0..<x1 {
                        let dx = Double(x) + 0.5 - cx
                        // Rotate back by -angle, then unscale.
                        let u = (dx * cosA + dy * sinA) * inverse + Double(sourceWidth) / 2 - 0.5
                        let v = (-dx * sinA + dy * cosA) * inverse + Double(sourceHeight) / 2 - 0.5
                        guard u > -1, v > -1, u < Double(sourceWidth), v < Double(sourceHeight) else { continue }
                        let sample = bilinear(source, width: sourceWidth, height: sourceHeight, u: u, v: v)
                        let alpha = (sample.3 * opacity) >> 8
                        guard alpha > 0 else { continue }
                        let pixel = line + x * 4
                        let keep = 255 - alpha
                        pixel[0] = UInt8(min(255, (sample.0 * opacity >> 8) + (UInt32(pixel[0]) * keep + 127) / 255))
                        pixel[1] = UInt8(min(255, (sample.1 * opacity >> 8) + (UInt32(pixel[1]) * keep + 127) / 255))
                        pixel[2] = UInt8(min(255, (sample.2 * opacity >> 8) + (UInt32(pixel[2]) * keep + 127) / 255))
                        pixel[3] = UInt8(min(255, alpha + (UInt32(pixel[3]) * keep + 127) / 255))
                    }
                }
            }
        }
    }

    /// Premultiplied bilinear sample; outside pixels are transparent.
    @inline(__always)
    static func bilinear(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, u: Double, v: Double) -> (
        UInt32, UInt32, UInt32, UInt32
    ) {
        let xf = u.rounded(.down)
        let yf = v.rounded(.down)
        let fx = UInt32((u - xf) * 256)
        let fy = UInt32((v - yf) * 256)
        let x0 = Int(xf)
        let y0 = Int(yf)
        func texel(_ x: Int, _ y: Int) -> (UInt32, UInt32, UInt32, UInt32) {
            guard x >= 0, y >= 0, x < width, y < height else { return (0, 0, 0, 0) }
            let i = (y * width + x) * 4
            return (UInt32(source[i]), UInt32(source[i + 1]), UInt32(source[i + 2]), UInt32(source[i + 3]))
        }
        let a = texel(x0, y0)
        let b = texel(x0 + 1, y0)
        let c = texel(x0, y0 + 1)
        let d = texel(x0 + 1, y0 + 1)
        func mix(_ p: UInt32, _ q: UInt32, _ r: UInt32, _ s: UInt32) -> UInt32 {
            let top = p * (256 - fx) + q * fx
            let bottom = r * (256 - fx) + s * fx
            return (top * (256 - fy) + bottom * fy + 32768) >> 16
        }
        return (mix(a.0, b.0, c.0, d.0), mix(a.1, b.1, c.1, d.1), mix(a.2, b.2, c.2, d.2), mix(a.3, b.3, c.3, d.3))
    }

    /// Blends a Cairo ARGB32 surface (premultiplied, B G R A bytes on little-endian) of the same size
    /// onto an RGBA frame.
    static func blendCairo(
        _ surface: UnsafePointer<UInt8>, stride surfaceStride: Int, on frame: inout VideoFrame,
        region: (x: Int, y: Int, width: Int, height: Int)? = nil
    ) {
        let area = region ?? (0, 0, frame.width, frame.height)
        let x0 = max(0, area.x)
        let y0 = max(0, area.y)
        let x1 = min(frame.width, area.x + area.width)
        let y1 = min(frame.height, area.y + area.height)
        guard x0 < x1, y0 < y1 else { return }
        let stride = frame.planes[0].bytesPerRow
        frame.planes[0].bytes.withUnsafeMutableBufferPointer { bytes in
            for y in y0..<y1 {
                let source = surface + y * surfaceStride
                let line = bytes.baseAddress! + y * stride
                for x in x0..<x1 {
                    let alpha = UInt32(source[x * 4 + 3])
                    if alpha == 0 { continue }
                    let keep = 255 - alpha
                    let pixel = line + x * 4
                    pixel[0] = UInt8(min(255, UInt32(source[x * 4 + 2]) + (UInt32(pixel[0]) * keep + 127) / 255))
                    pixel[1] = UInt8(min(255, UInt32(source[x * 4 + 1]) + (UInt32(pixel[1]) * keep + 127) / 255))
                    pixel[2] = UInt8(min(255, UInt32(source[x * 4]) + (UInt32(pixel[2]) * keep + 127) / 255))
                    pixel[3] = UInt8(min(255, alpha + (UInt32(pixel[3]) * keep + 127) / 255))
                }
            }
        }
    }
}
