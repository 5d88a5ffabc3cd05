import CFFmpeg
import CameraCommon

/// Converts FFmpeg frames into ``VideoFrame`` values of a chosen format and size with libswscale,
/// caching the scaler between frames of the same geometry.
final class FrameConverter {
    private var scaler: OpaquePointer?
    let format: PixelFormat
    let size: (width: Int, height: Int)?

    init(format: PixelFormat, size: (width: Int, height: Int)?) {
        self.format = format
        self.size = size
    }

    deinit { sws_freeContext(scaler) }

    /// Copies or converts `frame` into a new ``VideoFrame`` that owns its pixels.
    func convert(_ frame: UnsafePointer<AVFrame>, pts: MediaTime?) throws(MediaError) -> VideoFrame {
        let sourceWidth = Int(frame.pointee.width)
        let sourceHeight = Int(frame.pointee.height)
        var targetWidth = size?.width ?? sourceWidth
        var targetHeight = size?.height ?? sourceHeight
        if format.isSubsampled {
            targetWidth = (targetWidth + 1) & ~1
            targetHeight = (targetHeight + 1) & ~1
        }
        var sourceFormat = AVPixelFormat(rawValue: frame.pointee.format)
        if format == .gray8 && Self.hasEightBitLumaPlane(sourceFormat) {
            // Gray output is the luma plane itself: read plane 0 as a gray image so values are
            // the decoder's Y samples, not a range-converted colour.
            sourceFormat = AV_PIX_FMT_GRAY8
        }
        var output = VideoFrame(format: format, width: targetWidth, height: targetHeight, uninitialized: ())
        output.pts = pts

        var sourcePointers: [UnsafePointer<UInt8>?] = [
            UnsafePointer(frame.pointee.data.0), UnsafePointer(frame.pointee.data.1),
            UnsafePointer(frame.pointee.data.2), UnsafePointer(frame.pointee.data.3),
        ]
        var sourceStrides: [Int32] = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, frame.pointee.linesize.3]

        if PixelFormat(sourceFormat) == format && sourceFormat != AV_PIX_FMT_YUVJ420P
            && targetWidth == sourceWidth && targetHeight == sourceHeight
        {
            // Same layout: copy rows, no colour maths.
            for index in 0..<format.planeCount {
                let rowBytes = output.planes[index].bytesPerRow
                let rows = output.planes[index].height
                guard let source = sourcePointers[index] else { continue }
                let stride = Int(sourceStrides[index])
                output.planes[index].bytes.withUnsafeMutableBufferPointer { destination in
                    for row in 0..<rows {
                        destination.baseAddress!.advanced(by: row * rowBytes).update(from: source.advanced(by: row * stride), count: rowBytes)
                    }
                }
            }
            return output
        }

        scaler = sws_getCachedContext(
            scaler, Int32(sourceWidth), Int32(sourceHeight), sourceFormat, Int32(targetWidth), Int32(targetHeight),
            format.avPixelFormat, SWS_BILINEAR, nil, nil, nil)
        guard let scaler else {
            let sourceName = av_get_pix_fmt_name(sourceFormat).map { String(cString: $0) } ?? "unknown"
            throw MediaError(
                .unsupported, operation: "convert frame",
                message: "cannot convert \(sourceName) \(sourceWidth)x\(sourceHeight) to \(format) \(targetWidth)x\(targetHeight)")
        }
        var destinationStrides: [Int32] = output.planes.map { Int32($0.bytesPerRow) } + Array(repeating: 0, count: 4 - output.planes.count)
        // Borrow each plane's storage for the duration of the call.
        var planes = output.planes
        let result = Self.withMutablePointers(&planes) { destinationPointers in
            sws_scale(scaler, &sourcePointers, &sourceStrides, 0, Int32(sourceHeight), destinationPointers, &destinationStrides)
        }
        output.planes = planes
        guard result > 0 else {
            throw MediaError(.codec, operation: "convert frame", message: "libswscale produced no rows")
        }
        return output
    }

    static func hasEightBitLumaPlane(_ format: AVPixelFormat) -> Bool {
        [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_YUV422P,
         AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P].contains(format)
    }

    /// Lends the planes' storage as a 4-pointer array for libswscale. The byte arrays are moved out
    /// of the frame while borrowed, so no copy-on-write copy happens.
    private static func withMutablePointers<R>(_ planes: inout [Plane], _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>) -> R) -> R {
        var storage: [[UInt8]] = [[], [], []]
        for index in planes.indices { swap(&storage[index], &planes[index].bytes) }
        defer { for index in planes.indices { swap(&storage[index], &planes[index].bytes) } }
        var first = storage[0], second = storage[1], third = storage[2]
        storage = []
        defer { storage = [first, second, third] }
        return first.withUnsafeMutableBufferPointer { a in
            second.withUnsafeMutableBufferPointer { b in
                third.withUnsafeMutableBufferPointer { c in
                    let pointers: [UnsafeMutablePointer<UInt8>?] = [
                        a.baseAddress, planes.count > 1 ? b.baseAddress : nil, planes.count > 2 ? c.baseAddress : nil, nil,
                    ]
                    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
                }
            }
        }
    }
}

extension VideoFrame {
    /// A frame whose pixel bytes are allocated but not cleared, for converters that overwrite
    /// every byte.
    init(format: PixelFormat, width: Int, height: Int, uninitialized: Void) {
        var planes: [Plane] = []
        for index in 0..<format.planeCount {
            let size = format.planeSize(index, width: width, height: height)
            let rowBytes = size.width * (format == .rgba ? 4 : (format == .nv12 && index == 1 ? 2 : 1))
            let count = rowBytes * size.height
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
            planes.append(Plane(width: size.width, height: size.height, bytesPerRow: rowBytes, bytes: bytes))
        }
        self.init(format: format, width: width, height: height, planes: planes)
    }
}
