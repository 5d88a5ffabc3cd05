import CameraCommon
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A stream a browser records (`MediaRecorder` WebM chunks), handed to FFmpeg as it arrives: the
/// chunks go into a named pipe that a ``MediaReader`` opened with ``readerOptions`` reads as a
/// live source. Writes never block the caller; when the reader falls more than ``maxBacklog``
/// bytes behind, ``write(_:)`` says so instead of holding more.
///
/// Only the Matroska/WebM demuxer reading that one pipe is allowed: the bytes come from a user.
public final class WebMPipe: Sendable {
    /// The pipe's path: read it as `.file(path)` with ``readerOptions``.
    public let path: String
    private let descriptor: Int32
    private let writer = DispatchQueue(label: "cameracore.webm-pipe")
    /// Bytes accepted but not yet in the pipe.
    private let backlog = Atomic<Int>(0)
    private let inputClosed = Atomic<Bool>(false)
    private let readerGone = Atomic<Bool>(false)
    public let maxBacklog: Int

    /// What ``write(_:)`` did with a chunk.
    public enum Accepted: Sendable, Equatable {
        case queued
        /// The reader has stopped (it ended, or the stream was not a video).
        case ended
        /// More than ``maxBacklog`` bytes wait: the reader cannot keep up with this stream.
        case behind
    }

    /// How to open ``path``: WebM only, from this file only, a second of probing.
    public static let readerOptions = ReaderOptions(
        timeout: nil, inputFormat: "matroska",
        options: [
            "format_whitelist": "matroska,webm", "protocol_whitelist": "file",
            // A second of a browser's stream tells what it is; waiting for FFmpeg's default 5 s
            // would hold the first picture back.
            "analyzeduration": "1000000", "probesize": "1000000",
        ])

    /// Makes the pipe `folder/input.webm` (the folder must be the caller's own).
    public init(folder: String, maxBacklog: Int = 32 << 20) throws(MediaError) {
        self.maxBacklog = maxBacklog
        path = folder + "/input.webm"
        guard mkfifo(path, 0o600) == 0 else {
            throw MediaError(.writeFailed, operation: "start a stream", message: "cannot make a pipe in \(folder)")
        }
        // Read and write: opening never waits for the reader, and a reader that stops early never
        // makes a write raise SIGPIPE. Writes do not block (see `drain`).
        descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.writeFailed, operation: "start a stream", message: "cannot open the pipe in \(folder)")
        }
    }

    deinit { close(descriptor) }

    /// The reader is done (call when the code reading ``path`` returns): later writes answer `.ended`.
    public func readerFinished() { readerGone.store(true, ordering: .sequentiallyConsistent) }

    /// Queues a chunk for the reader.
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

    /// Ends the input once what was written has reached the pipe: the reader reads to the end.
    public func finishInput() {
        guard !inputClosed.exchange(true, ordering: .relaxed) else { return }
        writer.async { [self] in
            // What is still in the pipe is thrown away when the last descriptor on it closes, and
            // until the reader has opened it, ours is the last: a stream shorter than the pipe's
            // buffer (64 KiB) that ended before FFmpeg got to it was lost whole ("Invalid data
            // found when processing input"). So the end waits until the reader has taken what is
            // there, or is gone (at most 30 s).
            for _ in 0..<300 where !readerGone.load(ordering: .sequentiallyConsistent) {
                var waiting: Int32 = 0
                guard ioctl(descriptor, UInt(FIONREAD), &waiting) == 0, waiting > 0 else { break }
                usleep(100_000)
            }
            // The reader sees the end when the last writer closes; ours is the only one. The
            // descriptor stays open (for `deinit`) as a reader only, so it is re-pointed at
            // /dev/null rather than closed twice.
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if null >= 0 {
                dup2(null, descriptor)
                close(null)
            }
            // A reader that opens the pipe only now (the input ended before FFmpeg got to it)
            // would wait in open() for a writer for ever: a writer that comes and goes lets it
            // through to read the end. It may not be there yet, so this is repeated until the
            // reader is done (at most 30 s).
            for _ in 0..<300 where !readerGone.load(ordering: .sequentiallyConsistent) {
                let nudge = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if nudge >= 0 { close(nudge) }
                usleep(100_000)
            }
        }
    }
}
