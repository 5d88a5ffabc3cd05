import CameraCommon
import Dispatch
import Synchronization

/// An event found on screen, at the media time of the first frame that showed it.
public struct DetectedEvent: Sendable, Codable {
    public var type: String
    /// The line of text that announced it.
    public var text: String
    public var confidence: Double
    public var time: MediaTime
    /// The analysed frame that first showed the event (for the clip's thumbnail); not encoded.
    public var frame: VideoFrame?

    private enum CodingKeys: String, CodingKey { case type, text, confidence, time }

    public init(type: String, text: String, confidence: Double, time: MediaTime, frame: VideoFrame? = nil) {
        self.type = type
        self.text = text
        self.confidence = confidence
        self.time = time
        self.frame = frame
    }
}

/// Reads the profile's region of sampled frames and reports events (the spec's EventDetector).
///
/// Recognition runs on worker threads, one ``TextRecognizer`` each, behind a bounded queue, so the
/// thread that reads the source never waits for OCR: when the queue is full, ``submit(_:at:)``
/// drops the frame and counts it (live sources), or waits for room when ``Options/dropWhenBusy`` is
/// off (files, where every sampled frame should be read). Results are put back in frame order
/// before events are decided, so event order and debouncing do not depend on thread timing.
///
/// A kill feed shows each line for several seconds, so one line is seen in many frames. The
/// detector keeps the lines it has seen recently; a matching line in a later frame is paired with
/// the most similar recent line (one to one, tolerating misread letters) and only unpaired lines
/// are new events. Two kills with near-identical lines shown at once are therefore two events.
public final class EventDetector: Sendable {
    public struct Options: Sendable {
        /// Frames analysed per second of media.
        public var sampleRate: Double
        /// Recognition threads (each with its own engine).
        public var workers: Int
        /// Frames waiting or being read before new ones are dropped (or wait).
        public var queueCapacity: Int
        /// Drop frames when the queue is full (live) instead of waiting (files).
        public var dropWhenBusy: Bool
        /// Keep the frame that first showed each event (for thumbnails).
        public var keepEventFrames: Bool
        /// Two lines at least this similar (0...1) are the same line read twice.
        public var sameLineSimilarity: Double

        public init(
            sampleRate: Double = 10, workers: Int = 2, queueCapacity: Int = 8, dropWhenBusy: Bool = true,
            keepEventFrames: Bool = true, sameLineSimilarity: Double = 0.8
        ) {
            self.sampleRate = sampleRate
            self.workers = workers
            self.queueCapacity = queueCapacity
            self.dropWhenBusy = dropWhenBusy
            self.keepEventFrames = keepEventFrames
            self.sameLineSimilarity = sameLineSimilarity
        }
    }

    /// Counts for progress and summaries.
    public struct Statistics: Sendable, Codable, Equatable {
        public var submitted = 0
        public var analyzed = 0
        public var dropped = 0
        public var failed = 0
        /// Total seconds spent recognising (all workers).
        public var recognitionSeconds = 0.0
    }

    public let profile: any DetectionProfile
    public let options: Options
    private let workers: [Worker]
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let state: Mutex<State>

    private struct Result {
        var time: MediaTime
        var matches: [EventMatch]
        var frame: VideoFrame?
        var failed: Bool
        var seconds: Double
    }

    private struct RecentLine {
        var type: String
        var folded: String
        var lastSeen: MediaTime
    }

    private struct State {
        var nextSequence = 0
        var nextToDecide = 0
        var pending: [Int: Result] = [:]
        var recent: [RecentLine] = []
        var ready: [DetectedEvent] = []
        var analyzedThrough: MediaTime?
        var statistics = Statistics()
    }

    /// A worker owns one recogniser and runs on its own serial queue.
    private final class Worker: @unchecked Sendable {
        let queue: DispatchQueue
        let recognizer: any TextRecognizer
        init(index: Int, recognizer: any TextRecognizer) {
            queue = DispatchQueue(label: "cgame.ocr.\(index)")
            self.recognizer = recognizer
        }
    }

