import CameraCommon
import CameraTransform

/// A colour or blur filter (the role of a CIFilter), on RGBA or YUV frames.
public final class FilterEffect: InPlaceTransformLayer {
    /// Which filter, with its parameter.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// `amount` −1 … 1 added to every channel (0 = unchanged).
        case brightness
        /// `amount` 0 … 4, a factor around mid-grey (1 = unchanged).
        case contrast
        /// `amount` 0 (grey) … 1 (unchanged) … 3 (vivid).
        case saturation
        /// `amount` 0 … 1, how far towards grey (1: R = G = B).
        case grayscale
        /// `amount` 0 … 1, how far towards sepia tones.
        case sepia
        /// `amount` 0 … 1, how far towards the negative (1: 255 − value).
        case invert
        /// `amount` radius in pixels at 1080p (scaled with the frame height), 0 … 100.
        case blur
        /// `amount` 0 … 1, how dark the corners get.
        case vignette
    }

    public struct Configuration: Sendable, Codable, Equatable {
        public var kind: Kind
        public var amount: Double
        /// Vignette only: where darkening starts, as a fraction of the half-diagonal.
        public var radius: Double

        public init(kind: Kind, amount: Double, radius: Double = 0.5) {
            self.kind = kind
            self.amount = amount
            self.radius = radius
        }

        /// The allowed range of `amount` for each kind.
        public var allowedRange: ClosedRange<Double> {
            switch kind {
            case .brightness: -1...1
            case .contrast: 0...4
            case .saturation: 0...3
            case .grayscale, .sepia, .invert, .vignette: 0...1
            case .blur: 0...100
            }
        }
    }

    public let configuration: Configuration
    private let vignetteCache = LayerState<(width: Int, height: Int, map: [UInt16])?>(nil)

    /// - Throws: ``MediaError`` `invalidArgument` naming the filter when `amount` is out of range.
    public init(_ configuration: Configuration) throws(MediaError) {
        guard configuration.allowedRange.contains(configuration.amount), configuration.amount.isFinite else {
            throw MediaError(
                .invalidArgument, operation: "create \(configuration.kind.rawValue) filter",
                message: "amount \(configuration.amount) is outside \(configuration.allowedRange)")
        }
        self.configuration = configuration
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        let amount = configuration.amount
        switch (configuration.kind, frame.format) {
        case (.brightness, _), (.contrast, _), (.invert, _):
            let table = toneTable()
            switch frame.format {
            case .rgba: PixelOps.applyTable(table, to: &frame.planes[0], channels: 4)
            case .gray8: PixelOps.applyTable(table, to: &frame.planes[0], channels: 1)
            case .yuv420p, .nv12:
                PixelOps.applyTable(table, to: &frame.planes[0], channels: 1)
                if configuration.kind == .invert {
                    // Inverting colour also flips chroma around its neutral 128.
                    let chroma = (0..<256).map {
                        UInt8(clamping: Int((Double($0) + (255 - 2 * Double($0)) * amount).rounded()))
                    }
                    for index in 1..<frame.planes.count {
                        PixelOps.applyTable(
                            chroma, to: &frame.planes[index], channels: frame.format.bytesPerPixel(plane: index))
                    }
                }
            }
        case (.saturation, .rgba):
            PixelOps.colorMatrix(PixelOps.saturationMatrix(amount), mix: 1, on: &frame.planes[0])
        case (.grayscale, .rgba):
            PixelOps.colorMatrix(PixelOps.saturationMatrix(0), mix: amount, on: &frame.planes[0])
        case (.sepia, .rgba):
            PixelOps.colorMatrix(PixelOps.sepiaMatrix, mix: amount, on: &frame.planes[0])
        case (.saturation, .yuv420p), (.saturation, .nv12), (.grayscale, .yuv420p), (.grayscale, .nv12):
            // Chroma distance from neutral scales saturation directly.
            let factor = configuration.kind == .saturation ? amount : 1 - amount
            let table = (0..<256).map { UInt8(clamping: Int((128 + (Double($0) - 128) * factor).rounded())) }
            for index in 1..<frame.planes.count {
                PixelOps.applyTable(table, to: &frame.planes[index], channels: frame.format.bytesPerPixel(plane: index))
            }
        case (.saturation, .gray8), (.grayscale, .gray8):
            break  // already grey
        case (.sepia, _):
            return false  // sepia needs RGB
        case (.blur, _):
            let radius = Int((amount * Double(frame.height) / 1080).rounded())
            guard radius > 0 else { return true }
            for index in frame.planes.indices {
                let channels = frame.format.bytesPerPixel(plane: index)
                let planeRadius = index > 0 && frame.format.isSubsampled ? max(1, radius / 2) : radius
                PixelOps.blur(&frame.planes[index], channels: channels, radius: planeRadius)
            }
        case (.vignette, _):
            let (width, height) = (frame.width, frame.height)
            let map = vignetteCache.withLock { cache -> [UInt16] in
                if let cache, cache.width == width, cache.height == height { return cache.map }
                let map = PixelOps.vignetteMap(
                    width: width, height: height, strength: amount, radius: configuration.radius)
                cache = (width, height, map)
                return map
            }
            let channels = frame.format.bytesPerPixel(plane: 0)
            PixelOps.applyFactorMap(
                map, to: &frame.planes[0], channels: channels, colorChannels: frame.format == .rgba ? 3 : 1)
        }
        return true
    }

    private func toneTable() -> [UInt8] {
        switch configuration.kind {
        case .brightness: PixelOps.toneTable(brightness: configuration.amount, contrast: 1)
        case .contrast: PixelOps.toneTable(brightness: 0, contrast: configuration.amount)
        default:
            (0..<256).map {
                UInt8(clamping: Int((Double($0) + (255 - 2 * Double($0)) * configuration.amount).rounded()))
            }
        }
    }
}
