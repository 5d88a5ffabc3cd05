import CFFmpeg
import CameraCommon

extension AVRational {
    init(_ rational: Rational) { self.init(num: rational.numerator, den: rational.denominator) }
}

extension MediaTime {
    /// A timestamp in ticks of `timeBase`, exact when the time base is 1/n (which FFmpeg streams use).
    init?(ffmpeg ticks: Int64, timeBase: AVRational) {
        guard ticks != cc_nopts_value(), timeBase.num > 0, timeBase.den > 0 else { return nil }
        if timeBase.num == 1 {
            self.init(value: ticks, timeBase.den)
        } else {
            // Rare n/m time bases: the exact value is ticks·n/m; keep it on timescale m.
            self.init(value: ticks * Int64(timeBase.num), timescale: timeBase.den)
        }
    }

    private init(value: Int64, _ timescale: Int32) { self.init(value: value, timescale: timescale) }

    /// Ticks of `timeBase` nearest to this time.
    func ticks(in timeBase: AVRational) -> Int64 {
        av_rescale_q_rnd(
            value, AVRational(num: 1, den: timescale), timeBase,
            AVRounding(AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
    }
}

extension MediaType {
    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        default: self = .unknown
        }
    }

    var avMediaType: AVMediaType {
        switch self {
        case .video: AVMEDIA_TYPE_VIDEO
        case .audio: AVMEDIA_TYPE_AUDIO
        case .subtitle: AVMEDIA_TYPE_SUBTITLE
        case .data: AVMEDIA_TYPE_DATA
        case .unknown: AVMEDIA_TYPE_UNKNOWN
        }
    }
}

extension PixelFormat {
    var avPixelFormat: AVPixelFormat {
        switch self {
        case .gray8: AV_PIX_FMT_GRAY8
        case .yuv420p: AV_PIX_FMT_YUV420P
        case .nv12: AV_PIX_FMT_NV12
        case .rgba: AV_PIX_FMT_RGBA
        }
    }

    init?(_ format: AVPixelFormat) {
        switch format {
        case AV_PIX_FMT_GRAY8: self = .gray8
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: self = .yuv420p
        case AV_PIX_FMT_NV12: self = .nv12
        case AV_PIX_FMT_RGBA: self = .rgba
        default: return nil
        }
    }
}

extension StreamInfo {
    /// Reads what a demuxed stream carries.
    init(stream: UnsafeMutablePointer<AVStream>, index: Int) {
        let parameters = stream.pointee.codecpar.pointee
        let timeBase = stream.pointee.time_base
        let type = MediaType(parameters.codec_type)
        var rotation = 0
        var sideDataSize: Int = 0
        if let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &sideDataSize),
            sideDataSize >= 36
        {
            let degrees = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
            if degrees.isFinite {
                // FFmpeg gives counter-clockwise degrees; people (and players) speak clockwise.
                rotation = ((Int((-degrees).rounded()) % 360) + 360) % 360
            }
        }
        let averageRate =
            stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        self.init(
            index: index,
            mediaType: type,
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            timeBase: timeBase.num == 1 ? timeBase.den : max(1, Int32(1.0 / max(av_q2d(timeBase), 1e-9))),
            width: type == .video ? Int(parameters.width) : nil,
            height: type == .video ? Int(parameters.height) : nil,
            frameRate: type == .video && averageRate.num > 0 && averageRate.den > 0
                ? Rational(averageRate.num, averageRate.den) : nil,
            sampleRate: type == .audio ? Int(parameters.sample_rate) : nil,
            channels: type == .audio ? Int(parameters.ch_layout.nb_channels) : nil,
            bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil,
            duration: MediaTime(ffmpeg: stream.pointee.duration, timeBase: timeBase),
            rotation: rotation,
            extradata: parameters.extradata.map {
                [UInt8](UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size)))
            } ?? []
        )
    }

    /// Fills FFmpeg codec parameters from this description, for decoders and stream-copy muxing
    /// when the samples come from a buffer rather than straight from a demuxer.
    func fill(_ parameters: UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) {
        guard let descriptor = avcodec_descriptor_get_by_name(codec) else {
            throw MediaError(.unsupported, operation: "use stream \(index)", message: "unknown codec \"\(codec)\"")
        }
        parameters.pointee.codec_type = mediaType.avMediaType
        parameters.pointee.codec_id = descriptor.pointee.id
        if let width, let height {
            parameters.pointee.width = Int32(width)
            parameters.pointee.height = Int32(height)
        }
        if let sampleRate { parameters.pointee.sample_rate = Int32(sampleRate) }
        if let channels, channels > 0 {
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(channels))
        }
        if let bitRate { parameters.pointee.bit_rate = Int64(bitRate) }
        if !extradata.isEmpty {
            let padded = extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let buffer = av_mallocz(padded)?.assumingMemoryBound(to: UInt8.self) else {
                throw MediaError(.other, operation: "use stream \(index)", message: "out of memory")
            }
            buffer.update(from: extradata, count: extradata.count)
            av_freep(&parameters.pointee.extradata)
            parameters.pointee.extradata = buffer
            parameters.pointee.extradata_size = Int32(extradata.count)
        }
    }
}
