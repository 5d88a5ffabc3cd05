import CameraCommon
import CameraIO
import FoundationEssentials

/// Writes a highlight from the buffer into the pending folder (the spec's ClipExporter): the video by
/// stream copy (no re-encoding, so it takes milliseconds and loses nothing), a JPEG thumbnail of the
/// first event, then the metadata entry that lists it.
public struct ClipExporter: Sendable {
    public let store: PendingClipStore
    /// The source's streams; the clip gets its video and first audio stream.
    public let streams: [StreamInfo]
    /// The game's name for the metadata.
    public let game: String
    /// Wall-clock time of `zero` (a live source's start; a file's processing start).
    public let origin: Date
    /// The source's first timestamp: clip times in the metadata count from it, as event times do
    /// (sources such as x11grab, RTSP or MPEG-TS do not start at 0).
    public let zero: MediaTime
    /// Thumbnail width in pixels (height follows the aspect ratio).
    public var thumbnailWidth = 640

    public init(
        store: PendingClipStore, streams: [StreamInfo], game: String, origin: Date = Date(), zero: MediaTime = .zero
    ) {
        self.store = store
        var kept: [StreamInfo] = []
        if let video = streams.first(where: { $0.mediaType == .video }) { kept.append(video) }
        if let audio = streams.first(where: { $0.mediaType == .audio }) { kept.append(audio) }
        self.streams = kept
        self.game = game
        self.origin = origin
        self.zero = zero
    }

    /// Writes `highlight` and lists it in the store.
    ///
    /// The clip starts at the keyframe at or before `highlight.range.start` (the only place a
    /// stream copy can start) and is rebased so that keyframe is at zero.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when the buffer holds no video for the range;
    ///   `writeFailed` for disk errors. Nothing is listed unless everything was written.
    public func export(_ highlight: Highlight, from buffer: ContinuousBuffer) throws(MediaError) -> ClipMetadata {
        let id = UUID().uuidString.lowercased()
        let operation = "export clip \(highlight.name)"
        let samples = buffer.samples(from: highlight.range.start, to: highlight.range.end)
        guard let leadIn = samples.first(where: { $0.mediaType == .video })?.presentationTime else {
            throw MediaError(
                .invalidArgument, operation: operation, message: "the buffer holds no video for \(highlight.range)")
        }
        let videoPath = store.pendingVideoPath(id: id)
        let writer = try MediaWriter(destination: .file(videoPath), container: .mp4(faststart: true), streams: streams)
        writer.durable = store.durable
        var end = leadIn
        for sample in samples {
            try writer.write(sample.shifted(by: -leadIn))
            if sample.mediaType == .video, let pts = sample.presentationTime {
                end = max(end, pts + sample.duration)
            }
        }
        try writer.finish()

        var thumbnailPath: String?
        if let frame = highlight.events.first?.frame {
            let path = store.pendingThumbnailPath(id: id)
            let width = min(thumbnailWidth, frame.width) & ~1
            let height = max(2, (frame.height * width / max(1, frame.width)) & ~1)
            let small = width < frame.width ? try frame.scaled(width: width, height: height) : frame
            try AtomicFile.write(
                try ImageEncoder.encode(small, as: .jpeg, quality: 80), to: path, durable: store.durable)
            thumbnailPath = path
        }
        let first = highlight.events.first?.time ?? highlight.range.start
        let metadata = ClipMetadata(
            id: id, game: game, events: highlight.events.map(\.type),
            timestamp: origin.addingTimeInterval((first - zero).seconds), duration: (end - leadIn).seconds,
            name: highlight.name,
            eventOffsets: highlight.events.map { ($0.time - leadIn).seconds }, localPath: videoPath,
            thumbnailPath: thumbnailPath, sourceStart: (leadIn - zero).seconds, sourceEnd: (end - zero).seconds)
        try store.saveClipMetadata(metadata)
        return metadata
    }
}
