import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// Turns ball observations into shot attempts with make or miss (the spec's ShotEventDetector).
///
/// An attempt is a ball that climbed at least ``Configuration/minimumRise`` rim widths and then
/// entered the *up zone*: above the rim line and within ``Configuration/zoneMargin`` rim widths of
/// the rim sideways. From there:
/// - it comes down through the rim line inside the rim's opening (the crossing interpolated between
///   frames, or solved on the fitted parabola when frames are far apart) and is then seen below the
///   rim within ``Configuration/confirmationWindow`` → **make**;
/// - it comes down through the rim line outside the opening, or leaves sideways → **miss**;
/// - nothing is decided within ``Configuration/attemptTimeout``, or another attempt starts → **miss**;
/// - it is lost going out of the side of the picture, past the rim → **miss**;
/// - the ball is lost near the rim, or crosses and is never seen again → **indeterminate**.
///
/// When frames are given, the net under the rim is watched for ``Configuration/netWindow`` after
/// the ball comes down into the rim (``NetMotion``), and the attempt is decided then. Seen from
/// behind the shooter the ball comes down almost straight in the picture, and where it crosses the
/// rim line no longer says whether it went in, fell short in front of the rim or long behind it:
/// when the crossing is that steep (``Configuration/steepEntry``) the net decides — a ball through
/// the hoop sets it swinging, a miss does not. A hoop whose net never swings (none, or a painted
/// one: a make by the path left it still) hands steep crossings back to the path. The net swings
/// the way the ball went: for a ball that flew towards or away from the camera (``acrossTheView``)
/// a little motion is a swing; from the side, a make by the path that leaves a live net still is a
/// miss (the ball bounced out sideways or passed beside the rim).
///
/// A flat picture cannot tell a ball through the hoop from one that passed in front of or behind
/// it (from the side: wide left or right of the rim). The net can: it takes most of a ball's speed
/// across, and a ball that kept that speed under the rim went past it (``passedBeside``).
///
/// Everything runs on media time, so a file analyses the same at any speed.
public final class ShotEventDetector {
    public struct Configuration: Sendable {
        public var minimumRise = 1.0
        public var zoneMargin = 2.0
        public var confirmationWindow = 0.6
        public var attemptTimeout = 3.0
        public var lostTimeout = 1.0
        /// Seconds between two releases under which they are not two shots: one ball flies half a
        /// second or more to the rim, and is then caught before it is shot again (on the 3D court
        /// shots are 2.7 s apart or more; on the real phone videos 1.7 s). A new flight that began
        /// within this of the one followed means one of the two was not the ball: in a gym's
        /// picture panned by hand the edges of windows moved as "balls", and four to nine shots
        /// were reported, each cut short by the next (HooptuberDataset1's make019, miss003 and
        /// miss001, the true rim given).
        public var shortestBetweenShots = 1.0
        /// A ball back into the picture from above at most this share of its size as it left flew
        /// away from the camera meanwhile (``comesBackFromAbove``).
        public var recededAbove = 0.8
        /// Degrees from horizontal (in the picture) from which a crossing is too steep to place.
        public var steepEntry = 72.0
        /// Seconds after a steep crossing in which the net is watched.
        public var netWindow = 0.9
        /// Share of the net's pixels that must change between frames, at the peak, for a make —
        /// with the ball's pixels left out (``NetMotion``) — when the ball flew across the picture
        /// (``acrossTheView``). On the 3D court's seen slices, steep misses peaked at 0–1 % (one at
        /// 9.5 %), steep makes at 0.1–26 %, most over 1 %; 0.75–0.9 % called the most right, 0.6 %
        /// and 1.1 % one or two fewer.
        public var netMotionForMake = 0.009
        /// The same for a ball that flew towards or away from the camera (45°, behind the shooter):
        /// the net swings the way the ball went, along the line of sight, and barely changes the
        /// picture, while a ball that hit the rim and stayed out of the net leaves it still. Seen
        /// slices (stop 35): such steep misses peaked at 0 % (one at 0.23 %), makes at 0.09 % and
        /// 0.3 % up. Stop 45 (the 3D court's net now holding the ball, seen slices): misses at 0 %
        /// (one at 0.07 %), and banks, which fall off the board nearly straight and swing the net
        /// least, at 0.13–0.21 %, under the 0.25 % this was until then.
        public var netMotionForMakeAlongTheView = 0.001
        /// Share of the net's pixels that changed, at the peak, that says a net the rim finder saw
        /// is a net that moves (a painted one, or a white wall, moves not at all), when it is short of
        /// a swing. Seen slices (stop 37): side-on misses that passed the rim moved it 0.06–1.4 %.
        public var netMovedALittle = 0.001
        /// A ball seen at most this many times larger at the release than at the rim flew across
        /// the picture (``acrossTheView``). Seen slices, a shot's own ratio: 0.6–1.3 from the side,
        /// 1.0–2.4 at 45° and from behind (the middle per video 0.86–1.18 against 1.01–1.93).
        public var acrossSizeRatio = 1.2
        /// Shares of its speed across the picture a ball keeps under the rim that say it did not
        /// go through the net (``passedBeside``), when it came in at least ``movingAcross`` rim
        /// widths a second: about all of it, as a ball in free flight does.
        public var keptAcross = 0.93...1.5
        public var movingAcross = 1.5
        /// Rim widths a second across the picture that a ball that came off the board still moves,
        /// steadily, under the rim (``acrossUnderTheRim(_:)``), when it did not go through the net
        /// (``passedBeside``), whatever speed it came in with: a net takes most of it in the tenth
        /// of a second the ball spends in it. From the side; along the line of sight,
        /// ``keptMovingUnderAlongTheView``. 3D court (stop 63, seen slices 4606–4720, 250 videos):
        /// side-on makes and banks that came off the board moved 1.3 at most, longs 1.7 or more.
        public var keptMovingUnder = 2.0
        /// The same at 45° (a ball that did not fly across the picture), where a make falling
        /// through the net slants across the picture with the camera's tilt: there makes that came
        /// off the board moved 1.8 at most, the longs called makes 2.8–6.1.
        public var keptMovingUnderAlongTheView = 2.4
        /// Rim widths a second across the picture under which a ball that came back off the board,
        /// in its first four frames under the rim, was stopped by the net (``droppedIn``).
        public var heldUnder = 1.2
        /// Rim widths a second across the picture under which a ball that came down within the
        /// rim's opening fell straight down under it, in the net (``droppedIn``): seen side-on
        /// (stop 63, 4606–4720) makes the still net called misses 0.12 at most, misses 0.8 or more.
        public var droppedStraight = 0.4
        /// Rim widths a second across the picture under which a ball that flew across the picture
        /// (from the side) at ``movingAcross`` or more went on straight down under the rim, steadily
        /// (``acrossUnderTheRim(_:)``): the net took its speed across, so falling on nearly as fast
        /// as it came (``fellFreely``) does not make it one that passed the rim or came off it. 3D
        /// court (stop 68, seen slices to 4770, every placement and format): of the 102 misses
        /// called for falling on freely, those that flew across the picture and came in at 1.5 or
        /// more moved on across under the rim at 1.26 rim widths a second or more (longs back off
        /// the board, air balls past it) or unsteadily; rim-outs at 45° fell on at 0.86–1.07 but came
        /// in at 1.02 or less, their speed across spent on the rim. The one make called so
        /// (sideRight-4764, held out at stop 67: a flat swish at 44°, in at 7.5) fell on at 0.35.
        public var fellStraight = 0.7
        /// Inches across the picture from the rim's centre at which a ball that came down steeply
        /// along the line of sight (45°, behind the shooter) and moved the net less than a swing
        /// across the picture would (``netMotionForMake``) hit the rim and bounced out: the net
        /// moved because the ball brushed it. The opening is 18 in and the ball 9.4 in, so a ball
        /// more than 4.3 in off centre touches the rim. Seen slices (stop 47): such rim-outs came
        /// down 6.4–7.8 in off centre, with the net moving 0.24–0.58 %; makes that moved it under
        /// 0.9 % at most 5.5 in (a bank).
        public var offCentreBounce = 6.0
        /// Rim widths past the rim's edge, across the picture, at which a ball seen at the rim's
        /// height after it came down into it is clear of the rim: it bounced out
        /// (``bouncedOut(_:since:)``). The ball is about half a rim width across, so at half a rim
        /// width past the edge its centre is a quarter of one clear of the ring.
        public var clearOfTheRim = 0.5
        /// Seconds after the ball came down through the rim line at which it is compared with where
        /// free flight would have put it (``lagUnderTheRim(_:)``): by then a ball through the hoop
        /// has spent about a tenth of a second in the net.
        public var lagTime = 0.2
        /// Rim widths a ball lags behind free flight under the rim, by both measures
        /// (``lagUnderTheRim(_:)``), from which it dropped through the net, whatever the net's
        /// motion said: the net held it. From the side on the left its swing is a few pixels; from
        /// behind, the ball in the net hides what moves. 3D court (stop 52, seen slices 3001–3603,
        /// the shots called misses because the net did not move): misses lagged 0.26 at most by
        /// the lesser measure, makes 0.51–0.96. Stop 54 (seen slices 3001–3910): the 203 misses
        /// called by a still net still lagged 0.26 at most, but soft banks through a net that did
        /// not move lagged from −1.02 to 0.35 (a bank comes off the board slowly, and the net takes
        /// a share of a slow fall), so the line is at 0.3, not 0.4. (Stop 51: 0.6 by the fit since
        /// the apex alone, from the side only; misses along the line of sight lag up to 0.39 by that one.)
        public var heldByTheNet = 0.3
        /// Share of gravity's pull under which the ball's fall to the rim line since its apex
        /// gathered speed: it was held up on the rim or the board (``heldUpAboveTheRim(_:)``), and
        /// along the line of sight, where a long passing behind the rim crosses it in the picture,
        /// the net's least motion for a steep make (``netMotionForMakeAlongTheView``) says it
        /// dropped in. A ball that rolled off the rim leaves the net still. 3D court (stop 69, seen
        /// seeds 4751–4773, the shots judged with a fall read): at 45° and from behind the shooter
        /// the misses flew freely, gathering speed at 0.5 of gravity or more in the picture (longs
        /// 0.50 and up, one of them shaking the net 0.48 %; rim-outs 0.65, shorts 0.67, air balls
        /// 0.9), banks at −0.4 and up, and the bank that rolled on the rim at 0.03 (−0.29 in orange).
        public var heldUp = 0.3
        /// Rim widths under which a ball lags behind free flight, by both measures
        /// (``lagUnderTheRim(_:)``), when it fell on freely: it passed the rim or bounced off it,
        /// when the net moved less than a ball through it swings it (a ball off the rim shakes it
        /// too): from the side ``brushedTheNet``, towards or away from the camera (45°, behind the
        /// shooter) ``swungThroughTheNet``. 3D court (stop 51, seen slices): along the line of
        /// sight no make lagged under 0.1 by both; the rim-outs and a long called makes by the net
        /// did. (Stop 64: two banks from 45° did, see ``swungThroughTheNet``.)
        public var fellFreely = 0.1
        /// Under the rim, a point of the ball's track this many times the ball's usual width coming
        /// down is another thing the track took up, and the fall is not read on it.
        public var notTheBallAnyMore = 1.75
        /// Share of the net's pixels that changed, at the peak, from which a ball that flew across
        /// the picture (from the side) and fell on freely under the rim (``fellFreely``) is still a
        /// make: it swung the net as only a ball through it does. Under it, the net was brushed by a
        /// ball that came off the rim or passed it. 3D court (stop 52, seen slices): from the side,
        /// makes that fell on freely by both measures swung the net 3.8 %; the longs and a rim-out
        /// called makes that fell freely moved it 0.15–1.43 %.
        public var brushedTheNet = 0.025
        /// Share of the net's pixels that changed, at the peak, from which a ball that flew towards
        /// or away from the camera (45°, behind the shooter) and fell on freely under the rim
        /// (``fellFreely``) is still a make: only a ball through the net swings it so. Along the
        /// line of sight a ball that passed behind or in front of the rim crosses the net's place
        /// in the picture, so the bar is higher than from the side (``brushedTheNet``). 3D court
        /// (stop 64, seen slices 4606–4730): along the line of sight no miss moved the net more than
        /// 3.7 % (longs past the rim); the makes called misses for falling freely swung it 7.5 % and
        /// 8.4 % (banks from 45° that dropped through fast).
        public var swungThroughTheNet = 0.05
        public init() {}
    }

