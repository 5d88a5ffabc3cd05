import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// The spec's outcome enum (raw values as the spec writes them).
public enum ShotOutcome: String, Sendable, Codable, CaseIterable {
    case make = "MAKE"
    case miss = "MISS"
    case indeterminate = "INDETERMINATE"

    /// Whether the shot went in, as scored against a truth: nil when it was not called.
    public var made: Bool? { self == .indeterminate ? nil : self == .make }

    /// The streak after a shot with this outcome, from `streak` before it: makes in a row count
    /// up, misses in a row down, and an undecided shot leaves it.
    public func streak(after streak: Int) -> Int {
        switch self {
        case .make: max(0, streak) + 1
        case .miss: min(0, streak) - 1
        case .indeterminate: streak
        }
    }

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

/// Which way a missed shot went, when the view says: what a coach's tip is chosen by.
public enum MissSide: String, Sendable, Codable, CaseIterable {
    /// Came down in front of the rim (from the side).
    case short
    /// Came down beyond the rim (from the side).
    case long
    /// Left or right of the rim (from behind), or past it in front or behind (from the side).
    case wide
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
    /// For a miss, which way it went, when the view tells (nil: it does not, or not a miss).
    public var missedBy: MissSide?
    public var releasePoint: NormalizedPoint
    /// Angle below horizontal at which the ball came down through the rim line, degrees.
    public var entryAngle: Double?
    /// Apex above the rim line, as a fraction of the frame height.
    public var apexHeight: Double
    /// Where the ball came down through the rim line, inches past the rim's centre (negative:
    /// short of it), measured along the line from the shooter; side views only. Noah's ideal is
    /// about 11 in (2 in behind the centre of an 18 in rim counts as "deep").
    public var depth: Double?
    /// Where the ball came down through the rim line, inches right of the rim's centre as the
    /// shooter sees it (negative: left); seen from behind the shooter only, where depth is not.
    public var leftRight: Double?
    /// The apex above the rim, feet (the rim seen edge-on is 18 in across).
    public var arcFeet: Double?
    /// At its busiest after the ball came down into the rim, the share of the net's pixels that
    /// moved between frames (``NetMotion``); nil when the net was not watched.
    public var netMotion: Double?
    public var trajectory: Trajectory?

    public init(
        number: Int, releaseTime: Double, apexTime: Double, rimTime: Double?, decidedTime: Double,
        outcome: ShotOutcome, reason: String, releasePoint: NormalizedPoint, entryAngle: Double?, apexHeight: Double,
        trajectory: Trajectory?, depth: Double? = nil, leftRight: Double? = nil, arcFeet: Double? = nil,
        netMotion: Double? = nil, missedBy: MissSide? = nil
    ) {
        self.netMotion = netMotion
        self.missedBy = missedBy
        self.depth = depth
        self.leftRight = leftRight
        self.arcFeet = arcFeet
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

extension ShotEvent {
    /// Noah's numbers in words, for speech and lists: "46 degrees, 3 inches deep" from the side,
    /// "2 inches left" from behind (nil when the view gave none).
    public var numbersInWords: String? {
        var parts: [String] = []
        if let entryAngle { parts.append("\(Int(entryAngle.rounded())) degrees") }
        if let depth {
            let inches = Int(depth.rounded())
            parts.append(inches >= 0 ? "\(inches) inches deep" : "\(-inches) inches short")
        }
        if let leftRight {
            let inches = Int(leftRight.rounded())
            parts.append(inches == 0 ? "dead centre" : inches > 0 ? "\(inches) inches right" : "\(-inches) inches left")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
