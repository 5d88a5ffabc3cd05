import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where a camera's stream is.
public enum StreamState: Sendable, Equatable, Codable, CustomStringConvertible {
    case idle
    case connecting
    case playing
    /// Waiting `delay` seconds before attempt number `attempt`; `reason` says why the last one failed.
    case reconnecting(attempt: Int, delay: Double, reason: String? = nil)
    case failed(reason: String)
    /// The camera refused the user name and password; asked again after `retryIn` seconds (a
    /// camera that locks an account after a few failures is not hammered).
    case loginRefused(retryIn: Double)

    /// Stopped trying for now: failed, or the login was refused.
    public var hasFailed: Bool {
        switch self {
        case .failed, .loginRefused: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .playing: "playing"
        case .reconnecting(let attempt, let delay, let reason):
            "reconnecting (attempt \(attempt) in \(String(format1: delay)) s)" + (reason.map { ": \($0)" } ?? "")
        case .failed(let reason): "failed: \(reason)"
        case .loginRefused(let delay): "failed: login refused; retrying in \(Int(delay)) s"
        }
    }
}

/// Something wrong (or right again) with a playing stream.
public struct HealthEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// No packets for a while.
        case noData
        /// Packets arrive but the picture does not change.
        case frozen
        /// Timestamps jumped forwards or backwards.
        case timestampJump
        /// Back to normal after one of the above.
        case recovered
    }

    public var cameraID: UUID
    public var kind: Kind
    /// Human-readable reason, e.g. `picture unchanged for 3.0 s`.
    public var reason: String
}

/// Counters for a live table (`watchbox watch`).
public struct StreamStatistics: Sendable, Equatable, Codable {
    public var samples = 0
    public var bytes = 0
    /// Video frames per second over the last few seconds.
    public var framesPerSecond = 0.0
    /// Bits per second over the last few seconds.
    public var bitRate = 0.0
    /// Seconds since the last packet (nil before the first).
    public var lastSampleAge: Double?
    public var reconnects = 0
}