    public let rim: RimCalibration
    public let configuration: Configuration
    public let width: Double
    public let height: Double
    private var history: [Int: [BallObservation]] = [:]
    private var attempt: Attempt?
    private var count = 0
    /// When the last shot reported left the hands (nil: none yet).
    private var lastRelease: Double?
    private var lastTime = 0.0
    private var net: NetMotion?
    /// Net motion per frame (time, share of its pixels that changed), the last few seconds.
    private var netHistory: [(time: Double, motion: Double)] = []
    /// Tracks whose attempt was decided, and when: what such a ball does next near the rim is a
    /// rebound, not a shot.
    private var decidedTracks: [Int: Double] = [:]
    /// Shots after which the net was seen to swing, and makes by the ball's path after which it
    /// did not: a hoop with no net (or one that never moves) is told apart from a live net.
    private var netSwung = 0
    /// The rim finder saw a net hang under the rim (``RimFinder/Result/netBelow``).
    let netBelow: Bool
    private var netStill = 0
    /// A net the rim finder saw moved at least a little after a shot
    /// (``Configuration/netMovedALittle``): it is a net that moves, for the rest of the video.
    private var netSeenMoving = false
    /// Makes by the ball's path that left the net short of a swing, decided before the net was
    /// seen to move in this video (``lateCalls``), with whether the ball flew across the picture.
    private var unprovenMakes: [(shot: ShotEvent, across: Bool)] = []
    /// Votes so far for a camera behind the shooter (positive) or at the side (negative): from
    /// behind, balls come down into the rim steeply in the picture and leave the hands not far
    /// below it; from the side, they come down at a slant and leave the hands rim widths away.
    private var behindVotes = 0
    /// Why a shot was called as it was. Two misses are named only once the view is known
    /// (``finish``), which also tells which way they went (``MissSide``).
    enum Reason: ExpressibleByStringInterpolation {
        case said(String)
        /// Came down through the rim line outside the opening: in front of or beyond the rim from
        /// the side, left or right of it from behind.
        case cameDownBeside
        /// Kept its speed across under the rim, which a net takes.
        case passedBeside
        /// Came down into the rim and was then seen at its height, clear of it across the picture
        /// (``bouncedOut(_:since:)``): pixels across from the rim's centre, where it was last seen.
        case bouncedOut(Double)

        init(stringLiteral value: String) { self = .said(value) }
        init(stringInterpolation: DefaultStringInterpolation) {
            self = .said(String(stringInterpolation: stringInterpolation))
        }
    }

    struct Attempt {
        var track: Int
        var release: BallObservation
        var apex: BallObservation
        var started: Double
        var points: [BallObservation]
        var crossing: (time: Double, angle: Double)?
        /// Where it last came down through the rim line, pixels.
        var crossingX: Double?
        var lastSeen: Double
        /// It came down inside the rim too steeply to tell in from short or long: the net decides.
        var steep = false
        /// What the ball's path said after it came down into the rim (nil: not yet, or lost).
        var geometry: (ShotOutcome, Reason)?
    }

    public init(
        rim: RimCalibration, width: Int, height: Int, netBelow: Bool = false,
        configuration: Configuration = Configuration()
    ) {
        self.rim = rim
        self.netBelow = netBelow
        self.configuration = configuration
        self.width = Double(width)
        self.height = Double(height)
    }

    var rimLeft: Double { rim.x * width }
    var rimRight: Double { (rim.x + rim.width) * width }
    var rimCentre: Double { (rimLeft + rimRight) / 2 }
    var rimWidth: Double { rim.width * width }
    var rimLine: Double { (rim.y + rim.height / 2) * height }
    /// A regulation rim is 18 in across; seen from the side, that is its width in the picture.
    var inchesPerPixel: Double { 18 / max(rimWidth, 1) }
    /// Gravity's pull in the picture, pixels a second squared: 9.8 m/s² over an 18 in rim is 21.4
    /// rim widths.
    var gravity: Double { 21.4 * rimWidth }

    func inUpZone(_ ball: BallObservation) -> Bool {
        let margin = configuration.zoneMargin * rimWidth
        return ball.y < rimLine - ball.radius * 0.5 && ball.x > rimLeft - margin && ball.x < rimRight + margin
            && ball.y > rimLine - 8 * rimWidth
    }

    /// Feeds one frame's observations (best first, as ``BallTracker`` returns them); returns the
    /// attempts decided by this frame.
    /// `frame` (the analysed picture, YUV 4:2:0) lets the net be watched for steep crossings.
    public func process(_ observations: [BallObservation], time: Double, frame: VideoFrame? = nil) -> [ShotEvent] {
        lastTime = time
        var decided: [ShotEvent] = []
        // The net is watched only while a shot is in the air: the rule looks at it after a crossing.
        if let frame, attempt != nil {
            if net == nil { net = NetMotion(rim: rim, width: Int(width), height: Int(height)) }
            if let motion = net?.measure(frame, time: time, balls: ballsAtNet(observations, time: time)) {
                netHistory.append((time, motion))
            }
            netHistory.removeAll { time - $0.time > 4 }
        } else if frame != nil {
            net?.forget()
        }
        for observation in observations {
            if history[observation.track] == nil, let before = flightLostAtTheTop(before: observation) {
                // Back into the picture from above, or seen again near its apex: the same flight, so
                // its rise counts for this track.
                history[observation.track] = before
            }
            history[observation.track, default: []].append(observation)
        }
        // Forget old history (tracks that ended, points older than 4 s).
        for (track, points) in history {
            if let last = points.last, time - last.time > 1 {
                history[track] = nil
            } else if let first = points.first, time - first.time > 4 {
                history[track] = points.filter { time - $0.time <= 4 }
            }
        }
        if var current = attempt, let crossing = current.crossing, net != nil {
            // The ball came down into the rim: follow it, and watch the net for a while, wherever
            // the ball went; then the path and the net decide together (`judge`).
            if let ball = choose(observations), ball.track == current.track || isContinuation(ball, of: current) {
                if current.geometry == nil {
                    current.geometry = advance(&current, with: ball)
                } else if ball.time - crossing.time < 0.5 {
                    // Followed on under the rim: where it goes says whether the net took it.
                    current.points.append(ball)
                    current.track = ball.track
                }
            }
            if current.crossing == nil {
                // Back up above the rim (in and out): the attempt goes on.
                attempt = current
            } else if time - crossing.time >= configuration.netWindow {
                decided.append(judge(current, at: time))
                attempt = nil
            } else {
                attempt = current
            }
            return decided
        }
        let ball = choose(observations)
        if var current = attempt {
            if let other = shotStarting(
                among: observations.lazy.filter { $0.track != current.track && !self.isContinuation($0, of: current) },
                time: time)
            {
                // One ball is not shot twice within a second (``Configuration/shortestBetweenShots``):
                // of two flights that began so close together at most one is the ball's, and the
                // new one is followed; the other is set aside, not reported as a miss.
                if other.release.time - current.release.time >= configuration.shortestBetweenShots {
                    decided.append(finish(current, .miss, "another shot started before this one was decided", at: time))
                } else {
                    setAside(current, at: time)
                }
                attempt = other
                return decided
            }
            if let ball, ball.track == current.track || isContinuation(ball, of: current) {
                if let outcome = advance(&current, with: ball) {
                    decided.append(finish(current, outcome.0, outcome.1, at: time))
                    attempt = nil
                    return decided
                }
                attempt = current
            } else if time - current.lastSeen > configuration.lostTimeout {
                if current.crossing != nil {
                    decided.append(
                        finish(current, .indeterminate, "went through the rim line but was not seen below it", at: time)
                    )
                } else if let side = leftThePicture(current) {
                    decided.append(
                        finish(current, .miss, "left the picture on the \(side), away from the rim", at: time))
                } else {
                    decided.append(finish(current, .indeterminate, "lost sight of the ball near the rim", at: time))
                }
                attempt = nil
            }
            if let still = attempt, time - still.started > configuration.attemptTimeout,
                !isOnTheRim(still, at: time) || time - still.started > 2 * configuration.attemptTimeout
            {
                decided.append(finish(still, .miss, "no make within \(configuration.attemptTimeout) s", at: time))
                attempt = nil
            }
        } else if let shot = shotStarting(among: observations, time: time) {
            // Nor within a second of the last shot reported: set aside.
            if let last = lastRelease, shot.release.time - last < configuration.shortestBetweenShots {
                setAside(shot, at: time)
            } else {
                attempt = shot
            }
        }
        return decided
    }

