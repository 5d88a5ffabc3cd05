import CameraCommon
import Dispatch
import Synchronization

/// An event found on screen, at the media time of the first frame that showed it.
public struct DetectedEvent: Sendable, Codable {
    public var type: String
    /// The line of text that announced it, as people are shown it (``EventMatch/shown``).
    public var text: String
    public var confidence: Double
    public var time: MediaTime
    /// The analysed frame that first showed the event (for the clip's thumbnail); not encoded.
    public var frame: VideoFrame?
    /// A better reading of an event reported before, the one with this type and time: its text
    /// replaces that one's (``EventDetector/takeCorrections()``); not encoded.
    public var corrects = false

    private enum CodingKeys: String, CodingKey { case type, text, confidence, time }

    public init(type: String, text: String, confidence: Double, time: MediaTime, frame: VideoFrame? = nil) {
        self.type = type
        self.text = text
        self.confidence = confidence
        self.time = time
        self.frame = frame
    }
}

extension [DetectedEvent] {
    /// Gives the event `correction` corrects (``DetectedEvent/corrects``: the one with its type
    /// and time) its text and confidence.
    public mutating func apply(_ correction: DetectedEvent) {
        for index in indices where self[index].type == correction.type && self[index].time == correction.time {
            self[index].text = correction.text
            self[index].confidence = correction.confidence
        }
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
/// detector keeps the lines it has seen recently and pairs each matching line of a later frame with
/// one of them (one to one). A line becomes an event when two readings in a row agree on it (one
/// garbled reading over busy scenery is not an event), timed at its first reading. Identity follows
/// what a player sees:
/// - a line in the place where a line was a moment ago is that line when it reads the same but for
///   misread letters or scenery read as extra words (``TextFolding/sameLine(_:_:restSimilarity:)``),
///   there even with a name two letters apart (``TextFolding/misreadInPlace``), also when a frame
///   or two in between read nothing at all there (``dropoutSeconds``); a moment ago counts from the
///   last reading of its words there, its keyword read or not;
/// - a different name in that place (a centre print such as OpenArena's "You fragged NAME" replaced
///   by the next frag's) is a new event;
/// - elsewhere (a feed that scrolls) or after it went away (a fade out and in), a line is a recent
///   line only when it reads the same, so two kills whose lines differ only in a name are two events;
///   a line that moved reads the same also as a doubtful reading in its old place that did not
///   replace it (its name misread surely enough to be confirmed, read right there only doubtfully).
/// The profile's `debounce` is how long a line that went away is remembered: the same text again
/// within it is the same event, unless the game shows each line for a fixed time
/// (``DetectionProfile/shownFor``) and the text first read longer ago than that (and a second): then
/// it is the next line saying the same (the same victim fragged again).
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
        /// Seconds for which a line read in the place of a line seen there before is compared with
        /// that line (and so may replace it) rather than with every recent line.
        public var continuity: Double
        /// Least confidence (0...1) of the two readings that replace a line a player has already
        /// seen in its place: a garbled reading of the old line is seldom confident.
        public var replacementConfidence: Double
        /// A frame whose region shows the previous frame's picture takes its reading instead of
        /// being read again (off for recognisers whose answer does not depend on the picture).
        public var reuseRepeatedPictures: Bool
        /// Told every line read in each analysed frame and what became of it (a new line, a line
        /// read again, a replacement, a doubtful reading set aside…), in frame order: why an event
        /// was found, or lost. Nil (the default): nothing is traced.
        public var trace: (@Sendable (TraceLine) -> Void)?

        public init(
            sampleRate: Double = 10, workers: Int = 2, queueCapacity: Int = 8, dropWhenBusy: Bool = true,
            keepEventFrames: Bool = true, continuity: Double = 1.0, replacementConfidence: Double = 0.75,
            reuseRepeatedPictures: Bool = true
        ) {
            self.reuseRepeatedPictures = reuseRepeatedPictures
            self.replacementConfidence = replacementConfidence
            self.continuity = continuity
            self.sampleRate = sampleRate
            self.workers = workers
            self.queueCapacity = queueCapacity
            self.dropWhenBusy = dropWhenBusy
            self.keepEventFrames = keepEventFrames
        }
    }

