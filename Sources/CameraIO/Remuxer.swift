import CFFmpeg
import CameraCommon

/// What a remux copied.
public struct RemuxResult: Sendable, Codable, Equatable {
    /// Where the copy really starts in the (first) source: the keyframe at or before the requested
    /// start.
    public var sourceStart: MediaTime
    /// The requested end (or the source's end) in the last source.
    public var sourceEnd: MediaTime
    /// Video frames written.
    public var videoFrames: Int
    /// Samples of all streams written.
    public var samples: Int
    /// Duration of the written video, first frame to the end of the last.
    public var duration: MediaTime
    /// Whether an audio stream was copied.
    public var hasAudio: Bool
}

/// Copies time ranges of sources into a new file without re-encoding.
///
/// Each range starts at the keyframe at or before its start (a stream copy cannot start between
/// keyframes) and keeps every video sample that decodes before its end, so every frame up to the
/// end is present (when the end falls on a keyframe the cut is exact; otherwise up to the B-frame
/// depth of frames past the end come along as references); timestamps are rebased so the output starts at zero and segments follow each
/// other. Audio samples from each segment's first frame to its end come along.
public enum Remuxer {
    /// One piece to copy: a source and the part of it (nil: all of it).
    public struct Segment: Sendable {
        public var source: MediaSource
        public var range: TimeRange?
        public init(source: MediaSource, range: TimeRange? = nil) {
            self.source = source
            self.range = range
        }
    }

    /// Copies one range of one source.
    ///
    /// - Throws: ``MediaError`` — `invalidArgument` for an empty range or one past the end,
    ///   `invalidData` for a source without video, plus the reader's and writer's errors. The
    ///   destination is untouched on failure.
    @discardableResult
    public static func copy(
        from source: MediaSource, to path: String, range: TimeRange? = nil, container: MediaWriter.Container = .mp4(),
        includeAudio: Bool = true, readerOptions: ReaderOptions = ReaderOptions(),
        progress: ((Double) -> Void)? = nil
    ) throws(MediaError) -> RemuxResult {
        try concatenate(
            [Segment(source: source, range: range)], to: path, container: container, includeAudio: includeAudio,
            readerOptions: readerOptions, progress: progress)
    }

