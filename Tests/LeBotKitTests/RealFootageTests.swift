import CameraTesting
import Foundation
import LeBotKit
import Testing

/// LeBot on the real phone videos it is tuned on (``RealFootage``, the ones not held out), as a
/// user runs it: no rim given. Each must keep what the benchmark measured — the hoop found where it
/// is, every shot called by eye found, every make and miss the picture shows called right, nothing
/// extra — so a change tuned on the 3D court that costs real footage fails here, not three stops
/// later (stop 60's dark-ball rule lost 45degree-2x a shot and a call, unseen until stop 63).
///
/// The videos cannot be shipped (their licence), so they are read from `CAMERACORE_REAL_FOOTAGE`,
/// or from `.build/real-footage`, which `make test` fills with `scripts/real-footage.sh` when a
/// clone of chonyy/AI-basketball-analysis is on the machine (`REAL_FOOTAGE_CLONE`). Without them
/// these tests are reported skipped, with the reason.
@Suite struct RealFootageTests {
    /// The folder the tuning videos are in, when every one of them is.
    static let folder: String? = {
        let folder = ProcessInfo.processInfo.environment["CAMERACORE_REAL_FOOTAGE"] ?? ".build/real-footage"
        let all = RealFootage.outdoor.filter { !$0.heldOut }.allSatisfy {
            FileManager.default.fileExists(atPath: "\(folder)/\($0.name)")
        }
        return all ? folder : nil
    }()

    @Test(
        .enabled(
            if: folder != nil,
            "no real footage here: set CAMERACORE_REAL_FOOTAGE, or REAL_FOOTAGE_CLONE for make test (scripts/real-footage.sh)"
        ),
        arguments: RealFootage.outdoor.filter { !$0.heldOut }.map(\.name))
    func aRealVideoKeepsItsHoopAndItsShots(name: String) throws {
        let video = try #require(RealFootage.outdoor.first { $0.name == name })
        let truth = try #require(video.rim)
        let analysis = try WorkoutAnalyzer(rim: nil).analyze("\(Self.folder!)/\(name)")
        let found = try #require(analysis.rimFound, "\(name): no hoop found")
        let box = [found.rim.x, found.rim.y, found.rim.width, found.rim.height]
        let score = RimScore(found: box, truth: truth)
        #expect(
            score.isFound,
            "\(name): rim found at \(box), \(score.centre) rim widths from the true one's centre, \(score.width)× its width"
        )
        var tally = RealFootage.Tally()
        tally.add(
            video,
            analysis.shots.map {
                .init(release: $0.releaseTime, made: $0.outcome.made)
            })
        let calls = analysis.shots.map { "\($0.releaseTime) s \($0.outcome)" }.joined(separator: ", ")
        #expect(tally.found == tally.attempts, "\(name): found \(tally.found) of \(tally.attempts) shots (\(calls))")
        #expect(
            tally.correct == tally.callable,
            "\(name): \(tally.correct) of \(tally.callable) makes and misses right (\(calls))")
        #expect(tally.extra == 0, "\(name): \(tally.extra) shots where there was none (\(calls))")
    }
}