    /// A line read in an analysed frame and what the detector made of it (``Options/trace``).
    public struct TraceLine: Sendable, Codable, Equatable, CustomStringConvertible {
        public var time: Double
        /// The event type whose words it has; nil for text with no event's words.
        public var type: String?
        /// The line as read.
        public var text: String
        /// The recogniser's confidence, 0...1 (nil for text with no event's words).
        public var confidence: Double?
        /// What became of it, in words.
        public var decision: String
        /// When this reading reported an event, or corrected one: the event's time (its line's
        /// first reading, a frame or more before this one).
        public var event: Double?

        public var description: String {
            let seconds = String(time, decimals: 2)
            let head = String(repeating: " ", count: max(0, 8 - seconds.count)) + seconds + " s  " + (type ?? "-")
            let sure = confidence.map { " " + String($0, decimals: 2) } ?? ""
            let reported = event.map { "[the event at \(String($0, decimals: 2)) s] " } ?? ""
            return "\(head)\(sure)  “\(text)”  → \(reported)\(decision)"
        }
    }

    /// Counts for progress and summaries.
    public struct Statistics: Sendable, Codable, Equatable {
        public var submitted = 0
        public var analyzed = 0
        public var dropped = 0
        /// Sampled frames not read again because the region showed what the previous one did (a
        /// game drawing fewer frames than are sampled): they take the previous frame's reading.
        public var unchanged = 0
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
    /// The region's brightness in the last submitted frame, to skip a repeated picture.
    private let previousSignature = Mutex<[UInt8]>([])

    private struct Result {
        var time: MediaTime
        var matches: [EventMatch]
        /// Any text read, matching or not.
        var texts: [ReadText]
        var frame: VideoFrame?
        var failed: Bool
        var seconds: Double
        /// The picture was the previous frame's: its reading is that frame's.
        var repeated = false
    }

    /// A line of text read in a frame: where, and its folded words.
    private struct ReadText {
        var box: NormalizedRect
        var words: [String]
    }

    private struct RecentLine {
        var type: String
        /// What the line says, once two readings in a row agreed (nil before).
        var words: [String]?
        var lastSeen: MediaTime
        /// The last analysed frame with text in the line's place that reads as the line, its
        /// keyword read or not (a line blurred by compression reads without it for a while).
        var lastShown: MediaTime
        var box: NormalizedRect
        /// Analysed frames in a row since `lastSeen` that showed no text at all in its place; after
        /// two the line has gone (one can be a dropout over busy scenery).
        var absentFrames = 0
        /// A reading not agreed on yet — the line's first, or something else in its place — with
        /// the event it would be, timed at the first such reading.
        var candidate: (words: [String], event: DetectedEvent)?
        /// The readings paired with the line since it was confirmed (OCR reads one line several ways
        /// over moving scenery); a reading like any of them is the line.
        var variants: [[String]] = []
        /// What the line said before a reading replaced it, until `earlierUntil`: reading one of
        /// these again soon after is the line coming back into view after a misreading, not a new
        /// event (later, it is the same victim fragged again).
        var earlier: [[String]] = []
        var earlierUntil = MediaTime.zero
        /// Doubtful readings in the line's place unlike it (the latest 8): the line misread, or
        /// something else there. A line that moved is compared with them too.
        var doubted: [[String]] = []
        /// The event reported for the line, with the text it was reported with (or last corrected to).
        var reported: DetectedEvent?
        /// How many confident readings, each in a picture of its own, showed each text (as words)
        /// since the line was confirmed, the confirming two among them.
        var tally: [[String]: Int] = [:]

        /// Counts a sure reading showing `text` in ``tally``; its words.
        @discardableResult
        mutating func tallied(_ text: String) -> [String] {
            let words = TextFolding.words(TextFolding.fold(text))
            tally[words, default: 0] += 1
            return words
        }

