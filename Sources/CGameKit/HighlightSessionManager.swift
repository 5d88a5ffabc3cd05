import CameraCommon

/// How highlights are cut.
public struct HighlightSettings: Sendable, Codable, Equatable {
    /// Seconds kept before the first event.
    public var preRoll: Double
    /// Seconds kept after the last event.
    public var postRoll: Double
    /// An event within this many seconds of the previous one joins its highlight (multi-kills).
    public var cooldown: Double
    /// A highlight that keeps growing is closed at this length (so a long fight still gets saved).
    public var maximumDuration: Double

    public init(preRoll: Double = 5, postRoll: Double = 3, cooldown: Double = 5, maximumDuration: Double = 60) {
        self.preRoll = preRoll
        self.postRoll = postRoll
        self.cooldown = cooldown
        self.maximumDuration = maximumDuration
    }
}

/// A highlight ready to be written: the span to keep and the events in it.
public struct Highlight: Sendable {
    /// `first − preRoll … last + postRoll`, clamped to what the buffer held when it was closed.
    public var range: TimeRange
    public var events: [DetectedEvent]

    public init(range: TimeRange, events: [DetectedEvent]) {
        self.range = range
        self.events = events
    }

    /// `Kill`, `Double Kill`, `Triple Kill`, `Quad Kill`, `Penta Kill`, `6x Kill`, … after the most
    /// frequent event type (see ``HighlightName``).
    public var name: String { HighlightName.name(events.map(\.type)) }
}

/// The one vocabulary for naming a highlight by its events, shared by `cgame`, the server (clips
/// synced without a name) and so the web app: `Kill`, `Double Kill`, `Triple Kill`, `Quad Kill`,
/// `Penta Kill`, `6x Kill`, … after the most frequent event type; `Highlight` for none.
public enum HighlightName {
    public static func name(_ types: [String]) -> String {
        var counts: [String: Int] = [:]
        for type in types { counts[type, default: 0] += 1 }
        guard let (type, count) = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })
        else { return "Highlight" }
        return multiName(count) + type
    }

    static func multiName(_ count: Int) -> String {
        switch count {
        case ...1: ""
        case 2: "Double "
        case 3: "Triple "
        case 4: "Quad "
        case 5: "Penta "
        default: "\(count)x "
        }
    }
}

/// Groups events into highlights (the spec's HighlightSessionManager), on media time.
///
/// The spec's version resets a wall-clock `Timer` on each event. Here everything runs on the
/// source's media time, which makes the result the same whether a file is read at 10× speed or a
/// stream live, and testable without waiting: a session closes once the detector has analysed past
/// `last + cooldown` (so a late OCR result can still join it), and is handed out once the buffer
/// holds `last + postRoll` (so the post-roll is really in the clip).
public struct HighlightSessionManager: Sendable {
    public let settings: HighlightSettings
    private var open: [DetectedEvent] = []
    private var closed: [[DetectedEvent]] = []

    public init(settings: HighlightSettings = HighlightSettings()) {
        self.settings = settings
    }

    /// Whether a session is collecting events.
    public var isActive: Bool { !open.isEmpty }
    /// Events in the open session.
    public var eventCount: Int { open.count }
    public var firstEventTime: MediaTime? { open.first?.time }
    public var lastEventTime: MediaTime? { open.last?.time }

    /// Adds an event (events must come in time order, as ``EventDetector`` gives them): starts a
    /// session, or extends the open one when it is within the cooldown.
    public mutating func handleEvent(_ event: DetectedEvent) {
        if let last = open.last?.time, let first = open.first?.time {
            let gap = (event.time - last).seconds
            let length = (event.time - first).seconds + settings.preRoll + settings.postRoll
            if gap > settings.cooldown || length > settings.maximumDuration {
                closed.append(open)
                open = []
            }
        }
        open.append(event)
    }

    /// Gives the event `correction` corrects (``DetectedEvent/corrects``: the same type and time),
    /// in a session not handed out yet, the corrected text.
    public mutating func correct(_ correction: DetectedEvent) {
        open.apply(correction)
        for index in closed.indices { closed[index].apply(correction) }
    }

    /// Highlights whose cooldown has passed (`analyzedThrough`) and whose post-roll the buffer holds
    /// (`buffered`), oldest first.
    public mutating func takeReady(analyzedThrough: MediaTime?, buffered: TimeRange?) -> [Highlight] {
        if let analyzed = analyzedThrough, let last = open.last?.time, (analyzed - last).seconds > settings.cooldown {
            closed.append(open)
            open = []
        }
        var ready: [Highlight] = []
        while let session = closed.first, let buffered, let last = session.last?.time {
            let wanted = last + MediaTime(seconds: settings.postRoll)
            guard buffered.end >= wanted else { break }
            ready.append(highlight(session, buffered: buffered))
            closed.removeFirst()
        }
        return ready
    }

    /// At the end of the stream: every remaining session, cut to what the buffer holds.
    public mutating func flush(buffered: TimeRange?) -> [Highlight] {
        if !open.isEmpty { closed.append(open) }
        open = []
        defer { closed = [] }
        guard let buffered else { return [] }
        return closed.map { highlight($0, buffered: buffered) }
    }

    private func highlight(_ events: [DetectedEvent], buffered: TimeRange) -> Highlight {
        let first = events.first!.time
        let last = events.last!.time
        let wanted = TimeRange(
            start: first - MediaTime(seconds: settings.preRoll), end: last + MediaTime(seconds: settings.postRoll))
        return Highlight(range: wanted.clamped(to: buffered), events: events)
    }
}
