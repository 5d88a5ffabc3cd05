import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import LeBotKit
import Testing

/// A ball that is not orange, as on phone videos of outdoor courts: the analysis follows it by its
/// brightness and says so, where colour alone sees no shot at all.
@Suite struct BallCueTests {
    /// Three throws of a dark grey ball (0x504a48, 15 px) across a pale blue sky at a grey rim
    /// beside a white board, one every 2 s; 640×360, 6.5 s.
    static let greyBallVideo = threeThrows(ball: "504a48")
    /// The same with an orange ball.
    static let orangeBallVideo = threeThrows(ball: "e06a1c")

    static func threeThrows(ball colour: String) -> String {
        let path = Corpus.folder + "/\(colour)-ball.mp4"
        try? TestMedia.threeThrows(at: path, ball: colour)
        return path
    }
    static let rim = try! RimCalibration(
        x: TestMedia.threeThrowsRim[0], y: TestMedia.threeThrowsRim[1], width: TestMedia.threeThrowsRim[2],
        height: TestMedia.threeThrowsRim[3])

    @Test func aGreyBallIsFollowedByItsBrightnessAndEveryThrowIsFound() throws {
        let analysis = try WorkoutAnalyzer(rim: Self.rim).analyze(Self.greyBallVideo)
        #expect(analysis.ballCue == .brightness)
        #expect(analysis.attempts == 3, "\(analysis.shots.map(\.releaseTime))")
        // Released at 0.4, 2.4 and 4.4 s.
        for (shot, release) in zip(analysis.shots, [0.4, 2.4, 4.4]) {
            #expect(abs(shot.releaseTime - release) < 0.2, "\(shot.releaseTime)")
        }
    }

    @Test func byColourAloneTheGreyBallIsNeverSeen() throws {
        var analyzer = WorkoutAnalyzer(rim: Self.rim)
        analyzer.ballCue = .colour
        let analysis = try analyzer.analyze(Self.greyBallVideo)
        #expect(analysis.ballCue == .colour)
        #expect(analysis.attempts == 0)
    }

    /// An orange ball is seen by both cues; colour is kept, and the shots a user sees printed
    /// are that pass's, each once.
    @Test func anOrangeBallIsFollowedByItsColourAndEachShotIsToldOnce() throws {
        var told: [Double] = []
        let analysis = try WorkoutAnalyzer(rim: Self.rim).analyze(
            Self.orangeBallVideo, onShot: { told.append($0.releaseTime) })
        #expect(analysis.ballCue == .colour)
        #expect(analysis.attempts == 3)
        #expect(told == analysis.shots.map(\.releaseTime))
        var byBrightness = WorkoutAnalyzer(rim: Self.rim)
        byBrightness.ballCue = .brightness
        #expect(try byBrightness.analyze(Self.orangeBallVideo).attempts == 3, "both passes see these shots")
    }

    /// A file with the rim known is read once, both cues side by side (decoding is most of the work
    /// on a phone's video): the shots told are exactly those a pass by the chosen cue alone finds,
    /// grey ball and orange.
    @Test(arguments: [false, true]) func aFileReadOnceTellsWhatTheChosenCuesOwnPassFinds(grey: Bool) throws {
        let video = grey ? Self.greyBallVideo : Self.orangeBallVideo
        let analysis = try WorkoutAnalyzer(rim: Self.rim).analyze(video)
        var alone = WorkoutAnalyzer(rim: Self.rim)
        alone.ballCue = grey ? .brightness : .colour
        let own = try alone.analyze(video)
        #expect(analysis.ballCue == own.ballCue)
        #expect(analysis.attempts == 3 && analysis.shots == own.shots, "\(analysis.shots) against \(own.shots)")
        #expect(analysis.frames == own.frames && analysis.duration == own.duration)
    }

    /// A camera stream is read once, so both cues follow the ball side by side: colour is told
    /// until brightness has clearly seen more, then brightness, with its earlier shots. A live
    /// session with a worn grey ball is told every throw (by colour alone: none).
    @Test func aStreamReadOnceTellsTheGreyBallsThrowsByBrightness() throws {
        var told: [ShotEvent] = []
        let analysis = try WorkoutAnalyzer(rim: Self.rim).analyze(
            source: .file(Self.greyBallVideo), onShot: { told.append($0) })
        #expect(analysis.ballCue == .brightness)
        #expect(told.map(\.number) == [1, 2, 3] && told == analysis.shots, "\(told.map(\.releaseTime))")
        for (shot, release) in zip(told, [0.4, 2.4, 4.4]) {
            #expect(abs(shot.releaseTime - release) < 0.2, "\(shot.releaseTime)")
        }
        var orange: [ShotEvent] = []
        let byColour = try WorkoutAnalyzer(rim: Self.rim).analyze(
            source: .file(Self.orangeBallVideo), onShot: { orange.append($0) })
        #expect(byColour.ballCue == .colour && orange.map(\.number) == [1, 2, 3] && orange == byColour.shots)
    }

    /// A session of one throw with a grey ball: brightness never sees two shots while the stream
    /// runs, so its shot is told when the stream ends (the file's rule), and said once.
    @Test func aStreamWithOneThrowOfAGreyBallTellsItAtTheEnd() async throws {
        let path = Corpus.folder + "/one-throw-504a48.mp4"
        try TestMedia.threeThrows(at: path, ball: "504a48", seconds: 2.3)
        var told: [ShotEvent] = []
        var cues: [BallCue] = []
        let analysis = try WorkoutAnalyzer(rim: Self.rim).analyze(
            source: .file(path), onShot: { told.append($0) }, onCue: { cues.append($0) })
        #expect(analysis.ballCue == .brightness && cues == [.brightness])
        #expect(told.map(\.number) == [1] && told == analysis.shots, "\(told.map(\.releaseTime))")
        #expect(abs((told.first?.releaseTime ?? 0) - 0.4) < 0.2)
        // The same throw with an orange ball: colour's shot, no word about brightness.
        let orange = Corpus.folder + "/one-throw-e06a1c.mp4"
        try TestMedia.threeThrows(at: orange, ball: "e06a1c", seconds: 2.3)
        cues = []
        let byColour = try WorkoutAnalyzer(rim: Self.rim).analyze(source: .file(orange), onCue: { cues.append($0) })
        #expect(byColour.ballCue == .colour && byColour.attempts == 1 && cues.isEmpty)
        // `lebot live` says so: in words, and as a JSON line before the shot's.
        let rim = TestMedia.threeThrowsRim.map { String($0) }.joined(separator: ",")
        let words = try await lebot(["live", path, "--rim", rim, "--quiet"])
        #expect(words.stdout.contains("follows it by its brightness") && words.stdout.contains("shot 1 "), "\(words)")
        let lines = try await lebot(["live", path, "--rim", rim, "--quiet", "--json"]).stdout.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(
            lines.first?["ballCue"] as? String == "brightness" && lines.dropFirst().first?["shot"] != nil, "\(lines)")
    }
}
