/// # CameraTesting
///
/// What every test target shares: ``TestMedia`` makes videos at test time with known frame counts,
/// keyframes and timestamps (ffmpeg `lavfi` sources or in-process ``SyntheticPattern`` frames);
/// ``FFprobeReport`` asks ffprobe, the independent reference, what a file holds; ``RTSPTestServer``
/// runs GStreamer's RTSP server with Digest or Basic authentication on a loopback port;
/// ``Subprocess`` runs command-line tools.
public enum CameraTesting {}
