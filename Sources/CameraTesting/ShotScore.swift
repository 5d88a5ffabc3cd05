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
