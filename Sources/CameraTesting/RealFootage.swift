/// Basketball videos nobody here made: phone clips of outdoor courts published with
/// chonyy/AI-basketball-analysis on GitHub (`static/uploads/`). Their licence does not let us
/// ship them, so they are not in this repository: `scripts/real-footage.sh` copies them out of a
/// clone of that repository, by the git blob named here, so every run scores the same bytes.
///
/// The truth is the rim's box in the video's first frame, measured by eye on an 8× crop (the
/// ellipse of the hoop's ring, without its bracket). The rims are not orange: a dark, rusty or
/// pink-red ring a few pixels tall under a white board, in sunlight, behind a fence or against the
/// sky — what the finder meets outdoors. The shots were called by eye on 30 fps crops of the
/// rim: a make is the ball dropping through the net; where the net hides which side of the rim
/// the ball fell, the shot counts as an attempt but its make or miss is not scored.
public enum RealFootage {
    public struct Video: Sendable {
        /// The file's name in the folder `scripts/real-footage.sh` fills.
        public var name: String
        /// Its path in chonyy/AI-basketball-analysis and the git blob of the version scored.
        public var source: String
        public var blob: String
        /// `[x, y, width, height]` as fractions of the first frame, from the top left.
        public var rim: [Double]
        /// Looked at while the finder was changed, or kept unseen until the end.
        public var heldOut: Bool
        /// Every shot at this rim: when the ball reached it (seconds of video) and whether it went
        /// in (nil: the picture does not show it clearly enough to say).
        public var shots: [Shot] = []
        /// Moments when a ball flew near the rim that we could not call a shot or not (a ball
        /// close to the camera, one flying over the board): a shot reported there is neither found
        /// nor extra.
        public var unclear: [Double] = []
        /// What the picture shows, in a few words.
        public var scene: String
    }

    public struct Shot: Sendable {
        public var atRim: Double
        public var made: Bool?
        public init(_ atRim: Double, _ made: Bool?) { (self.atRim, self.made) = (atRim, made) }
    }

    /// A shot reported as released at `release` is this one when the ball reached the rim after
    /// it, within 2 s (these videos' flights take 0.4–1.5 s; one video is at double speed).
    public static func matches(release: Double, _ shot: Shot) -> Bool {
        (release - 0.1)...(release + 2) ~= shot.atRim
    }

    public static let videos: [Video] = [
        Video(
            name: "sample_video.mp4", source: "static/uploads/sample_video.mp4",
            blob: "e06876926087f7841b143a295c06b097df12bce9", rim: [0.5635, 0.365, 0.0396, 0.0148], heldOut: false,
            shots: [Shot(2.1, true)],
            scene: "960×540, 45° from the left, one shot, a dark ring with a red bracket, maroon court"),
        Video(
            name: "45degree-2x.mp4", source: "static/uploads/45degree-2x.mp4",
            blob: "1827f35c4c1fa4b73f05e090f9f77dba9818ddc2", rim: [0.646, 0.270, 0.045, 0.015], heldOut: false,
            shots: [Shot(1.9, true), Shot(4.9, nil), Shot(8.0, false)],
            scene: "960×540 at double speed, hand-held and panning, 45°, orange diamonds on a green wall"),
        Video(
            name: "ncku_new.mp4", source: "static/uploads/ncku_new.mp4",
            blob: "0e8a482be687160968721addd476df9c0b0e62b7", rim: [0.492, 0.334, 0.031, 0.020], heldOut: false,
            shots: [
                Shot(0.93, false), Shot(2.63, false), Shot(4.85, nil), Shot(7.77, nil), Shot(10.73, false),
                Shot(13.6, nil), Shot(16.97, true), Shot(19.67, nil), Shot(22.97, nil), Shot(26.45, true),
                Shot(30.4, nil), Shot(35.45, false), Shot(40.1, nil), Shot(43.03, true), Shot(48.95, true),
            ],
            // A ball thrown up close to the camera (10.2 s) and one flying over the board (37.7 s).
            // The rim-out at 35.45 s (it comes off the front of the rim and back up to the left) was
            // missed when the shots were first called and added at stop 48, looking at frames
            // 34.9–35.9 s after LeBot reported a shot there.
            unclear: [10.2, 37.7],
            scene: "640×360, 51 s, far side view against the sky, a grey ring 20 px wide"),
        Video(
            name: "ncku4.mp4", source: "static/uploads/ncku4.mp4",
            blob: "3709bf896d0539f67c057dfff9ef8fde5d9c64f0", rim: [0.626, 0.326, 0.045, 0.019], heldOut: true,
            shots: [Shot(0.95, false), Shot(4.77, true), Shot(6.45, false), Shot(8.8, true), Shot(11.52, true)],
            scene: "960×540, 12.5 s, the court of sample_video, the board against the sky"),
        Video(
            name: "nckunew.mp4", source: "static/uploads/nckunew.mp4",
            blob: "4560db5cfc513d95acc8f153402a96a552f1693f", rim: [0.626, 0.324, 0.044, 0.020], heldOut: true,
            shots: [Shot(1.0, false), Shot(2.5, true)],
            scene: "960×540, 3 s, the court of sample_video, two shots"),
    ]
}

extension RealFootage {
    /// A shot as LeBot reported it, for scoring: when it left the hands (seconds of video) and
    /// what it was called (nil: indeterminate).
    public struct Reported: Sendable {
        public var release: Double
        public var made: Bool?
        public init(release: Double, made: Bool?) { (self.release, self.made) = (release, made) }
    }

    /// Shots called by eye against shots reported, over one or more videos.
    public struct Tally: Sendable, Equatable {
        public var attempts = 0
        public var found = 0
        /// Found shots whose make or miss the picture shows.
        public var callable = 0
        public var correct = 0
        public var extra = 0

        public init() {}

        /// Each shot called by eye is found by the first shot reported that ``matches(release:_:)``
        /// it, and right when that was called as it was (indeterminate is not right); shots reported
        /// that match none, and no moment left ``Video/unclear``, are extra.
        public mutating func add(_ video: Video, _ shots: [Reported]) {
            var unmatched = shots
            for truth in video.shots {
                attempts += 1
                guard let index = unmatched.firstIndex(where: { RealFootage.matches(release: $0.release, truth) })
                else { continue }
                let shot = unmatched.remove(at: index)
                found += 1
                guard let made = truth.made else { continue }
                callable += 1
                if shot.made == made { correct += 1 }
            }
            extra +=
                unmatched.filter { shot in !video.unclear.contains { matches(release: shot.release, .init($0, nil)) } }
                .count
        }

        public static func + (a: Tally, b: Tally) -> Tally {
            var sum = Tally()
            (sum.attempts, sum.found, sum.callable) = (
                a.attempts + b.attempts, a.found + b.found, a.callable + b.callable
            )
            (sum.correct, sum.extra) = (a.correct + b.correct, a.extra + b.extra)
            return sum
        }

        /// "found/attempts, correct/callable, extra", as the benchmark's tables print it.
        public var cells: String { "\(found)/\(attempts), \(correct)/\(callable), \(extra)" }
    }
}