        /// The readings a new reading is compared with.
        var readings: [[String]] {
            if words == nil { return candidate.map { [$0.words] } ?? [] }
            return variants
        }

        /// The line is now `reading`, agreed with its candidate's reading (nil: a reading without
        /// the name, which is not kept to compare with).
        mutating func settle(on reading: [String], agreeing candidate: [String]?) {
            words = reading
            variants = candidate.map { [$0] } ?? []
            remember(reading)
            self.candidate = nil
        }

        mutating func remember(_ reading: [String]) {
            guard !variants.contains(reading) else { return }
            variants.append(reading)
            if variants.count > 8 { variants.remove(at: 4) }  // the first readings and the latest
        }
        mutating func doubt(_ reading: [String]) {
            guard !doubted.contains(reading) else { return }
            doubted.append(reading)
            if doubted.count > 8 { doubted.removeFirst() }
        }
        var vanished: Bool { absentFrames >= 2 }
    }

    private struct State {
        var nextSequence = 0
        var nextToDecide = 0
        var pending: [Int: Result] = [:]
        var recent: [RecentLine] = []
        var ready: [DetectedEvent] = []
        var corrections: [DetectedEvent] = []
        /// The last decided frame's reading, for a repeated picture.
        var lastReading: (matches: [EventMatch], texts: [ReadText], frame: VideoFrame?) = ([], [], nil)
        var analyzedThrough: MediaTime?
        var statistics = Statistics()
        var clock: GameClock
    }

    /// The game's own clock as the region's pictures show it (``DetectionProfile/longestFrame``):
    /// it moves on with the video, except that a new picture after the region showed the same one
    /// for a while (the game drew nothing meanwhile) moves it on by `longestFrame` at most.
    struct GameClock {
        let longestFrame: Double?
        /// Game seconds at the latest analysed frame.
        private(set) var seconds = 0.0
        private var lastPicture: MediaTime?
        /// Whether an analysed frame since `lastPicture` showed its picture again.
        private var stuck = false
        /// (media time, game seconds) of the analysed frames of the last couple of minutes, in order.
        private var marks: [(time: MediaTime, seconds: Double)] = []

        init(longestFrame: Double?) { self.longestFrame = longestFrame }

        /// The analysed frame at `time`; `repeated`: it showed the previous one's picture.
        mutating func advance(to time: MediaTime, repeated: Bool) {
            guard let longestFrame else { return }
            if repeated {
                stuck = true
            } else {
                if let lastPicture {
                    let step = max(0, (time - lastPicture).seconds)
                    seconds += stuck ? min(step, longestFrame) : step
                }
                lastPicture = time
                stuck = false
            }
            marks.append((time, seconds))
            if marks.count > 1500 { marks.removeFirst(500) }
        }

        /// Seconds from `since` to `now` (the latest analysed frame): by the game's clock when it
        /// is kept and `since` is among the frames it remembers, else by the video's.
        func elapsed(since: MediaTime, now: MediaTime) -> Double {
            guard longestFrame != nil, let first = marks.first, since >= first.time else {
                return (now - since).seconds
            }
            // The last mark at or before `since`.
            var (low, high) = (0, marks.count - 1)
            while low < high {
                let middle = (low + high + 1) / 2
                if marks[middle].time <= since { low = middle } else { high = middle - 1 }
            }
            return seconds - marks[low].seconds
        }
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
        self.state = Mutex(State(clock: GameClock(longestFrame: profile.longestFrame)))
    }

