import CameraCommon
import CameraIO
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Records a camera's samples into a ``RecordingArchive``: fragmented-MP4 segments (default 60 s)
/// cut only at keyframes, so each one plays on its own, named by the wall-clock time they cover.
///
/// A segment being written is a hidden file whose fragments (one per keyframe interval) reach the
/// disk as they close; it gets its final name when finished. After a crash or `kill -9`,
/// ``RecordingArchive/recover()`` turns the hidden file into a segment holding everything but the
/// fragment that was open — at most one GOP is lost — and a reader of the folder never lists a
/// file it cannot play.
public final class SegmentRecorder {
    public let archive: RecordingArchive
    public let segmentDuration: MediaTime
    /// The streams written (the first video and the first audio of the source).
    public let streams: [StreamInfo]
    private let clock: @Sendable () -> Date
    private var writer: MediaWriter?
    private var open: OpenSegment?
    /// Segments finished so far, oldest first.
    public private(set) var segments: [RecordedSegment] = []
    /// Called after each segment is finished (retention runs here).
    public var onSegment: ((RecordedSegment) -> Void)?

    private struct OpenSegment {
        var start: Date
        var firstTime: MediaTime
        /// The end of the latest sample (its time plus duration), relative to the source.
        var end: MediaTime
        var lastVideoTime: MediaTime
        var path: String
    }

    /// - Parameter clock: the wall clock segments are named by (tests pass their own).
    public init(
        directory: String, streams: [StreamInfo], segmentSeconds: Double = 60,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(MediaError) {
        guard segmentSeconds > 0 else {
            throw MediaError(.invalidArgument, operation: "record", message: "segments must last more than 0 s")
        }
        self.archive = try RecordingArchive(creating: directory)
        self.segmentDuration = MediaTime(seconds: segmentSeconds)
        self.clock = clock
        let kept = Self.recordedStreams(streams)
        guard !kept.isEmpty else {
            throw MediaError(.unsupported, operation: "record", message: "the stream has no video or audio")
        }
        self.streams = kept
    }

    /// The streams a recording keeps: the source's first video and first audio.
    static func recordedStreams(_ streams: [StreamInfo]) -> [StreamInfo] {
        [streams.first { $0.mediaType == .video }, streams.first { $0.mediaType == .audio }].compactMap { $0 }
    }

    /// Writes one sample; samples before the first keyframe are skipped. A jump in the source's
    /// timestamps (the camera restarted its stream) closes the segment; the next starts at a keyframe.
    public func write(_ sample: MediaSample) throws(MediaError) {
        guard let time = sample.presentationTime else { return }
        let isVideo = sample.mediaType == .video
        let isKey = isVideo && sample.isKeyframe
        if let open, isVideo {
            let step = (time - open.lastVideoTime).seconds
            if step < -1 || step > 10 {
                try finishSegment()
            } else if isKey, time - open.firstTime >= segmentDuration {
                try finishSegment()
            }
        }
        if writer == nil {
            guard isKey else { return }
            let start = clock()
            let path = archive.directory + "/\(RecordingArchive.milliseconds(start)).mp4"
            writer = try MediaWriter(destination: .file(path), container: .fragmentedMP4, streams: streams)
            open = OpenSegment(start: start, firstTime: time, end: time, lastVideoTime: time, path: path)
        }
        guard var open, let writer else { return }
        if time < open.firstTime, !isVideo { return }
        try writer.write(sample.shifted(by: -open.firstTime))
        open.end = max(open.end, time + sample.duration)
        if isVideo { open.lastVideoTime = time }
        self.open = open
    }

    /// Finishes the open segment (call at the end).
    public func finish() throws(MediaError) {
        try finishSegment()
    }

    private func finishSegment() throws(MediaError) {
        guard let writer, let open else { return }
        self.writer = nil
        self.open = nil
        try writer.finish()
        let end = open.start.addingTimeInterval(max((open.end - open.firstTime).seconds, 0.001))
        let segment = try archive.name(path: open.path, start: open.start, end: end)
        segments.append(segment)
        onSegment?(segment)
    }
}

/// One finished piece of a recording: a playable MP4 and the wall-clock span it covers.
public struct RecordedSegment: Sendable, Equatable, Codable {
    public var start: Date
    public var end: Date
    public var path: String
    public var bytes: Int

    public var duration: Double { end.timeIntervalSince(start) }

