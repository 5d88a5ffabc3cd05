/// # CameraTransform
///
/// Layers that transform video frames, iterated in the two-phase cycle of the CameraCore spec:
///
/// - **Update** (``TransformLayer/update(_:)``): a layer sees the render size, the orientation, the
///   media time and a typed ``FeatureDictionary`` (detected faces, audio level, anything a producer
///   declares a ``FeatureKey`` for). Slow work goes here; it may run at a lower rate than render.
/// - **Render** (``TransformLayer/render(_:context:)``): a layer receives the frame produced by the
///   layers below it and returns its own, or nil to be skipped this pass (the input passes through).
///
/// ``LayerStack`` orders layers by z-index (stable for ties), skips hidden ones, removes layers that
/// ask to go, runs updates at their own rate without blocking render, and can be changed while
/// frames render.
public enum CameraTransform {}
