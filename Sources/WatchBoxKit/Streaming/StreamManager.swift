import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One reader per active camera (the spec's StreamManager over CameraIO, where the iOS app used
/// VLCKit): connects, fans samples out to subscribers (live view, snapshot, recorder) without
/// copying packet data — `MediaSample` bytes are shared copy-on-write — reconnects with back-off,
/// and watches health (the spec's StreamHealthMonitor).
///
/// Back-off: 1 s for the first five attempts, then 5 s, 10 s and 60 s; a refused login waits
/// ``Options/authenticationRetry`` (cameras lock out clients that keep failing). At most
/// ``Options/maximumStreams`` streams run at once; visible cameras take precedence, and starting a
/// visible one at the cap pauses an invisible one.
public final class StreamManager: Sendable {
    public struct Options: Sendable {
        public var transport: ReaderOptions.Transport
        public var maximumStreams: Int
        /// Delays before reconnect attempts 1, 2, ...; the last repeats.
        public var backoff: [Double]
        public var authenticationRetry: Double
        /// A read that blocks this long counts as "no data" and reconnects.
        public var noDataTimeout: Double
        /// Unchanged picture for this long is reported frozen.
        public var frozenAfter: Double

        public init(
            transport: ReaderOptions.Transport = .tcp, maximumStreams: Int = 16,
            backoff: [Double] = [1, 1, 1, 1, 1, 5, 10, 60], authenticationRetry: Double = 60, noDataTimeout: Double = 5,
            frozenAfter: Double = 3
        ) {
            self.transport = transport
            self.maximumStreams = maximumStreams
            self.backoff = backoff
            self.authenticationRetry = authenticationRetry
            self.noDataTimeout = noDataTimeout
            self.frozenAfter = frozenAfter
        }
    }

    public typealias Subscriber = @Sendable (UUID, MediaSample) -> Void

    public let options: Options
    private let onState: @Sendable (UUID, StreamState) -> Void
    private let onHealth: @Sendable (HealthEvent) -> Void
    private let streams = Mutex<[UUID: Stream]>([:])

    public init(
        options: Options = Options(), onState: @escaping @Sendable (UUID, StreamState) -> Void = { _, _ in },
        onHealth: @escaping @Sendable (HealthEvent) -> Void = { _ in }
    ) {
        self.options = options
        self.onState = onState
        self.onHealth = onHealth
    }

    /// Starts (or marks visible/invisible) a camera's stream. `url` carries the credentials for
    /// FFmpeg; it is never logged or reported.
    public func start(_ cameraID: UUID, url: String, visible: Bool = true) {
        var paused: Stream?
        let stream: Stream? = streams.withLock { table in
            if let existing = table[cameraID] {
                existing.visible.store(visible, ordering: .relaxed)
                return nil
            }
            let running = table.values.filter { !$0.stopped.load(ordering: .relaxed) }
            if running.count >= options.maximumStreams {
                // Make room for a visible camera by pausing an invisible one; otherwise wait idle.
                guard visible, let victim = running.first(where: { !$0.visible.load(ordering: .relaxed) }) else {
                    onState(cameraID, .failed(reason: "at most \(options.maximumStreams) streams at once"))
                    return nil
                }
                table[victim.id] = nil
                paused = victim
            }
            let stream = Stream(id: cameraID, url: url, visible: visible, manager: self)
            table[cameraID] = stream
            return stream
        }
        if let paused {
            paused.stop()
            onState(paused.id, .idle)
        }
        stream?.run()
    }

    /// Stops a camera's stream; subscribers stay registered for the next start.
    public func stop(_ cameraID: UUID) {
        let stream = streams.withLock { $0.removeValue(forKey: cameraID) }
        stream?.stop()
        if stream != nil { onState(cameraID, .idle) }
    }

    public func stopAll() {
        let all = streams.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for stream in all { stream.stop() }
    }

    public func state(_ cameraID: UUID) -> StreamState {
        streams.withLock { $0[cameraID] }?.state.withLock { $0 } ?? .idle
    }

    public func statistics(_ cameraID: UUID) -> StreamStatistics? {
        streams.withLock { $0[cameraID] }?.currentStatistics()
    }

    /// The streams of the camera's source once connected (for writers and decoders).
    public func streamInfo(_ cameraID: UUID) -> [StreamInfo]? {
        streams.withLock { $0[cameraID] }?.info.withLock { $0 }
    }

    /// Calls `subscriber` on the stream's reading thread for every sample; keep it short.
    @discardableResult
    public func subscribe(_ cameraID: UUID, _ subscriber: @escaping Subscriber) -> Int {
        subscribers.withLock { table in
            table.next += 1
            table.entries[cameraID, default: [:]][table.next] = subscriber
            return table.next
        }
    }

    public func unsubscribe(_ cameraID: UUID, token: Int) {
        subscribers.withLock { _ = $0.entries[cameraID]?.removeValue(forKey: token) }
    }

    private let subscribers = Mutex<(next: Int, entries: [UUID: [Int: Subscriber]])>((0, [:]))

    fileprivate func deliver(_ sample: MediaSample, from cameraID: UUID) {
        // In subscription order, so a recorder subscribed first always sees a sample first.
        let targets = subscribers.withLock { ($0.entries[cameraID] ?? [:]).sorted { $0.key < $1.key }.map(\.value) }
        for target in targets { target(cameraID, sample) }
    }

    fileprivate func report(_ state: StreamState, for cameraID: UUID) { onState(cameraID, state) }
    fileprivate func report(_ event: HealthEvent) { onHealth(event) }

    /// One camera's reading thread.
    final class Stream: Sendable {
        let id: UUID
        let url: String
        let visible: Atomic<Bool>
        let stopped = Atomic<Bool>(false)
        let state = Mutex<StreamState>(.idle)
        let info = Mutex<[StreamInfo]?>(nil)
        private let reader = Mutex<MediaReader?>(nil)
        /// Totals, and the samples of the last 3 s (for rates; its last entry is the newest sample).
        private let counters = Mutex<
            (StreamStatistics, window: [(time: ContinuousClock.Instant, bytes: Int, video: Bool)])
        >(
            (StreamStatistics(), []))
        private weak let manager: StreamManager?
        private let options: Options

        init(id: UUID, url: String, visible: Bool, manager: StreamManager) {
            self.id = id
            self.url = url
            self.visible = Atomic(visible)
            self.manager = manager
            self.options = manager.options
        }

        func run() {
            let thread = DispatchQueue(label: "watchbox.stream.\(id)")
            thread.async { [self] in loop() }
        }

        func stop() {
            stopped.store(true, ordering: .relaxed)
            reader.withLock { $0 }?.close()
        }

        private func set(_ newState: StreamState) {
            let changed = state.withLock { current in
                defer { current = newState }
                return current != newState
            }
            if changed { manager?.report(newState, for: id) }
        }

        private func loop() {
            var attempt = 0
            while !stopped.load(ordering: .relaxed) {
                set(attempt == 0 ? .connecting : state.withLock { $0 })
                var delay: Double
                var reason: String?
                var playingSince: ContinuousClock.Instant?
                do throws(MediaError) {
                    try play {
                        attempt = 0
                        playingSince = .now
                    }
                    if stopped.load(ordering: .relaxed) { break }
                    // The stream ended (server stopped): reconnect.
                    attempt += 1
                    delay = backoff(attempt)
                } catch {
                    if stopped.load(ordering: .relaxed) { break }
                    if error.kind == .timedOut, case .playing = state.withLock({ $0 }) {
                        manager?.report(
                            HealthEvent(
                                cameraID: id, kind: .noData,
                                reason: "no data for \(String(format1: options.noDataTimeout)) s"))
                    }
                    attempt += 1
                    reason = Self.words(error)
                    if error.kind == .authenticationFailed {
                        delay = options.authenticationRetry
                        set(.loginRefused(retryIn: delay))
                    } else {
                        delay = backoff(attempt)
                    }
                }
                // A stream that played a while and then dropped (cameras that close sessions on a
                // timer, or whose idle limit is shorter than the session timeout they announce, as
                // ipycam's 30 s socket timeout against its `timeout=60`) comes back at once: every
                // second of back-off is a second missing from a recording.
                // (A stream that drops within 5 s waits as usual, so a camera that accepts and
                // then hangs up is not hammered.)
                if attempt == 1, let playingSince, ContinuousClock.now - playingSince > .seconds(5),
                    delay < options.authenticationRetry
                {
                    delay = 0
                }
                counters.withLock { $0.0.reconnects += 1 }
                if !state.withLock({ $0 }).hasFailed {
                    set(.reconnecting(attempt: attempt, delay: delay, reason: reason))
                }
                sleep(seconds: delay)
                if !stopped.load(ordering: .relaxed) { set(.connecting) }
            }
            set(.idle)
        }

        /// Why a connection failed, for a person: no URLs (they may hold credentials), no FFmpeg jargon.
        static func words(_ error: MediaError) -> String {
            switch error.kind {
            case .timedOut: return "the camera did not answer in time"
            case .authenticationFailed: return "login refused"
            default:
                let message = URLRedaction.redactingURLs(in: error.message).lowercased()
                if message.contains("refused") { return "connection refused (is the port right?)" }
                if message.contains("454") || message.contains("session not found") {
                    return "the camera ended the session (454); reconnecting"
                }
                if message.contains("not found") || message.contains("404") { return "no stream at this path (404)" }
                if error.kind == .unsupported || error.kind == .codec {
                    return "the camera sends video in a format this server cannot read"
                }
                if message.contains("unreachable") || message.contains("no route") {
                    return "the address is unreachable"
                }
                return String(URLRedaction.redactingURLs(in: error.message).prefix(120))
            }
        }

        private func backoff(_ attempt: Int) -> Double {
            options.backoff.isEmpty ? 1 : options.backoff[min(attempt - 1, options.backoff.count - 1)]
        }

        /// Sleeps in short steps so stop() is quick.
        private func sleep(seconds: Double) {
            var left = seconds
            while left > 0, !stopped.load(ordering: .relaxed) {
                let step = min(0.05, left)
                usleep(UInt32(step * 1_000_000))
                left -= step
            }
        }

        /// Connects and reads until the stream ends or fails; `connected` runs once playing.
        private func play(connected: () -> Void) throws(MediaError) {
            let readerOptions = ReaderOptions.camera(
                transport: options.transport, timeout: .milliseconds(Int(options.noDataTimeout * 1000)))
            let opened = try MediaReader(MediaSource(parsing: url), options: readerOptions)
            reader.withLock { $0 = opened }
            defer {
                reader.withLock { $0 = nil }
                opened.close()
            }
            if stopped.load(ordering: .relaxed) { return }
            info.withLock { $0 = opened.streams }
            let monitor = HealthMonitor(cameraID: id, reader: opened, options: options) { [weak manager] event in
                manager?.report(event)
            }
            var first = true
            while !stopped.load(ordering: .relaxed), let sample = try opened.nextSample() {
                if first {
                    first = false
                    set(.playing)
                    connected()
                }
                count(sample)
                manager?.deliver(sample, from: id)
                monitor.observe(sample)
            }
        }

        private func count(_ sample: MediaSample) {
            let now = ContinuousClock.now
            counters.withLock { entry in
                entry.0.samples += 1
                entry.0.bytes += sample.data.count
                entry.window.append((now, sample.data.count, sample.mediaType == .video))
                let expired = entry.window.prefix { (now - $0.time).seconds > 3 }.count
                entry.window.removeFirst(expired)
            }
        }

        func currentStatistics() -> StreamStatistics {
            let now = ContinuousClock.now
            return counters.withLock { entry in
                var statistics = entry.0
                if let first = entry.window.first, (now - first.time).seconds > 0.2 {
                    let span = (now - first.time).seconds
                    statistics.framesPerSecond = Double(entry.window.filter(\.video).count) / span
                    statistics.bitRate = Double(entry.window.reduce(0) { $0 + $1.bytes }) * 8 / span
                }
                statistics.lastSampleAge = entry.window.last.map { (now - $0.time).seconds }
                return statistics
            }
        }
    }
}