    /// Whether the segment covers any of `from..<to`.
    public func overlaps(from: Date, to: Date) -> Bool { end > from && start < to }
}

/// How much of a recording to keep.
public struct RetentionPolicy: Sendable, Equatable {
    /// Segments that ended longer ago than this are deleted.
    public var maximumAge: Double?
    /// The oldest segments are deleted while the folder holds more than this.
    public var maximumBytes: Int?

    public init(maximumAge: Double? = nil, maximumBytes: Int? = nil) {
        self.maximumAge = maximumAge
        self.maximumBytes = maximumBytes
    }
}

/// A camera's recording folder: segments named `<start ms>-<end ms>.mp4` (Unix milliseconds), so
/// listing a time range reads no file. Lists, repairs after a crash, applies retention and cuts
/// playback spans by stream copy.
public struct RecordingArchive: Sendable {
    public let directory: String

    /// Opens an existing folder (it need not exist: then it holds nothing).
    public init(directory: String) {
        self.directory = directory
    }

    /// Opens the folder, creating it.
    public init(creating directory: String) throws(MediaError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.writeFailed, operation: "record into \(directory)", message: "cannot create the folder")
        }
        self.directory = directory
    }

    /// Unix milliseconds, as segment names use them.
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    private func names() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Every finished segment, oldest first.
    public func segments() -> [RecordedSegment] {
        names().compactMap { name -> RecordedSegment? in
            guard name.hasSuffix(".mp4"), !name.hasPrefix(".") else { return nil }
            let parts = name.dropLast(4).split(separator: "-")
            guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), end > start else {
                return nil
            }
            let path = directory + "/" + name
            return RecordedSegment(
                start: Self.date(start), end: Self.date(end), path: path, bytes: Self.size(of: path))
        }.sorted { $0.start < $1.start }
    }

    /// The segments being written now by a running recorder (this process or another live one):
    /// their complete fragments are readable, and `end` is when the newest one reached the disk. A
    /// killed recorder's file is not here: ``recover()`` repairs it.
    public func openSegments() -> [RecordedSegment] {
        names().compactMap { name -> RecordedSegment? in
            guard let (file, writer) = AtomicFile.temporary(name), file.hasSuffix(".mp4"),
                AtomicFile.isRunning(writer), let start = Int64(file.prefix { $0.isNumber })
            else { return nil }
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            let end = Date(
                timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000)
            guard end > Self.date(start) else { return nil }
            return RecordedSegment(start: Self.date(start), end: end, path: path, bytes: Int(info.st_size))
        }.sorted { $0.start < $1.start }
    }

    /// The segments that overlap `from..<to`, with those still being written when `includingOpen`.
    public func segments(from: Date, to: Date, includingOpen: Bool = false) -> [RecordedSegment] {
        (segments() + (includingOpen ? openSegments() : [])).filter { $0.overlaps(from: from, to: to) }
            .sorted { $0.start < $1.start }
    }

    /// Renames a finished writer's file to its span.
    func name(path: String, start: Date, end: Date) throws(MediaError) -> RecordedSegment {
        let final =
            directory + "/\(Self.milliseconds(start))-\(max(Self.milliseconds(end), Self.milliseconds(start) + 1)).mp4"
        guard rename(path, final) == 0 else {
            throw MediaError(
                .writeFailed, operation: "finish segment \(path)", message: String(cString: strerror(errno)))
        }
        return RecordedSegment(
            start: start, end: Self.date(Self.milliseconds(end)), path: final, bytes: Self.size(of: final))
    }

    static func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Repairs what a killed recorder left: its hidden open segment becomes a segment of every
    /// complete fragment (the unfinished last one is dropped), a finished but unnamed one gets its
    /// name, and a file with nothing playable is deleted. Files of a recorder still running (another
    /// live process) are left alone. Returns the segments it made.
    @discardableResult
    public func recover() -> [RecordedSegment] {
        var made: [RecordedSegment] = []
        for name in names() {
            let path = directory + "/" + name
            if name.contains("-salvage.mp4") {
                unlink(path)  // a repair that was itself interrupted; the original is still here
            } else if let (file, writer) = AtomicFile.temporary(name), file.hasSuffix(".mp4") {
                if writer != getpid(), AtomicFile.isRunning(writer) { continue }
                guard let start = Int64(file.prefix { $0.isNumber }) else { continue }
                if let segment = salvage(path, start: Self.date(start)) { made.append(segment) }
                unlink(path)
            } else if name.hasSuffix(".mp4"), let start = Int64(name.dropLast(4)) {
                if let segment = salvage(path, start: Self.date(start)) { made.append(segment) }
                unlink(path)
            }
        }
        return made
    }

    /// Copies every readable sample of `path` into a finished segment starting at `start`.
    private func salvage(_ path: String, start: Date) -> RecordedSegment? {
        guard let reader = try? MediaReader(.file(path), options: .uploadedVideo) else { return nil }
        defer { reader.close() }
        let indices = SegmentRecorder.recordedStreams(reader.streams).map(\.index)
        guard !indices.isEmpty else { return nil }
        let target = directory + "/.\(Self.milliseconds(start))-salvage.mp4"
        var end = MediaTime.zero
        var written = 0
        do throws(MediaError) {
            let writer = try MediaWriter(
                destination: .file(target), container: .fragmentedMP4, copying: reader, streams: indices)
            while true {
                // A torn last fragment ends the reading; what was read before it is kept.
                guard let sample = try? reader.nextSample() else { break }
                guard let time = sample.presentationTime else { continue }
                try writer.write(sample)
                end = max(end, time + sample.duration)
                written += 1
            }
            guard written > 0 else { return nil }
            try writer.finish()
        } catch {
            return nil
        }
        guard Self.size(of: target) > 0 else { return nil }
        return try? name(path: target, start: start, end: start.addingTimeInterval(max(end.seconds, 0.001)))
    }

    /// Deletes segments beyond the policy (oldest first); returns what it deleted.
    @discardableResult
    public func enforce(_ policy: RetentionPolicy, now: Date = Date()) -> [RecordedSegment] {
        var kept = segments()
        var deleted: [RecordedSegment] = []
        if let age = policy.maximumAge {
            for segment in kept where now.timeIntervalSince(segment.end) > age { deleted.append(segment) }
            kept.removeAll { now.timeIntervalSince($0.end) > age }
        }
        if let limit = policy.maximumBytes {
            var total = kept.reduce(0) { $0 + $1.bytes }
            while total > limit, let oldest = kept.first {
                kept.removeFirst()
                deleted.append(oldest)
                total -= oldest.bytes
            }
        }
        for segment in deleted { unlink(segment.path) }
        return deleted
    }

    /// What ``export(from:to:into:)`` wrote.
    public struct Span: Sendable, Equatable {
        /// The time of the first frame written: the keyframe at or before the time asked for.
        public var start: Date
        public var end: Date
    }

    /// Writes `from..<to` as one MP4 (index at the front) by stream copy: from the keyframe at or
    /// before `from` through the covering segments, the one being written included (up to its last
    /// complete fragment). A gap (the camera was offline) is kept as a gap in time; a change of
    /// stream format ends the span there.
    ///
    /// - Throws: ``MediaError`` `notFound` when nothing was recorded in the range.
    public func export(from: Date, to: Date, into path: String) throws(MediaError) -> Span {
        let covering = segments(from: from, to: to, includingOpen: true)
        guard let first = covering.first, to > from else {
            throw MediaError(.notFound, operation: "play back", message: "nothing was recorded in that time")
        }
        var writer: MediaWriter?
        var format: [StreamInfo] = []
        var base: (date: Date, time: MediaTime)?
        var lastEnd = MediaTime.zero
        var lastDecode: [Int: MediaTime] = [:]
        segmentsLoop: for segment in covering {
            let reader = try MediaReader(.file(segment.path), options: .uploadedVideo)
            defer { reader.close() }
            let indices = SegmentRecorder.recordedStreams(reader.streams).map(\.index)
            if writer == nil {
                writer = try MediaWriter(
                    destination: .file(path), container: .mp4(faststart: true), copying: reader, streams: indices)
                format = reader.streams
            } else if !Self.sameFormat(reader.streams, format) {
                break segmentsLoop
            }
            // Where this segment's time 0 lands in the output.
            var offset: MediaTime
            var pending: [MediaSample] = []
            var started = base != nil
            if let base {
                offset = MediaTime(seconds: segment.start.timeIntervalSince(base.date)) - base.time
                if offset < lastEnd { offset = lastEnd }
            } else {
                offset = .zero
            }
            let skip = segment.path == first.path ? from.timeIntervalSince(segment.start) : -1
            while let sample = try? reader.nextSample() {
                guard let time = sample.presentationTime else { continue }
                if segment.start.addingTimeInterval(time.seconds) >= to, sample.mediaType == .video { break }
                if !started {
                    // Keep the current GOP until the asked time is reached, then start at its keyframe.
                    if sample.mediaType == .video, sample.isKeyframe, time.seconds <= skip { pending = [] }
                    pending.append(sample)
                    guard sample.mediaType == .video, time.seconds >= skip else { continue }
                    guard let key = pending.first(where: { $0.mediaType == .video && $0.isKeyframe }),
                        let keyTime = key.presentationTime
                    else {
                        pending = []
                        continue
                    }
                    started = true
                    base = (segment.start, keyTime)
                    offset = -keyTime
                    let queued = pending.drop { !($0.mediaType == .video && $0.isKeyframe) }
                    pending = []
                    for queuedSample in queued {
                        try Self.write(queuedSample, offset: offset, writer, &lastEnd, &lastDecode)
                    }
                    continue
                }
                try Self.write(sample, offset: offset, writer, &lastEnd, &lastDecode)
            }
        }
        guard let writer, let base else {
            throw MediaError(.notFound, operation: "play back", message: "nothing was recorded in that time")
        }
        try writer.finish()
        let start = base.date.addingTimeInterval(base.time.seconds)
        return Span(start: start, end: start.addingTimeInterval(lastEnd.seconds))
    }

    private static func write(
        _ sample: MediaSample, offset: MediaTime, _ writer: MediaWriter?, _ lastEnd: inout MediaTime,
        _ lastDecode: inout [Int: MediaTime]
    ) throws(MediaError) {
        let shifted = sample.shifted(by: offset)
        guard let time = shifted.presentationTime, time >= .zero else { return }
        if let decode = shifted.decodeTime, let previous = lastDecode[sample.streamIndex], decode <= previous { return }
        lastDecode[sample.streamIndex] = shifted.decodeTime
        try writer?.write(shifted)
        lastEnd = max(lastEnd, time + sample.duration)
    }

    static func sameFormat(_ a: [StreamInfo], _ b: [StreamInfo]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy {
                $0.mediaType == $1.mediaType && $0.codec == $1.codec && $0.width == $1.width && $0.height == $1.height
                    && $0.sampleRate == $1.sampleRate && $0.extradata == $1.extradata
            }
    }
}

