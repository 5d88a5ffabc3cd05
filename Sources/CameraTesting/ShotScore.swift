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
