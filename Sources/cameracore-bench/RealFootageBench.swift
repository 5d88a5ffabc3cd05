import CameraTesting
import Foundation
import LeBotKit

/// LeBot on basketball videos nobody here made (``RealFootage``): is the hoop found, and how many
/// of the shots called by eye does `lebot analyze` find and judge right, run as a user runs it
/// (no `--rim`) and with the true rim given (what a user who tapped the rim gets). The videos are
/// read from `folder` (filled by `scripts/real-footage.sh`); the held-out ones only when asked.
enum RealFootageBench {
    typealias Tally = RealFootage.Tally

    /// The videos to score (the held-out ones only when asked), each checked to be in `folder`.
    static func videos(in folder: String, heldOut: Bool) throws -> [RealFootage.Video] {
        let videos = RealFootage.videos.filter { heldOut || !$0.heldOut }
        let missing = videos.filter { !FileManager.default.fileExists(atPath: "\(folder)/\($0.name)") }
        guard missing.isEmpty else {
            throw ValidationFailure(
                "\(folder) lacks \(missing.map(\.name).joined(separator: ", ")): fill it with scripts/real-footage.sh \(folder)"
            )
        }
        return videos
    }

    static func run(folder: String, lebot: String, heldOut: Bool) throws {
        let videos = try videos(in: folder, heldOut: heldOut)
        print("")
        print(
            "LeBot on real footage (\(heldOut ? "tuning and held-out videos" : "tuning videos only")), from \(folder)")
        print("")
        print(
            "| video | held out | rim | finder's box, confidence | no `--rim`: found, right, extra | true rim given: found, right, extra | live, true rim given | live, no `--rim`: rim; found, right, extra |"
        )
        print("|---|---|---|---|---|---|---|---|")
        var rims = 0
        var liveRims = 0
        var (asRun, given, live, liveAsRun) = (Tally(), Tally(), Tally(), Tally())
        for video in videos {
            let path = "\(folder)/\(video.name)"
            let found = try RimFinder().find(in: path)
            let box = found.map(\.rim.values)
            let verdict: String
            switch (box, video.rim) {
            case (let box?, let truth?) where RimScore(found: box, truth: truth).isFound:
                verdict = "right"
                rims += 1
            case (_?, _?): verdict = "**wrong**"
            case (nil, _): verdict = "none"
            case (_?, nil): verdict = "not measured"
            }
            var boxText = "-"
            if let found, let box {
                boxText =
                    "\(box.map { format($0, digits: 3) }.joined(separator: ",")), \(Int((found.confidence * 100).rounded())) %"
            }
            var videoAsRun = Tally()
            if found != nil {
                videoAsRun.add(video, try analyze(path, lebot: lebot))
            } else {
                videoAsRun.attempts = video.shots.count
            }
            // With the true rim, where it was measured (not on a held-out clip nobody looked at).
            var (videoGiven, videoLive) = (Tally(), Tally())
            var (givenCell, liveGivenCell) = ("no rim measured", "no rim measured")
            if let trueRim = video.rim.map({ $0.map { String($0) }.joined(separator: ",") }) {
                videoGiven.add(video, try analyze(path, lebot: lebot, rim: trueRim))
                videoLive.add(video, try liveShots(path, lebot: lebot, rim: trueRim).shots)
                (givenCell, liveGivenCell) = (videoGiven.cells, videoLive.cells)
            }
            // Live with no rim given: found in the stream's first seconds (at the analysis's size).
            var videoLiveAsRun = Tally()
            let liveCell: String
            if let run = try? liveShots(path, lebot: lebot), let liveFound = run.found {
                let right = video.rim.map {
                    RimScore(
                        found: liveFound.rim.values,
                        truth: $0
                    ).isFound
                }
                if right == true { liveRims += 1 }
                videoLiveAsRun.add(video, run.shots)
                liveCell =
                    "\(right.map { $0 ? "right" : "**wrong**" } ?? "not measured"); \(videoLiveAsRun.cells)"
            } else {
                videoLiveAsRun.attempts = video.shots.count
                liveCell = "no hoop: asks for it"
            }
            asRun = asRun + videoAsRun
            given = given + videoGiven
            live = live + videoLive
            liveAsRun = liveAsRun + videoLiveAsRun
            print(
                "| \(video.name) | \(video.heldOut ? "yes" : "no") | \(verdict) | \(boxText) | \(found == nil ? "no hoop: asks for it" : videoAsRun.cells) | \(givenCell) | \(liveGivenCell) | \(liveCell) |"
            )
        }
        print(
            "| all | | \(rims)/\(videos.count) | | \(asRun.cells) | \(given.cells) | \(live.cells) | \(liveRims)/\(videos.count); \(liveAsRun.cells) |"
        )
        print("")
        print(
            "found: shots reported within 2 s before the ball reached the rim / shots called by eye; right: makes and misses called right / found shots whose outcome the picture shows; extra: shots reported where there was none. live: `lebot live FILE [--rim …]` (the file read as a camera stream, once; with no rim, the rim the stream found is scored like the finder's)."
        )
    }

    /// What `lebot live` tells reading the file as a stream (one JSON line per shot): the rim it
    /// found when none is given, and the shots. Throws when it ends in an error (no hoop found).
    static func liveShots(_ path: String, lebot: String, rim: String? = nil) throws -> (
        found: RimFinder.Result?, shots: [ShotEvent]
    ) {
        /// A line of `lebot live --json`: a shot's report, the rim found, or (neither) the
        /// session's stats or its ball cue.
        struct Line: Decodable {
            var shot: ShotEvent?
            var rimFound: RimFinder.Result?
        }
        let run = try Subprocess.run(lebot, ["live", path, "--json", "--quiet"] + (rim.map { ["--rim", $0] } ?? []))
        let lines = try run.stdout.split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
        return (lines.lazy.compactMap(\.rimFound).first, lines.compactMap(\.shot))
    }

    static func analyze(_ path: String, lebot: String, rim: String? = nil) throws -> [ShotEvent] {
        let run = try Subprocess.run(lebot, ["analyze", path, "--json"] + (rim.map { ["--rim", $0] } ?? []))
        return try JSONDecoder().decode(WorkoutAnalysis.self, from: Data(run.stdout.utf8)).shots
    }
}

extension RealFootage.Tally {
    /// ``RealFootage/Tally/add(_:_:)`` with the shots `lebot` reported.
    mutating func add(_ video: RealFootage.Video, _ shots: [ShotEvent]) {
        add(
            video,
            shots.map { .init(release: $0.releaseTime, made: $0.outcome.made) }
        )
    }
}
