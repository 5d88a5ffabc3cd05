import CameraCommon

/// How the device (or the video) is turned, which layers may use to keep overlays upright.
public enum Orientation: String, Sendable, Codable {
    case portrait, portraitUpsideDown, landscapeLeft, landscapeRight
}

/// What the update phase tells a layer.
public struct UpdateContext: Sendable {
    public var renderSize: (width: Int, height: Int)
    public var orientation: Orientation
    /// Media time of the frame that triggered this update.
    public var time: MediaTime
    public var features: FeatureDictionary

    public init(
        renderSize: (width: Int, height: Int), orientation: Orientation = .landscapeLeft, time: MediaTime,
        features: FeatureDictionary = FeatureDictionary()
    ) {
        self.renderSize = renderSize
        self.orientation = orientation
        self.time = time
        self.features = features
    }
}

/// What the render phase tells a layer.
public struct RenderContext: Sendable {
    public var renderSize: (width: Int, height: Int)
    public var orientation: Orientation
    /// Media time of the frame being rendered.
    public var time: MediaTime

    public init(renderSize: (width: Int, height: Int), orientation: Orientation = .landscapeLeft, time: MediaTime) {
        self.renderSize = renderSize
        self.orientation = orientation
        self.time = time
    }
}

/// One transformation of the picture: a filter, an overlay, a drawing.
///
/// Layers are reference types shared between the render path and the update path, so a layer
/// keeps any state it changes in `update` behind its own lock (``LayerState`` does that).
public protocol TransformLayer: AnyObject, Sendable {
    /// Slow preparation, possibly at a lower rate than render. The default does nothing.
    func update(_ context: UpdateContext)
    /// The frame from the layers below in, this layer's frame out; nil skips the layer this pass.
    func render(_ frame: VideoFrame, context: RenderContext) -> VideoFrame?
    /// The same as `render`, changing the frame in place; returns false when skipped (the frame
    /// must then be unchanged). The stack calls this, so layers that can work in place avoid a
    /// copy of the frame; the default calls `render`.
    func renderInPlace(_ frame: inout VideoFrame, context: RenderContext) -> Bool
    /// Set to true to be removed from the stack after the current pass (a finished animation).
    var wantsRemoval: Bool { get }
}

extension TransformLayer {
    public func update(_ context: UpdateContext) {}
    public var wantsRemoval: Bool { false }
    public func renderInPlace(_ frame: inout VideoFrame, context: RenderContext) -> Bool {
        guard let rendered = render(frame, context: context) else { return false }
        frame = rendered
        return true
    }
}

/// A layer whose work is naturally in place (filters, overlays): implement `apply` and get both
/// render entry points.
public protocol InPlaceTransformLayer: TransformLayer {
    /// Changes `frame`; returns false (with the frame untouched) to be skipped this pass.
    func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool
}

extension InPlaceTransformLayer {
    public func render(_ frame: VideoFrame, context: RenderContext) -> VideoFrame? {
        var copy = frame
        return apply(to: &copy, context: context) ? copy : nil
    }

    public func renderInPlace(_ frame: inout VideoFrame, context: RenderContext) -> Bool {
        apply(to: &frame, context: context)
    }
}
