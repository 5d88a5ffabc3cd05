import CFFmpeg
import CameraCommon

/// What a remux copied.
public struct RemuxResult: Sendable, Codable, Equatable {
    /// Where the copy really starts in the source: the keyframe at or before the requested start.
    public var sourceStart: MediaTime
    /// The requested end (or the source's end).
    public var sourceEnd: MediaTime
    /// Video frames written.
    public var videoFrames: Int
    /// Samples of all streams written.
    public var samples: Int
    /// Duration of the written video, first frame to the end of the last.
    public var duration: MediaTime
}

/// Copies a time range of a source into a new file without re-encoding.
///
/// The copy starts at the keyframe at or before `range.start` (a stream copy cannot start between
/// keyframes) and keeps every video sample that decodes before `range.end`, so every frame up to the
/// end is present; timestamps are rebased so the first frame is at zero. Audio samples from the
/// first frame to the end come along.
public enum Remuxer {
    /// - Parameters:
    ///   - range: the part to copy; nil copies everything.
    ///   - includeAudio: copy audio streams too (default).
    ///   - progress: called with 0...1 as the copy advances.
    /// - Throws: ``MediaError`` — `invalidArgument` for an empty range or one past the end,
    ///   `invalidData` for a source without video, plus the reader's and writer's errors. The
    ///   destination is untouched on failure.
    @discardableResult
    public static func copy(
        from source: MediaSource, to path: String, range: TimeRange? = nil, container: MediaWriter.Container = .mp4(),
        includeAudio: Bool = true, readerOptions: ReaderOptions = ReaderOptions(),
        progress: ((Double) -> Void)? = nil
    ) throws(MediaError) -> RemuxResult {
        let reader = try MediaReader(source, options: readerOptions)
        let operation = "remux \(source)"
        guard let video = reader.videoStream else {
            throw MediaError(.invalidData, operation: operation, message: "the source has no video stream")
        }
        if let range {
            guard !range.isEmpty else {
                throw MediaError(.invalidArgument, operation: operation, message: "the range \(range) is empty")
            }
            if let duration = reader.duration, range.start >= (reader.startTime ?? .zero) + duration {
                throw MediaError(
                    .invalidArgument, operation: operation,
                    message: "the range starts at \(range.start.seconds)s but the source lasts \(duration.seconds)s")
            }
        }
        let sourceStart = reader.startTime ?? .zero
        let start = range.map { $0.start + sourceStart } ?? sourceStart
        let end = range.map { $0.end + sourceStart }
        var copied = [video.index]
        if includeAudio { copied += reader.streams.filter { $0.mediaType == .audio }.map(\.index) }
        let writer = try MediaWriter(destination: .file(path), container: container, copying: reader, streams: copied)
        if range != nil, start > sourceStart { try reader.seek(to: start) }

        var origin: MediaTime?
        var done: Set<Int> = []
        var videoFrames = 0
        var lastVideoEnd: MediaTime?
        let totalSpan = (end ?? (reader.duration.map { sourceStart + $0 } ?? start)) - start
        var lastReported = -1.0
        var reading = true
        while reading && done.count < copied.count {
            reading = try reader.withNextPacket { packet, stream, timeBase throws(MediaError) in
                guard copied.contains(stream.index), !done.contains(stream.index),
                    let decodeTime = MediaTime(ffmpeg: packet.pointee.dts, timeBase: timeBase)
                        ?? MediaTime(ffmpeg: packet.pointee.pts, timeBase: timeBase),
                    let presentation = MediaTime(ffmpeg: packet.pointee.pts, timeBase: timeBase)
                        ?? MediaTime(ffmpeg: packet.pointee.dts, timeBase: timeBase)
                else { return }
                if let end, decodeTime >= end {
                    done.insert(stream.index)
                    return
                }
                if stream.index == video.index {
                    if origin == nil {
                        guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return }
                        origin = presentation
                    }
                    videoFrames += 1
                    let frameEnd =
                        presentation + (MediaTime(ffmpeg: packet.pointee.duration, timeBase: timeBase) ?? .zero)
                    lastVideoEnd = max(lastVideoEnd ?? frameEnd, frameEnd)
                } else {
                    // Audio before the first video frame would play over nothing.
                    guard let origin, presentation >= origin else { return }
                }
                try writer.writePacket(packet, timeBase: timeBase, streamIndex: stream.index, shift: origin ?? .zero)
                if let progress, totalSpan > .zero {
                    let fraction = min(1, max(0, (decodeTime - start).seconds / totalSpan.seconds))
                    if fraction - lastReported >= 0.01 {
                        lastReported = fraction
                        progress(fraction)
                    }
                }
            }
        }
        guard let origin else {
            throw MediaError(.invalidData, operation: operation, message: "no keyframe found in the requested range")
        }
        try writer.finish()
        progress?(1)
        return RemuxResult(
            sourceStart: origin - sourceStart, sourceEnd: (end ?? lastVideoEnd ?? origin) - sourceStart,
            videoFrames: videoFrames, samples: writer.writtenSampleCount,
            duration: (lastVideoEnd ?? origin) - origin)
    }
}