    /// - Parameter makeRecognizer: called once per worker.
    /// - Throws: what `makeRecognizer` throws (e.g. a missing language model).
    public init(
        profile: any DetectionProfile, options: Options = Options(),
        makeRecognizer: () throws(MediaError) -> any TextRecognizer = { () throws(MediaError) in
            try TesseractRecognizer()
        }
    ) throws(MediaError) {
        self.profile = profile
        self.options = options
        var workers: [Worker] = []
        for index in 0..<max(1, options.workers) {
            workers.append(Worker(index: index, recognizer: try makeRecognizer()))
        }
        self.workers = workers
        self.slots = DispatchSemaphore(value: max(1, options.queueCapacity))
        self.state = Mutex(State())
    }

    /// Queues a frame for recognition. Returns false when it was dropped because the queue was full.
    @discardableResult
    public func submit(_ frame: VideoFrame, at time: MediaTime) -> Bool {
        if options.dropWhenBusy {
            if slots.wait(timeout: .now()) == .timedOut {
                state.withLock { $0.statistics.dropped += 1 }
                return false
            }
        } else {
            slots.wait()
        }
        let sequence = state.withLock { state in
            state.statistics.submitted += 1
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        let worker = workers[sequence % workers.count]
        let profile = profile
        let keepFrames = options.keepEventFrames
        worker.queue.async(group: group) { [self] in
            let started = ContinuousClock.now
            var result = Result(time: time, matches: [], frame: nil, failed: false, seconds: 0)
            do throws(MediaError) {
                let image = try TextPreprocessor.prepare(
                    frame, region: profile.recognitionRegion, options: profile.recognitionOptions)
                let observations = try worker.recognizer.recognize(image, options: profile.recognitionOptions)
                result.matches = profile.events(in: observations)
                if keepFrames && !result.matches.isEmpty { result.frame = frame }
            } catch {
                result.failed = true
            }
            let elapsed = ContinuousClock.now - started
            result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            deliver(result, sequence: sequence)
            slots.signal()
        }
        return true
    }

    /// Events decided since the last call (in time order), and the media time up to which every
    /// submitted frame has been analysed.
    public func takeEvents() -> (events: [DetectedEvent], analyzedThrough: MediaTime?) {
        state.withLock { state in
            defer { state.ready.removeAll() }
            return (state.ready, state.analyzedThrough)
        }
    }

    /// Waits until every submitted frame has been analysed.
    public func finish() {
        group.wait()
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The frame-sampling step for a stream: analyse every n-th frame to get about `sampleRate` Hz.
    public func frameStep(framesPerSecond: Double?) -> Int {
        guard let fps = framesPerSecond, fps > 0, options.sampleRate > 0 else { return 3 }
        return max(1, Int((fps / options.sampleRate).rounded()))
    }

    private func deliver(_ result: Result, sequence: Int) {
        state.withLock { state in
            state.pending[sequence] = result
            while let next = state.pending.removeValue(forKey: state.nextToDecide) {
                decide(next, &state)
                state.nextToDecide += 1
            }
        }
    }

    /// Pairs this frame's matching lines with recent ones; unpaired lines are new events.
    private func decide(_ result: Result, _ state: inout State) {
        state.statistics.analyzed += 1
        state.statistics.recognitionSeconds += result.seconds
        if result.failed { state.statistics.failed += 1 }
        state.analyzedThrough = max(state.analyzedThrough ?? result.time, result.time)
        let now = result.time
        let profile = profile
        state.recent.removeAll { line in
            let window = (profile as? GameProfile)?.debounce(for: line.type) ?? profile.debounce
            return (now - line.lastSeen).seconds > window
        }
        var taken = Set<Int>()
        for match in result.matches {
            let folded = TextFolding.fold(match.text)
            var best: (index: Int, similarity: Double)?
            for (index, line) in state.recent.enumerated() where line.type == match.type && !taken.contains(index) {
                let similarity = TextFolding.similarity(folded, line.folded)
                if similarity >= options.sameLineSimilarity, similarity > (best?.similarity ?? -1) {
                    best = (index, similarity)
                }
            }
            if let best {
                taken.insert(best.index)
                state.recent[best.index].lastSeen = now
            } else {
                state.recent.append(RecentLine(type: match.type, folded: folded, lastSeen: now))
                taken.insert(state.recent.count - 1)
                state.ready.append(
                    DetectedEvent(
                        type: match.type, text: match.text, confidence: match.confidence, time: now,
                        frame: result.frame))
            }
        }
    }
}
