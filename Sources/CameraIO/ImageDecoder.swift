import CameraCommon

/// Loads still images (PNG, JPEG, and anything else FFmpeg decodes as a single picture) as
/// straight-alpha RGBA frames, for overlays, stickers, boards and frames.
public enum ImageDecoder {
    /// - Throws: ``MediaError`` — `notFound` for a missing file, `invalidData` when it is not an
    ///   image; the message names the path.
    public static func load(_ path: String, format: PixelFormat = .rgba) throws(MediaError) -> VideoFrame {
        let reader = try MediaReader(.file(path))
        guard reader.videoStream != nil else {
            throw MediaError(.invalidData, operation: "load image \(path)", message: "the file holds no picture")
        }
        let decoder = try VideoDecoder(reader: reader, format: format, threads: 1)
        while let sample = try reader.nextSample() {
            if var frame = try decoder.decode(sample).first {
                frame.pts = nil
                return frame
            }
        }
        if var frame = try decoder.flush().first {
            frame.pts = nil
            return frame
        }
        throw MediaError(.invalidData, operation: "load image \(path)", message: "no picture could be decoded")
    }
}
