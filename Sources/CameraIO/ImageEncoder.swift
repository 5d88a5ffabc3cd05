import CFFmpeg
import CameraCommon

/// Encodes single frames as PNG or JPEG images (FFmpeg's image encoders), for thumbnails,
/// snapshots and `cameracore frames`.
public enum ImageEncoder {
    public enum Format: String, Sendable, CaseIterable {
        case png, jpeg
    }

    /// The encoded bytes of `frame`.
    ///
    /// - Parameter quality: JPEG quality 1...100 (ignored for PNG).
    public static func encode(_ frame: VideoFrame, as format: Format, quality: Int = 85) throws(MediaError) -> [UInt8] {
        _ = FFmpegRuntime.setUp
        let operation = "encode \(format.rawValue) image"
        let codecID = format == .png ? AV_CODEC_ID_PNG : AV_CODEC_ID_MJPEG
        // PNG keeps gray and RGBA as they are; JPEG wants full-range YUV 4:2:0.
        let targetFormat: AVPixelFormat =
            format == .png ? (frame.format == .gray8 ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_RGBA) : AV_PIX_FMT_YUVJ420P
        guard let codec = avcodec_find_encoder(codecID) else {
            throw MediaError(
                .unsupported, operation: operation, message: "this FFmpeg build has no \(format.rawValue) encoder")
        }
        var context = avcodec_alloc_context3(codec)
        var avFrame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&avFrame)
            av_packet_free(&packet)
        }
        guard let context, let avFrame, let packet else {
            throw MediaError(.other, operation: operation, message: "out of memory")
        }
        let width = format == .jpeg ? frame.width & ~1 : frame.width
        let height = format == .jpeg ? frame.height & ~1 : frame.height
        guard width > 0, height > 0 else {
            throw MediaError(
                .invalidArgument, operation: operation, message: "frame is too small (\(frame.width)x\(frame.height))")
        }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = targetFormat
        context.pointee.time_base = AVRational(num: 1, den: 25)
        if format == .jpeg {
            // Map 1...100 onto MJPEG's qscale 31...2 (lower is better).
            let q = 2 + (100 - min(100, max(1, quality))) * 29 / 99
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = Int32(q) * FF_QP2LAMBDA
            avFrame.pointee.quality = context.pointee.global_quality
        }
        try FFmpegError.check(avcodec_open2(context, codec, nil), operation)
        avFrame.pointee.format = targetFormat.rawValue
        avFrame.pointee.width = Int32(width)
        avFrame.pointee.height = Int32(height)
        try FFmpegError.check(av_frame_get_buffer(avFrame, 0), operation)

        let target = (width, height, targetFormat)
        try frame.withPlanePointers { sourcePlanes, sourceStrides throws(MediaError) in
            try avFrame.withMutablePlanePointers { targetPlanes, targetStrides throws(MediaError) in
                try Scaler(threads: 1).scale(
                    from: (width, height, frame.format.avPixelFormat), planes: sourcePlanes, strides: sourceStrides,
                    to: target, planes: targetPlanes, strides: targetStrides)
            }
        }
        try FFmpegError.check(avcodec_send_frame(context, avFrame), operation)
        _ = avcodec_send_frame(context, nil)
        var bytes: [UInt8] = []
        while avcodec_receive_packet(context, packet) >= 0 {
            bytes.append(contentsOf: UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            av_packet_unref(packet)
        }
        guard !bytes.isEmpty else {
            throw MediaError(.codec, operation: operation, message: "the encoder produced no data")
        }
        return bytes
    }

    /// Encodes `frame` and writes it atomically to `path`; the format follows the extension
    /// (`.png`, `.jpg`/`.jpeg`).
    public static func write(_ frame: VideoFrame, to path: String, quality: Int = 85) throws(MediaError) {
        let lower = path.lowercased()
        let format: Format = lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") ? .jpeg : .png
        try AtomicFile.write(encode(frame, as: format, quality: quality), to: path)
    }
}
