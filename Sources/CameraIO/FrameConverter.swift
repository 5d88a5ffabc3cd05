import CFFmpeg
import CameraCommon

/// Converts FFmpeg frames into ``VideoFrame`` values of a chosen format and size with libswscale,
/// caching the scaler between frames of the same geometry.
final class FrameConverter {
    private let scaler = Scaler()
    let format: PixelFormat
    let size: (width: Int, height: Int)?

    init(format: PixelFormat, size: (width: Int, height: Int)?) {
        self.format = format
        self.size = size
    }

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

        if PixelFormat(sourceFormat) == format && sourceFormat != AV_PIX_FMT_YUVJ420P
            && targetWidth == sourceWidth && targetHeight == sourceHeight
        {
            // Same layout: copy rows, no colour maths.
            let strides = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2]
            let sources = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2]
            for index in 0..<format.planeCount {
                let rowBytes = output.planes[index].bytesPerRow
                let rows = output.planes[index].height
                guard let source = sources[index] else { continue }
                let stride = Int(strides[index])
                output.planes[index].bytes.withUnsafeMutableBufferPointer { destination in
                    for row in 0..<rows {
                        destination.baseAddress!.advanced(by: row * rowBytes).update(
                            from: source.advanced(by: row * stride), count: rowBytes)
                    }
                }
            }
            return output
        }
        let scaler = self.scaler
        let mutableFrame = UnsafeMutablePointer(mutating: frame)
        try mutableFrame.withPlanePointers { sourcePlanes, sourceStrides throws(MediaError) in
            try output.withMutablePlanePointers { targetPlanes, targetStrides throws(MediaError) in
                try scaler.scale(
                    from: (sourceWidth, sourceHeight, sourceFormat), planes: sourcePlanes, strides: sourceStrides,
                    to: (targetWidth, targetHeight, format.avPixelFormat), planes: targetPlanes, strides: targetStrides)
            }
        }
        return output
    }

    static func hasEightBitLumaPlane(_ format: AVPixelFormat) -> Bool {
        [
            AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_YUV422P,
            AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P,
        ].contains(format)
    }
}

extension VideoFrame {
    /// Bytes libswscale may write past the end of a packed plane. Its x86 RGB writers store 8
    /// pixels at a time, so a row whose width leaves 8 to 15 over a multiple of 16 (360 and
    /// 1080: portrait video; 426, 540) runs up to 8 pixels (32 bytes of RGBA) over: into the
    /// next row, which is written after, and past the last row, into the heap (measured with
    /// Debian's FFmpeg 5.1; 352, 368, 640, 854, 1280, 1366, 1920 wrote nothing over).
    static let scalerSlack = 64

    /// A frame whose pixel bytes are allocated but not cleared, for converters that overwrite
    /// every byte. Each plane's storage has ``scalerSlack`` bytes more than it holds.
    init(format: PixelFormat, width: Int, height: Int, uninitialized: Void) {
        var planes: [Plane] = []
        for index in 0..<format.planeCount {
            let size = format.planeSize(index, width: width, height: height)
            let rowBytes = size.width * format.bytesPerPixel(plane: index)
            let count = rowBytes * size.height
            let bytes = [UInt8](unsafeUninitializedCapacity: count + Self.scalerSlack) { _, initialized in
                initialized = count
            }
            planes.append(Plane(width: size.width, height: size.height, bytesPerRow: rowBytes, bytes: bytes))
        }
        self.init(format: format, width: width, height: height, planes: planes)
    }
}
