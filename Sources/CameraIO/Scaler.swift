import CFFmpeg
import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// One libswscale context, rebuilt only when the geometry or formats change. Conversion runs on
/// `threads` slices in parallel (libswscale's own slice threading, as ffmpeg's scale filter does).
final class Scaler {
    private struct Key: Equatable {
        var sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat.RawValue
        var targetWidth: Int32, targetHeight: Int32, targetFormat: AVPixelFormat.RawValue
    }

    private var context: OpaquePointer?
    private var key: Key?
    private let threads: Int

    /// - Parameter threads: slices converted in parallel; 0 uses one per core.
    init(threads: Int = 0) {
        self.threads = threads
    }

    deinit { sws_freeContext(context) }

    /// Converts `rows` rows from the source planes into the target planes.
    func scale(
        from source: (width: Int, height: Int, format: AVPixelFormat),
        planes sourcePlanes: UnsafePointer<UnsafePointer<UInt8>?>, strides sourceStrides: UnsafePointer<Int32>,
        to target: (width: Int, height: Int, format: AVPixelFormat),
        planes targetPlanes: UnsafePointer<UnsafeMutablePointer<UInt8>?>, strides targetStrides: UnsafePointer<Int32>
    ) throws(MediaError) {
        let wanted = Key(
            sourceWidth: Int32(source.width), sourceHeight: Int32(source.height), sourceFormat: source.format.rawValue,
            targetWidth: Int32(target.width), targetHeight: Int32(target.height), targetFormat: target.format.rawValue)
        if key != wanted {
            sws_freeContext(context)
            context = nil
            key = nil
            guard let fresh = sws_alloc_context() else {
                throw MediaError(.other, operation: "convert frame", message: "out of memory")
            }
            let raw = UnsafeMutableRawPointer(fresh)
            av_opt_set_int(raw, "srcw", Int64(wanted.sourceWidth), 0)
            av_opt_set_int(raw, "srch", Int64(wanted.sourceHeight), 0)
            av_opt_set_int(raw, "src_format", Int64(wanted.sourceFormat), 0)
            av_opt_set_int(raw, "dstw", Int64(wanted.targetWidth), 0)
            av_opt_set_int(raw, "dsth", Int64(wanted.targetHeight), 0)
            av_opt_set_int(raw, "dst_format", Int64(wanted.targetFormat), 0)
            av_opt_set_int(raw, "sws_flags", Int64(SWS_BILINEAR), 0)
            av_opt_set_int(raw, "threads", Int64(threads == 0 ? Self.coreCount : threads), 0)
            if sws_init_context(fresh, nil, nil) < 0 {
                sws_freeContext(fresh)
                let name = { (format: AVPixelFormat) in
                    av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown"
                }
                throw MediaError(
                    .unsupported, operation: "convert frame",
                    message:
                        "cannot convert \(name(source.format)) \(source.width)x\(source.height) to \(name(target.format)) \(target.width)x\(target.height)"
                )
            }
            context = fresh
            key = wanted
        }
        let rows = sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(source.height), targetPlanes, targetStrides)
        guard rows > 0 else {
            throw MediaError(.codec, operation: "convert frame", message: "libswscale produced no rows")
        }
    }

    static let coreCount: Int = {
        let count = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return count > 0 ? count : 1
    }()
}

