import CameraCommon
import CameraIO

/// The training session's state machine (the spec's TrainingSessionManager / ViewModel), on media
/// time: idle → detecting → analyzing (a shot was seen; the coach is asked) → feedback (the tip is
/// shown and spoken for ``feedbackDuration``) → detecting. Counts attempts, makes and streaks.
public final class TrainingSession {
    public enum State: String, Sendable, Codable {
        case idle, detecting, analyzing, feedback
    }

    public struct Stats: Sendable, Codable, Equatable {
        public var attempts = 0
        public var makes = 0
        public var misses = 0
        /// Consecutive makes (positive) or misses (negative).
        public var streak = 0
        public var bestStreak = 0
        public var percentage: Double? { makes + misses == 0 ? nil : Double(makes) / Double(makes + misses) }
    }

    /// A transition that the current state does not allow.
    public struct InvalidTransition: Error, Sendable, CustomStringConvertible {
        public var from: State
        public var event: String
        public var description: String { "cannot \(event) while \(from.rawValue)" }
    }

    public private(set) var state: State = .idle
    public private(set) var stats = Stats()
    /// The shot being analysed or shown.
    public private(set) var currentShot: ShotEvent?
    public private(set) var currentTip: String?
    public var feedbackDuration: Double
    private var feedbackUntil = 0.0
    /// Called on every state change.
    public var onChange: ((State, State) -> Void)?

    public init(feedbackDuration: Double = 2.5) {
        self.feedbackDuration = feedbackDuration
    }

    public func start() throws(InvalidTransition) {
        guard state == .idle else { throw InvalidTransition(from: state, event: "start") }
        move(to: .detecting)
    }

    public func stop() {
        currentShot = nil
        move(to: .idle)
    }

    /// A shot was decided by the detector: count it and start asking for a tip. A shot decided
    /// while the last one's tip is still awaited counts too (two shots in quick succession, or a
    /// live session that took on the ball's brightness and tells its earlier shots at once): the
    /// count a player sees never drops one.
    public func shotDetected(_ shot: ShotEvent) throws(InvalidTransition) {
        guard state != .idle else {
            throw InvalidTransition(from: state, event: "take a shot")
        }
        currentShot = shot
        currentTip = nil
        count(shot.outcome)
        move(to: .analyzing)
    }

    /// The coach answered about `shot` (default: the latest): show the tip until `time +
    /// feedbackDuration`. An AI outcome settles a shot the detector could not decide. An answer
    /// about an earlier shot, come after a later one was taken, settles it but shows nothing.
    public func analysisFinished(
        _ response: ShotAnalysisResponse, for answered: ShotEvent? = nil, at time: Double
    ) throws(InvalidTransition) {
        guard state == .analyzing, let latest = currentShot else {
            throw InvalidTransition(from: state, event: "finish an analysis")
        }
        let shot = answered ?? latest
        if shot.outcome == .indeterminate, response.outcome != .indeterminate {
            stats.attempts -= 1
            count(response.outcome)
        }
        guard shot.number == latest.number else { return }
        currentTip = response.tip
        feedbackUntil = time + feedbackDuration
        move(to: .feedback)
    }

    /// Advances media time: feedback ends after its duration.
    public func tick(_ time: Double) {
        if state == .feedback, time >= feedbackUntil { move(to: .detecting) }
    }

    private func count(_ outcome: ShotOutcome) {
        stats.attempts += 1
        switch outcome {
        case .make: stats.makes += 1
        case .miss: stats.misses += 1
        case .indeterminate: break
        }
        stats.streak = outcome.streak(after: stats.streak)
        stats.bestStreak = max(stats.bestStreak, stats.streak)
    }

    private func move(to next: State) {
        let previous = state
        state = next
        if previous != next { onChange?(previous, next) }
    }
}

/// Keeps the last few seconds of frames and picks the ones nearest a shot's key moments — release,
/// apex, rim — as JPEGs for the coach (the spec's SmartFrameSelector).
public struct SmartFrameSelector {
    public var seconds: Double
    public var width: Int
    private var frames: [(time: Double, frame: VideoFrame)] = []

    public init(seconds: Double = 4, width: Int = 480) {
        self.seconds = seconds
        self.width = width
    }

    public mutating func add(_ frame: VideoFrame, at time: Double) {
        frames.append((time, frame))
        while let first = frames.first, time - first.time > seconds { frames.removeFirst() }
    }

    /// The key frames of `shot`, oldest first, without repeats.
    public func keyFrames(for shot: ShotEvent) -> [(time: Double, frame: VideoFrame)] {
        var chosen: [(time: Double, frame: VideoFrame)] = []
        for moment in [shot.releaseTime, shot.apexTime, shot.rimTime ?? shot.decidedTime] {
            guard let nearest = frames.min(by: { abs($0.time - moment) < abs($1.time - moment) }) else { continue }
            if !chosen.contains(where: { $0.time == nearest.time }) { chosen.append(nearest) }
        }
        return chosen
    }

    /// The key frames as JPEGs, scaled to ``width``.
    public func jpegs(for shot: ShotEvent) throws(MediaError) -> [[UInt8]] {
        var images: [[UInt8]] = []
        for (_, frame) in keyFrames(for: shot) {
            let height = max(2, Int(Double(frame.height) * Double(width) / Double(frame.width)) & ~1)
            let scaled = frame.width > width ? try frame.scaled(width: width, height: height) : frame
            images.append(try ImageEncoder.encode(scaled, as: .jpeg, quality: 80))
        }
        return images
    }
}
