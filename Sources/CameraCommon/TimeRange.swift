/// A half-open span of media time `[start, end)`, the role of CMTimeRange.
public struct TimeRange: Sendable, Hashable, Codable {
    public var start: MediaTime
    public var end: MediaTime

    /// Creates `[start, end)`. An end before the start is clamped to the start (an empty range).
    public init(start: MediaTime, end: MediaTime) {
        self.start = start
        self.end = max(start, end)
    }

    public init(start: MediaTime, duration: MediaTime) {
        self.init(start: start, end: start + duration)
    }

    public var duration: MediaTime { end - start }
    public var isEmpty: Bool { end <= start }

    public func contains(_ time: MediaTime) -> Bool { time >= start && time < end }

    /// The overlap of two ranges, or nil when they do not overlap.
    public func intersection(_ other: TimeRange) -> TimeRange? {
        let lower = max(start, other.start)
        let upper = min(end, other.end)
        return lower < upper ? TimeRange(start: lower, end: upper) : nil
    }

    /// This range limited to `bounds`; empty at the nearer edge when they do not overlap.
    public func clamped(to bounds: TimeRange) -> TimeRange {
        let lower = min(max(start, bounds.start), bounds.end)
        let upper = max(min(end, bounds.end), lower)
        return TimeRange(start: lower, end: upper)
    }
}

extension TimeRange: CustomStringConvertible {
    public var description: String {
        "[\(MediaTime.format(seconds: start.seconds))s, \(MediaTime.format(seconds: end.seconds))s)"
    }
}
