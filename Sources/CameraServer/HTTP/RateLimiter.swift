import CameraCommon
import Crypto
import Foundation
import HTTPTypes
import HummingbirdBcrypt
import JWTKit
import NIOHTTP1
import NIOPosix
import Networking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A sliding window per key (user id or address), a minute unless told otherwise. Small and in
/// memory: enough for one server process; several processes behind a balancer would each allow the
/// limit.
final class RateLimiter: Sendable {
    /// How many in one window (``perMinute`` for the usual one-minute window).
    let limit: Int
    let window: Duration
    private let windows = Mutex<[String: [ContinuousClock.Instant]]>([:])

    init(perMinute: Int) { (limit, window) = (perMinute, .seconds(60)) }
    init(limit: Int, per window: Duration) { (self.limit, self.window) = (limit, window) }

    var perMinute: Int { limit }

    /// True when `key` may go ahead now (and counts it); otherwise the seconds to wait.
    func allow(_ key: String) -> (allowed: Bool, retryAfter: Int) {
        let now = ContinuousClock.now
        let window = window
        return windows.withLock { table in
            if table.count > 10_000 { table = table.filter { now - ($0.value.last ?? now) < window } }
            var recent = (table[key] ?? []).filter { now - $0 < window }
            guard recent.count < limit else {
                let wait = window - (now - recent[0])
                return (false, max(1, Int(wait.components.seconds) + 1))
            }
            recent.append(now)
            table[key] = recent
            return (true, 0)
        }
    }

    /// Counts `key` and goes ahead, or answers 429 with `Retry-After` and
    /// "`refusal`; try again in N s".
    func check(_ key: String, refusal: String) throws {
        let (allowed, wait) = allow(key)
        guard allowed else {
            throw APIError(.tooManyRequests, "\(refusal); try again in \(wait) s", headers: [.retryAfter: "\(wait)"])
        }
    }
}

/// A count per UTC day for the whole server (the AI budget): past `limit`, 429 until midnight UTC.
final class DailyBudget: Sendable {
    let limit: Int
    private let state = Mutex<(day: Int, used: Int)>((0, 0))

    init(limit: Int) { self.limit = limit }

    func spend() throws {
        let now = Date().timeIntervalSince1970
        let day = Int(now / 86400)
        let allowed = state.withLock { state -> Bool in
            if state.day != day { state = (day, 0) }
            guard state.used < limit else { return false }
            state.used += 1
            return true
        }
        guard allowed else {
            let wait = max(1, Int(Double(day + 1) * 86400 - now))
            throw APIError(
                .tooManyRequests,
                "the server's AI budget for today is spent; tips continue on the device until midnight UTC",
                headers: [.retryAfter: "\(wait)"])
        }
    }
}
