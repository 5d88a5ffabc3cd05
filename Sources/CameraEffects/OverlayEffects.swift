import CameraCommon
import CameraIO
import CameraTransform

/// An image with alpha placed on the video: position, scale, rotation and opacity
/// (EffectBitmapOverlay). ``PhotoEffect`` and ``StickerEffect`` build on it.
public final class BitmapOverlayEffect: InPlaceTransformLayer {
    public let image: OverlayImage
    public let placement: Placement

    public init(image: OverlayImage, placement: Placement) {
        self.image = image
        self.placement = placement
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba else { return false }
        Compositor.draw(image, on: &frame, placement: placement)
        return true
    }
}

/// A photo from a file (PNG or JPEG) placed as an overlay (EffectPhoto).
public final class PhotoEffect: InPlaceTransformLayer {
    public struct Configuration: Sendable, Codable, Equatable {
        public var path: String
        public var placement: Placement
        public init(path: String, placement: Placement = Placement()) {
            self.path = path
            self.placement = placement
        }
    }

    public let configuration: Configuration
    private let overlay: BitmapOverlayEffect

    /// - Throws: ``MediaError`` naming the file when it is missing or not an image.
    public init(_ configuration: Configuration) throws(MediaError) {
        self.configuration = configuration
        overlay = BitmapOverlayEffect(
            image: try OverlayImage(ImageDecoder.load(configuration.path)), placement: configuration.placement)
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        overlay.apply(to: &frame, context: context)
    }
}

/// A bitmap whose placement is animated by keyframes on media time (EffectSticker). Between
/// keyframes the placement is interpolated linearly; before the first and after the last it holds.
public final class StickerEffect: InPlaceTransformLayer {
    public struct Keyframe: Sendable, Codable, Equatable {
        /// Seconds of media time.
        public var time: Double
        public var placement: Placement
        public init(time: Double, placement: Placement) {
            self.time = time
            self.placement = placement
        }
    }

    public struct Configuration: Sendable, Codable, Equatable {
        public var path: String
        public var keyframes: [Keyframe]
        public init(path: String, keyframes: [Keyframe]) {
            self.path = path
            self.keyframes = keyframes
        }
    }

    public let configuration: Configuration
    private let image: OverlayImage
    private let keyframes: [Keyframe]

    public convenience init(_ configuration: Configuration) throws(MediaError) {
        try self.init(configuration, image: OverlayImage(ImageDecoder.load(configuration.path)))
    }

    /// - Throws: ``MediaError`` `invalidArgument` when there are no keyframes.
    public init(_ configuration: Configuration, image: OverlayImage) throws(MediaError) {
        guard !configuration.keyframes.isEmpty else {
            throw MediaError(
                .invalidArgument, operation: "create sticker \(configuration.path)",
                message: "a sticker needs at least one keyframe")
        }
        self.configuration = configuration
        self.image = image
        self.keyframes = configuration.keyframes.sorted { $0.time < $1.time }
    }

    /// The placement at a media time.
    public func placement(at seconds: Double) -> Placement {
        guard let next = keyframes.firstIndex(where: { $0.time > seconds }) else {
            return keyframes[keyframes.count - 1].placement
        }
        guard next > 0 else { return keyframes[0].placement }
        let a = keyframes[next - 1]
        let b = keyframes[next]
        return a.placement.interpolated(to: b.placement, fraction: (seconds - a.time) / (b.time - a.time))
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba else { return false }
        Compositor.draw(image, on: &frame, placement: placement(at: context.time.seconds))
        return true
    }
}

/// A border image stretched over the whole frame, drawn on top of the video; its transparent
/// middle lets the video show through (EffectFrame).
public final class FrameEffect: InPlaceTransformLayer {
    public struct Configuration: Sendable, Codable, Equatable {
        public var path: String
        public init(path: String) { self.path = path }
    }

    public let configuration: Configuration
    private let image: OverlayImage

    public init(_ configuration: Configuration) throws(MediaError) {
        self.configuration = configuration
        image = try OverlayImage(ImageDecoder.load(configuration.path))
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba else { return false }
        // Stretch to the frame: width 1 and the frame's aspect ratio via a pre-scaled image.
        let stretched = Self.stretch(image, toWidth: frame.width, height: frame.height)
        Compositor.draw(stretched, on: &frame, placement: Placement(centerX: 0.5, centerY: 0.5, width: 1))
        return true
    }

    /// Nearest-neighbour stretch to an exact size (borders are drawn at frame size, so once).
    static func stretch(_ image: OverlayImage, toWidth width: Int, height: Int) -> OverlayImage {
        if image.width == width && image.height == height { return image }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let sy = min(image.height - 1, y * image.height / height)
            for x in 0..<width {
                let sx = min(image.width - 1, x * image.width / width)
                let s = (sy * image.width + sx) * 4
                let d = (y * width + x) * 4
                pixels[d] = image.pixels[s]
                pixels[d + 1] = image.pixels[s + 1]
                pixels[d + 2] = image.pixels[s + 2]
                pixels[d + 3] = image.pixels[s + 3]
            }
        }
        return OverlayImage(width: width, height: height, premultiplied: pixels)
    }
}

/// A board: a full-frame background (an image, or a solid colour) with the video shrunk into an
/// inset rectangle on top of it (EffectBoard). Everything outside the inset is the board.
public final class BoardEffect: InPlaceTransformLayer {
    public struct Configuration: Sendable, Codable, Equatable {
        /// Background image; nil uses `color`.
        public var path: String?
        public var color: RGBAColor
        /// Where the video goes, normalised to the frame (x, y from the top-left).
        public var inset: NormalizedRect

        public init(
            path: String? = nil, color: RGBAColor = .white,
            inset: NormalizedRect = NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
        ) {
            self.path = path
            self.color = color
            self.inset = inset
        }
    }

    public let configuration: Configuration
    private let background: OverlayImage?

    /// - Throws: ``MediaError`` when the inset is outside the frame or the image cannot load.
    public init(_ configuration: Configuration) throws(MediaError) {
        guard configuration.inset.isValid else {
            throw MediaError(
                .invalidArgument, operation: "create board",
                message: "the inset \(configuration.inset) is not inside the frame")
        }
        self.configuration = configuration
        background = try configuration.path.map { path throws(MediaError) in try OverlayImage(ImageDecoder.load(path)) }
    }

    public func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard frame.format == .rgba else { return false }
        let inset = configuration.inset
        let videoWidth = max(1, Int(inset.width * Double(frame.width)))
        let videoHeight = max(1, Int(inset.height * Double(frame.height)))
        guard let video = try? frame.scaled(width: videoWidth, height: videoHeight),
            let videoImage = try? OverlayImage(video)
        else {
            return false
        }
        let board =
            background.map { FrameEffect.stretch($0, toWidth: frame.width, height: frame.height) }
            ?? OverlayImage.solid(configuration.color, width: frame.width, height: frame.height)
        var output = VideoFrame(format: .rgba, width: frame.width, height: frame.height, fill: [0])
        output.pts = frame.pts
        Compositor.draw(board, on: &output, placement: Placement(centerX: 0.5, centerY: 0.5, width: 1))
        Compositor.draw(
            videoImage, on: &output,
            placement: Placement(
                centerX: inset.x + inset.width / 2, centerY: inset.y + inset.height / 2, width: inset.width))
        frame = output
        return true
    }
}
