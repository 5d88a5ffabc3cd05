import CFFmpeg
import CameraCommon

/// Turns FFmpeg's negative return codes into ``MediaError`` with FFmpeg's own message.
enum FFmpegError {
    /// FFmpeg's text for an error code, e.g. "Invalid data found when processing input".
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cc_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The kind of failure an FFmpeg code stands for.
    static func kind(for code: Int32) -> MediaError.Kind {
        switch code {
        case cc_averror(ENOENT), cc_averror(ENOTDIR): .notFound
        case cc_averror(EACCES), cc_averror(EPERM): .notFound
        case cc_averror_http_unauthorized(), cc_averror_http_forbidden(): .authenticationFailed
        case cc_averror(ETIMEDOUT): .timedOut
        case cc_averror_exit(): .cancelled
        case cc_averror_invaliddata(), cc_averror_eof(): .invalidData
        case cc_averror_protocol_not_found(), cc_averror_demuxer_not_found(),
            cc_averror_decoder_not_found(), cc_averror_encoder_not_found(), cc_averror(ENOSYS):
            .unsupported
        case cc_averror(ECONNREFUSED), cc_averror(ECONNRESET), cc_averror(EHOSTUNREACH),
            cc_averror(ENETUNREACH), cc_averror(EPIPE), cc_averror(EIO), cc_averror_http_not_found(),
            cc_averror_http_server_error(), cc_averror_http_other_4xx():
            .network
        case cc_averror(ENOSPC), cc_averror(EROFS), cc_averror(EDQUOT): .writeFailed
        case cc_averror(EINVAL), cc_averror(ERANGE): .invalidArgument
        default: .other
        }
    }

    static func error(_ code: Int32, _ operation: String, kind: MediaError.Kind? = nil) -> MediaError {
        MediaError(kind ?? self.kind(for: code), operation: operation, message: message(for: code), code: code)
    }

    /// Throws when `code` is negative; returns it otherwise (many calls return counts).
    @discardableResult
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(MediaError) -> Int32 {
        if code < 0 { throw error(code, operation()) }
        return code
    }
}

/// One-time process set-up: FFmpeg's own log goes quiet (errors reach callers as ``MediaError``)
/// unless `CAMERACORE_FFMPEG_LOG` names a level such as `error`, `warning`, `info` or `debug`.
enum FFmpegRuntime {
    static let setUp: Void = {
        let level: Int32
        switch getenv("CAMERACORE_FFMPEG_LOG").map({ String(cString: $0) }) {
        case "error": level = AV_LOG_ERROR
        case "warning": level = AV_LOG_WARNING
        case "info": level = AV_LOG_INFO
        case "debug": level = AV_LOG_DEBUG
        default: level = AV_LOG_QUIET
        }
        av_log_set_level(level)
        avdevice_register_all()
        avformat_network_init()
    }()
}