extension VideoFrame {
    /// Lends the planes as libswscale's four read-only pointers and strides.
    func withPlanePointers<R>(
        _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>) throws(MediaError) -> R
    ) throws(MediaError) -> R {
        let strides: [Int32] = planes.map { Int32($0.bytesPerRow) } + Array(repeating: 0, count: 4 - planes.count)
        let empty: [UInt8] = []
        let first = planes[0].bytes
        let second = planes.count > 1 ? planes[1].bytes : empty
        let third = planes.count > 2 ? planes[2].bytes : empty
        let count = planes.count
        return try first.withUnsafeBufferPointer { a throws(MediaError) in
            try second.withUnsafeBufferPointer { b throws(MediaError) in
                try third.withUnsafeBufferPointer { c throws(MediaError) in
                    let pointers: [UnsafePointer<UInt8>?] = [
                        a.baseAddress, count > 1 ? b.baseAddress : nil, count > 2 ? c.baseAddress : nil, nil,
                    ]
                    return try pointers.withUnsafeBufferPointer { p throws(MediaError) in
                        try strides.withUnsafeBufferPointer { s throws(MediaError) in
                            try body(p.baseAddress!, s.baseAddress!)
                        }
                    }
                }
            }
        }
    }

    /// Lends the planes as libswscale's four writable pointers and strides. The byte arrays are
    /// moved out of the frame while borrowed, so no copy-on-write copy happens.
    mutating func withMutablePlanePointers<R>(
        _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) throws(MediaError) -> R
    ) throws(MediaError) -> R {
        let strides: [Int32] = planes.map { Int32($0.bytesPerRow) } + Array(repeating: 0, count: 4 - planes.count)
        let count = planes.count
        var first: [UInt8] = []
        var second: [UInt8] = []
        var third: [UInt8] = []
        swap(&first, &planes[0].bytes)
        if count > 1 { swap(&second, &planes[1].bytes) }
        if count > 2 { swap(&third, &planes[2].bytes) }
        defer {
            swap(&first, &planes[0].bytes)
            if count > 1 { swap(&second, &planes[1].bytes) }
            if count > 2 { swap(&third, &planes[2].bytes) }
        }
        return try first.withUnsafeMutableBufferPointer { a throws(MediaError) in
            try second.withUnsafeMutableBufferPointer { b throws(MediaError) in
                try third.withUnsafeMutableBufferPointer { c throws(MediaError) in
                    let pointers: [UnsafeMutablePointer<UInt8>?] = [
                        a.baseAddress, count > 1 ? b.baseAddress : nil, count > 2 ? c.baseAddress : nil, nil,
                    ]
                    return try pointers.withUnsafeBufferPointer { p throws(MediaError) in
                        try strides.withUnsafeBufferPointer { s throws(MediaError) in
                            try body(p.baseAddress!, s.baseAddress!)
                        }
                    }
                }
            }
        }
    }
}

extension UnsafeMutablePointer where Pointee == AVFrame {
    /// The frame's first four data pointers, read-only, and their strides, for libswscale.
    func withPlanePointers<R>(
        _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>) throws(MediaError) -> R
    ) throws(MediaError) -> R {
        let pointers: [UnsafePointer<UInt8>?] = [
            UnsafePointer(pointee.data.0), UnsafePointer(pointee.data.1), UnsafePointer(pointee.data.2),
            UnsafePointer(pointee.data.3),
        ]
        let strides: [Int32] = [pointee.linesize.0, pointee.linesize.1, pointee.linesize.2, pointee.linesize.3]
        return try pointers.withUnsafeBufferPointer { p throws(MediaError) in
            try strides.withUnsafeBufferPointer { s throws(MediaError) in try body(p.baseAddress!, s.baseAddress!) }
        }
    }

    /// The frame's first four data pointers, writable, and their strides, for libswscale.
    func withMutablePlanePointers<R>(
        _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) throws(MediaError) -> R
    ) throws(MediaError) -> R {
        let pointers: [UnsafeMutablePointer<UInt8>?] = [pointee.data.0, pointee.data.1, pointee.data.2, pointee.data.3]
        let strides: [Int32] = [pointee.linesize.0, pointee.linesize.1, pointee.linesize.2, pointee.linesize.3]
        return try pointers.withUnsafeBufferPointer { p throws(MediaError) in
            try strides.withUnsafeBufferPointer { s throws(MediaError) in try body(p.baseAddress!, s.baseAddress!) }
        }
    }
}
