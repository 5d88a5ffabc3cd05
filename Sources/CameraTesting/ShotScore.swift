/// How detected shots line up with a video's ground truth: the same shot is one released within
/// 0.4 s of the truth; it is judged right when make/miss agrees (an indeterminate answer is never
/// right). Generic over the detector's shot type, so tests and the benchmark score alike.
public struct ShotScore<Shot> {
    public private(set) var attempts = 0
    public private(set) var found = 0
    public private(set) var correct = 0
    public private(set) var extra: [Shot] = []
    public private(set) var missed: [BasketballCorpus.Event] = []
    public private(set) var wrong: [(BasketballCorpus.Event, Shot)] = []
    /// Every shot found, with the event it was matched to.
    public private(set) var matched: [(BasketballCorpus.Event, Shot)] = []

    /// - Parameters:
    ///   - release: when a shot left the hands, seconds.
    ///   - made: true for a make, false for a miss, nil when the detector could not tell.
    public init(
        truth: [BasketballCorpus.Event], shots: [Shot], release: (Shot) -> Double, made: (Shot) -> Bool?
    ) {
        var unmatched = shots
        for event in truth where event.kind.isShot {
            attempts += 1
            guard let index = unmatched.firstIndex(where: { abs(release($0) - event.release) < 0.4 }) else {
                missed.append(event)
                continue
            }
            let shot = unmatched.remove(at: index)
            found += 1
            matched.append((event, shot))
            if made(shot) == event.made {
                correct += 1
            } else {
                wrong.append((event, shot))
            }
        }
        extra = unmatched
    }
}

/// How far a found rim box is from the truth's, both `[x, y, width, height]` as fractions of the
/// picture: its centre's distance and its width, in rim widths. Found means the centre within a
/// quarter of the rim's width and the width between 0.75× and 1.3× (the side view's box takes in the
/// bracket to the board).
public struct RimScore: Sendable {
    public let centre: Double
    public let width: Double

    public init(found: [Double], truth: [Double]) {
        let dx = (found[0] + found[2] / 2) - (truth[0] + truth[2] / 2)
        let dy = (found[1] + found[3] / 2) - (truth[1] + truth[3] / 2)
        centre = (dx * dx + dy * dy).squareRoot() / truth[2]
        width = found[2] / truth[2]
    }

    public var isFound: Bool { centre <= 0.25 && (0.75...1.3).contains(width) }
}

/// How close Noah's numbers came to the 3D scene's (``BasketballCorpus/AtRim``), over found shots
/// that came down through the rim's height: per number, how many such shots the analysis gave it
/// for, and how far off it was.
public struct NumbersScore: Sendable {
    public enum Number: String, CaseIterable, Sendable {
        case entryAngle = "entry angle"
        case depth
        case leftRight = "left/right"
        case arc = "arc above rim"
        /// The unit its errors are in.
        public var unit: String { self == .entryAngle ? "°" : self == .arc ? " ft" : " in" }
    }
    /// Shots with a truth to compare with.
    public private(set) var shots = 0
    /// Per number, the absolute errors of the shots it was given for.
    public private(set) var errors: [Number: [Double]] = [:]

    public init() {}

    /// One found shot: its truth and what the analysis said (nil: not given).
    public mutating func add(
        _ truth: BasketballCorpus.AtRim?, entryAngle: Double?, depth: Double?, leftRight: Double?, arcFeet: Double?
    ) {
        guard let truth else { return }
        shots += 1
        let pairs: [(Number, Double?, Double)] = [
            (.entryAngle, entryAngle, truth.entryAngle), (.depth, depth, truth.depth),
            (.leftRight, leftRight, truth.leftRight), (.arc, arcFeet, truth.arcFeet),
        ]
        for (number, given, actual) in pairs {
            if let given { errors[number, default: []].append(abs(given - actual)) }
        }
    }

    /// The median error of `number`, nil when it was never given.
    public func median(_ number: Number) -> Double? {
        let sorted = (errors[number] ?? []).sorted()
        return sorted.isEmpty ? nil : sorted[sorted.count / 2]
    }

    /// "31/40, 6.2°": given for how many shots, and the median error.
    public func cell(_ number: Number) -> String {
        let given = errors[number]?.count ?? 0
        guard let median = median(number) else { return "0/\(shots)" }
        return "\(given)/\(shots), \((median * 10).rounded() / 10)\(number.unit)"
    }

    public static func + (a: NumbersScore, b: NumbersScore) -> NumbersScore {
        var sum = a
        sum.shots += b.shots
        for (number, list) in b.errors { sum.errors[number, default: []] += list }
        return sum
    }
}
