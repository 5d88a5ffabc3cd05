import Foundation

/// Basketball videos nobody here made, from two public GitHub repositories. Their licences do not
/// let us ship them, so they are not in this repository: `scripts/real-footage.sh` copies them out
/// of clones of those repositories, by the git blob named here, so every run scores the same bytes.
///
/// - Phone clips of outdoor courts published with chonyy/AI-basketball-analysis
///   (`static/uploads/`). The truth is the rim's box in the video's first frame, measured by eye
///   on an 8× crop (the ellipse of the hoop's ring, without its bracket). The rims are not
///   orange: a dark, rusty or pink-red ring a few pixels tall under a white board, in sunlight,
///   behind a fence or against the sky — what the finder meets outdoors. The shots were called by
///   eye on 30 fps crops of the rim: a make is the ball dropping through the net; where the net
///   hides which side of the rim the ball fell, the shot counts as an attempt but its make or miss
///   is not scored.
/// - ``hooptuber``: chrisalpuerto/Bball-shot-Detection's `HooptuberDataset1`, one shot per clip,
///   filed by its author under `make/` or `miss/` (their call, not ours): phone clips of pickup
///   games and one-on-ones in one indoor gym, glass boards high on a wall of windows, filmed from
///   the sideline or from under the hoop.
public enum RealFootage {
    public struct Video: Sendable {
        /// The file's name in the folder `scripts/real-footage.sh` fills.
        public var name: String
        /// Its path in chonyy/AI-basketball-analysis and the git blob of the version scored.
        public var source: String
        public var blob: String
        /// `[x, y, width, height]` as fractions of the first frame, from the top left (nil: not
        /// measured, a held-out clip not looked at).
        public var rim: [Double]?
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
        /// The GitHub repository it is published in ("owner/name").
        public var repository = "chonyy/AI-basketball-analysis"
    }

    public struct Shot: Sendable {
        /// When the ball reached the rim (nil: the clip's one shot, whenever it was).
        public var atRim: Double?
        public var made: Bool?
        public init(_ atRim: Double?, _ made: Bool?) { (self.atRim, self.made) = (atRim, made) }
    }

    /// A shot reported as released at `release` is this one when the ball reached the rim after
    /// it, within 2 s (these videos' flights take 0.4–1.5 s; one video is at double speed), or,
    /// for a clip's one shot whose time is not written down, whenever it was released.
    public static func matches(release: Double, _ shot: Shot) -> Bool {
        shot.atRim.map { (release - 0.1)...(release + 2) ~= $0 } ?? true
    }

    /// Every video: ``outdoor`` and ``hooptuber``.
    public static let videos = outdoor + hooptuber

    /// Where tests read the videos (they cannot be shipped, for their licences):
    /// `CAMERACORE_REAL_FOOTAGE`, or `.build/real-footage`, which `make test` fills with
    /// `scripts/real-footage.sh` when clones of their repositories are on the machine
    /// (`REAL_FOOTAGE_MIRROR`).
    public static let place = ProcessInfo.processInfo.environment["CAMERACORE_REAL_FOOTAGE"] ?? ".build/real-footage"

    /// ``place``, when every one of `videos` not held out is in it.
    public static func folder(holding videos: [Video]) -> String? {
        videos.filter { !$0.heldOut }.allSatisfy { FileManager.default.fileExists(atPath: "\(place)/\($0.name)") }
            ? place : nil
    }

    /// Why a test of these videos was skipped.
    public static let missing =
        "not every real video is here: set CAMERACORE_REAL_FOOTAGE, or REAL_FOOTAGE_MIRROR for make test (scripts/real-footage.sh)"

