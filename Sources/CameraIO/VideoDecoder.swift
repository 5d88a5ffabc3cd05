import CFFmpeg
import CameraCommon

/// Decodes compressed video samples into ``VideoFrame`` values in a requested pixel format and size.
///
/// With `every: n` the decoder still decodes every sample (later frames reference earlier ones) but
/// converts and hands out only every n-th frame, which is where most of the cost of a sampled
/// analysis (OCR at 10 Hz, thumbnails) goes.
public final class VideoDecoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var converter: FrameConverter
    private var secondConverter: FrameConverter?
    /// The size asked for at creation (nil: the stream's).
    private let size: (width: Int, height: Int)?
    private let timeBase: AVRational
    private let every: Int
    /// The stream this decoder was made for.
    public let stream: StreamInfo
    /// Frames decoded so far, including the ones not handed out.
    public private(set) var decodedFrameCount = 0

    /// Hand out a frame only when at least this much media time has passed since the last one
    /// handed out (time-based sampling, e.g. 0.1 s for 10 Hz whatever the frame rate); nil hands out
    /// every `every`-th frame.
    public var minimumInterval: MediaTime?
    private var lastHandedOut: MediaTime?

    /// Skip decoding frames no other frame refers to (B-frames in most H.264 and HEVC streams).
    /// For sampled analysis (OCR at 10 Hz, thumbnails) this halves decoding time; the frames that
    /// remain are still decoded exactly.
    public var skipsNonReferenceFrames = false {
        didSet { applySkip() }
    }

    /// Decode keyframes only (one picture per group, for health checks and thumbnails of live
    /// streams at almost no cost).
    public var decodesKeyframesOnly = false {
        didSet { applySkip() }
    }

    /// A second size frames are handed out at too, by ``decodeAtBothSizes(_:)`` and
    /// ``flushAtBothSizes()``, while it is set (nil: none): a picture decoded once and converted
    /// twice, for a reader that wants some frames larger than the rest (a rim a few pixels tall
    /// is looked for at twice the size the ball is followed at).
    public var secondSize: (width: Int, height: Int)? {
        didSet { secondConverter = secondSize.map { FrameConverter(format: converter.format, size: stored($0)) } }
    }

    /// Frames are handed out as a player shows them: turned clockwise by the stream's display
    /// matrix (``StreamInfo/rotation``), as a phone records a portrait video, or a landscape one
    /// held the other way up. The size asked for and ``secondSize`` are then the turned picture's.
    /// Off by default: an editor keeps the matrix (``Remuxer``) or turns frames as it renders.
    public var upright = false {
        didSet {
            converter = FrameConverter(format: converter.format, size: size.map(stored))
            secondConverter = secondSize.map { FrameConverter(format: converter.format, size: stored($0)) }
        }
    }

    /// Clockwise degrees each frame is turned by before it is handed out.
    private var turn: Int { upright ? stream.rotation : 0 }

    /// A size asked for, as the stored picture is (a quarter turn swaps it).
    private func stored(_ size: (width: Int, height: Int)) -> (width: Int, height: Int) {
        turn % 180 == 90 ? (width: size.height, height: size.width) : size
    }

    private func applySkip() {
        codecContext?.pointee.skip_frame =
            decodesKeyframesOnly ? AVDISCARD_NONKEY : skipsNonReferenceFrames ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
    }

    /// A decoder for a stream described by `stream` (for samples from a buffer or another reader).
    ///
    /// - Parameters:
    ///   - format: pixel format of the frames handed out.
    ///   - size: output size; nil keeps the stream's size.
    ///   - every: hand out only every n-th decoded frame (1 = all).
    ///   - threads: decoder threads; 0 lets FFmpeg choose from the core count.
    public convenience init(
        stream: StreamInfo, format: PixelFormat = .rgba, size: (width: Int, height: Int)? = nil, every: Int = 1,
        threads: Int = 0
    ) throws(MediaError) {
        guard let parameters = avcodec_parameters_alloc() else {
            throw MediaError(.other, operation: "create decoder", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&owned) }
        try stream.fill(parameters)
        try self.init(
            parameters: parameters, stream: stream, format: format, size: size, every: every, threads: threads)
    }

    /// A decoder for stream `index` of an open reader (uses the demuxer's full codec parameters).
    public convenience init(
        reader: MediaReader, streamIndex: Int? = nil, format: PixelFormat = .rgba,
        size: (width: Int, height: Int)? = nil,
        every: Int = 1, threads: Int = 0
    ) throws(MediaError) {
        guard let index = streamIndex ?? reader.videoStream?.index, index < reader.streams.count else {
            throw MediaError(
                .invalidArgument, operation: "decode \(reader.source)", message: "the source has no video stream")
        }
        let info = reader.streams[index]
        guard info.mediaType == .video else {
            throw MediaError(
                .invalidArgument, operation: "decode \(reader.source)",
                message: "stream \(index) is \(info.mediaType), not video")
        }
        let decoder = try reader.withCodecParameters(stream: index) { parameters throws(MediaError) in
            try VideoDecoderCore(parameters: parameters, stream: info, threads: threads)
        }
        self.init(core: decoder, stream: info, format: format, size: size, every: every)
    }

    private convenience init(
        parameters: UnsafePointer<AVCodecParameters>, stream: StreamInfo, format: PixelFormat,
        size: (width: Int, height: Int)?,
        every: Int, threads: Int
    ) throws(MediaError) {
        let core = try VideoDecoderCore(parameters: parameters, stream: stream, threads: threads)
        self.init(core: core, stream: stream, format: format, size: size, every: every)
    }

    private init(
        core: VideoDecoderCore, stream: StreamInfo, format: PixelFormat, size: (width: Int, height: Int)?, every: Int
    ) {
        self.codecContext = core.take()
        self.packet = av_packet_alloc()
        self.frame = av_frame_alloc()
        self.converter = FrameConverter(format: format, size: size)
        self.size = size
        self.timeBase = AVRational(num: 1, den: stream.timeBase)
        self.every = max(1, every)
        self.stream = stream
    }

    deinit {
        avcodec_free_context(&codecContext)
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    /// Feeds one sample and returns the frames it completed (zero, one, or more after a flush of
    /// reordered frames). Samples of other streams are ignored.
    ///
    /// - Throws: ``MediaError`` `codec` when the data is corrupt beyond what the decoder conceals.
    public func decode(_ sample: MediaSample) throws(MediaError) -> [VideoFrame] {
        try decodeAtBothSizes(sample).map(\.frame)
    }

    /// ``decode(_:)``, each frame also at ``secondSize`` while it is set (nil when it is not).
    public func decodeAtBothSizes(_ sample: MediaSample) throws(MediaError) -> [(
        frame: VideoFrame, second: VideoFrame?
    )] {
        guard sample.streamIndex == stream.index, sample.mediaType == .video, let packet, let codecContext else {
            return []
        }
        guard !sample.data.isEmpty else { return [] }
        try FFmpegError.check(av_new_packet(packet, Int32(sample.data.count)), "decode frame")
        defer { av_packet_unref(packet) }
        sample.data.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        packet.pointee.pts = sample.pts?.ticks(in: timeBase) ?? cc_nopts_value()
        packet.pointee.dts = sample.dts?.ticks(in: timeBase) ?? cc_nopts_value()
        packet.pointee.duration = sample.duration.ticks(in: timeBase)
        if sample.isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        var result = avcodec_send_packet(codecContext, packet)
        var frames: [(frame: VideoFrame, second: VideoFrame?)] = []
        if result == cc_averror(EAGAIN) {
            // The decoder wants its output drained first, then the packet again.
            frames = try receiveFrames()
            result = avcodec_send_packet(codecContext, packet)
        }
        // Corrupt packets are skipped (as players do); the caller still gets what decodes.
        if result < 0 && result != cc_averror_invaliddata() && result != cc_averror(EAGAIN) {
            throw FFmpegError.error(result, "decode frame", kind: .codec)
        }
        frames += try receiveFrames()
        return frames
    }

    /// Drains frames the decoder still holds at the end of the stream.
    public func flush() throws(MediaError) -> [VideoFrame] {
        try flushAtBothSizes().map(\.frame)
    }

    /// ``flush()``, each frame also at ``secondSize`` while it is set.
    public func flushAtBothSizes() throws(MediaError) -> [(frame: VideoFrame, second: VideoFrame?)] {
        guard let codecContext else { return [] }
        _ = avcodec_send_packet(codecContext, nil)
        let frames = try receiveFrames()
        avcodec_flush_buffers(codecContext)
        return frames
    }

    private func receiveFrames() throws(MediaError) -> [(frame: VideoFrame, second: VideoFrame?)] {
        guard let codecContext, let frame else { return [] }
        var frames: [(frame: VideoFrame, second: VideoFrame?)] = []
        while true {
            let result = avcodec_receive_frame(codecContext, frame)
            if result == cc_averror(EAGAIN) || result == cc_averror_eof() { break }
            if result < 0 { throw FFmpegError.error(result, "decode frame", kind: .codec) }
            defer { av_frame_unref(frame) }
            let index = decodedFrameCount
            decodedFrameCount += 1
            guard index % every == 0 else { continue }
            let pts = MediaTime(ffmpeg: frame.pointee.best_effort_timestamp, timeBase: timeBase)
            if let interval = minimumInterval, let pts {
                if let last = lastHandedOut, pts < last + interval, pts >= last { continue }
                lastHandedOut = pts
            }
            let (first, second) = (
                try converter.convert(frame, pts: pts), try secondConverter?.convert(frame, pts: pts)
            )
            // (No turn hands the frames back as they are.)
            frames.append((first.rotated(clockwise: turn), second?.rotated(clockwise: turn)))
        }
        return frames
    }
}

/// Opens the codec; separated so both initialisers share it.
private final class VideoDecoderCore {
    private var context: UnsafeMutablePointer<AVCodecContext>?

    init(parameters: UnsafePointer<AVCodecParameters>, stream: StreamInfo, threads: Int) throws(MediaError) {
        let operation = "open \(stream.codec) decoder"
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(
                .unsupported, operation: operation, message: "this FFmpeg build has no decoder for \(stream.codec)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.other, operation: operation, message: "out of memory")
        }
        self.context = context
        try FFmpegError.check(avcodec_parameters_to_context(context, parameters), operation)
        context.pointee.pkt_timebase = AVRational(num: 1, den: stream.timeBase)
        context.pointee.thread_count = Int32(threads)
        try FFmpegError.check(avcodec_open2(context, codec, nil), operation)
    }

    deinit { avcodec_free_context(&context) }

    func take() -> UnsafeMutablePointer<AVCodecContext>? {
        defer { context = nil }
        return context
    }
}
