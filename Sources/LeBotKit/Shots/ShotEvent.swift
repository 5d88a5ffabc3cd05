import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// The spec's outcome enum (raw values as the spec writes them).
public enum ShotOutcome: String, Sendable, Codable, CaseIterable {
    case make = "MAKE"
    case miss = "MISS"
    case indeterminate = "INDETERMINATE"

    /// Accepts `make`, `MAKE`, `Make`, … as models write them.
    public init?(loose text: String) {
        switch text.trimmingWhitespace().uppercased() {
        case "MAKE", "MADE", "SCORE": self = .make
        case "MISS", "MISSED": self = .miss
        case "INDETERMINATE", "UNKNOWN", "UNCLEAR": self = .indeterminate
        default: return nil
        }
    }
}

/// One shot attempt and how it ended.
public struct ShotEvent: Sendable, Codable, Equatable {
    /// 1 for the session's first attempt.
    public var number: Int
    /// When the ball left the hands (start of its last climb), seconds of media time.
    public var releaseTime: Double
    public var apexTime: Double
    /// When the ball reached the rim line (crossing, or closest approach), when it did.
    public var rimTime: Double?
    /// When the outcome was decided.
    public var decidedTime: Double
    public var outcome: ShotOutcome
    /// Why, in words.
    public var reason: String
    public var releasePoint: NormalizedPoint
    /// Angle below horizontal at which the ball came down through the rim line, degrees.
    public var entryAngle: Double?
    /// Apex above the rim line, as a fraction of the frame height.
    public var apexHeight: Double
    public var trajectory: Trajectory?

    public init(
        number: Int, releaseTime: Double, apexTime: Double, rimTime: Double?, decidedTime: Double,
        outcome: ShotOutcome, reason: String, releasePoint: NormalizedPoint, entryAngle: Double?, apexHeight: Double,
        trajectory: Trajectory?
    ) {
        self.number = number
        self.releaseTime = releaseTime
        self.apexTime = apexTime
        self.rimTime = rimTime
        self.decidedTime = decidedTime
        self.outcome = outcome
        self.reason = reason
        self.releasePoint = releasePoint
        self.entryAngle = entryAngle
        self.apexHeight = apexHeight
        self.trajectory = trajectory
    }
}
