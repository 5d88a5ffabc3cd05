import CFFmpeg
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// FFmpeg's interrupt callback state for one format context: the way a blocked network read is
/// aborted. FFmpeg polls the callback while it waits; it returns 1 once the owner asked to abort
/// (task cancellation, `close()`) or the current operation's deadline has passed.
final class InterruptGuard: Sendable {
    private let aborted = Atomic<Bool>(false)
    private let deadlineNanos = Atomic<UInt64>(0)
    private let expired = Atomic<Bool>(false)

    /// Asks FFmpeg to give up whatever it is blocked in.
    func abort() { aborted.store(true, ordering: .relaxed) }

    var isAborted: Bool { aborted.load(ordering: .relaxed) }
    /// Whether the last interruption was caused by the deadline (so the caller reports a timeout).
    var didTimeOut: Bool { expired.load(ordering: .relaxed) }

    /// Starts a deadline `seconds` from now for the next blocking call; nil or ≤ 0 disables it.
    func arm(seconds: Double?) {
        expired.store(false, ordering: .relaxed)
        guard let seconds, seconds > 0 else {
            deadlineNanos.store(0, ordering: .relaxed)
            return
        }
        deadlineNanos.store(Self.nowNanos() + UInt64(seconds * 1e9), ordering: .relaxed)
    }

    func disarm() { deadlineNanos.store(0, ordering: .relaxed) }

    fileprivate func shouldInterrupt() -> Bool {
        if aborted.load(ordering: .relaxed) { return true }
        let deadline = deadlineNanos.load(ordering: .relaxed)
        if deadline != 0 && Self.nowNanos() > deadline {
            expired.store(true, ordering: .relaxed)
            return true
        }
        return false
    }

    /// The callback struct to install in `AVFormatContext.interrupt_callback`. The guard must
    /// outlive the context (the reader owns both and frees the context first).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptGuard>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt() ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    static func nowNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