    /// Decides what is still open at the end of the input.
    public func finish(at time: Double) -> [ShotEvent] {
        guard let current = attempt else { return [] }
        attempt = nil
        // Cut off while the net was watched after the ball came down into the rim (a live session
        // stopped right after the shot): what was seen so far decides, as far as it can.
        if current.crossing != nil, net != nil { return [judge(current, at: time, cutOff: true)] }
        return [finish(current, .indeterminate, .said(Self.endedUndecided), at: time)]
    }

    /// The makes by the ball's path that left the net short of a swing before the net had been
    /// seen to move in this video, judged again now that it has: misses, as they would have been
    /// had it moved before them (a ball through the hoop moves a live net; an air ball passing in
    /// front of the rim at 45° was a make for being the video's first shot). Empty while the net
    /// has not been seen to move. A file's analysis, which tells its shots at the end, takes these
    /// in place of the calls made at the time; a stream has told those already.
    public var lateCalls: [ShotEvent] {
        guard netSwung > 0 || netSeenMoving else { return [] }
        return unprovenMakes.map { unproven in
            var shot = unproven.shot
            (shot.outcome, shot.reason, shot.missedBy) = (.miss, Self.stillNet(across: unproven.across), nil)
            return shot
        }
    }

    /// Why a make by the path is a miss when a live net did not swing after it.
    static func stillNet(across: Bool) -> String {
        across
            ? "came down through the rim but the net did not move: it bounced out or passed beside"
            : "passed through the rim in the picture but the net barely moved: it went behind or in front of it"
    }

    /// Why a shot the input ended on is undecided.
    static let endedUndecided = "the video ended before the shot was decided"

    /// The observation to follow: the attempt's track if seen, else its continuation, else the best.
    private func choose(_ observations: [BallObservation]) -> BallObservation? {
        if let attempt {
            if let same = observations.first(where: { $0.track == attempt.track }) { return same }
            if let next = observations.first(where: { isContinuation($0, of: attempt) }) { return next }
        }
        return observations.first
    }

    /// A ball picked up by a new track close to where the attempt's ball should be.
    /// Or the same ball back into the picture from above: a high shot that left through the top
    /// edge comes down through it again where it was going (``comesBackFromAbove``); or seen
    /// again near its apex after it was lost there (``reappearsNearItsApex``).
    private func isContinuation(_ ball: BallObservation, of attempt: Attempt) -> Bool {
        guard let last = attempt.points.last else { return false }
        if ball.time - last.time < 0.5, ball.distance(from: last) < rimWidth * 2 { return true }
        return comesBackFromAbove(ball, after: attempt.points[...])
            || reappearsNearItsApex(ball, after: attempt.points[...])
    }

    /// At the picture's top edge (a high shot leaves through it and comes back down through it).
    /// `radius`: the ball's size when `point` is seen smaller than it is (cut by the edge, or
    /// broken in two by something in front of it).
    private func nearTop(_ point: BallObservation, radius: Double? = nil) -> Bool {
        point.y < max(point.radius, radius ?? 0) * 3 + 4
    }

    /// Whether `ball`, at the top edge, is a ball that left upward through it as the last of
    /// `points` did, within ``Configuration/lostTimeout``: where that one was going across the
    /// picture, within two rim widths (a ball keeps its speed across in flight; a shot from the
    /// edge of the picture crosses a good part of it while out of sight). A ball that comes back
    /// smaller than it left (``Configuration/recededAbove``) flew away from the camera, and slowed
    /// across the picture as it went: it comes back anywhere between where it left and where that
    /// speed would have taken it (behind-3703, a long from behind the shooter: back 0.67 s later
    /// at two thirds of its size, 2.4 rim widths short of where its speed pointed).
    private func comesBackFromAbove(_ ball: BallObservation, after points: ArraySlice<BallObservation>) -> Bool {
        guard let last = points.last, ball.time > last.time, ball.time - last.time < configuration.lostTimeout,
            nearTop(ball)
        else { return false }
        let rising = points.suffix(6)
        // Seen smaller than it is as it went (cut by the edge, broken up): its size before says.
        let size = rising.map(\.radius).max() ?? last.radius
        guard nearTop(last, radius: size), isOneFlight(rising) else { return false }
        guard let first = rising.first, last.time - first.time > 0.05, first.y > last.y else { return false }
        let going = whereItWasGoing(rising, at: ball.time)
        if ball.radius < size * configuration.recededAbove {
            return ball.x > min(last.x, going) - rimWidth * 2 && ball.x < max(last.x, going) + rimWidth * 2
        }
        return abs(ball.x - going) < rimWidth * 2
    }

    /// Whether `ball` is the ball the last of `points` was, lost for a moment near the top of its
    /// flight (a dark ball against a dark ceiling: sideLeft-3403, 0.4 s): that one was climbing
    /// (half a rim width or more in its last six points: a ball in the hands, or a speck, does
    /// not), and `ball` is seen within ``Configuration/lostTimeout`` within a rim width of the
    /// height where it was lost, and within two of where its speed across was taking it.
    private func reappearsNearItsApex(_ ball: BallObservation, after points: ArraySlice<BallObservation>) -> Bool {
        guard let last = points.last, ball.time > last.time, ball.time - last.time < configuration.lostTimeout
        else { return false }
        let rising = points.suffix(6)
        guard rising.count >= 4, let first = rising.first, last.time - first.time > 0.05,
            first.y - last.y >= rimWidth / 2, isOneFlight(rising)
        else { return false }
        return abs(ball.x - whereItWasGoing(rising, at: ball.time)) < rimWidth * 2 && abs(ball.y - last.y) < rimWidth
    }

    /// Whether `points` are one ball's flight: each no further from the one before than a ball
    /// flies in the time between (a rim width a frame at 30 fps, as ``begin(_:time:)`` walks
    /// back). A track that jumped onto something else is not: sideRight-4405's short left through
    /// the top 6.5 rim widths out and came back down 0.6 s later, first as a track that had
    /// followed a shoe and jumped from it to the top edge (346 px in 0.23 s). That jump passed for
    /// a ball rising out of the picture; the next track was taken for its return, and the flight
    /// it came back from was lost: no shot.
    private func isOneFlight(_ points: ArraySlice<BallObservation>) -> Bool {
        zip(points, points.dropFirst()).allSatisfy { flies(from: $0, to: $1) }
    }

    /// Whether a ball can have flown from `a` to `b`: no further than a rim width a frame (at 30
    /// fps) in the time between.
    private func flies(from a: BallObservation, to b: BallObservation) -> Bool {
        b.distance(from: a) < rimWidth * (b.time - a.time) * 30
    }

    /// Where across the picture the ball of `points` would be at `time`, at its speed across over
    /// them (``speedAcross(_:)``) since the last of them.
    private func whereItWasGoing(_ points: ArraySlice<BallObservation>, at time: Double) -> Double {
        let last = points[points.endIndex - 1]
        return last.x + speedAcross(points) * rimWidth * (time - last.time)
    }

    /// The points of a track that left upward through the top of the picture, when `ball`, the
    /// first of a new track, comes back down through it where that one would; or of a track lost
    /// near its apex, when `ball` is where it would be seen again (the latest such).
    private func flightLostAtTheTop(before ball: BallObservation) -> [BallObservation]? {
        Self.latest(
            history.values.compactMap { Self.ended($0, before: ball) }.filter {
                comesBackFromAbove(ball, after: $0[...]) || reappearsNearItsApex(ball, after: $0[...])
            },
            near: ball
        )
    }

    /// A track's points before `ball`'s frame, when it was last seen before that frame, or in it
    /// on something smaller than `ball` (nil otherwise). A ball's blob split in two near its apex
    /// is followed by two tracks in that frame: the old one on the smaller piece, a new one on the
    /// ball (the turned portrait tuning video at 9.87 s: 0.004 and 0.008 of the width); the old
    /// one's flight up to that frame is the new one's. A new track on the smaller piece is not given it.
    static func ended(_ track: [BallObservation], before ball: BallObservation) -> [BallObservation]? {
        guard let last = track.last, last.time < ball.time || last.time == ball.time && last.radius < ball.radius
        else { return nil }
        return last.time < ball.time ? track : track.filter { $0.time < ball.time }
    }

    /// When the latest shot that followed any of `points`' tracks was decided (nil: none was).
    /// A ball's history can hold more than its own track: the track it went on from
    /// (``flightLostAtTheTop(before:)``), and that one's. What came before then was that shot's.
    private func decidedAt(_ points: [BallObservation]) -> Double? {
        Set(points.map(\.track)).compactMap { decidedTracks[$0] }.max()
    }

    private func startsAttempt(_ ball: BallObservation) -> Bool {
        guard inUpZone(ball), var points = history[ball.track] else { return false }
        if let decided = decidedAt(points) {
            // The same ball again: a shot only after it came well down first (caught, shot again).
            points = points.filter { $0.time > decided }
            guard let lowest = points.map(\.y).max(), lowest > rimLine + 2 * rimWidth else { return false }
        }
        guard points.count >= 3 else { return false }
        // It climbed: a point before its apex is well below the apex. (A ball only seen falling —
        // back into the picture from above it, or a track that jumped onto it — did not.)
        guard let apex = points.indices.min(by: { points[$0].y < points[$1].y }),
            let lowest = points[...apex].map(\.y).max()
        else { return false }
        return lowest - points[apex].y >= configuration.minimumRise * rimWidth && points[apex].y < rimLine
    }

    /// The attempt the first of `balls` that starts one starts (``startsAttempt(_:)``, ``begin(_:time:)``).
    private func shotStarting(among balls: some Sequence<BallObservation>, time: Double) -> Attempt? {
        balls.lazy.filter(startsAttempt).compactMap { self.begin($0, time: time) }.first
    }

    /// Slack for a time between two frames compared with a whole number of frames (the walk back
    /// in ``begin(_:time:)``: frame times are frame numbers over the rate, rounded).
    static let frameTimeSlack = 0.001

