import CameraCommon

/// Where media comes from: a file, a network URL, or a capture device.
public enum MediaSource: Sendable, Hashable, CustomStringConvertible {
    /// A local file path.
    case file(String)
    /// A URL FFmpeg can open: `rtsp://`, `rtmp://`, `srt://`, `udp://`, `http(s)://`, `file:`.
    case url(String)
    /// A capture device: `format` is FFmpeg's device demuxer (`v4l2`, `x11grab`, `pulse`, `lavfi`)
    /// and `name` its input (`/dev/video0`, `:0.0+0,0`).
    case device(format: String, name: String)

    /// Reads what a user typed: `scheme://...` is a URL, `v4l2:/dev/video0` or `x11grab::0.0` a
    /// device (the format before the first colon), anything else a file path.
    public init(parsing text: String) {
        if text.contains("://") {
            self = .url(text)
            return
        }
        for device in ["v4l2", "x11grab", "pulse", "alsa", "lavfi"] where text.hasPrefix(device + ":") {
            self = .device(format: device, name: String(text.dropFirst(device.count + 1)))
            return
        }
        self = .file(text)
    }

    /// The string handed to FFmpeg.
    var ffmpegURL: String {
        switch self {
        case .file(let path): path
        case .url(let url): url
        case .device(_, let name): name
        }
    }

    /// URL schemes the reader opens. FFmpeg knows many more (gopher, ftp, concat, subfile, ...);
    /// anything not meant for camera and stream input is refused up front.
    public static let supportedSchemes: Set<String> = [
        "rtsp", "rtsps", "rtmp", "rtmps", "rtmpt", "srt", "udp", "rtp", "tcp", "http", "https", "file",
    ]

    /// The URL's scheme, lower-cased (nil for files and devices).
    public var scheme: String? {
        guard case .url(let url) = self, let end = url.firstRange(of: "://") else { return nil }
        return url[..<end.lowerBound].lowercased()
    }

    /// Whether reads may block on a network peer (and so get a timeout by default).
    public var isNetwork: Bool {
        guard case .url(let url) = self else { return false }
        return !url.hasPrefix("file:")
    }

    /// Whether the source runs in real time whether or not it is read (a stream or a capture device),
    /// so a reader that falls behind loses frames rather than slowing it down.
    public var isLive: Bool {
        if case .device = self { return true }
        return isNetwork
    }

    /// The source with any password replaced by `***`, safe for logs and errors.
    public var description: String {
        switch self {
        case .file(let path): path
        case .url(let url): URLRedaction.redact(url)
        case .device(let format, let name): "\(format):\(name)"
        }
    }
}

/// How to open a source.
public struct ReaderOptions: Sendable {
    /// RTSP lower transport. TCP (interleaved) survives NAT and loss better; UDP has lower latency.
    public enum Transport: String, Sendable, CaseIterable {
        case tcp, udp
    }

    public var rtspTransport: Transport
    /// Longest a single open or read may block on a network peer before failing with
    /// `timedOut`. Nil waits forever. Ignored for local files.
    public var timeout: Duration?
    /// Force a demuxer (`mp4`, `mpegts`, `v4l2`); nil lets FFmpeg detect it.
    public var inputFormat: String?
    /// Only these streams are returned by reads; nil returns every stream.
    public var streams: Set<Int>?
    /// Extra FFmpeg demuxer or protocol options (`video_size`, `framerate`, `probesize`, ...).
    public var options: [String: String]

    public init(
        rtspTransport: Transport = .tcp, timeout: Duration? = .seconds(10), inputFormat: String? = nil,
        streams: Set<Int>? = nil, options: [String: String] = [:]
    ) {
        self.rtspTransport = rtspTransport
        self.timeout = timeout
        self.inputFormat = inputFormat
        self.streams = streams
        self.options = options
    }
}

extension ReaderOptions {
    /// For live cameras, where the first picture matters. FFmpeg normally analyses about a second
    /// of a live stream before handing out packets; an RTSP SDP already says what the codec is, so
    /// these options analyse at most 0.1 s and 32 KB and do not buffer (`ffprobe` on a loopback
    /// RTSP stream: 1.1 s → 0.35 s).
    public static func lowLatency(transport: Transport = .tcp, timeout: Duration? = .seconds(10)) -> ReaderOptions {
        ReaderOptions(
            rtspTransport: transport, timeout: timeout,
            options: ["analyzeduration": "100000", "probesize": "32768", "fflags": "nobuffer"])
    }

    /// ``lowLatency(transport:timeout:)`` for a camera: FFmpeg may speak only RTSP and what RTSP
    /// rides on (TCP, UDP, RTP, TLS), so a camera URL can never make it read a file, fetch HTTP or
    /// follow a playlist elsewhere.
    public static func camera(transport: Transport = .tcp, timeout: Duration? = .seconds(10)) -> ReaderOptions {
        var options = lowLatency(transport: transport, timeout: timeout)
        options.options["protocol_whitelist"] = "rtsp,rtsps,tcp,udp,rtp,srtp,tls"
        return options
    }

    /// For a file a user uploaded: only the MP4/QuickTime and Matroska/WebM demuxers and only the
    /// local file, so an upload that is really a playlist or a concat list cannot make FFmpeg open
    /// other files.
    public static var uploadedVideo: ReaderOptions {
        ReaderOptions(options: ["format_whitelist": "mov,mp4,m4a,matroska,webm", "protocol_whitelist": "file"])
    }

    /// ``uploadedVideo``, or a screenshot: a PNG or JPEG picture.
    public static var uploadedVideoOrPicture: ReaderOptions {
        ReaderOptions(options: [
            "format_whitelist": "mov,mp4,m4a,matroska,webm,png_pipe,jpeg_pipe", "protocol_whitelist": "file",
        ])
    }
}
