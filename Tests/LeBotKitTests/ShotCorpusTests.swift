import CameraCommon
import CameraTesting
import Foundation
import LeBotKit
import Testing

/// The rendered workout corpus, made once per test run.
enum Corpus {
    /// Made on first use, so a test run alone finds it too.
    static let folder: String = (try? ScratchFolder.make("lebot-corpus")) ?? NSTemporaryDirectory()
    static let videos: Result<[BasketballCorpus.Video], any Error> = Result {
        try BasketballCorpus.generate(in: folder)
    }
}

/// How detected shots line up with the ground truth of one video.
typealias Scored = ShotScore<ShotEvent>

extension ShotScore where Shot == ShotEvent {
    init(truth: [BasketballCorpus.Event], shots: [ShotEvent]) {
        self.init(
            truth: truth, shots: shots, release: \.releaseTime,
            made: { $0.outcome == .indeterminate ? nil : $0.outcome == .make })
    }
}

@Suite(.serialized) struct ShotCorpusTests {
    @Test func attemptsAndOutcomesMatchTheGroundTruth() throws {
        let videos = try Corpus.videos.get()
        var attempts = 0
        var found = 0
        var correct = 0
        var extra = 0
        var depthProblems = 0
        var report: [String] = []
        for video in videos {
            let rim = try RimCalibration(values: video.rim)
            let analysis = try WorkoutAnalyzer(rim: rim).analyze(video.path)
            let scored = Scored(truth: video.events, shots: analysis.shots)
            // Noah's depth: a make comes down inside the 18 in rim (±9 in of its centre); a ball
            // that came down in front of the rim is short of it.
            for shot in analysis.shots {
                if shot.outcome == .make, let depth = shot.depth, abs(depth) > 10 {
                    report.append("\(video.path): make at \(shot.releaseTime) with depth \(depth) in")
                    depthProblems += 1
                }
                if shot.reason == "came down in front of the rim", let depth = shot.depth, depth > -8 {
                    report.append("\(video.path): short miss at \(shot.releaseTime) with depth \(depth) in")
                    depthProblems += 1
                }
                if shot.outcome == .make, shot.depth == nil || shot.arcFeet ?? 0 <= 0 { depthProblems += 1 }
            }
            attempts += scored.attempts
            found += scored.found
            correct += scored.correct
            extra += scored.extra.count
            for event in scored.missed { report.append("\(video.path): missed \(event.kind) at \(event.release)") }
            for (event, shot) in scored.wrong {
                report.append(
                    "\(video.path): \(event.kind) at \(event.release) called \(shot.outcome) (\(shot.reason))")
            }
            for shot in scored.extra {
                report.append("\(video.path): extra shot at \(shot.releaseTime) \(shot.outcome) (\(shot.reason))")
            }
        }
        let recall = Double(found) / Double(max(1, attempts))
        let accuracy = Double(correct) / Double(max(1, found))
        print("LeBot corpus: \(attempts) shots, recall \(recall), accuracy \(accuracy), extra \(extra)")
        print(report.joined(separator: "\n"))
        #expect(attempts >= 34, "the corpus should hold enough shots for a 0.97 recall to mean something")
        #expect(recall >= 0.97, "\(report.joined(separator: "\n"))")
        #expect(accuracy >= 0.95, "\(report.joined(separator: "\n"))")
        // Dribbles and passes are not shots.
        #expect(extra == 0, "\(report.joined(separator: "\n"))")
        #expect(depthProblems == 0, "\(report.joined(separator: "\n"))")
    }
}
