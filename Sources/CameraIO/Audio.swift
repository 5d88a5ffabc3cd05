import CFFmpeg
import CameraCommon

/// Decoded audio: interleaved 32-bit float samples at a fixed rate and channel count.
public struct AudioBuffer: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples, `frameCount × channels` values in −1…1.
    public var samples: [Float]
    /// Time of the first sample.
    public var start: MediaTime

    public init(sampleRate: Int, channels: Int, samples: [Float] = [], start: MediaTime = .zero) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
        self.start = start
    }

    public var frameCount: Int { samples.count / max(channels, 1) }
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(sampleRate)) }
}

/// Decodes compressed audio samples (AAC, Opus, MP3, ...) and resamples them to interleaved float
/// at the requested rate and channel count (libswresample).
public final class AudioDecoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let timeBase: AVRational
    public let stream: StreamInfo
    public let sampleRate: Int
    public let channels: Int

    /// - Throws: ``MediaError`` when the stream is not audio or its codec is unknown.
    public init(reader: MediaReader, streamIndex: Int? = nil, sampleRate: Int = 48_000, channels: Int = 2)
        throws(MediaError)
    {
        guard let index = streamIndex ?? reader.audioStream?.index, reader.streams[index].mediaType == .audio else {
            throw MediaError(
                .invalidArgument, operation: "decode audio of \(reader.source)",
                message: "the source has no audio stream")
        }
        _ = FFmpegRuntime.setUp
        stream = reader.streams[index]
        self.sampleRate = sampleRate
        self.channels = channels
        timeBase = AVRational(num: 1, den: stream.timeBase)
        let operation = "open \(stream.codec) audio decoder"
        let context = try reader.withCodecParameters(stream: index) {
            parameters throws(MediaError) -> UnsafeMutablePointer<AVCodecContext> in
            guard let codec = avcodec_find_decoder(parameters.pointee.codec_id),
                let context = avcodec_alloc_context3(codec)
            else {
                throw MediaError(.unsupported, operation: operation, message: "no decoder for \(stream.codec)")
            }
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            if avcodec_parameters_to_context(context, parameters) < 0 || avcodec_open2(context, codec, nil) < 0 {
                avcodec_free_context(&owned)
                throw MediaError(.codec, operation: operation, message: "the decoder refused the stream parameters")
            }
            return context
        }
        codecContext = context
        context.pointee.pkt_timebase = timeBase
        packet = av_packet_alloc()
        frame = av_frame_alloc()
    }

    deinit {
        avcodec_free_context(&codecContext)
        swr_free(&resampler)
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    /// Decodes one sample; returns its audio as interleaved float (possibly empty).
    public func decode(_ sample: MediaSample) throws(MediaError) -> [Float] {
        guard sample.streamIndex == stream.index, let packet, let codecContext, !sample.data.isEmpty else { return [] }
        try FFmpegError.check(av_new_packet(packet, Int32(sample.data.count)), "decode audio")
        defer { av_packet_unref(packet) }
        sample.data.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        packet.pointee.pts = sample.pts?.ticks(in: timeBase) ?? cc_nopts_value()
        packet.pointee.dts = sample.dts?.ticks(in: timeBase) ?? cc_nopts_value()
        let result = avcodec_send_packet(codecContext, packet)
        if result < 0 && result != cc_averror_invaliddata() {
            throw FFmpegError.error(result, "decode audio", kind: .codec)
        }
        return try receive()
    }

    /// Drains what the decoder and resampler still hold.
    public func flush() throws(MediaError) -> [Float] {
        guard let codecContext else { return [] }
        _ = avcodec_send_packet(codecContext, nil)
        var output = try receive()
        if let resampler {
            var buffer = [Float](repeating: 0, count: 4096 * channels)
            let produced = buffer.withUnsafeMutableBytes { raw -> Int32 in
                var target: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return swr_convert(resampler, &target, 4096, nil, 0)
            }
            if produced > 0 { output += buffer.prefix(Int(produced) * channels) }
        }
        return output
    }

    private func receive() throws(MediaError) -> [Float] {
        guard let codecContext, let frame else { return [] }
        var output: [Float] = []
        while avcodec_receive_frame(codecContext, frame) >= 0 {
            defer { av_frame_unref(frame) }
            if resampler == nil {
                var layout = AVChannelLayout()
                av_channel_layout_default(&layout, Int32(channels))
                var made: OpaquePointer? = nil
                let result = swr_alloc_set_opts2(
                    &made, &layout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &frame.pointee.ch_layout,
                    AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil)
                av_channel_layout_uninit(&layout)
                guard result >= 0, let made, swr_init(made) >= 0 else {
                    throw MediaError(
                        .unsupported, operation: "resample audio", message: "cannot convert this audio layout")
                }
                resampler = made
            }
            let capacity = Int(swr_get_out_samples(resampler, frame.pointee.nb_samples)) + 32
            var buffer = [Float](repeating: 0, count: capacity * channels)
            let produced = buffer.withUnsafeMutableBytes { raw -> Int32 in
                var target: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let inputs = UnsafeMutableRawPointer(frame.pointee.extended_data)?
                    .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                return swr_convert(resampler, &target, Int32(capacity), inputs, frame.pointee.nb_samples)
            }
            if produced > 0 { output += buffer.prefix(Int(produced) * channels) }
        }
        return output
    }
}