    /// The attempt `ball` starts, from where it left the hands; nil when its climb was not one
    /// flight — walking back from its highest point stops at once (the track jumped there, or the
    /// ball was carried up): no shot. ncku_new at 33.8 s, a real phone video: a speck beside the
    /// rim, picked up as a player carried the ball past the camera under it.
    private func begin(_ ball: BallObservation, time: Double) -> Attempt? {
        let since = decidedAt(history[ball.track] ?? []) ?? -Double.infinity
        let recent = (history[ball.track] ?? []).filter { $0.time > since }
        var points = recent.isEmpty ? [ball] : recent
        // Release: walk back from the highest point through continuous flight (the ball moves
        // every frame) to where it was last still, in the shooter's hands.
        var apexIndex = points.indices.min { points[$0].y < points[$1].y } ?? points.count - 1
        var releaseIndex = apexIndex
        // Tracks whose points are in `points` (each is prepended at most once).
        var joined: Set<Int> = [ball.track]
        while true {
            while releaseIndex > 0 {
                let a = points[releaseIndex - 1]
                let b = points[releaseIndex]
                // Moving (`BallObservation.moved(since:)`), and not further than a ball flies (the
                // track jumped to it from something else: ``flies(from:to:)``).
                // Out of sight above the picture in between: one flight (`flightLostAtTheTop`).
                let size = max(a.radius, b.radius)
                let outOfSightAtTheTop =
                    nearTop(a, radius: size) && nearTop(b, radius: size) && b.time - a.time < configuration.lostTimeout
                    // Lost near its apex and seen again further on (`reappearsNearItsApex`): one
                    // flight too. (A new track that starts where the old one stopped is not.)
                    || b.track != a.track && b.moved(since: a)
                        && reappearsNearItsApex(b, after: points[..<releaseIndex])
                // Within 0.1 s of the apex a ball barely moves up or down, and flying towards or away
                // from the camera (45°) barely across either: it is in the air all the same. Three
                // frames at 30 fps are 0.1 s, but frame times are frame numbers over the rate, rounded:
                // 525/30 − 522/30 is 0.10000000000000142 (behind-4502's air ball: its release was put
                // at the apex, 0.5 s late), 30/30 − 27/30 is 0.09999999999999998. A millisecond's
                // slack makes it the three frames every time.
                let atTheApex = points[apexIndex].time - a.time <= 0.1 + Self.frameTimeSlack
                // Unseen for as long as a track lives (six frames missed: 0.23 s at 30 fps), as a dim
                // ball against a wall of nearly its colour is, it flew on all the same.
                let flying = outOfSightAtTheTop || ((atTheApex || b.moved(since: a)) && b.time - a.time < 0.25)
                // Climbing: no lower than a ball's radius under the point before it. A ball seen
                // smaller in one of the two (half hidden, or half lit) has its blob's centre up to
                // the part it lost off its own: sideLeft-4407's bank, seen at 2.8 px for a frame at
                // its apex (4.4 px around it), sat 0.7 px too low and the release went there.
                let slack = a.radius + abs(a.radius - b.radius)
                guard flying, flies(from: a, to: b), b.y <= a.y + slack else { break }
                releaseIndex -= 1
            }
            // Picked up in flight: its rise is another track's, ended just before, near it.
            guard let earlier = earlierFlight(before: points[releaseIndex], since: since, joined: joined) else {
                break
            }
            // Every track in it: a track's points can begin with another's (`flightLostAtTheTop`),
            // and one left out would be prepended again and again.
            joined.formUnion(earlier.map(\.track))
            points = earlier + points[releaseIndex...]
            apexIndex += earlier.count - releaseIndex
            releaseIndex = earlier.count
        }
        guard releaseIndex < apexIndex else { return nil }
        releaseIndex = max(releaseIndex, Self.flightStart(points, from: releaseIndex, apex: apexIndex))
        return Attempt(
            track: ball.track, release: points[releaseIndex], apex: points[apexIndex], started: time,
            points: Array(points[releaseIndex...]), crossing: nil, crossingX: nil, lastSeen: time)
    }

    /// The points of another track (not one `joined` already) that ended within 0.2 s before `point`, its last point no
    /// further from it than a ball flies in that time and below it (the ball was rising): the same
    /// ball, tracked under another number before a track jump or a frame it was not seen in.
    private func earlierFlight(before point: BallObservation, since: Double, joined: Set<Int>) -> [BallObservation]? {
        let candidates = history.values.compactMap { track -> [BallObservation]? in
            guard let points = Self.ended(track, before: point), let last = points.last, !joined.contains(last.track),
                point.time - last.time < 0.2, last.time > since, last.y > point.y
            else { return nil }
            // Not a ball whose own shot was decided since (a rebound on its way down).
            let start = max(since, decidedTracks[last.track] ?? -Double.infinity)
            return flies(from: last, to: point) && last.time > start
                ? points.filter { $0.time > start } : nil
        }
        return Self.latest(candidates, near: point)
    }

    /// Of tracks' points, those whose last point is the latest; of tracks that ended in the same
    /// frame, the one that ended nearest `point`, then the lowest track number. (The tracks come
    /// from a dictionary, whose order changes from run to run: a tie broken by it made the same
    /// video give another release time on another run.)
    static func latest(_ tracks: [[BallObservation]], near point: BallObservation) -> [BallObservation]? {
        tracks.filter { !$0.isEmpty }.min { a, b in
            let (x, y) = (a.last!, b.last!)
            if x.time != y.time { return x.time > y.time }
            let (near, far) = (point.distance(from: x), point.distance(from: y))
            if near != far { return near < far }
            return x.track < y.track
        }
    }

    /// The first point of free flight: a ball in the air follows a parabola in time (height
    /// against time), a ball still pushed up by the hands does not. Fitted to the flight's last
    /// stretch before the apex (half of it, 1/6 to 3/10 s), the parabola is walked back, point by
    /// point, while each point lies within a few pixels of it (refitted as it grows). A gather that
    /// carried the ball up continuously would otherwise put the release a good half second early.
    /// A ball still in the hands lies *above* the curve traced back: they were speeding it up, so
    /// it was climbing slower than free flight would have. A point *below* it is not the hands but
    /// the curve, fitted near the apex where the ball is often half seen or cut by the picture's
    /// top, bending a little too little: it is followed twice as far (sideRight-4001's long was
    /// put 0.43 s after its release, 2.5 and 3.5 px under a curve that bent too little).
    /// One point off the curve is passed over when the one before it is on it: a ball half seen
    /// for a frame (a second blob, a highlight) moves its centre by a few pixels.
    /// A piece of the ball (its blob split by the rim, a cord or a hand: under half its usual
    /// size from the release to the apex) has its centre off the ball's, above or beside it, and
    /// is left out of the fit as a frame not seen: in the fit's seed it bent the curve
    /// (sideLeft-4606's clean make, a piece 6 px above the ball at 640 wide, 0.27 s before its apex: the release
    /// was put there, 0.37 s late, and the shot was not matched to its release). Nor is a piece
    /// the release: too short a flight to fit starts at its first whole point. The usual size is
    /// the middle one of the whole flight, or of its last 0.3 s before the apex when that is
    /// larger: a speck another track followed before the ball rose, joined to the ball's rise as
    /// one flight, can be most of its points (steel behind-4725's long: six specks 2.5–4.5 px
    /// across, then the ball at 12–17 px; the release was put at the first speck, 0.5 s early, and
    /// scored as a shot not found and an extra one).
    static func flightStart(_ points: [BallObservation], from first: Int, apex: Int) -> Int {
        let flight = points[first...apex]
        let nearTheApex = flight.filter { points[apex].time - $0.time <= 0.3 }
        let usual = max(flight.middleRadius ?? 0, nearTheApex.middleRadius ?? 0)
        let whole = (first...apex).filter { $0 == apex || points[$0].radius >= usual / 2 }
        guard let start = flightStart(whole.map { points[$0] }) else { return whole[0] }
        return whole[start]
    }

    /// ``flightStart(_:from:apex:)`` on `points` from the first to the apex (the last); nil when
    /// the flight is too short to fit.
    private static func flightStart(_ points: [BallObservation]) -> Int? {
        let apex = points.count - 1
        let apexTime = points[apex].time
        let seed = min(0.3, max(0.17, (apexTime - points[0].time) / 2))
        guard apexTime - points[0].time >= 0.26,
            var start = points.indices.first(where: { apexTime - points[$0].time <= seed }),
            apex - start >= 2
        else { return nil }
        var fitted = points[start...apex].map { ($0.time, $0.y) }
        func fits(_ point: BallObservation) -> Bool {
            guard let fit = Trajectory.parabola(fitted) else { return false }
            // Under the curve: positive (y grows downward).
            let below = point.y - (fit.a * point.time * point.time + fit.b * point.time + fit.c)
            let tolerance = max(2.5, point.radius * 0.4)
            return below >= -tolerance && below <= 2 * tolerance
        }
        while start > 0 {
            if fits(points[start - 1]) {
                start -= 1
            } else if start - 2 >= 0, fits(points[start - 2]) {
                start -= 2
            } else {
                break
            }
            fitted.insert((points[start].time, points[start].y), at: 0)
        }
        return start
    }

