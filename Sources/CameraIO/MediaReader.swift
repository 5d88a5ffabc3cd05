import CFFmpeg
import CameraCommon
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads compressed samples from a file, a network stream or a capture device (FFmpeg's demuxers).
///
/// Reads block; use ``nextSample()`` from a thread of your own or ``samples()`` from async code, which
/// reads on the reader's own queue and aborts a blocked read when the task is cancelled. A network
/// read that stalls longer than ``ReaderOptions/timeout`` fails with `MediaError.Kind.timedOut`.
public final class MediaReader: @unchecked Sendable {
    // @unchecked: every use of `context` and `packet` happens under `lock`; `interrupt` is Sendable.
    private let lock = Mutex<Void>(())
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let interrupt = InterruptGuard()
    private let timeoutSeconds: Double?
    private let wantedStreams: Set<Int>?
    private let queue: DispatchQueue

    /// The source as given, with credentials redacted when printed.
    public let source: MediaSource
    /// Every stream in the source, in the source's order.
    public let streams: [StreamInfo]
    /// The container's duration, when it states one (files; not live streams).
    public let duration: MediaTime?
    /// The container's start time (first timestamp), when known.
    public let startTime: MediaTime?
    /// FFmpeg's name for the container, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `rtsp`.
    public let formatName: String

    /// Opens `source`. Blocks until the streams are known (for a network source at most
    /// `options.timeout`).
    ///
    /// - Throws: ``MediaError`` — `notFound` for a missing file, `invalidData` for bytes that are not
    ///   media, `unsupported` for an unknown scheme or format, `authenticationFailed` when a server
    ///   refuses the credentials, `timedOut` when a peer does not answer.
    public init(_ source: MediaSource, options: ReaderOptions = ReaderOptions()) throws(MediaError) {
        _ = FFmpegRuntime.setUp
        self.source = source
        self.wantedStreams = options.streams
        self.timeoutSeconds = source.isNetwork ? options.timeout?.seconds : nil
        self.queue = DispatchQueue(label: "cameracore.reader")
        let operation = "open \(source)"

        if case .file(let path) = source {
            try Self.checkReadableFile(path, operation: operation)
        }
        if let scheme = source.scheme, !MediaSource.supportedSchemes.contains(scheme) {
            throw MediaError(
                .unsupported, operation: operation,
                message:
                    "unsupported scheme \"\(scheme)://\"; use one of \(MediaSource.supportedSchemes.sorted().joined(separator: ", "))"
            )
        }

        var dictionary: OpaquePointer? = nil
        defer { av_dict_free(&dictionary) }
        if case .url(let url) = source, url.hasPrefix("rtsp") {
            av_dict_set(&dictionary, "rtsp_transport", options.rtspTransport.rawValue, 0)
        }
        if let timeoutSeconds {
            // Socket-level timeout too (microseconds), so FFmpeg's own waits end as well.
            let micros = String(Int64(timeoutSeconds * 1_000_000))
            if case .url(let url) = source, url.hasPrefix("rtsp") {
                av_dict_set(&dictionary, "timeout", micros, 0)
            } else {
                av_dict_set(&dictionary, "rw_timeout", micros, 0)
            }
        }
        for (key, value) in options.options { av_dict_set(&dictionary, key, value, 0) }

        var inputFormat: UnsafePointer<AVInputFormat>? = nil
        let formatName: String? = {
            if case .device(let format, _) = source { return format }
            return options.inputFormat
        }()
        if let formatName {
            inputFormat = av_find_input_format(formatName)
            guard inputFormat != nil else {
                throw MediaError(
                    .unsupported, operation: operation,
                    message: "FFmpeg in this build has no input format \"\(formatName)\"")
            }
        }

        guard var context = avformat_alloc_context() else {
            throw MediaError(.other, operation: operation, message: "out of memory")
        }
        context.pointee.interrupt_callback = interrupt.callback
        interrupt.arm(seconds: timeoutSeconds)
        var contextOrNil: UnsafeMutablePointer<AVFormatContext>? = context
        let openResult = avformat_open_input(&contextOrNil, source.ffmpegURL, inputFormat, &dictionary)
        guard openResult >= 0, let opened = contextOrNil else {
            // avformat_open_input frees the context on failure.
            throw Self.translate(openResult, operation: operation, interrupt: interrupt, timeout: timeoutSeconds)
        }
        context = opened
        interrupt.arm(seconds: timeoutSeconds)
        let infoResult = avformat_find_stream_info(context, nil)
        interrupt.disarm()
        if infoResult < 0 {
            avformat_close_input(&contextOrNil)
            throw Self.translate(infoResult, operation: operation, interrupt: interrupt, timeout: timeoutSeconds)
        }
        var infos: [StreamInfo] = []
        for index in 0..<Int(context.pointee.nb_streams) {
            if let stream = context.pointee.streams[index] {
                infos.append(StreamInfo(stream: stream, index: index))
            }
        }
        self.streams = infos
        let microseconds = AVRational(num: 1, den: 1_000_000)
        self.duration =
            context.pointee.duration > 0 ? MediaTime(ffmpeg: context.pointee.duration, timeBase: microseconds) : nil
        self.startTime = MediaTime(ffmpeg: context.pointee.start_time, timeBase: microseconds)
        self.formatName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        self.context = context
        self.packet = av_packet_alloc()
    }

    deinit {
        interrupt.abort()
        av_packet_free(&packet)
        avformat_close_input(&context)
    }

    /// The first video stream, if any.
    public var videoStream: StreamInfo? { streams.first { $0.mediaType == .video } }
    /// The first audio stream, if any.
    public var audioStream: StreamInfo? { streams.first { $0.mediaType == .audio } }

    /// Reads the next sample; nil at the end of a file (or of a network source with a known
    /// duration). A live stream never ends normally: when its server goes away the read throws.
    ///
    /// - Throws: ``MediaError`` for corrupt data, a lost or silent peer (`network`, `timedOut`), or
    ///   `cancelled` after ``close()`` or task cancellation.
    public func nextSample() throws(MediaError) -> MediaSample? {
        var sample: MediaSample?
        _ = try withNextPacket { packet, stream, timeBase throws(MediaError) in
            sample = Self.sample(from: packet, stream: stream, timeBase: timeBase)
        }
        return sample
    }

    /// Reads the next packet and lends it to `body` without copying its bytes (the remuxer moves
    /// it straight into a muxer). Returns false at the end of the source.
    func withNextPacket(
        _ body: (UnsafeMutablePointer<AVPacket>, StreamInfo, AVRational) throws(MediaError) -> Void
    ) throws(MediaError) -> Bool {
        try lock.withLock { _ throws(MediaError) -> Bool in
            guard let context, let packet else {
                throw MediaError(.cancelled, operation: "read \(source)", message: "the reader was closed")
            }
            while true {
                interrupt.arm(seconds: timeoutSeconds)
                let result = av_read_frame(context, packet)
                interrupt.disarm()
                if result == cc_averror_eof() {
                    if interrupt.isAborted {
                        throw MediaError(.cancelled, operation: "read \(source)", message: "cancelled")
                    }
                    // A live network stream has no end: EOF means the server went away.
                    if source.isNetwork && duration == nil {
                        throw MediaError(
                            .network, operation: "read \(source)",
                            message: "the stream ended: the server stopped or closed the connection", code: result)
                    }
                    return false
                }
                if result < 0 {
                    throw Self.translate(
                        result, operation: "read \(source)", interrupt: interrupt, timeout: timeoutSeconds)
                }
                defer { av_packet_unref(packet) }
                let index = Int(packet.pointee.stream_index)
                guard index < streams.count, wantedStreams?.contains(index) ?? true else { continue }
                try body(packet, streams[index], context.pointee.streams[index]!.pointee.time_base)
                return true
            }
        }
    }

    /// Moves the read position so the next samples start at the keyframe at or before `time`
    /// (on the first video stream when there is one).
    public func seek(to time: MediaTime) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            guard let context else {
                throw MediaError(.cancelled, operation: "seek \(source)", message: "the reader was closed")
            }
            let streamIndex = videoStream?.index ?? -1
            let timeBase =
                streamIndex >= 0
                ? context.pointee.streams[streamIndex]!.pointee.time_base : AVRational(num: 1, den: 1_000_000)
            interrupt.arm(seconds: timeoutSeconds)
            defer { interrupt.disarm() }
            let result = av_seek_frame(context, Int32(streamIndex), time.ticks(in: timeBase), AVSEEK_FLAG_BACKWARD)
            if result < 0 {
                throw Self.translate(
                    result, operation: "seek \(source) to \(time.seconds)s", interrupt: interrupt,
                    timeout: timeoutSeconds)
            }
        }
    }

    /// Aborts any blocked read and releases the source. Later reads fail with `cancelled`.
    public func close() {
        interrupt.abort()
        lock.withLock { _ in
            av_packet_free(&packet)
            avformat_close_input(&context)
        }
    }

    /// Samples as an async sequence. Reads run on the reader's own queue (never on the cooperative
    /// pool, since a network read can block); cancelling the consuming task aborts a blocked read.
    public func samples() -> Samples { Samples(reader: self) }

    /// The async sequence returned by ``samples()``.
    public struct Samples: AsyncSequence, Sendable {
        public typealias Element = MediaSample
        let reader: MediaReader

        public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

        public struct Iterator: AsyncIteratorProtocol {
            let reader: MediaReader

            public mutating func next() async throws -> MediaSample? {
                let reader = self.reader
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation {
                        (continuation: CheckedContinuation<MediaSample?, any Error>) in
                        reader.queue.async {
                            do {
                                continuation.resume(returning: try reader.nextSample())
                            } catch {
                                continuation.resume(throwing: error)
                            }
                        }
                    }
                } onCancel: {
                    reader.interrupt.abort()
                }
            }
        }
    }

    // MARK: - Internals shared with the decoder and the remuxer

    /// Runs `body` with the demuxer's codec parameters for a stream (borrowed; do not keep them).
    func withCodecParameters<T>(stream index: Int, _ body: (UnsafePointer<AVCodecParameters>) throws(MediaError) -> T)
        throws(MediaError) -> T
    {
        try lock.withLock { _ throws(MediaError) -> T in
            guard let context, index >= 0, index < Int(context.pointee.nb_streams),
                let stream = context.pointee.streams[index]
            else {
                throw MediaError(
                    .invalidArgument, operation: "use stream \(index) of \(source)", message: "no such stream")
            }
            return try body(stream.pointee.codecpar)
        }
    }

    static func sample(from packet: UnsafeMutablePointer<AVPacket>, stream: StreamInfo, timeBase: AVRational)
        -> MediaSample
    {
        let size = Int(packet.pointee.size)
        let bytes: [UInt8] =
            size > 0 && packet.pointee.data != nil
            ? [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                buffer.baseAddress!.update(from: packet.pointee.data, count: size)
                count = size
            } : []
        return MediaSample(
            data: bytes,
            pts: MediaTime(ffmpeg: packet.pointee.pts, timeBase: timeBase),
            dts: MediaTime(ffmpeg: packet.pointee.dts, timeBase: timeBase),
            duration: MediaTime(ffmpeg: packet.pointee.duration, timeBase: timeBase) ?? .zero,
            isKeyframe: packet.pointee.flags & AV_PKT_FLAG_KEY != 0,
            streamIndex: stream.index,
            mediaType: stream.mediaType)
    }

    static func translate(_ code: Int32, operation: String, interrupt: InterruptGuard, timeout: Double?) -> MediaError {
        if interrupt.didTimeOut || code == cc_averror(ETIMEDOUT) {
            let limit = timeout.map { " within \(MediaTime.init(seconds: $0).seconds)s" } ?? ""
            return MediaError(.timedOut, operation: operation, message: "no answer\(limit)", code: code)
        }
        if interrupt.isAborted {
            return MediaError(.cancelled, operation: operation, message: "cancelled", code: code)
        }
        let kind = FFmpegError.kind(for: code)
        if kind == .authenticationFailed {
            return MediaError(
                kind, operation: operation,
                message: "the server refused the credentials (\(FFmpegError.message(for: code)))", code: code)
        }
        return FFmpegError.error(code, operation)
    }

    private static func checkReadableFile(_ path: String, operation: String) throws(MediaError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MediaError(
                .notFound, operation: operation,
                message: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw MediaError(.invalidArgument, operation: operation, message: "is a directory, not a media file")
        }
        // A named pipe (a capture streamed in) has no size until read.
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 {
            throw MediaError(.invalidData, operation: operation, message: "the file is empty")
        }
        guard access(path, R_OK) == 0 else {
            throw MediaError(
                .notFound, operation: operation, message: "not readable: \(String(cString: strerror(errno)))")
        }
    }
}
