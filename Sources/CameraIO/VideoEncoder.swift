import CFFmpeg
import CameraCommon

/// Encodes ``VideoFrame`` values to H.264 samples with libx264.
///
/// Frames in any ``PixelFormat`` are converted to YUV 4:2:0 first. Timestamps come from each frame's
/// `pts` when set, else from the frame count and the frame rate.
public final class VideoEncoder {
    /// Encoder settings.
    public struct Settings: Sendable {
        public var width: Int
        public var height: Int
        public var frameRate: Rational
        /// Target bit rate in bits per second; nil uses constant quality (`crf`).
        public var bitRate: Int?
        /// Constant rate factor when `bitRate` is nil (x264: 0 lossless … 51 worst, 23 default).
        public var crf: Int
        /// Keyframe interval in frames (the GOP length).
        public var gopSize: Int
        /// x264 speed preset: ultrafast, superfast, veryfast, faster, fast, medium, slow, ...
        public var preset: String
        /// B-frames between references; 0 keeps decode order equal to presentation order.
        public var maxBFrames: Int
        /// x264 tune, e.g. `zerolatency` for live streaming; nil for none.
        public var tune: String?

        public init(
            width: Int, height: Int, frameRate: Rational = Rational(30, 1), bitRate: Int? = nil, crf: Int = 23,
            gopSize: Int = 60, preset: String = "veryfast", maxBFrames: Int = 2, tune: String? = nil
        ) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.bitRate = bitRate
            self.crf = crf
            self.gopSize = gopSize
            self.preset = preset
            self.maxBFrames = maxBFrames
            self.tune = tune
        }
    }

    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let scaler = Scaler()
    private var frameCount: Int64 = 0
    private let timeBase: AVRational
    public let settings: Settings
    /// The output stream: codec, size and the SPS/PPS extradata a muxer needs. Samples carry exact
    /// ``MediaTime`` stamps; the 1/90000 time base is only a hint for muxers.
    public private(set) var stream: StreamInfo

    /// - Throws: ``MediaError`` `unsupported` when libx264 is missing, `invalidArgument` for an odd or
    ///   non-positive size or an unknown preset.
    public init(settings: Settings) throws(MediaError) {
        _ = FFmpegRuntime.setUp
        let operation = "open H.264 encoder"
        guard settings.width > 0, settings.height > 0, settings.width % 2 == 0, settings.height % 2 == 0 else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "width and height must be positive and even, got \(settings.width)x\(settings.height)")
        }
        guard settings.frameRate.numerator > 0, settings.frameRate.denominator > 0 else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "frame rate must be positive, got \(settings.frameRate)")
        }
        guard let codec = avcodec_find_encoder_by_name("libx264") else {
            throw MediaError(.unsupported, operation: operation, message: "this FFmpeg build has no libx264 encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.other, operation: operation, message: "out of memory")
        }
        self.codecContext = context
        self.settings = settings
        self.timeBase = AVRational(num: settings.frameRate.denominator, den: settings.frameRate.numerator)
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = timeBase
        context.pointee.framerate = AVRational(settings.frameRate)
        context.pointee.gop_size = Int32(settings.gopSize)
        context.pointee.max_b_frames = Int32(settings.maxBFrames)
        // libavcodec defaults to one thread; 0 lets x264 use every core, as the ffmpeg command line does.
        context.pointee.thread_count = 0
        context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        if let bitRate = settings.bitRate {
            context.pointee.bit_rate = Int64(bitRate)
            context.pointee.rc_max_rate = Int64(bitRate)
            context.pointee.rc_buffer_size = Int32(clamping: bitRate * 2)
        } else {
            av_opt_set(context.pointee.priv_data, "crf", String(settings.crf), 0)
        }
        guard Self.presets.contains(settings.preset) else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message:
                    "unknown x264 preset \"\(settings.preset)\"; use one of \(Self.presets.joined(separator: ", "))")
        }
        av_opt_set(context.pointee.priv_data, "preset", settings.preset, 0)
        if let tune = settings.tune { av_opt_set(context.pointee.priv_data, "tune", tune, 0) }
        // Fixed GOP: a keyframe exactly every gopSize frames, no scene-cut keyframes in between, so
        // test media has keyframes where the test says they are.
        av_opt_set(context.pointee.priv_data, "x264-params", "scenecut=0:open-gop=0:keyint-min=\(settings.gopSize)", 0)
        try FFmpegError.check(avcodec_open2(context, codec, nil), operation)
        self.frame = av_frame_alloc()
        self.packet = av_packet_alloc()
        let extradata =
            context.pointee.extradata.map {
                [UInt8](UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size)))
            } ?? []
        self.stream = StreamInfo(
            index: 0, mediaType: .video, codec: "h264", timeBase: 90_000,
            width: settings.width, height: settings.height, frameRate: settings.frameRate, bitRate: settings.bitRate,
            extradata: extradata)
    }

    /// x264's speed presets, fastest first.
    public static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    deinit {
        avcodec_free_context(&codecContext)
        av_frame_free(&frame)
        av_packet_free(&packet)
    }

    /// Encodes one frame and returns the samples the encoder completed (often none for the first
    /// few frames while x264 looks ahead).
    /// - Parameter keyframe: start a new GOP at this frame (an IDR), whatever ``Settings/gopSize`` says.
    public func encode(_ input: VideoFrame, keyframe: Bool = false) throws(MediaError) -> [MediaSample] {
        guard let codecContext, let frame else { return [] }
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(settings.width)
        frame.pointee.height = Int32(settings.height)
        try FFmpegError.check(av_frame_get_buffer(frame, 0), "encode frame")
        defer { av_frame_unref(frame) }
        try fill(frame, from: input)
        let pts = input.pts.map { $0.ticks(in: timeBase) } ?? frameCount
        frame.pointee.pts = pts
        frame.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        frameCount += 1
        try FFmpegError.check(avcodec_send_frame(codecContext, frame), "encode frame")
        return try receivePackets()
    }

    /// Flushes the frames x264 still holds; call once after the last frame.
    public func finish() throws(MediaError) -> [MediaSample] {
        guard let codecContext else { return [] }
        let result = avcodec_send_frame(codecContext, nil)
        if result < 0 && result != cc_averror_eof() { try FFmpegError.check(result, "finish encoding") }
        return try receivePackets()
    }

    private func receivePackets() throws(MediaError) -> [MediaSample] {
        guard let codecContext, let packet else { return [] }
        var samples: [MediaSample] = []
        while true {
            let result = avcodec_receive_packet(codecContext, packet)
            if result == cc_averror(EAGAIN) || result == cc_averror_eof() { break }
            if result < 0 { throw FFmpegError.error(result, "encode frame", kind: .codec) }
            defer { av_packet_unref(packet) }
            if packet.pointee.duration == 0 { packet.pointee.duration = 1 }
            samples.append(MediaReader.sample(from: packet, stream: stream, timeBase: timeBase))
        }
        return samples
    }

    private func fill(_ frame: UnsafeMutablePointer<AVFrame>, from input: VideoFrame) throws(MediaError) {
        let scaler = self.scaler
        let size = (settings.width, settings.height, AV_PIX_FMT_YUV420P)
        try input.withPlanePointers { sourcePlanes, sourceStrides throws(MediaError) in
            try frame.withMutablePlanePointers { targetPlanes, targetStrides throws(MediaError) in
                try scaler.scale(
                    from: (input.width, input.height, input.format.avPixelFormat), planes: sourcePlanes,
                    strides: sourceStrides, to: size, planes: targetPlanes, strides: targetStrides)
            }
        }
    }
}