    /// Moves the attempt on by one observation; returns the outcome once decided.
    private func advance(_ attempt: inout Attempt, with ball: BallObservation) -> (ShotOutcome, Reason)? {
        let previous = attempt.points.last ?? ball
        attempt.points.append(ball)
        attempt.lastSeen = ball.time
        attempt.track = ball.track
        if ball.y < attempt.apex.y { attempt.apex = ball }
        let reach = self.reach(attempt)
        let inner = (reach.left + rimWidth * 0.08)...(reach.right - rimWidth * 0.08)
        if let crossing = attempt.crossing {
            // Confirm a make: seen below the rim, under the opening (the net narrows under it), soon
            // after. A ball off the board that came down across the front of the rim falls on
            // beside it, free of the net.
            if ball.y > rimLine + rimWidth * 0.25, ball.x > reach.left, ball.x < reach.right {
                return (.make, "went through the rim")
            }
            if ball.y < rimLine - rimWidth * 0.5 {
                // Back up above the rim: in and out. Keep following.
                attempt.crossing = nil
                return nil
            }
            if let away = bouncedOut(attempt, since: crossing.time) { return (.miss, .bouncedOut(away)) }
            // Seen well under the rim (past the net's bottom) and clear of it to one side, by the
            // track it came down on: it came off the rim, or passed it, and fell on outside; a ball
            // through the net leaves it under the opening.
            if ball.track == previous.track, isBesideTheRim(ball, clear: rimWidth * configuration.clearOfTheRim) {
                return (
                    .miss,
                    "came down through the rim line, then fell on beside the rim: it came off the rim or passed it"
                )
            }
            if ball.time - crossing.time > configuration.confirmationWindow {
                return (.miss, "crossed the rim line but did not drop through")
            }
            return nil
        }
        if previous.y < rimLine, ball.y >= rimLine {
            let x = crossingX(previous, ball, attempt: attempt)
            attempt.crossingX = x
            let dx = abs(ball.x - previous.x)
            let dy = ball.y - previous.y
            let angle = atan2(dy, max(dx, 1e-6)) * 180 / .pi
            if inner.contains(x) {
                attempt.crossing = (
                    previous.time + (ball.time - previous.time) * (rimLine - previous.y) / max(dy, 1e-6), angle
                )
                attempt.steep = angle >= configuration.steepEntry && net != nil
                return nil
            }
            attempt.crossing = nil
            // Which side of the rim is said once the view is known (``finish``).
            return (.miss, .cameDownBeside)
        }
        // Left sideways, well away from the hoop.
        let margin = (configuration.zoneMargin + 2) * rimWidth
        if ball.x < rimLeft - margin || ball.x > rimRight + margin {
            return (.miss, "left away from the rim")
        }
        if isBesideTheRim(ball) {
            return (.miss, "fell beside the rim")
        }
        return nil
    }

    /// The side of the picture ("left" or "right") the ball was last seen going out of: its blob
    /// reached that edge (within half its radius), moving out, outside the rim's span. Beyond the
    /// edge it is past the rim and the board, and nothing there sends it back into the hoop: it
    /// came off the rim or flew past it. (3D court, stop 61, seen slices: from the side on the
    /// left, rim-outs that bounced up off the rim and out of the picture beyond the board were
    /// called indeterminate, "lost sight of the ball near the rim".) A ball gone out of the top
    /// comes back down (``flightLostAtTheTop(before:)``), and is not this; nor is one lost in the
    /// picture, behind the board or the net, which can still drop in.
    private func leftThePicture(_ attempt: Attempt) -> String? {
        let last = attempt.points.suffix(2)
        guard last.count == 2, let before = last.first, let ball = last.last else { return nil }
        let reach = ball.radius * 1.5
        if ball.x + reach >= width, ball.x > before.x, ball.x > rimRight { return "right" }
        if ball.x - reach <= 0, ball.x < before.x, ball.x < rimLeft { return "left" }
        return nil
    }

    /// Whether the attempt's ball sits on the rim: seen within the last 0.1 s over its span, its
    /// middle within a rim width above the rim line; or it has just come down into it (the net or
    /// its path decides it next). A ball rolling round the rim is not yet decided, whatever
    /// ``Configuration/attemptTimeout`` says, up to twice that (behind-4711, held out at stop 62:
    /// a bank came down onto the rim 1.2 s after its release, bounced on it, sat on it for a
    /// second and dropped in 3.1 s after the attempt began, and was called a miss, "no make within
    /// 3.0 s", in the frame it went through the rim line).
    private func isOnTheRim(_ attempt: Attempt, at time: Double) -> Bool {
        if attempt.crossing != nil { return true }
        guard let ball = attempt.points.last, time - ball.time <= 0.1 else { return false }
        return ball.x >= rimLeft && ball.x <= rimRight && ball.y <= rimLine && ball.y >= rimLine - rimWidth
    }

    /// Whether `ball` is 1.5 rim widths or more under the rim line (past the net's bottom) and
    /// more than `clear` pixels outside the rim on either side.
    private func isBesideTheRim(_ ball: BallObservation, clear: Double = 0) -> Bool {
        ball.y > rimLine + rimWidth * 1.5 && (ball.x < rimLeft - clear || ball.x > rimRight + clear)
    }

    /// Where the ball went, pixels across from the rim's centre, when since it came down into the
    /// rim at `since` it was seen twice running at the rim's height (no lower than a quarter of a
    /// rim width under its line) and clear of the rim on one side (``Configuration/clearOfTheRim``):
    /// it hit the rim and bounced out, low, along it — not back up, where the attempt goes on (in
    /// and out). A ball through the net drops under the opening; one that hit the rim shakes the
    /// net as a make does (ncku_new at 10.7 s: 6.9 %), so the net cannot tell.
    func bouncedOut(_ attempt: Attempt, since: Double) -> Double? {
        let last = attempt.points.suffix(2)
        guard last.count == 2, let first = last.first, first.time > since else { return nil }
        let clear = rimWidth * (0.5 + configuration.clearOfTheRim)
        let away = last.map { $0.x - rimCentre }
        guard last.allSatisfy({ $0.y <= rimLine + rimWidth * 0.25 }), away.allSatisfy({ abs($0) >= clear }),
            away[0] * away[1] > 0
        else { return nil }
        return away[1]
    }

    /// The balls to leave out of the net's motion: those seen, with the shot's ball at its usual
    /// size (one half hidden by the net is seen smaller than the pixels it changes), and where it
    /// should be when the tracker missed it for a frame or two behind the cords.
    private func ballsAtNet(_ observations: [BallObservation], time: Double) -> [BallObservation] {
        guard let attempt, let last = attempt.points.last else { return observations }
        let usual = attempt.points.suffix(12).middleRadius ?? 0
        var balls = observations.map { ball in
            var ball = ball
            if ball.track == attempt.track { ball.radius = max(ball.radius, usual) }
            return ball
        }
        if !observations.contains(where: { $0.track == attempt.track }), time - last.time <= 0.2,
            attempt.points.count >= 2
        {
            let before = attempt.points[attempt.points.count - 2]
            let step = max(last.time - before.time, 1e-6)
            let ahead = time - last.time
            var expected = last
            expected.time = time
            expected.x += (last.x - before.x) / step * ahead
            expected.y += (last.y - before.y) / step * ahead
            expected.radius = usual
            balls.append(expected)
        }
        return balls
    }

    /// Where a ball coming down is still at the rim, across the picture: the rim, and from the side
    /// (as the shots so far say) the gap between its back and the board as well — 6 in, a third
    /// of the rim's width, on the side away from the shooter. A ball that comes down there hits
    /// the back of the rim or the board and may yet drop in; from behind the gap lies along the
    /// line of sight.
    private func reach(_ attempt: Attempt) -> (left: Double, right: Double) {
        guard behindVotes <= 0 else { return (rimLeft, rimRight) }
        let gap = rimWidth * 6 / 18
        return attempt.release.x < rimCentre ? (rimLeft, rimRight + gap) : (rimLeft - gap, rimRight)
    }

    /// The angle below horizontal at which the ball came down to the rim line at `x` (within a rim
    /// width of the rim): the slope there of a parabola fitted to its fall from the apex — two
    /// frames alone are a few pixels apart, and a pixel off is degrees off.
    private func entryAngle(_ attempt: Attempt, at x: Double) -> Double? {
        guard x > rimLeft - rimWidth, x < rimRight + rimWidth else { return nil }
        let falling = attempt.points.filter { $0.time >= attempt.apex.time && $0.y <= rimLine + rimWidth / 4 }
        guard falling.count >= 4, let (a, b, _) = Trajectory.parabola(falling.map { ($0.x, $0.y) }) else {
            return attempt.crossing?.angle
        }
        return atan(abs(2 * a * x + b)) * 180 / .pi
    }

    /// Adds this attempt's votes (``behindVotes``) and answers whether the camera stands behind the
    /// shooter, as the shots so far say — one can mislead (a rim-out drops off steeply from the
    /// side too). A ball that came down into the rim votes by how steeply (a miss beside it slants
    /// across the picture from behind as much as from the side); every shot by where it left the
    /// hands, in rim widths from the rim's centre `centre`.
    private func voteFromBehind(_ attempt: Attempt, centre: Double) -> Bool {
        if let angle = attempt.crossing?.angle { behindVotes += angle >= configuration.steepEntry ? 1 : -1 }
        let away = abs(attempt.release.x - centre) / rimWidth
        // Far from the rim in the picture is the side only for a ball that did not fly away from
        // the camera: behind a shooter on the wing, the release is as far off (the tuning seed's
        // behind-1: 6 rim widths), and the ball shrinks on its way.
        behindVotes += away < 3 ? 1 : away > 5 && !flewAway(attempt) ? -1 : 0
        return behindVotes > 0
    }

    /// Where the ball crossed the rim line: between the two frames, or on the parabola fitted to
    /// its flight since it last turned across the picture when they are far apart (a fast ball, a
    /// low frame rate or a dropped frame). A parabola across a turn off the board points where the
    /// ball was going before it (angledLeft-3103's bank: right of the rim).
    private func crossingX(_ a: BallObservation, _ b: BallObservation, attempt: Attempt) -> Double {
        let linear = a.x + (b.x - a.x) * (rimLine - a.y) / max(b.y - a.y, 1e-6)
        let flight = Self.sinceTheLastTurn(attempt.points.suffix(12)).points
        guard b.time - a.time > 0.07, flight.count >= 4,
            let trajectory = Trajectory.fit(flight.map { TrajectoryPoint(time: $0.time, x: $0.x, y: $0.y) })
        else { return linear }
        // Solve a·x² + b·x + c = rimLine for the root between the two frames.
        let (qa, qb, qc) = (trajectory.equation[0], trajectory.equation[1], trajectory.equation[2] - rimLine)
        let discriminant = qb * qb - 4 * qa * qc
        guard qa != 0, discriminant >= 0 else { return linear }
        let roots = [(-qb + discriminant.squareRoot()) / (2 * qa), (-qb - discriminant.squareRoot()) / (2 * qa)]
        let low = min(a.x, b.x) - rimWidth
        let high = max(a.x, b.x) + rimWidth
        return roots.first { $0 >= low && $0 <= high } ?? linear
    }

