/// # CameraIO
///
/// The media engine: the only module that touches FFmpeg. Owned FFmpeg objects are freed in
/// `deinit`; borrowed pointers never leave the call that lends them. Every FFmpeg failure becomes a
/// ``CameraCommon/MediaError`` carrying the operation and FFmpeg's message.
///
/// - ``MediaReader``: files, stream URLs (RTSP over TCP or UDP, RTMP, SRT, UDP, HTTP) and capture
///   devices (v4l2, x11grab); samples synchronously or as an `AsyncSequence`; seek; timeouts and
///   task cancellation abort blocked network reads (FFmpeg's interrupt callback).
/// - ``VideoDecoder``: samples → ``CameraCommon/VideoFrame`` in a chosen format and size; `every: n`
///   decodes every frame but converts only every n-th.
/// - ``VideoEncoder``: frames → H.264 samples (libx264) with bit rate or CRF, GOP and preset.
/// - ``MediaWriter``: samples → MP4 (faststart), fragmented MP4 or MPEG-TS, to a file (atomic) or,
///   fragmented, to memory as an init segment plus keyframe-aligned fragments for live view.
/// - ``Remuxer``: a time range copied without re-encoding, from the keyframe at or before its start.
/// - ``ProbeReport``: streams, duration, exact frame counts and keyframe positions.
/// - ``ImageEncoder``: PNG and JPEG stills. ``AtomicFile`` and ``WorkingDirectory``: file handling.
public enum CameraIO {}