    /// Queues a frame for recognition. Returns false when it was dropped because the queue was full.
    @discardableResult
    public func submit(_ frame: VideoFrame, at time: MediaTime) -> Bool {
        if options.reuseRepeatedPictures, isRepeated(frame) {
            // Read exactly as the previous frame was (in frame order), without a worker.
            let sequence = state.withLock { state in
                state.statistics.submitted += 1
                state.statistics.unchanged += 1
                defer { state.nextSequence += 1 }
                return state.nextSequence
            }
            deliver(
                Result(time: time, matches: [], texts: [], frame: nil, failed: false, seconds: 0, repeated: true),
                sequence: sequence)
            return true
        }
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
            var result = Result(time: time, matches: [], texts: [], frame: nil, failed: false, seconds: 0)
            do throws(MediaError) {
                // Regions with nothing text-like skip recognition altogether.
                if let image = try TextPreprocessor.prepare(
                    frame, region: profile.recognitionRegion, options: profile.recognitionOptions)
                {
                    let observations = try worker.recognizer.recognize(image, options: profile.recognitionOptions)
                    result.matches = profile.events(in: observations)
                    // Scenery read as text comes with very low confidence; it does not keep a line alive.
                    result.texts = observations.filter { $0.confidence >= 0.3 }.map {
                        ReadText(box: $0.box, words: TextFolding.words(TextFolding.fold($0.text)))
                    }
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
            // A line read once in a new way may still become an event at that frame's time.
            let undecided = state.recent.compactMap { $0.candidate?.event.time }.min()
            let through = undecided.map { min(state.analyzedThrough ?? $0, $0 - MediaTime(seconds: 0.001)) }
            return (state.ready, through ?? state.analyzedThrough)
        }
    }

    /// Events reported before whose line has since read other words surely, more often than the
    /// reported text (a name misread in the first two pictures of a line still being sharpened by
    /// a video encoder, "Ninis eliminated Raven", then "Ninja eliminated Raven"): each with the
    /// type and time of the event it corrects and the better text (``DetectedEvent/corrects``).
    /// Every event a correction names was decided before it: take corrections before
    /// ``takeEvents()`` and apply them after, and each finds its event.
    public func takeCorrections() -> [DetectedEvent] {
        state.withLock { state in
            defer { state.corrections.removeAll() }
            return state.corrections
        }
    }

    /// Waits until every submitted frame has been analysed.
    public func finish() {
        group.wait()
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Whether the region shows the picture it showed in the previous submitted frame.
    private func isRepeated(_ frame: VideoFrame) -> Bool {
        let signature = Self.signature(of: frame, region: profile.recognitionRegion)
        return previousSignature.withLock { previous in
            defer { previous = signature }
            return Self.sameImage(previous, signature)
        }
    }

    /// The brightness of the region's pixels (every second pixel of every second row).
    static func signature(of frame: VideoFrame, region: NormalizedRect) -> [UInt8] {
        guard let plane = frame.planes.first, frame.format == .yuv420p || frame.format == .gray8 else { return [] }
        let (x, y, width, height) = TextPreprocessor.pixels(of: region, in: frame)
        guard x >= 0, y >= 0, width > 0, height > 0 else { return [] }
        var values: [UInt8] = []
        values.reserveCapacity((width / 2 + 1) * (height / 2 + 1))
        plane.bytes.withUnsafeBufferPointer { bytes in
            for row in stride(from: y, to: y + height, by: 2) {
                let start = row * plane.bytesPerRow
                for column in stride(from: x, to: x + width, by: 2) { values.append(bytes[start + column]) }
            }
        }
        return values
    }

    /// Whether two signatures show the same picture: compression noise aside (a repeated frame
    /// encoded again differs by a level or two), no pixel changed.
    static func sameImage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard !a.isEmpty, a.count == b.count else { return false }
        var changed = 0
        for index in a.indices where abs(Int(a[index]) - Int(b[index])) > 12 {
            changed += 1
            if changed * 1000 > a.count { return false }
        }
        return true
    }

    /// Whether two line boxes are on the same row (vertical centres within half a line height).
    static func samePlace(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        let centreA = a.y + a.height / 2
        let centreB = b.y + b.height / 2
        return abs(centreA - centreB) < max(a.height, b.height) / 2
    }

    /// How long after a line was replaced its old text read again is taken for the old line seen
    /// through a misreading. A victim fragged again after another frag is shown later than this:
    /// a player respawns 1.7 s after dying in Quake III-engine games.
    static let misreadingSeconds = 1.5
    /// How long a new line read without its name waits for a reading with it before it is an event
    /// anyway.
    static let nameWaitSeconds = 0.5
    /// How long a line can read as nothing at all in its place and still be there: a real-time
    /// video encoder refreshing the picture blanked a kill line for two frames (0.2 s at 600
    /// kbit/s). A line gone longer made way for the next: in a frenzy of frags a centre print can
    /// fade out and the next come within a second, "Sarge" then "Sergei", two letters apart.
    static let dropoutSeconds = 0.5
    /// How much longer than the game shows a line it can stay on screen: a line's last frame stays
    /// up until the next, and OpenArena rendering in software draws 10 or more frames a second at
    /// 720p, ~2 at 1080p (its recordings, BENCHMARKS.md).
    static let lateFrameSeconds = 1.0

    /// Whether a reading holds nothing but its event type's keywords, `announcing` (no name).
    private static func isBare(_ words: [String], _ announcing: Set<String>) -> Bool {
        guard !announcing.isEmpty else { return false }
        return words.filter { $0.count > 1 }.allSatisfy { word in
            announcing.contains(word)
                || (word.count >= 4 && announcing.contains { TextFolding.similarity(word, $0) >= 0.75 })
        }
    }

    /// Whether `match` is where `line` was a moment ago (read as the line, its keyword or not),
    /// and the line had not gone.
    private func isInPlace(_ line: RecentLine, _ match: EventMatch, _ now: MediaTime) -> Bool {
        Self.samePlace(line.box, match.box) && !line.vanished && (now - line.lastShown).seconds <= options.continuity
    }

    /// Whether `line` has been on screen longer than the game shows a line
    /// (``DetectionProfile/shownFor``, on the game's `clock`, and ``lateFrameSeconds`` more) since
    /// its text first read: that text now is the next line saying it (the same victim fragged
    /// again), not this one.
    private func isOver(_ line: RecentLine, _ now: MediaTime, _ clock: GameClock) -> Bool {
        guard let shownFor = profile.shownFor, let since = line.reported?.time ?? line.candidate?.event.time
        else { return false }
        return clock.elapsed(since: since, now: now) > shownFor + Self.lateFrameSeconds
    }

    /// Whether `match` is where `line` was shown ``dropoutSeconds`` ago or less, gone since or not.
    private func isBackInPlace(_ line: RecentLine, _ match: EventMatch, _ now: MediaTime) -> Bool {
        Self.samePlace(line.box, match.box) && (now - line.lastShown).seconds <= Self.dropoutSeconds
    }

    /// The new line a sure reading `words` (the event `event`) in `line`'s place confirms, with
    /// the reading that began it: the waiting candidate when it reads the same (a second picture);
    /// with none waiting, the reading itself when it was read doubtfully there at least twice
    /// before (a print read surely once in a frenzy, before the next replaced it).
    private static func confirmed(by words: [String], as event: DetectedEvent, in line: RecentLine)
        -> (words: [String], event: DetectedEvent)?
    {
        if let candidate = line.candidate { return TextFolding.sameLine(words, candidate.words) ? candidate : nil }
        return line.doubted.filter { TextFolding.sameLine(words, $0) }.count >= 2 ? (words, event) : nil
    }

    /// Reports the event a line's first reading announced, with the text of the reading that
    /// confirmed it when that one reads with more confidence or the first had no name.
    private func confirm(_ first: DetectedEvent, reading: EventMatch, into events: inout [DetectedEvent])
        -> DetectedEvent
    {
        var event = first
        let firstWords = TextFolding.words(TextFolding.fold(first.text))
        if reading.confidence > first.confidence || Self.isBare(firstWords, profile.announcingWords(for: first.type)) {
            event.text = reading.shown
            event.confidence = reading.confidence
        }
        Self.insert(event, into: &events)
        event.frame = nil
        return event
    }

    /// Counts `match`, a reading of the settled line `line` (paired with it, with a name), when
    /// it is confident and in a picture of its own; when the text it shows (as words) has now been
    /// read so at least twice and more often than the text the line's event was reported with, and
    /// as many words (scenery read as an extra word is not a better reading), the event is
    /// corrected to it. The readings that confirmed the event count for it when confident: a name
    /// misread in the first two pictures of a line (a video encoder still sharpening it) is
    /// corrected by the third right reading; a name read wrongly now and then as the line fades,
    /// or once surely after doubtful readings, is not taken.
    private func count(
        _ match: EventMatch, repeated: Bool, of line: inout RecentLine, into corrections: inout [DetectedEvent]
    ) {
        guard let reported = line.reported, !repeated, match.confidence >= options.replacementConfidence else { return }
        let words = line.tallied(match.shown)
        let reportedWords = TextFolding.words(TextFolding.fold(reported.text))
        let times = line.tally[words, default: 0]
        guard words != reportedWords, words.count == reportedWords.count, times >= 2,
            times > line.tally[reportedWords, default: 0]
        else { return }
        var corrected = reported
        corrected.text = match.shown
        corrected.confidence = match.confidence
        line.reported = corrected
        corrected.corrects = true
        corrections.append(corrected)
    }

    /// The line `line` confirmed as `event` by `reading` after `first` (a reading of the same
    /// line in an earlier picture): the event it was reported as, and both readings counted
    /// (``count(_:repeated:of:into:)``).
    private func reported(
        _ event: DetectedEvent, first: DetectedEvent, reading: EventMatch, of line: inout RecentLine
    ) {
        line.reported = event
        line.tally = [:]
        for (text, confidence) in [(first.text, first.confidence), (reading.shown, reading.confidence)]
        where confidence >= options.replacementConfidence {
            line.tallied(text)
        }
    }

    /// A recent line's text for a trace: as its event was reported, else its words as read.
    private static func name(of line: RecentLine) -> String {
        line.reported?.text ?? (line.words ?? line.candidate?.words ?? []).joined(separator: " ")
    }

    private static func decimal(_ value: Double) -> String { String(value, decimals: 2) }

    /// Keeps `events` in time order (a line confirmed by its second reading began a frame earlier).
    private static func insert(_ event: DetectedEvent, into events: inout [DetectedEvent]) {
        let index = events.lastIndex { $0.time <= event.time }.map { $0 + 1 } ?? 0
        events.insert(event, at: index)
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
        var result = result
        if result.repeated {
            (result.matches, result.texts, result.frame) = state.lastReading
        } else {
            state.lastReading = (result.matches, result.texts, result.frame)
        }
        state.statistics.analyzed += 1
        state.statistics.recognitionSeconds += result.seconds
        if result.failed { state.statistics.failed += 1 }
        state.analyzedThrough = max(state.analyzedThrough ?? result.time, result.time)
        let now = result.time
        state.clock.advance(to: now, repeated: result.repeated)
        // A line is remembered for the debounce once gone; one not yet confirmed at least until a
        // second reading can confirm it.
        state.recent.removeAll { line in
            let keep = profile.debounce(for: line.type)
            return (now - line.lastSeen).seconds > (line.words == nil ? max(keep, options.continuity) : keep)
        }
        var taken = Set<Int>()
        for match in result.matches {
            // Compare words only: stray marks read from outlines and scenery are not part of a line.
            let words = TextFolding.words(TextFolding.fold(match.text))
            let event = DetectedEvent(
                type: match.type, text: match.shown, confidence: match.confidence, time: now, frame: result.frame)
            // A recent line that reads the same (or a new line's first reading): preferably the one
            // in this place, else elsewhere (a feed that scrolls, a print that faded out and in).
            // A reading with the keywords only ("you fragged": the name not read as a print fades in
            // or over bright scenery) is like every line of its kind: it keeps the line in its place
            // (else the latest) on screen, never vouches for a line's identity, and confirms only a
            // new line read that way too.
            // The type's keywords, once per line read (the checks below run per recent line).
            let announcing = profile.announcingWords(for: match.type)
            func isBare(_ words: [String]) -> Bool { Self.isBare(words, announcing) }
            let bare = isBare(words)
            var paired: Int?
            var best = -1.0
            let joined = words.joined(separator: " ")
            var decision = ""
            var reportedAt: MediaTime?
            let corrected = state.corrections.count
            for (index, line) in state.recent.enumerated()
            where line.type == match.type && !taken.contains(index) && !isOver(line, now, state.clock) {
                if bare {
                    let score = isInPlace(line, match, now) ? 2 : 1 - (now - line.lastSeen).seconds / 1000
                    if score > best { (paired, best) = (index, score) }
                    continue
                }
                let named = line.readings.filter { !isBare($0) }
                // In the place of a line that never left it, a word a couple of letters apart is
                // that line misread ("Ninis eliminated Raven" while a video encoder still sharpened
                // the new line, then "Ninja eliminated Raven"), not a new line.
                // So too a line back in its place after a frame or two read as nothing.
                let inPlace = isInPlace(line, match, now)
                let bar =
                    inPlace || isBackInPlace(line, match, now) ? TextFolding.misreadInPlace : TextFolding.misread
                // A line that moved (a feed scrolled up) may read as it was read doubtfully in its
                // place: its name misread surely enough to be confirmed, right only doubtfully.
                let doubted = Self.samePlace(line.box, match.box) ? [] : line.doubted
                let alike = ((named.isEmpty ? line.readings : named) + doubted).filter {
                    TextFolding.sameLine(words, $0, restSimilarity: bar)
                }
                guard !alike.isEmpty else { continue }
                let similarity = alike.map { TextFolding.similarity(joined, $0.joined(separator: " ")) }.max() ?? 0
                let score = inPlace ? 2 + similarity : similarity
                if score > best { (paired, best) = (index, score) }
            }
            if let index = paired {
                if state.recent[index].words == nil, let candidate = state.recent[index].candidate {
                    // A new line read the same way twice — in two pictures, or confidently in a picture
                    // shown again (a game drawing fewer frames than are sampled repeats its misreadings
                    // too): its event, from its first reading.
                    let candidateBare = isBare(candidate.words)
                    if bare && (!candidateBare || (now - candidate.event.time).seconds < Self.nameWaitSeconds) {
                        // Wait for a reading with the name (a print whose name never reads is an event
                        // without it after a while).
                        decision = "the keywords only: waiting for a reading with the name"
                    } else if !result.repeated || match.confidence >= options.replacementConfidence {
                        let event = confirm(candidate.event, reading: match, into: &state.ready)
                        reported(event, first: candidate.event, reading: match, of: &state.recent[index])
                        state.recent[index].settle(on: words, agreeing: candidateBare ? nil : candidate.words)
                        decision =
                            "agrees with the line's first reading: an event, “\(event.text)”"
                        reportedAt = event.time
                    } else {
                        decision = "the same picture shown again, read doubtfully: it confirms nothing"
                    }
                } else if bare {
                    decision = "the keywords only: “\(Self.name(of: state.recent[index]))” is still shown"
                } else {
                    if let settled = state.recent[index].words, isBare(settled) {
                        // A line whose name was never read, now read in full.
                        state.recent[index].words = words
                        state.recent[index].variants.removeAll { isBare($0) }
                    }
                    state.recent[index].remember(words)
                    state.recent[index].candidate = nil
                    count(match, repeated: result.repeated, of: &state.recent[index], into: &state.corrections)
                    decision = "the line “\(Self.name(of: state.recent[index]))”, read again"
                    if let correction = state.corrections.dropFirst(corrected).last {
                        decision += ": its event corrected to “\(correction.text)” (read so more often)"
                        reportedAt = correction.time
                    }
                }
            } else if let index = state.recent.indices.first(where: { index in
                !taken.contains(index) && state.recent[index].type == match.type
                    && isInPlace(state.recent[index], match, now)
            }) {
                // Something else in the place of a line seen a moment ago: a new line once the next
                // reading agrees (its event began with the first different reading), else a misreading.
                paired = index
                let line = state.recent[index]
                let old = Self.name(of: line)
                if now <= line.earlierUntil, line.earlier.contains(where: { TextFolding.sameLine(words, $0) }) {
                    // What it said before the last replacement: it was that line all along.
                    state.recent[index].remember(words)
                    state.recent[index].candidate = nil
                    decision = "what the line in this place said before its last replacement: the same line"
                } else if match.confidence < options.replacementConfidence {
                    // A doubtful reading keeps the line in place but does not replace it; it is
                    // remembered in case the line moves.
                    state.recent[index].doubt(words)
                    decision =
                        "in the place of “\(old)”, read doubtfully (under \(Self.decimal(options.replacementConfidence))): set aside, it replaces nothing"
                } else if let first = Self.confirmed(by: words, as: event, in: line) {
                    // The same picture shown again proves nothing.
                    decision = "the same picture shown again: it confirms nothing"
                    if !result.repeated {
                        decision =
                            "replaces “\(old)” (a second sure reading agrees): an event"
                        reportedAt = first.event.time
                        let event = confirm(first.event, reading: match, into: &state.ready)
                        reported(event, first: first.event, reading: match, of: &state.recent[index])
                        state.recent[index].earlier = line.variants.filter { !isBare($0) }
                        state.recent[index].earlierUntil = now + MediaTime(seconds: Self.misreadingSeconds)
                        state.recent[index].settle(on: words, agreeing: first.words)
                        // What was read doubtfully here was the line before, or this one.
                        state.recent[index].doubted = []
                    }
                } else {
                    state.recent[index].candidate = (words, line.candidate?.event ?? event)
                    decision = "in the place of “\(old)”: it replaces it when the next sure reading agrees"
                }
            }
            if let index = paired {
                taken.insert(index)
                state.recent[index].lastSeen = now
                state.recent[index].lastShown = now
                state.recent[index].box = match.box
                state.recent[index].absentFrames = 0
            } else {
                // A line not seen before: an event once a second reading agrees.
                state.recent.append(
                    RecentLine(
                        type: match.type, lastSeen: now, lastShown: now, box: match.box, candidate: (words, event)))
                taken.insert(state.recent.count - 1)
                decision = bare ? "a new line, the keywords only" : "a new line: an event when the next reading agrees"
            }
            options.trace?(
                TraceLine(
                    time: now.seconds, type: match.type, text: match.text, confidence: match.confidence,
                    decision: decision, event: reportedAt?.seconds))
        }
        if let trace = options.trace {
            for text in result.texts where !result.matches.contains(where: { Self.samePlace($0.box, text.box) }) {
                trace(
                    TraceLine(
                        time: now.seconds, type: nil, text: text.words.joined(separator: " "), confidence: nil,
                        decision: "no event's words", event: nil))
            }
        }
        // Lines with no text at all in their place this frame have gone (a misread leaves some text).
        for index in state.recent.indices where !taken.contains(index) {
            let line = state.recent[index]
            let inPlace = result.texts.filter { Self.samePlace($0.box, line.box) }
            if !inPlace.isEmpty {
                state.recent[index].absentFrames = 0
                // The line itself with its keyword misread ("Minja alimingted Raven") is still the
                // line in its place; scenery or another line there is not.
                if inPlace.contains(where: { text in
                    text.words.contains { $0.count > 1 }
                        && line.readings.contains {
                            TextFolding.sameLine(text.words, $0, restSimilarity: TextFolding.misreadInPlace)
                        }
                }) {
                    state.recent[index].lastShown = now
                }
            } else {
                state.recent[index].absentFrames += 1
            }
        }
    }
}