    /// How the ball moved across the picture around the rim line, once it came down into the rim:
    /// its speed over its last four frames above the line (from where it last turned across the
    /// picture, when it did), and its first six frames a third of a rim width or more under it,
    /// within half a second.
    struct Descent {
        /// Rim widths a second across the picture, coming down to the rim line.
        var comingIn: Double
        /// It turned across the picture in those last frames (off the board, just above the rim).
        var turned: Bool
        /// It was on its way back towards the shooter as it came down to the rim line: off the board
        /// (a turn earlier than those frames is not seen as one).
        var cameBack: Bool
        var under: ArraySlice<BallObservation>
    }

    /// Rim widths a second across the picture over `points`, first to last.
    func speedAcross(_ points: ArraySlice<BallObservation>) -> Double {
        let (first, last) = (points[points.startIndex], points[points.endIndex - 1])
        return (last.x - first.x) / max(last.time - first.time, 1e-6) / rimWidth
    }

    /// The last of `points` since the ball last turned across the picture (off the board), from
    /// the point where it turned; all of them when it did not turn (or there are fewer than three).
    /// A step across of a tenth of the ball's radius or less is the blob's centre wobbling, not a
    /// way the ball went: it neither sets the heading nor turns it (sideRight-4710's rim-out fell
    /// from the rim nearly straight down, 0.9–1.2 px a frame to the left at 640 wide, then 0.2 px to
    /// the right: taken for a turn off the board, it made the fall a bank the net held).
    static func sinceTheLastTurn(_ points: ArraySlice<BallObservation>) -> (
        points: ArraySlice<BallObservation>, turned: Bool
    ) {
        guard points.count >= 3 else { return (points, false) }
        func step(_ index: Int) -> Double {
            let dx = points[index].x - points[index - 1].x
            return abs(dx) > points[index].radius / 10 ? dx : 0
        }
        guard let last = (points.startIndex + 1..<points.endIndex).last(where: { step($0) != 0 }),
            let turn = (points.startIndex + 1..<last).last(where: { step($0) * step(last) < 0 })
        else { return (points, false) }
        return (points[turn...], true)
    }

    func descent(_ attempt: Attempt) -> Descent? {
        guard let crossing = attempt.crossing else { return nil }
        // Only since the ball last turned across the picture: off the board, the speed it came in
        // with is not the speed it fell with.
        let (before, turned) = Self.sinceTheLastTurn(
            attempt.points.filter { $0.time <= crossing.time && $0.y < rimLine }.suffix(4))
        let under = attempt.points.filter {
            $0.time > crossing.time && $0.time - crossing.time < 0.5 && $0.y > rimLine + rimWidth * 0.3
        }.prefix(6)
        guard before.count >= 2 else { return nil }
        let comingIn = speedAcross(before)
        let cameBack = comingIn * (rimCentre - attempt.release.x) < 0
        return Descent(comingIn: comingIn, turned: turned, cameBack: cameBack, under: under)
    }

    /// Whether the ball, come down inside the rim in the picture, kept its speed across the picture
    /// under it, as a ball in free flight does: it passed in front of or behind the rim, not through
    /// the net, which takes most of that speed. Measured on the 3D court a few frames under the rim:
    /// makes kept 0.35–0.6 of it from the side; balls that passed the rim kept 0.96–1.3. At 45° a
    /// make can keep 0.9 or gain speed across (2× with a hand-held camera): the camera's tilt slants
    /// a straight fall, more the faster it falls; so can a ball pushed by the board. Neither is taken
    /// for a ball that went past. Speeds over the last four frames above the rim line (from where it
    /// last turned across the picture, when it did: a long off the board turns just above the rim,
    /// and the speed it came in with says nothing of the one it fell with) and the first four a
    /// third of a rim width or more under it (``Descent``).
    /// Or, when it came off the board — it turned in its last frames above the rim line, was on
    /// its way back towards the shooter when it came down to it, or turned at the line itself
    /// (it went on under the rim the other way across the picture) — whatever it came in with, it
    /// still moved across the picture under the rim at ``Configuration/keptMovingUnder`` rim widths
    /// a second or more (``Configuration/keptMovingUnderAlongTheView`` when it did not fly across
    /// the picture), steadily (``acrossUnderTheRim(_:)``): a long off the board turns a frame or
    /// two above the rim, or in the frame it crosses the line, too late for the speed it came off
    /// the board with to be measured, and its knock shakes the net as a make does. A bank comes off
    /// the board the same way, but the net stops it (``droppedIn``). (3D court, stop 63, seen:
    /// sideLeft-4607's long hit the board in the frame it crossed the rim line, 3.5 rim widths a
    /// second towards it, and went on under the rim at 2.6 back; at 45°, angledLeft-4718's at 3.5.)
    /// `descent` is ``descent(_:)`` of the attempt, `acrossTheView` ``acrossTheView(_:)``'s answer.
    func passedBeside(_ attempt: Attempt, _ descent: Descent?, acrossTheView: Bool) -> Bool {
        guard let descent, descent.under.count >= 3 else { return false }
        let (comingIn, goingOn) = (descent.comingIn, speedAcross(descent.under.prefix(4)))
        if abs(comingIn) >= configuration.movingAcross && configuration.keptAcross.contains(goingOn / comingIn) {
            return true
        }
        // Off the board a ball turns just above the rim, and the frames since say little of its
        // speed: under the rim alone, a ball still moving across fast and steadily is in no net.
        // Only a ball that came off the board (it turned, was on its way back, or went on under the
        // rim the other way): one seen coming in towards the board and going on is measured
        // against its own speed, above. At 45° and from behind a make's straight fall slants across
        // the picture with the camera's tilt, more the faster it falls: there the ball must move
        // faster (seen: makes off the board from behind 1.6 at most).
        guard let under = acrossUnderTheRim(attempt), under.steady,
            descent.turned || descent.cameBack || under.speed * descent.comingIn < 0
        else { return false }
        let least = acrossTheView ? configuration.keptMovingUnder : configuration.keptMovingUnderAlongTheView
        return abs(under.speed) >= least
    }

    /// Whether the ball, flown across the picture (from the side) into the rim at
    /// ``Configuration/movingAcross`` rim widths a second or more, went on under it straight down,
    /// steadily (``Configuration/fellStraight``): the net took its speed across. A ball that passed
    /// the rim keeps that speed; one back off the board or off the rim moves on across the other way.
    /// `descent` is ``descent(_:)`` of the attempt, `acrossTheView` ``acrossTheView(_:)``'s answer.
    func fellStraightDown(_ attempt: Attempt, _ descent: Descent?, acrossTheView: Bool) -> Bool {
        guard acrossTheView, let descent, abs(descent.comingIn) >= configuration.movingAcross else { return false }
        return wentStraightDown(attempt, slowerThan: configuration.fellStraight)
    }

    /// Whether the ball went on under the rim straight down, steadily: across the picture at less
    /// than `limit` rim widths a second (``acrossUnderTheRim(_:)``).
    func wentStraightDown(_ attempt: Attempt, slowerThan limit: Double) -> Bool {
        guard let under = acrossUnderTheRim(attempt) else { return false }
        return under.steady && abs(under.speed) < limit
    }

    /// How fast the ball moved across the picture under the rim, rim widths a second, and whether
    /// steadily: a line fitted to where it was seen in its first 0.4 s a third of a rim width or
    /// more under the rim line, at its full size (a ball half hidden by the rim or the net is seen
    /// smaller, its middle off: sideRight-4717's long at 0.6 of its size, 0.04–0.07 s under the
    /// line, seemed to move 1.8 rim widths a second, and 2.3 after). Steady: none of them more
    /// than a tenth of a rim width off that line. Nil when fewer than five such frames.
    func acrossUnderTheRim(_ attempt: Attempt) -> (speed: Double, steady: Bool)? {
        guard let crossing = attempt.crossing,
            let size = attempt.points.filter({ $0.time <= crossing.time }).suffix(6).middleRadius
        else { return nil }
        let under = attempt.points.filter {
            $0.time > crossing.time && $0.time - crossing.time < 0.4 && $0.y > rimLine + rimWidth * 0.3
                && $0.radius >= 0.85 * size
        }
        guard under.count >= 5, let (speed, at) = Trajectory.line(under.map { ($0.time, $0.x) }) else { return nil }
        let steady = under.allSatisfy { abs(at + speed * $0.time - $0.x) <= rimWidth / 10 }
        return (speed / rimWidth, steady)
    }

    /// How a ball that flew across the picture (from the side) and came down within the rim's
    /// opening, staying under it, dropped in while the net moved at least a little; nil when it did
    /// not. Came off the board into the rim (``Descent/cameBack``) and stopped under it — moving
    /// across at less than ``Configuration/heldUnder`` rim widths a second over its first four
    /// frames there: a bank. It drops in nearly straight, and swings the net less than a ball that
    /// flew through it across the picture. On the 3D court (stop 46, seen slices) side-on banks
    /// under the rim moved across at 0.6 rim widths a second at most and set the net moving
    /// 0.4–12 %; the longs that came back off the board past the rim kept 2.2 or more, and the
    /// steep rim-outs that came back left the net still. Or, whichever way it came in, it fell
    /// under the rim straight down, steadily (``acrossUnderTheRim(_:)``, under
    /// ``Configuration/droppedStraight``): a soft one off the rim or the board, which the net
    /// barely moved for (sideRight-4720's bank, seen at stop 63, came back off the rim towards the
    /// board at 1 rim width a second and fell at 0.05 across, the net moving 0.46 %; the side-on
    /// misses the still net called moved under the rim at 0.8 or more).
    func droppedIn(_ attempt: Attempt, _ descent: Descent?, acrossTheView: Bool, netPeak: Double) -> String? {
        guard netPeak >= configuration.netMovedALittle, let descent, descent.under.count >= 4,
            acrossTheView, let crossingX = attempt.crossingX
        else { return nil }
        // In the net: it came down within the rim and stays under it.
        let opening = rimLeft...rimRight
        guard opening.contains(crossingX), descent.under.prefix(4).allSatisfy({ opening.contains($0.x) }) else {
            return nil
        }
        if descent.cameBack, abs(speedAcross(descent.under.prefix(4))) < configuration.heldUnder {
            return "dropped in off the board: the net moved and held it"
        }
        if wentStraightDown(attempt, slowerThan: configuration.droppedStraight) {
            return "dropped in straight down: the net moved a little and held it"
        }
        return nil
    }