    /// chonyy/AI-basketball-analysis's phone clips of outdoor courts.
    public static let outdoor: [Video] = [
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
            blob: "3709bf896d0539f67c057dfff9ef8fde5d9c64f0", rim: [0.626, 0.326, 0.045, 0.019], heldOut: false,
            shots: [Shot(0.95, false), Shot(4.77, false), Shot(6.45, true), Shot(8.8, true), Shot(11.52, true)],
            // 4.77 s and 6.45 s were written down the other way round until stop 75, when their
            // frames were looked at (LeBot had called them so for many stops, scored 3 of 5): at
            // 4.77 s the ball comes off the board, rolls off the front of the rim and falls
            // outside it, the net still; at 6.45 s it drops into the rim and out of the bottom of
            // the net. Held out until then, it has been seen since, and is a tuning video now.
            scene: "960×540, 12.5 s, the court of sample_video, the board against the sky"),
        Video(
            name: "nckunew.mp4", source: "static/uploads/nckunew.mp4",
            blob: "4560db5cfc513d95acc8f153402a96a552f1693f", rim: [0.626, 0.324, 0.044, 0.020], heldOut: true,
            shots: [Shot(1.0, false), Shot(2.5, true)],
            scene: "960×540, 3 s, the court of sample_video, two shots"),
    ]

    /// chrisalpuerto/Bball-shot-Detection's `HooptuberDataset1` (the commit of 2025-09-18,
    /// 5042375): its 19 `make/makeNNN.mp4` and 11 `miss/missNNN.mp4`, each one shot called by the
    /// dataset's author (the folder). Its `*_AUDIO*` clips are the same shots encoded again (PSNR
    /// over 50 dB against a numbered clip of the same length) and are left out. The odd-numbered
    /// clips are for tuning; the even-numbered ones were held out when this list was written,
    /// before any of them was looked at, and are scored only at the end of a change. Their rims
    /// were measured once they had been scored, with no rim given (stop 75), so that from then on
    /// they can be scored with the true rim too; nothing was tuned on them.
    public static let hooptuber: [Video] = [
        hooptuber(
            "make001", blob: "7c0e2efe1fe7972a8889c9c99264de57210f44a4", rim: [0.3875, 0.1722, 0.0508, 0.0167],
            scene: "1280×720, a one-on-one from the sideline, the hoop small at the top"),
        hooptuber(
            "make002", blob: "57cae3fffc79d8feb98949bff9de1574af8e1e9f", rim: nil,
            scene:
                "720×1280 portrait from under the board: its frame hides the ring, only the net shows (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make003", blob: "e3652e685c80031cb1cbe0afd15a5732f5108fdd", rim: nil,
            scene: "720×1280 portrait from under the board: its frame hides the ring, only the net shows"),
        hooptuber(
            "make004", blob: "86a9a50e8798ab6d7c7d1a40070595dd56f1e17e", rim: nil,
            scene:
                "720×1280 portrait from under the board: its frame hides the ring, only the net shows (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make005", blob: "ec26ca22c63d1b4a92ea0c11a33810aa7962fea8", rim: nil,
            scene: "720×1280 portrait from under the board: its frame hides the ring, only the net shows"),
        hooptuber(
            "make006", blob: "75b0d052321bf1f81e8061dfd1d6d3d6b2e604eb", rim: [0.4000, 0.2542, 0.0289, 0.0097],
            scene:
                "1280×720, a five-on-five game from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make007", blob: "b64298ea33c25d7afe9f221bb12626ed5b2c6b76", rim: [0.4000, 0.2542, 0.0297, 0.0111],
            scene: "1280×720, a five-on-five game from the sideline, the ring 38 px wide"),
        hooptuber(
            "make008", blob: "9d791cb7ce911e9561c01f71c3a4e6907c964d73", rim: [0.4000, 0.2542, 0.0289, 0.0097],
            scene:
                "1280×720, a five-on-five game from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make009", blob: "ed78808b772352923846aa6ced04ddbe865579e3", rim: [0.4000, 0.2556, 0.0297, 0.0097],
            scene: "1280×720, a five-on-five game from the sideline, the ring 38 px wide"),
        hooptuber(
            "make010", blob: "fa8d914ee086f230c05820c35bfa4f00507be4c4", rim: [0.4000, 0.2542, 0.0289, 0.0097],
            scene:
                "1280×720, a five-on-five game from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make011", blob: "867fa8ca3d829cd3c3c4cef2eee0a087437c186e", rim: [0.4000, 0.2528, 0.0273, 0.0097],
            scene: "1280×720, a five-on-five game from the sideline, the ring 35 px wide"),
        hooptuber(
            "make012", blob: "6071bbcbc891001fc2c07c30a902ab1886980594", rim: [0.4000, 0.2542, 0.0289, 0.0097],
            scene:
                "1280×720, a five-on-five game from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make013", blob: "dcfe9bdb0d0d5066cccbedef0d6c586fb1ca8e43", rim: [0.5031, 0.2972, 0.0344, 0.0111],
            scene: "1280×720, a one-on-one from half court, the ring 44 px wide"),
        hooptuber(
            "make014", blob: "f647a1b47b0331dd46ba87cef28b791874f89c80", rim: [0.5031, 0.2972, 0.0352, 0.0097],
            scene:
                "1280×720, a one-on-one from half court (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make015", blob: "284b16676e6fbda1a694bed15365d6ae0ffcb7a3", rim: [0.5031, 0.2972, 0.0359, 0.0111],
            scene: "1280×720, a one-on-one from half court, the ring 46 px wide"),
        hooptuber(
            "make016", blob: "bca1a69176b1eaba4ff2999aeabd759ddc6561d8", rim: [0.5031, 0.2972, 0.0359, 0.0111],
            scene:
                "1280×720, a one-on-one from half court (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make017", blob: "2a13ae46474d7ac1547e092fb73c86823506e870", rim: [0.5031, 0.2972, 0.0375, 0.0111],
            scene: "1280×720, a one-on-one from half court, the ring 48 px wide"),
        hooptuber(
            "make018", blob: "9047aed458a109d5c3f5046dbcb2bad901f98c40", rim: [0.3922, 0.1972, 0.0508, 0.0167],
            scene:
                "1280×720, a one-on-one from the sideline, the hoop near the top (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "make019", blob: "9e6712d2478747a14c61b6f9516346a1c9dee096", rim: [0.4000, 0.2181, 0.0469, 0.0181],
            scene: "1280×720, a one-on-one from the sideline, the camera panning"),
        hooptuber(
            "miss001", blob: "f8d94fed365a20ace6f13d590bc23ffd68b6481a", rim: [0.4195, 0.2708, 0.0414, 0.0111],
            scene: "1280×720, a one-on-one from the sideline"),
        hooptuber(
            "miss002", blob: "8c582dd78e09fae3c4f3cc0ef557d92b16793436", rim: [0.4336, 0.2944, 0.0313, 0.0097],
            scene:
                "1280×720, a one-on-one from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "miss003", blob: "e57dde5010b2c018d1f9bf5a0811c5ac65b27a2c", rim: [0.4391, 0.3194, 0.0305, 0.0097],
            scene: "1280×720, a one-on-one from the sideline, the camera panning"),
        hooptuber(
            "miss004", blob: "e5bfc198e1b504d22b83a42bf094d4f2863a6967", rim: nil,
            scene:
                "720×1280 portrait from under the board: its frame hides the ring, only the net shows (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "miss005", blob: "14a15235dc8b89e4b4233d822e399cf19068b25d", rim: [0.4008, 0.2542, 0.0281, 0.0097],
            scene: "1280×720, a five-on-five game from the sideline"),
        hooptuber(
            "miss006", blob: "6edbc8a9bc6020d4b8ef0763dabfec7219741952", rim: [0.4000, 0.2542, 0.0297, 0.0097],
            scene:
                "1280×720, a five-on-five game from the sideline (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "miss007", blob: "c627d5701c4430aa67bca53778dea9af06750bf8", rim: [0.4000, 0.2542, 0.0289, 0.0097],
            scene: "1280×720, a five-on-five game from the sideline"),
        hooptuber(
            "miss008", blob: "7d48a75f0165920d8671452c80a14fdbee2246e7", rim: [0.5031, 0.2972, 0.0344, 0.0097],
            scene:
                "1280×720, a one-on-one from half court (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "miss009", blob: "04eaa8e08836f7b90cc387436cef558201737073", rim: [0.5031, 0.2972, 0.0352, 0.0083],
            scene: "1280×720, a one-on-one from half court"),
        hooptuber(
            "miss010", blob: "a849dd74c4621ebf5e285e7e9cbd13d19585100a", rim: [0.5031, 0.2972, 0.0352, 0.0097],
            scene:
                "1280×720, a one-on-one from half court (held out: its rim measured after it was scored once, at stop 75)"
        ),
        hooptuber(
            "miss011", blob: "22afe4152a171e879e880f4b026f5a1dcdd5b463", rim: [0.3750, 0.1472, 0.0594, 0.0167],
            scene: "1280×720, a one-on-one from the sideline, the hoop near the top"),
    ]

    /// A clip of ``hooptuber``: `clip` is its file's name in the dataset ("make001"), whose folder
    /// says whether it went in; `rim` measured by eye on its first frame (nil: not measured, or the
    /// board hides the ring) and `scene` what it shows.
    static func hooptuber(
        _ clip: String, blob: String, rim: [Double]? = nil, scene: String = "held out: not looked at"
    ) -> Video {
        let made = clip.hasPrefix("make")
        return Video(
            name: "hooptuber-\(clip).mp4", source: "HooptuberDataset1/\(made ? "make" : "miss")/\(clip).mp4",
            blob: blob, rim: rim, heldOut: (Int(clip.suffix(3)) ?? 0).isMultiple(of: 2), shots: [Shot(nil, made)],
            scene: scene, repository: "chrisalpuerto/Bball-shot-Detection")
    }
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