/// A recording of a camera the ``StreamManager`` is streaming: a subscriber like live view and
/// health, so recording opens no second connection to the camera. Segments start at the first
/// keyframe after it was made; a reconnect with a different stream format starts a new segment.
public final class StreamRecording: Sendable {
    public let cameraID: UUID
    public let archive: RecordingArchive
    private let manager: StreamManager
    private let token: Int
    private let state = Shared()

    private final class Shared: Sendable {
        let locked = Mutex<(recorder: SegmentRecorder?, failure: MediaError?, done: [RecordedSegment])>((nil, nil, []))
    }

    /// Subscribes at once (repairing what an earlier, killed recording left); call ``finish()`` to stop.
    /// `onSegment` runs on the stream's thread after each segment is finished.
    public init(
        manager: StreamManager, cameraID: UUID, directory: String, segmentSeconds: Double = 60,
        onSegment: @escaping @Sendable (RecordedSegment) -> Void = { _ in }
    ) {
        self.manager = manager
        self.cameraID = cameraID
        self.archive = RecordingArchive(directory: directory)
        archive.recover()
        let shared = state
        token = manager.subscribe(cameraID) { id, sample in
            shared.locked.withLock { state in
                guard state.failure == nil else { return }
                do throws(MediaError) {
                    if sample.mediaType == .video, sample.isKeyframe, let streams = manager.streamInfo(id),
                        let recorder = state.recorder,
                        !RecordingArchive.sameFormat(recorder.streams, SegmentRecorder.recordedStreams(streams))
                    {
                        try recorder.finish()
                        state.done += recorder.segments
                        state.recorder = nil
                    }
                    if state.recorder == nil, let streams = manager.streamInfo(id) {
                        let recorder = try SegmentRecorder(
                            directory: directory, streams: streams, segmentSeconds: segmentSeconds)
                        recorder.onSegment = onSegment
                        state.recorder = recorder
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
    @discardableResult
    public func finish() throws(MediaError) -> [RecordedSegment] {
        manager.unsubscribe(cameraID, token: token)
        return try state.locked.withLock { state throws(MediaError) -> [RecordedSegment] in
            try state.recorder?.finish()
            return state.done + (state.recorder?.segments ?? [])
        }
    }
}
