import CameraCommon
import CameraIO
import FoundationEssentials
import Synchronization

/// Records a camera's samples into MP4 segments (default 60 s) in a folder, cutting only at
/// keyframes so each segment plays on its own. Each segment appears whole or not at all (the
/// writer renames it into place when it is finished).
public final class SegmentRecorder {
    public let directory: String
    public let segmentDuration: MediaTime
    public let prefix: String
    private let streams: [StreamInfo]
    private var writer: MediaWriter?
    private var segmentStart: MediaTime?
    private var currentPath: String?
    /// Segments finished so far.
    public private(set) var segments: [String] = []

    public init(directory: String, streams: [StreamInfo], prefix: String = "segment", segmentSeconds: Double = 60)
        throws(MediaError)
    {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.writeFailed, operation: "record into \(directory)", message: "cannot create the folder")
        }
        guard segmentSeconds > 0 else {
            throw MediaError(.invalidArgument, operation: "record", message: "segments must last more than 0 s")
        }
        self.directory = directory
        self.prefix = prefix
        self.segmentDuration = MediaTime(seconds: segmentSeconds)
        var kept: [StreamInfo] = []
        if let video = streams.first(where: { $0.mediaType == .video }) { kept.append(video) }
        if let audio = streams.first(where: { $0.mediaType == .audio }) { kept.append(audio) }
        self.streams = kept
    }

    /// Writes one sample; samples before the first keyframe are skipped.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let isKey = sample.mediaType == .video && sample.isKeyframe
        if let start = segmentStart, isKey, let time = sample.presentationTime, time - start >= segmentDuration {
            try finishSegment()
        }
        if writer == nil {
            guard isKey, let time = sample.presentationTime else { return }
            let path = directory + "/\(prefix)-\(String(segments.count + 1).leftPadded(to: 4)).mp4"
            writer = try MediaWriter(destination: .file(path), container: .mp4(), streams: streams)
            segmentStart = time
            currentPath = path
        }
        guard let start = segmentStart else { return }
        if let time = sample.presentationTime, time < start, sample.mediaType != .video { return }
        try writer?.write(sample.shifted(by: -start))
    }

    /// Finishes the open segment (call at the end).
    public func finish() throws(MediaError) {
        try finishSegment()
    }

    private func finishSegment() throws(MediaError) {
        guard let writer, let currentPath else { return }
        self.writer = nil
        self.segmentStart = nil
        self.currentPath = nil
        try writer.finish()
        segments.append(currentPath)
    }
}

/// A recording of a camera the ``StreamManager`` is streaming: a subscriber like live view and
/// health, so recording opens no second connection to the camera. Segments start at the first
/// keyframe after it was made.
public final class StreamRecording: Sendable {
    public let cameraID: UUID
    private let manager: StreamManager
    private let token: Int
    private let state = Shared()

    private final class Shared: Sendable {
        let locked = Mutex<(recorder: SegmentRecorder?, failure: MediaError?)>((nil, nil))
    }

    /// Subscribes at once; call ``finish()`` to stop.
    public init(
        manager: StreamManager, cameraID: UUID, directory: String, prefix: String = "segment",
        segmentSeconds: Double = 60
    ) {
        self.manager = manager
        self.cameraID = cameraID
        let shared = state
        token = manager.subscribe(cameraID) { id, sample in
            shared.locked.withLock { state in
                guard state.failure == nil else { return }
                do throws(MediaError) {
                    if state.recorder == nil, let streams = manager.streamInfo(id) {
                        state.recorder = try SegmentRecorder(
                            directory: directory, streams: streams, prefix: prefix, segmentSeconds: segmentSeconds)
                    }
                    try state.recorder?.write(sample)
                } catch {
                    state.failure = error
                }
            }
        }
    }

    /// Why recording stopped early (a full disk, a folder that went away), if it did.
    public var failure: MediaError? { state.locked.withLock { $0.failure } }

    /// Stops recording, finishes the open segment and returns every segment written.
    public func finish() throws(MediaError) -> [String] {
        manager.unsubscribe(cameraID, token: token)
        return try state.locked.withLock { state throws(MediaError) -> [String] in
            try state.recorder?.finish()
            return state.recorder?.segments ?? []
        }
    }
}