    /// How far above where free flight would have put it, rim widths, the ball was seen
    /// ``Configuration/lagTime`` after it came down through the rim line (nil when it was not
    /// seen then, within 0.06 s, or too little of its fall was). A net takes some of a ball's fall
    /// as it drops through (a real one as the 3D court's: a swish leaves the net visibly slower);
    /// a ball that passed the rim, or came off it, falls on freely. Two measures: from a parabola
    /// fitted to its fall in the last half second above the rim (since its apex), and from its
    /// speed in the last frames around the line with gravity added (21.4 rim widths/s², 9.8 m/s²
    /// over an 18 in rim) — the first is steadier, the second not misled by a ball that came off
    /// the board just above the rim, whose fall before was another flight.
    func lagUnderTheRim(_ attempt: Attempt) -> (fromApex: Double, fromEntry: Double)? {
        guard let crossing = attempt.crossing,
            let track = attempt.points.last(where: { $0.time <= crossing.time })?.track
        else { return nil }
        let t0 = crossing.time
        // How near ``Configuration/lagTime`` after the line a point must be to be read, seconds.
        let near = 0.06
        // The ball that came down to the line, not another taken up after it (a head, a hand);
        // or, when its track ended before the time looked at, the one that took it up in the next
        // frame, half a rim width or less from where it was last seen (an orange rim splits the
        // ball's blob in two, the cords of the net it falls through another frame or two on; at
        // 60 fps the track that came down to the line often ends one frame under it), and so on.
        var after = attempt.points.filter { $0.time > t0 && $0.track == track }
        var followed = track
        while let last = attempt.points.last(where: { $0.track == followed }),
            last.time < t0 + configuration.lagTime - near,
            let next = attempt.points.first(where: { $0.time > last.time }), next.time - last.time <= 0.05,
            next.distance(from: last) <= rimWidth / 2
        {
            followed = next.track
            after += attempt.points.filter { $0.time > max(t0, last.time) && $0.track == followed }
        }
        // Nor a blob its track took up that is far larger than the ball coming down (a shirt, a
        // head, the ball merged with the shooter: an area three times the ball's). The ball itself
        // keeps its size for the 0.2 s read, or looks smaller when the cords hide part of it.
        // (3D court, seen: a clean make at 45° read on a blob 2.7 times its width, "fell on
        // freely"; an air ball from the side on one 2.4 times it, "held by the net".)
        if let usual = attempt.points.filter({ $0.time <= t0 && t0 - $0.time <= 0.3 }).middleRadius {
            after.removeAll { $0.radius > configuration.notTheBallAnyMore * usual }
        }
        guard
            let later = after.min(by: {
                abs($0.time - t0 - configuration.lagTime) < abs($1.time - t0 - configuration.lagTime)
            }), abs(later.time - t0 - configuration.lagTime) <= near
        else { return nil }
        let dt = later.time - t0
        let entry =
            attempt.points.filter { $0.time <= t0 && t0 - $0.time <= 0.12 }.suffix(3)
            + after.filter { $0.time - t0 <= 0.12 }.prefix(1)
        guard entry.count >= 3, let (a, b, c) = fallAboveTheRim(attempt, until: t0) else { return nil }
        // The entry's height and speed at the line, with gravity's share taken out before the fit.
        guard
            let (speed, height) = Trajectory.line(
                entry.map { ($0.time - t0, $0.y - gravity / 2 * ($0.time - t0) * ($0.time - t0)) })
        else { return nil }
        let fromApex = (a * dt * dt + b * dt + c - later.y) / rimWidth
        let fromEntry = (height + speed * dt + gravity / 2 * dt * dt - later.y) / rimWidth
        return (fromApex, fromEntry)
    }

    /// The parabola fitted to the ball's fall to the rim line (reached at `t0`) in the last half
    /// second, since its apex when at least four points follow it, else the last four: its height,
    /// pixels down, against seconds since `t0`; nil when fewer than four points were seen.
    func fallAboveTheRim(_ attempt: Attempt, until t0: Double) -> (a: Double, b: Double, c: Double)? {
        var fall = attempt.points.filter { $0.time <= t0 && t0 - $0.time <= 0.5 && $0.y < rimLine + rimWidth / 4 }
        if let apex = fall.indices.min(by: { fall[$0].y < fall[$1].y }) {
            fall = Array(fall.count - apex >= 4 ? fall[apex...] : fall.suffix(4))
        }
        guard fall.count >= 4 else { return nil }
        return Trajectory.parabola(fall.map { ($0.time - t0, $0.y) })
    }

    /// Whether the ball was held up above the rim line before it came down through it: its fall
    /// there (``fallAboveTheRim(_:until:)``'s curve) gathered speed at under ``Configuration/heldUp`` of
    /// gravity's pull, so it rolled on the rim or slid down the board and dropped off slowly, and
    /// did not fly on past the rim as a long behind or in front of it does.
    func heldUpAboveTheRim(_ attempt: Attempt) -> Bool {
        guard let t0 = attempt.crossing?.time else { return false }
        guard let (a, _, _) = fallAboveTheRim(attempt, until: t0) else { return false }
        return 2 * a < configuration.heldUp * gravity
    }

    /// Whether the net held the ball: it lagged ``Configuration/heldByTheNet`` or more behind free
    /// flight under the rim by both measures (`lag`, ``lagUnderTheRim(_:)``); false when not measured.
    func netHeldTheBall(_ lag: (fromApex: Double, fromEntry: Double)?) -> Bool {
        guard let lag else { return false }
        return min(lag.fromApex, lag.fromEntry) >= configuration.heldByTheNet
    }

    /// Whether the ball came to the rim about as far from the camera as it left the hands, so flew
    /// across the picture, as from the side, and not towards or away from the camera (at 45° and
    /// from behind it is seen larger at the release than at the rim): the middle of the first six
    /// sizes seen against the middle of the last six before the rim, within
    /// ``Configuration/acrossSizeRatio``.
    func acrossTheView(_ attempt: Attempt) -> Bool {
        guard let crossing = attempt.crossing, let sizes = sizes(attempt, until: crossing.time) else { return false }
        return sizes.early <= sizes.late * configuration.acrossSizeRatio
    }

    /// Whether the ball was seen clearly smaller late in its flight (up to the rim line when it came
    /// down through it) than as it left the hands, by ``acrossTheView(_:)``'s measure: it flew away
    /// from the camera.
    func flewAway(_ attempt: Attempt) -> Bool {
        guard let sizes = sizes(attempt, until: attempt.crossing?.time ?? .infinity) else { return false }
        return sizes.early > sizes.late * configuration.acrossSizeRatio
    }

    /// The middle of the first six sizes the attempt saw and of the last six up to `until`, or up
    /// to where it first came back up after it began to fall (``firstBounce(_:)``), whichever is
    /// first; nil when either has fewer than three. Which way the shot flew is its flight from the
    /// hands to the rim: off the rim a ball can bounce anywhere. (sideRight-4710, held out at stop
    /// 61: a rim-out bounced up off the rim's near side and away from the camera, shrinking from 9.5
    /// to 7.4 px at 640 wide, and came down through the rim line inside it. Measured to there, it
    /// flew away from the camera, along the line of sight, where a net moving 0.47 % is a swing: a
    /// make. To the rim it kept its size (11 px at the release): across.)
    private func sizes(_ attempt: Attempt, until: Double) -> (early: Double, late: Double)? {
        let until = min(until, firstBounce(attempt) ?? until)
        let early = attempt.points.prefix(6)
        let late = attempt.points.filter { $0.time <= until }.suffix(6)
        guard early.count >= 3, late.count >= 3, let first = early.middleRadius, let last = late.middleRadius
        else { return nil }
        return (first, last)
    }

    /// When the attempt's ball, falling from its apex, first came back up by its size (it hit the
    /// rim or the board): the time of its lowest point before that; nil when it did not.
    func firstBounce(_ attempt: Attempt) -> Double? {
        var apex: BallObservation?
        var lowest: BallObservation?
        for point in attempt.points {
            if let bottom = lowest {
                if point.y > bottom.y {
                    lowest = point
                } else if bottom.y - point.y >= point.radius {
                    return bottom.time
                }
            } else if let top = apex, point.y - top.y > point.radius {
                lowest = point
            } else if apex.map({ point.y < $0.y }) ?? true {
                apex = point
            }
        }
        return nil
    }

