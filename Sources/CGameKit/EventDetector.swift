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
/// a recent line (one to one): the line seen in the same place a moment ago and not gone since
/// (however badly it was read this time), else the most similar line (tolerating misread letters). Only unpaired lines are new events, so two kills with near-identical
/// lines shown at once are two events, and a new line taking the place of one that just went away
/// is a new event.
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
        /// Seconds for which a line in the same place is taken to be the line seen there before,
        /// whatever it reads (a frame misread over busy scenery does not make a new event).
        public var continuity: Double

        public init(
            sampleRate: Double = 10, workers: Int = 2, queueCapacity: Int = 8, dropWhenBusy: Bool = true,
            keepEventFrames: Bool = true, sameLineSimilarity: Double = 0.8, continuity: Double = 1.0
        ) {
            self.continuity = continuity
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
        /// Where any text was read, matching or not.
        var textBoxes: [NormalizedRect]
        var frame: VideoFrame?
        var failed: Bool
        var seconds: Double
    }

    private struct RecentLine {
        var type: String
        var folded: String
        var lastSeen: MediaTime
        var box: NormalizedRect
        /// Analysed frames in a row since `lastSeen` that showed no text at all in its place; after
        /// two the line has gone (one can be a dropout over busy scenery).
        var absentFrames = 0
        var vanished: Bool { absentFrames >= 2 }
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
            var result = Result(time: time, matches: [], textBoxes: [], frame: nil, failed: false, seconds: 0)
            do throws(MediaError) {
                // Regions with nothing text-like skip recognition altogether.
                if let image = try TextPreprocessor.prepare(
                    frame, region: profile.recognitionRegion, options: profile.recognitionOptions)
                {
                    let observations = try worker.recognizer.recognize(image, options: profile.recognitionOptions)
                    result.matches = profile.events(in: observations)
                    // Scenery read as text comes with very low confidence; it does not keep a line alive.
                    result.textBoxes = observations.filter { $0.confidence >= 0.3 }.map(\.box)
                }
                if keepFrames && !result.matches.isEmpty { result.frame = frame }
            } catch {
                result.failed = true
            }
            let elapsed = ContinuousClock.now - started
            result.seconds = elapsed.seconds
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

    /// Whether two line boxes are on the same row (vertical centres within half a line height).
    static func samePlace(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        let centreA = a.y + a.height / 2
        let centreB = b.y + b.height / 2
        return abs(centreA - centreB) < max(a.height, b.height) / 2
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
        state.recent.removeAll { line in (now - line.lastSeen).seconds > profile.debounce(for: line.type) }
        var taken = Set<Int>()
        for match in result.matches {
            // Compare words only: stray marks read from outlines and scenery are not part of a line.
            let folded = TextFolding.words(TextFolding.fold(match.text)).joined(separator: " ")
            var best: (index: Int, similarity: Double)?
            for (index, line) in state.recent.enumerated() where line.type == match.type && !taken.contains(index) {
                let similarity = TextFolding.similarity(folded, line.folded)
                // Scenery read as words adds them at a line's end: compare the common length too.
                let common = min(folded.count, line.folded.count)
                let prefixSimilarity = TextFolding.similarity(
                    String(folded.prefix(common)), String(line.folded.prefix(common)))
                // In the same place and not gone: the same line if its beginning reads roughly the
                // same (misread letters, scenery at its end). Otherwise — feeds scroll, and a line
                // can come back — only a line that reads nearly the same, since a new kill by the
                // same player differs only in a name.
                let score: Double
                if Self.samePlace(line.box, match.box) && !line.vanished
                    && (now - line.lastSeen).seconds <= options.continuity && prefixSimilarity >= 0.6
                {
                    score = 2 + similarity
                } else if similarity >= options.sameLineSimilarity {
                    score = similarity
                } else {
                    continue
                }
                if score > (best?.similarity ?? -1) { best = (index, score) }
            }
            if let best {
                taken.insert(best.index)
                state.recent[best.index].lastSeen = now
                state.recent[best.index].box = match.box
                state.recent[best.index].absentFrames = 0
            } else {
                state.recent.append(RecentLine(type: match.type, folded: folded, lastSeen: now, box: match.box))
                taken.insert(state.recent.count - 1)
                state.ready.append(
                    DetectedEvent(
                        type: match.type, text: match.text, confidence: match.confidence, time: now,
                        frame: result.frame))
            }
        }
        // Lines with no text at all in their place this frame have gone (a misread leaves some text).
        for index in state.recent.indices where !taken.contains(index) {
            if result.textBoxes.contains(where: { Self.samePlace($0, state.recent[index].box) }) {
                state.recent[index].absentFrames = 0
            } else {
                state.recent[index].absentFrames += 1
            }
        }
    }
}