    /// Copies several ranges, one after another, into one file. The sources must share codecs and
    /// codec settings (the first source's stream descriptions are written); start each range on a
    /// keyframe for exact cuts.
    ///
    /// - Parameter extraRotation: clockwise degrees added to the first source's own display
    ///   rotation (a rotation-only edit needs no re-encode: it is a display matrix).
    @discardableResult
    public static func concatenate(
        _ segments: [Segment], to path: String, container: MediaWriter.Container = .mp4(), includeAudio: Bool = true,
        extraRotation: Int = 0, readerOptions: ReaderOptions = ReaderOptions(), progress: ((Double) -> Void)? = nil
    ) throws(MediaError) -> RemuxResult {
        guard let firstSegment = segments.first else {
            throw MediaError(.invalidArgument, operation: "remux to \(path)", message: "nothing to copy")
        }
        let first = try MediaReader(firstSegment.source, options: readerOptions)
        guard let firstVideo = first.videoStream else {
            throw MediaError(
                .invalidData, operation: "remux \(first.source)", message: "the source has no video stream")
        }
        let firstAudio = includeAudio ? first.audioStream : nil
        let writer = try MediaWriter(
            destination: .file(path), container: container, copying: first,
            streams: [firstVideo.index] + (firstAudio.map { [$0.index] } ?? []),
            rotation: ((firstVideo.rotation + extraRotation) % 360 + 360) % 360)

        var cursor = MediaTime.zero  // where the next segment starts in the output
        var videoFrames = 0
        var firstStart: MediaTime?
        var lastEnd = MediaTime.zero
        let spans: [Double] = segments.map { $0.range.map { $0.duration.seconds } ?? 0 }
        let totalSpan = spans.reduce(0, +)
        var doneSpan = 0.0
        var lastReported = -1.0
        // A source used by several segments is opened once and seeked.
        var readers: [MediaSource: MediaReader] = [firstSegment.source: first]
        for (number, segment) in segments.enumerated() {
            let reader: MediaReader
            if let known = readers[segment.source] {
                reader = known
            } else {
                reader = try MediaReader(segment.source, options: readerOptions)
                readers[segment.source] = reader
            }
            let operation = "remux \(reader.source)"
            guard let video = reader.videoStream else {
                throw MediaError(.invalidData, operation: operation, message: "the source has no video stream")
            }
            let audio = firstAudio == nil ? nil : reader.audioStream
            let sourceStart = reader.startTime ?? .zero
            if let range = segment.range {
                guard !range.isEmpty else {
                    throw MediaError(.invalidArgument, operation: operation, message: "the range \(range) is empty")
                }
                if let duration = reader.duration, range.start >= duration {
                    throw MediaError(
                        .invalidArgument, operation: operation,
                        message: "the range starts at \(range.start.seconds)s but the source lasts \(duration.seconds)s"
                    )
                }
            }
            let start = segment.range.map { $0.start + sourceStart } ?? sourceStart
            let end = segment.range.map { $0.end + sourceStart }
            if start > sourceStart || number > 0 { try reader.seek(to: start) }
            let segmentTotal = (end ?? (reader.duration.map { sourceStart + $0 } ?? start)) - start

            var origin: MediaTime?
            var segmentEnd: MediaTime?
            var done: Set<Int> = []
            let wanted = audio == nil ? 1 : 2
            var reading = true
            while reading && done.count < wanted {
                reading = try reader.withNextPacket { packet, stream, timeBase throws(MediaError) in
                    let isVideo = stream.index == video.index
                    guard isVideo || stream.index == audio?.index, !done.contains(stream.index),
                        let decodeTime = MediaTime(ffmpeg: packet.pointee.dts, timeBase: timeBase)
                            ?? MediaTime(ffmpeg: packet.pointee.pts, timeBase: timeBase),
                        let presentation = MediaTime(ffmpeg: packet.pointee.pts, timeBase: timeBase)
                            ?? MediaTime(ffmpeg: packet.pointee.dts, timeBase: timeBase)
                    else { return }
                    // A keyframe shown at or after the end starts a GOP nothing before the end needs.
                    let isKey = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
                    if let end, decodeTime >= end || (isVideo && isKey && presentation >= end && origin != nil) {
                        done.insert(stream.index)
                        return
                    }
                    if isVideo {
                        if origin == nil {
                            guard isKey else { return }
                            origin = presentation
                        }
                        videoFrames += 1
                        let frameEnd =
                            presentation + (MediaTime(ffmpeg: packet.pointee.duration, timeBase: timeBase) ?? .zero)
                        segmentEnd = max(segmentEnd ?? frameEnd, frameEnd)
                    } else {
                        // Audio before the segment's first video frame would play over nothing.
                        guard let origin, presentation >= origin else { return }
                    }
                    let target = isVideo ? firstVideo.index : (firstAudio?.index ?? -1)
                    try writer.writePacket(
                        packet, timeBase: timeBase, streamIndex: target, shift: (origin ?? .zero) - cursor)
                    if let progress, totalSpan > 0 || segmentTotal > .zero {
                        let within = min(1, max(0, (decodeTime - start).seconds / max(segmentTotal.seconds, 1e-9)))
                        let fraction = totalSpan > 0 ? (doneSpan + within * spans[number]) / totalSpan : within
                        if fraction - lastReported >= 0.01 {
                            lastReported = fraction
                            progress(fraction)
                        }
                    }
                }
            }
            guard let origin else {
                throw MediaError(
                    .invalidData, operation: operation, message: "no keyframe found in the requested range")
            }
            firstStart = firstStart ?? origin - sourceStart
            lastEnd = (end ?? segmentEnd ?? origin) - sourceStart
            // The next segment follows this one's last frame.
            cursor += (segmentEnd ?? origin) - origin
            doneSpan += spans[number]
        }
        try writer.finish()
        progress?(1)
        return RemuxResult(
            sourceStart: firstStart ?? .zero, sourceEnd: lastEnd, videoFrames: videoFrames,
            samples: writer.writtenSampleCount, duration: cursor, hasAudio: firstAudio != nil)
    }
}