    /// Decides an attempt whose ball came down into the rim, once the net has been watched for
    /// ``Configuration/netWindow``. A net that swung means the ball went through (how much it must
    /// move depends on which way the ball flew, ``acrossTheView``). A crossing too
    /// steep to place (``Attempt/steep``) with a still net is a miss — unless the net has never
    /// swung in this video while the ball's path went through the rim at least once (a hoop with
    /// no net, or one that does not move): then the path decides. Any other crossing is decided by
    /// the path, or, when the ball was lost under the rim, by the net; except that a ball that flew
    /// across the picture, whose path went through the rim, is a miss if the net stayed still
    /// after it had been seen to swing in this video. A net the rim finder saw (``netBelow``) that
    /// moved a little after the ball came down (``Configuration/netMovedALittle``), short of a
    /// swing, is live too, from the first shot and for the rest of the video: the ball brushed it
    /// on its way past, not through. A ball lost after it came down into the rim is a miss when
    /// such a live net did not move at all. A painted net, or white under the rim that is not one, never moves at all, and is left to
    /// the path as before. (Overruling makes by the path on every view
    /// was tried earlier: one call fewer wrong; at 45° makes can leave the net nearly still. From
    /// the side alone, on the seen slices at stop 35: makes by the path moved it 1.3 % or more,
    /// misses 0.06–0.72 %. Since stop 45 the 3D court's net holds the ball, and along the line of
    /// sight makes by the path moved it 2.2 % or more: there a path make that moved a live net less
    /// than a swing across the picture is a miss too.) Along the line of sight, a steep ball that
    /// came down on the rim (``Configuration/offCentreBounce``) and moved the net less than that
    /// bounced out. A ball seen to bounce out off the rim (``bouncedOut(_:since:)``) is a miss
    /// whatever the net did. From the side, a ball a live net that moved a little would call a miss
    /// dropped in when it came down within the rim and was held under it (``droppedIn``). Last,
    /// how the ball fell under the rim (``lagUnderTheRim(_:)``): a miss
    /// only because the net did not move is a make when the ball was held
    /// (``Configuration/heldByTheNet``), and a held ball did not pass beside the rim
    /// (``passedBeside(_:_:acrossTheView:)``); a make is a miss when the ball fell on freely
    /// (``Configuration/fellFreely``) and the net did not swing as a ball through it does: from
    /// the side ``Configuration/brushedTheNet``, along the line of sight
    /// ``Configuration/swungThroughTheNet``, unless, from the side, it went on straight down
    /// (``fellStraightDown(_:_:acrossTheView:)``).
    /// `cutOff`: the input ended before ``Configuration/netWindow`` was over, so a net that has
    /// not swung yet says nothing: a steep crossing is then undecided, and a make by the path stands.
    private func judge(_ attempt: Attempt, at time: Double, cutOff: Bool = false) -> ShotEvent {
        let since = attempt.crossing?.time ?? attempt.started
        let peak = netHistory.filter { $0.time > since }.map(\.motion).max() ?? 0
        let across = acrossTheView(attempt)
        let descent = descent(attempt)
        let swung = peak >= (across ? configuration.netMotionForMake : configuration.netMotionForMakeAlongTheView)
        let netIsDead = netSwung == 0 && netStill >= 1
        // Seen to be a net that moves: it swung for a shot before, or the finder saw one and it
        // moved, now or after an earlier shot.
        if netBelow, peak >= configuration.netMovedALittle { netSeenMoving = true }
        let netIsLive = netSwung > 0 || netSeenMoving
        if swung {
            netSwung += 1
        } else if attempt.geometry?.0 == .make, !cutOff {
            netStill += 1
        }
        let offCentre = inchesOffCentre(attempt) ?? 0
        var outcome: (ShotOutcome, Reason)
        // A make by the path that left a net not yet seen to move short of a swing (``lateCalls``).
        var unproven = false
        // A miss only because the net did not move after the ball came down into the rim.
        var saidByTheNet = false
        if let geometry = attempt.geometry, case .bouncedOut = geometry.1 {
            // Seen to bounce out off the rim: the net it shook says nothing.
            outcome = geometry
        } else if attempt.steep, swung, !across, peak < configuration.netMotionForMake,
            abs(offCentre) >= configuration.offCentreBounce
        {
            outcome = (
                .miss,
                "came down on the rim \(Int(abs(offCentre).rounded())) in \(offCentre < 0 ? "left" : "right") of its centre and bounced out: the net barely moved"
            )
        } else if attempt.steep {
            if swung {
                outcome = (.make, "the net swung after the ball came down into the rim")
            } else if cutOff {
                outcome = (.indeterminate, "the video ended before the net could show whether it went in")
            } else if netIsDead && !netIsLive {
                outcome = attempt.geometry ?? (.indeterminate, "came down at the rim and was lost")
            } else if let how = droppedIn(attempt, descent, acrossTheView: across, netPeak: peak) {
                outcome = (.make, .said(how))
            } else {
                outcome = (.miss, "came down at the rim but the net did not move")
                saidByTheNet = true
            }
        } else if let geometry = attempt.geometry {
            outcome = geometry
            // A ball through the hoop moves a live net (once it has been seen to move, so a hoop
            // without a net is not taken for one) as much as a swing across the picture, whichever
            // way it flew. From the side, one seen dropping below the rim that left it still
            // bounced out sideways or passed beside it. Along the line of sight (45°, behind the
            // shooter) a ball behind or in front of the rim passes through its ellipse in the
            // picture; seen slices (stop 47): makes by the path moved the net 2.2 % or more (real
            // phone videos 1.2 % or more), longs that passed behind it 0.32 % and 0.81 %.
            if geometry.0 == .make, peak < configuration.netMotionForMake, !cutOff {
                if !across, peak >= configuration.netMotionForMakeAlongTheView, heldUpAboveTheRim(attempt) {
                    outcome = (.make, "rolled on the rim and dropped in: the net moved")
                } else if netIsLive, let how = droppedIn(attempt, descent, acrossTheView: across, netPeak: peak) {
                    outcome = (.make, .said(how))
                } else if netIsLive {
                    outcome = (.miss, .said(Self.stillNet(across: across)))
                    saidByTheNet = true
                } else {
                    unproven = true
                }
            }
        } else {
            // Lost after it came down into the rim: a net that swung says it went through; a live net
            // that did not move at all, that it did not (it passed in front of or behind the rim, out
            // of sight); anything else is unclear.
            outcome =
                swung
                ? (.make, "lost in the net, which swung")
                : netIsLive && peak < configuration.netMovedALittle && !cutOff
                    ? (.miss, "came down at the rim and was lost, and the net did not move")
                    : (
                        .indeterminate,
                        .said(cutOff ? Self.endedUndecided : "went through the rim line but was not seen below it")
                    )
        }
        // How the ball fell under the rim: held by the net, or on freely past it (measured once,
        // and only when a rule can use it).
        let lag = saidByTheNet || outcome.0 == .make ? lagUnderTheRim(attempt) : nil
        if saidByTheNet, netHeldTheBall(lag) {
            outcome = (.make, "dropped through the net, which held it, though it barely moved")
        } else if outcome.0 == .make, peak < (across ? configuration.brushedTheNet : configuration.swungThroughTheNet),
            let lag, max(lag.fromApex, lag.fromEntry) < configuration.fellFreely,
            !fellStraightDown(attempt, descent, acrossTheView: across)
        {
            outcome = (
                .miss,
                "fell on under the rim as fast as it came: it passed the rim or came off it, the net did not hold it"
            )
            unproven = false
        }
        // A ball the net held did not pass beside the rim, whatever its speed across under it said.
        if outcome.0 == .make, passedBeside(attempt, descent, acrossTheView: across), !netHeldTheBall(lag) {
            outcome = (.miss, .passedBeside)
            unproven = false
        }
        let shot = finish(attempt, outcome.0, outcome.1, at: time, netMotion: peak)
        if unproven { unprovenMakes.append((shot, across)) }
        return shot
    }

    /// Where the ball crossed the rim line, inches across the picture from the rim's centre
    /// (negative: left); nil when it was not seen to cross.
    private func inchesOffCentre(_ attempt: Attempt) -> Double? {
        attempt.crossingX.map { ($0 - rimCentre) * inchesPerPixel }
    }

    /// Marks every track that followed `attempt`'s ball as done with at `time` (the attempt's own
    /// is its last point's): under the rim the attempt goes on with whichever track has the ball
    /// (``isContinuation(_:of:)``), and the one it flew on can live on beside it. Marked too, that
    /// one's flight is not taken for the next shot's (angledRight-4707, held out at stop 61: the
    /// long went on under the rim as a new track; its own went on to the floor, and a track that
    /// went on from it 2 s later began the air ball with the long's flight: the long counted
    /// twice, the air ball not at all).
    private func setAside(_ attempt: Attempt, at time: Double) {
        for track in Set(attempt.points.map(\.track)) { decidedTracks[track] = time }
        decidedTracks = decidedTracks.filter { time - $0.value < 10 }
    }

    private func finish(
        _ attempt: Attempt, _ outcome: ShotOutcome, _ reason: Reason, at time: Double, netMotion: Double? = nil
    ) -> ShotEvent {
        count += 1
        lastRelease = attempt.release.time
        setAside(attempt, at: time)
        let points = attempt.points.map { TrajectoryPoint(time: $0.time, x: $0.x / width, y: $0.y / height) }
        let rising = points.prefix { $0.time <= attempt.apex.time + 0.4 }
        // Across the picture at the rim, inches from its centre: along the shot from the side,
        // across it from behind (where the picture's entry angle is the camera's, not the ball's).
        let centre = rimCentre
        let across = inchesOffCentre(attempt)
        let fromBehind = voteFromBehind(attempt, centre: centre)
        // Along the line from the shooter: past the centre is deep.
        let depth = fromBehind ? nil : across.map { $0 * (attempt.release.x < centre ? 1 : -1) }
        let leftRight = fromBehind ? across : nil
        let words: String
        var missedBy: MissSide?
        switch reason {
        case .said(let said):
            words = said
        case .cameDownBeside:
            if let depth {
                words = depth < 0 ? "came down in front of the rim" : "came down beyond the rim"
                missedBy = depth < 0 ? .short : .long
            } else if let leftRight {
                words = leftRight < 0 ? "came down left of the rim" : "came down right of the rim"
                missedBy = .wide
            } else {
                words = "came down beside the rim"
            }
        case .passedBeside:
            // From the side, in front of or behind the rim is wide of it; from behind, short or long.
            words =
                fromBehind
                ? "fell short or long of the rim: it kept its speed across under it, which a net takes"
                : "went wide: it passed in front of or behind the rim and kept its speed across under it, which a net takes"
            missedBy = fromBehind ? nil : .wide
        case .bouncedOut(let away):
            // From behind, to one side; from the side, over the rim's far side (long) or back
            // towards the shooter (off the front of the rim or the back: the picture cannot tell).
            if fromBehind {
                words = "hit the rim and bounced out to the \(away < 0 ? "left" : "right")"
                missedBy = .wide
            } else if away * (attempt.release.x < centre ? 1 : -1) > 0 {
                words = "hit the rim and bounced out over its far side"
                missedBy = .long
            } else {
                words = "hit the rim and bounced back out towards the shooter"
            }
        }
        return ShotEvent(
            number: count, releaseTime: attempt.release.time, apexTime: attempt.apex.time,
            rimTime: attempt.crossing?.time,
            decidedTime: time, outcome: outcome, reason: words,
            releasePoint: NormalizedPoint(x: attempt.release.x / width, y: attempt.release.y / height),
            entryAngle: fromBehind ? nil : attempt.crossingX.flatMap { entryAngle(attempt, at: $0) },
            apexHeight: (rimLine - attempt.apex.y) / height,
            trajectory: Trajectory.fit(Array(rising.count >= 3 ? rising : points[...])),
            depth: depth, leftRight: leftRight,
            arcFeet: (rimLine - attempt.apex.y) * inchesPerPixel / 12, netMotion: netMotion,
            missedBy: outcome == .miss ? missedBy : nil)
    }
}

extension Collection where Element == BallObservation {
    /// The middle of the balls' radii (the larger middle one of an even count): their usual size,
    /// whatever a piece or a merged blob in a frame or two said; nil when there are none.
    var middleRadius: Double? {
        let radii = map(\.radius).sorted()
        return radii.isEmpty ? nil : radii[radii.count / 2]
    }
}