/// Encodes interleaved float audio to AAC samples (FFmpeg's native AAC encoder).
public final class AudioEncoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var pending: [Float] = []
    private var nextPTS: Int64 = 0
    public let sampleRate: Int
    public let channels: Int
    public private(set) var stream: StreamInfo
    private let frameSize: Int

    public init(sampleRate: Int = 48_000, channels: Int = 2, bitRate: Int = 128_000) throws(MediaError) {
        _ = FFmpegRuntime.setUp
        let operation = "open AAC encoder"
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC), let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.unsupported, operation: operation, message: "this FFmpeg build has no AAC encoder")
        }
        codecContext = context
        self.sampleRate = sampleRate
        self.channels = channels
        context.pointee.sample_rate = Int32(sampleRate)
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try FFmpegError.check(avcodec_open2(context, codec, nil), operation)
        frameSize = Int(context.pointee.frame_size > 0 ? context.pointee.frame_size : 1024)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        stream = StreamInfo(
            index: 1, mediaType: .audio, codec: "aac", timeBase: Int32(sampleRate), sampleRate: sampleRate,
            channels: channels, bitRate: bitRate,
            extradata: context.pointee.extradata.map {
                [UInt8](UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size)))
            } ?? [])
    }

    deinit {
        avcodec_free_context(&codecContext)
        av_frame_free(&frame)
        av_packet_free(&packet)
    }

    /// Adds interleaved samples; returns the AAC samples completed (timestamps from zero).
    public func encode(_ samples: [Float]) throws(MediaError) -> [MediaSample] {
        pending += samples
        var output: [MediaSample] = []
        let block = frameSize * channels
        var offset = 0
        // Walk the buffer with an offset and drop the consumed part once (removing from the front
        // per frame would move the whole buffer every time).
        while pending.count - offset >= block {
            output += try encodeFrame(Array(pending[offset..<(offset + block)]))
            offset += block
        }
        pending.removeFirst(offset)
        return output
    }

    /// Encodes the remainder (padded with silence) and drains the encoder.
    public func finish() throws(MediaError) -> [MediaSample] {
        var output: [MediaSample] = []
        if !pending.isEmpty {
            output += try encodeFrame(pending + [Float](repeating: 0, count: frameSize * channels - pending.count))
            pending = []
        }
        guard let codecContext else { return output }
        _ = avcodec_send_frame(codecContext, nil)
        output += try receive()
        return output
    }

    private func encodeFrame(_ interleaved: [Float]) throws(MediaError) -> [MediaSample] {
        guard let codecContext, let frame else { return [] }
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_copy(&frame.pointee.ch_layout, &codecContext.pointee.ch_layout)
        try FFmpegError.check(av_frame_get_buffer(frame, 0), "encode audio")
        defer { av_frame_unref(frame) }
        // Planar float: one plane per channel.
        guard let planes = frame.pointee.extended_data else { return [] }
        for channel in 0..<channels {
            guard let plane = planes[channel] else { continue }
            let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
            for index in 0..<frameSize { target[index] = interleaved[index * channels + channel] }
        }
        frame.pointee.pts = nextPTS
        nextPTS += Int64(frameSize)
        try FFmpegError.check(avcodec_send_frame(codecContext, frame), "encode audio")
        return try receive()
    }

    private func receive() throws(MediaError) -> [MediaSample] {
        guard let codecContext, let packet else { return [] }
        var output: [MediaSample] = []
        while avcodec_receive_packet(codecContext, packet) >= 0 {
            output.append(
                MediaReader.sample(from: packet, stream: stream, timeBase: AVRational(num: 1, den: Int32(sampleRate))))
            av_packet_unref(packet)
        }
        return output
    }
}
