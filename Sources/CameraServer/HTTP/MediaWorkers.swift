import CameraCommon
import Foundation
import HTTPTypes
import NIOPosix
import Synchronization

/// Threads of their own for blocking media work (FFmpeg opens and snapshots, reels, workout
/// analysis, checking uploads, name lookups), so it never occupies Swift's cooperative pool,
/// where two threads on this machine also answer every other request. Admission is bounded:
/// at most ``threads`` jobs run and ``queueLimit`` wait, at most ``perUser`` per user; past that
/// the caller gets 429 with `Retry-After` at once instead of waiting behind everyone.
final class MediaWorkers: Sendable {
    let threads: Int
    let queueLimit: Int
    let perUser: Int
    private let pool: NIOThreadPool
    private let admitted = Mutex<(total: Int, perUser: [String: Int])>((0, [:]))

    init(threads: Int, queueLimit: Int, perUser: Int) {
        self.threads = threads
        self.queueLimit = queueLimit
        self.perUser = perUser
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Jobs admitted now (running or waiting).
    var load: Int { admitted.withLock { $0.total } }

    /// A place in the pool, held from admission until the reservation is released (dropped): a
    /// background job (a reel) keeps its place after the request that started it has been answered.
    final class Reservation: Sendable {
        private let workers: MediaWorkers
        private let user: String

        fileprivate init(workers: MediaWorkers, user: String) {
            self.workers = workers
            self.user = user
        }

        func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            try await workers.pool.runIfActive(work)
        }

        deinit { workers.release(user) }
    }

    /// Takes a place for `user`, or answers 429 when the pool or the user's share is full.
    func reserve(user: String) throws -> Reservation {
        let refusal: String? = admitted.withLock { state in
            if state.total >= threads + queueLimit { return "the server is busy with other video work" }
            if state.perUser[user, default: 0] >= perUser {
                return "you already have \(perUser) video jobs running; wait for one to finish"
            }
            state.total += 1
            state.perUser[user, default: 0] += 1
            return nil
        }
        if let refusal {
            throw APIError(.tooManyRequests, "\(refusal); try again in 5 s", headers: [.retryAfter: "5"])
        }
        return Reservation(workers: self, user: user)
    }

    private func release(_ user: String) {
        admitted.withLock { state in
            state.total -= 1
            state.perUser[user, default: 1] -= 1
            if state.perUser[user] == 0 { state.perUser[user] = nil }
        }
    }

    /// Runs `work` on a worker thread for `user` (``reserve(user:)`` and run).
    func run<T: Sendable>(user: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await reserve(user: user).run(work)
    }

    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
