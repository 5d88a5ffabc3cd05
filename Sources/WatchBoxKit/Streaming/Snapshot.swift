import CameraCommon
import CameraIO
import FoundationEssentials

/// A JPEG of a camera's current picture: connects with the low-latency options, decodes the first
/// keyframe and encodes it.
public enum Snapshot {
    /// - Throws: ``MediaError`` for a camera that cannot be reached, refuses the login or sends no
    ///   picture within `timeout`.
    public static func jpeg(
        url: String, timeout: Duration = .seconds(10), width: Int? = nil, quality: Int = 85
    ) throws(MediaError) -> [UInt8] {
        let reader = try MediaReader(MediaSource(parsing: url), options: .camera(timeout: timeout))
        defer { reader.close() }
        guard let video = reader.videoStream else {
            throw MediaError(.invalidData, operation: "snapshot \(url)", message: "the stream has no video")
        }
        let size = scaledSize(of: video, width: width)
        let decoder = try VideoDecoder(reader: reader, streamIndex: video.index, format: .rgba, size: size)
        decoder.decodesKeyframesOnly = true
        let started = ContinuousClock.now
        while let sample = try reader.nextSample() {
            if let frame = try decoder.decode(sample).first {
                return try ImageEncoder.encode(frame, as: .jpeg, quality: quality)
            }
            if ContinuousClock.now - started > timeout { break }
        }
        throw MediaError(.timedOut, operation: "snapshot \(url)", message: "no picture arrived")
    }
}

extension Snapshot {
    /// A JPEG from a stream the manager is already running (live view, recording): decodes the next
    /// keyframe that arrives, so no second connection to the camera is opened.
    ///
    /// - Throws: ``MediaError`` `timedOut` when no keyframe arrives within `timeout`, or the
    ///   decoder's error.
    public static func jpeg(
        from manager: StreamManager, cameraID: UUID, timeout: Duration = .seconds(10), width: Int? = nil,
        quality: Int = 85
    ) async throws(MediaError) -> [UInt8] {
        let operation = "snapshot"
        let (keyframes, continuation) = AsyncStream<MediaSample>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let token = manager.subscribe(cameraID) { _, sample in
            if sample.mediaType == .video, sample.isKeyframe { continuation.yield(sample) }
        }
        defer { manager.unsubscribe(cameraID, token: token) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await sample in keyframes {
            guard let video = manager.streamInfo(cameraID)?.first(where: { $0.index == sample.streamIndex }) else {
                continue
            }
            let size = scaledSize(of: video, width: width)
            let decoder = try VideoDecoder(stream: video, format: .rgba, size: size, threads: 1)
            let frames = try decoder.decode(sample) + decoder.flush()
            if let frame = frames.first { return try ImageEncoder.encode(frame, as: .jpeg, quality: quality) }
        }
        throw MediaError(.timedOut, operation: operation, message: "no picture arrived within \(timeout)")
    }
}

extension Snapshot {
    /// `width` (even) and the height that keeps the stream's aspect (even, at least 2); nil keeps the
    /// stream's own size.
    static func scaledSize(of video: StreamInfo, width: Int?) -> (width: Int, height: Int)? {
        guard let width, let sourceWidth = video.width, let sourceHeight = video.height, sourceWidth > 0 else {
            return nil
        }
        return (width & ~1, max(2, (sourceHeight * width / sourceWidth) & ~1))
    }
}
