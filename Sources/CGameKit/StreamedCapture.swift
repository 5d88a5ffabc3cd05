import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A capture that arrives as chunks of a WebM stream (a browser's `MediaRecorder`), run through the
/// highlight pipeline as it comes: the chunks go into a named pipe in `folder`, FFmpeg reads the
/// pipe as a live source (frames are dropped when reading falls behind, never the input), the
/// video is encoded to H.264 as it is read (a browser gives VP8 or keyframes minutes apart), and
/// clips are saved in `folder/clips` as they happen.
///
/// Only the Matroska/WebM demuxer reading that one pipe is allowed: the bytes come from a user.
public final class StreamedCapture: Sendable {
    public let folder: String
    public let store: PendingClipStore
    private let pipe: String
    private let descriptor: Int32
    private let pipeline: HighlightPipeline
    private let writer = DispatchQueue(label: "cgame.capture.input")
    /// Bytes accepted but not yet in the pipe.
    private let backlog = Atomic<Int>(0)
    private let inputClosed = Atomic<Bool>(false)
    private let readerGone = Atomic<Bool>(false)
    public let maxBacklog: Int

    /// What ``write(_:)`` did with a chunk.
    public enum Accepted: Sendable, Equatable {
        case queued
        /// The pipeline has stopped reading (it ended, or the stream was not a video).
        case ended
        /// More than ``maxBacklog`` bytes wait: the reader cannot keep up with this stream.
        case behind
    }

    /// - Parameters:
    ///   - folder: an empty folder of this capture's own (the pipe and the clips go there).
    ///   - maxBacklog: bytes that may wait for the reader before ``write(_:)`` answers `.behind`.
    public init(
        folder: String, profile: GameProfile, highlights: HighlightSettings, maxBacklog: Int = 32 << 20
    ) throws(MediaError) {
        self.folder = folder
        self.maxBacklog = maxBacklog
        pipe = folder + "/input.webm"
        store = try PendingClipStore(root: folder + "/clips")
        guard mkfifo(pipe, 0o600) == 0 else {
            throw MediaError(.writeFailed, operation: "start capture", message: "cannot make a pipe in \(folder)")
        }
        // Read and write: opening never waits for the reader, and a reader that stops early never
        // makes a write raise SIGPIPE. Writes do not block (see `drain`).
        descriptor = open(pipe, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.writeFailed, operation: "start capture", message: "cannot open the pipe in \(folder)")
        }
        pipeline = HighlightPipeline(
            configuration: .init(
                source: .file(pipe),
                readerOptions: ReaderOptions(
                    timeout: nil, inputFormat: "matroska",
                    options: [
                        "format_whitelist": "matroska,webm", "protocol_whitelist": "file",
                        // A second of a browser's stream tells what it is; waiting for FFmpeg's
                        // default 5 s would hold the first picture back.
                        "analyzeduration": "1000000", "probesize": "1000000",
                    ]),
                profile: profile, highlights: highlights, detector: EventDetector.Options(dropWhenBusy: true),
                reencodeVideo: true))
    }

    deinit { close(descriptor) }

    /// Runs the pipeline on a thread of its own; `completion` gets what it did once the input has
    /// ended (``finishInput()``) and every open highlight has been saved.
    public func start(
        onEvent: @escaping @Sendable (DetectedEvent) -> Void, onClip: @escaping @Sendable (ClipMetadata) -> Void,
        progress: @escaping @Sendable (HighlightPipeline.Progress) -> Void,
        completion: @escaping @Sendable (Result<HighlightPipeline.Summary, MediaError>) -> Void
    ) {
        DispatchQueue(label: "cgame.capture").async { [self] in
            let result = Result { () throws(MediaError) in
                try pipeline.run(store: store, onEvent: onEvent, onClip: onClip, progress: progress)
            }
            readerGone.store(true, ordering: .sequentiallyConsistent)
            completion(result)
        }
    }

    /// Queues a chunk for the pipeline.
    public func write(_ bytes: [UInt8]) -> Accepted {
        if readerGone.load(ordering: .sequentiallyConsistent) || inputClosed.load(ordering: .relaxed) {
            return .ended
        }
        guard backlog.add(bytes.count, ordering: .relaxed).newValue <= maxBacklog else {
            backlog.subtract(bytes.count, ordering: .relaxed)
            return .behind
        }
        writer.async { [self] in
            drain(bytes)
            backlog.subtract(bytes.count, ordering: .relaxed)
        }
        return .queued
    }

    /// Writes all of `bytes`, waiting for room in the pipe, unless the reader has gone.
    private func drain(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count, !readerGone.load(ordering: .sequentiallyConsistent) {
            let count = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EAGAIN || errno == EINTR {
                var wanted = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&wanted, 1, 200)
            } else {
                return
            }
        }
    }

    /// Ends the input once what was written has reached the pipe: the pipeline reads to the end,
    /// saves the open highlight and completes.
    public func finishInput() {
        guard !inputClosed.exchange(true, ordering: .relaxed) else { return }
        writer.async { [self] in
            // The reader sees the end when the last writer closes; ours is the only one. The
            // descriptor stays open (for `deinit`) as a reader only, so it is re-pointed at
            // /dev/null rather than closed twice.
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if null >= 0 {
                dup2(null, descriptor)
                close(null)
            }
            // A reader still waiting in open() (the input ended before FFmpeg opened it) is let
            // through by a writer that comes and goes, and then reads the end.
            let nudge = open(pipe, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if nudge >= 0 { close(nudge) }
        }
    }

    /// Stops reading after the current sample (open highlights are still saved) and ends the input.
    public func stop() {
        pipeline.stop()
        finishInput()
    }
}
