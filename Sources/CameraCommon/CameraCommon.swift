/// # CameraCommon
///
/// The value types and protocols every other CameraCore module speaks, with no dependency on FFmpeg
/// or any platform framework:
///
/// - ``MediaTime`` and ``TimeRange``: exact rational timestamps (the role of CMTime).
/// - ``MediaSample``: one compressed packet that owns its bytes; buffers hold these, not frames.
/// - ``StreamInfo``: what a stream carries (codec, size, rate, time base, extradata).
/// - ``VideoFrame``: decoded planar pixels with strides (gray, YUV 4:2:0, NV12, RGBA), crop and scale.
/// - ``MediaError``: the one error type; messages never contain credentials (``URLRedaction``).
///
/// The FFmpeg-backed implementations live in `CameraIO`.
public enum CameraCommon {
    /// The version of the CameraCore package.
    public static let version = "0.1.0"
}
