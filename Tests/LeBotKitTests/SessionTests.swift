import CameraCommon
import CameraTesting
import Foundation
import LeBotKit
import Testing

func shot(_ outcome: ShotOutcome, number: Int = 1, angle: Double? = 45, reason: String = "went through the rim")
    -> ShotEvent
{
    ShotEvent(
        number: number, releaseTime: Double(number), apexTime: Double(number) + 0.5, rimTime: Double(number) + 1,
        decidedTime: Double(number) + 1.2, outcome: outcome, reason: reason,
        releasePoint: NormalizedPoint(x: 0.2, y: 0.5), entryAngle: angle, apexHeight: 0.1, trajectory: nil)
}

@Suite struct TrainingSessionTests {
    @Test func statesFollowDetectingAnalyzingFeedbackOnMediaTime() throws {
        let session = TrainingSession(feedbackDuration: 2)
        var transitions: [String] = []
        session.onChange = { transitions.append("\($0.rawValue)→\($1.rawValue)") }
        #expect(throws: TrainingSession.InvalidTransition.self) { try session.shotDetected(shot(.make)) }
        try session.start()
        try session.shotDetected(shot(.make))
        #expect(session.state == .analyzing)
        #expect(throws: TrainingSession.InvalidTransition.self) { try session.start() }
        try session.analysisFinished(ShotAnalysisResponse(outcome: .make, tip: "Swish!"), at: 3)
        session.tick(4.9)
        #expect(session.state == .feedback)
        session.tick(5.0)
        #expect(session.state == .detecting)
        #expect(transitions == ["idle→detecting", "detecting→analyzing", "analyzing→feedback", "feedback→detecting"])
    }

    @Test func streaksAndAnUndecidedShotSettledByTheCoach() throws {
        let session = TrainingSession()
        try session.start()
        for (index, outcome) in [ShotOutcome.make, .make, .make, .miss, .miss].enumerated() {
            try session.shotDetected(shot(outcome, number: index + 1))
            try session.analysisFinished(ShotAnalysisResponse(outcome: outcome, tip: nil), at: Double(index) * 5)
        }
        #expect(session.stats.attempts == 5 && session.stats.makes == 3 && session.stats.misses == 2)
        #expect(session.stats.bestStreak == 3 && session.stats.streak == -2)
        try session.shotDetected(shot(.indeterminate, number: 6))
        try session.analysisFinished(ShotAnalysisResponse(outcome: .make, tip: "In!"), at: 40)
        #expect(session.stats.attempts == 6 && session.stats.makes == 4)
        #expect(session.stats.streak == 1)
    }
}

/// Two shots decided before the first one's tip came (a live session that took on the ball's
/// brightness tells its earlier shots at once): both are counted, and each answer settles its own
/// shot. Before, the second was dropped from the count while it was still listed as "Shot 11" next
/// to "4 of 10 made".
@Test func aShotDecidedWhileTheLastTipIsAwaitedIsCounted() throws {
    let session = TrainingSession()
    try session.start()
    let (first, second) = (shot(.indeterminate, number: 1), shot(.make, number: 2))
    try session.shotDetected(first)
    try session.shotDetected(second)
    #expect(session.stats.attempts == 2 && session.stats.makes == 1)
    // The first shot's answer settles it (a make) but shows no tip: the second is the one on screen.
    try session.analysisFinished(ShotAnalysisResponse(outcome: .make, tip: "Earlier"), for: first, at: 3)
    #expect(session.state == .analyzing && session.stats.attempts == 2 && session.stats.makes == 2)
    try session.analysisFinished(ShotAnalysisResponse(outcome: .make, tip: "Swish!"), for: second, at: 3.1)
    #expect(session.state == .feedback && session.currentTip == "Swish!")
}

@Suite struct CoachingTipsTests {
    @Test func tipsFitTheShotAndNeverRepeatBackToBack() {
        var manager = CoachingTipsManager(seed: 3)
        let flat = manager.tip(
            for: CoachingContext(outcome: .miss, streak: -1, entryAngle: 28, missedBy: .long))
        #expect(flat.lowercased().contains("arc"))
        let short = manager.tip(
            for: CoachingContext(outcome: .miss, streak: -1, entryAngle: 45, missedBy: .short))
        #expect(short.lowercased().contains("legs") || short.lowercased().contains("knees"))
        let wide = manager.tip(for: CoachingContext(outcome: .miss, streak: -2, missedBy: .wide))
        #expect(wide.lowercased().contains("elbow"), "\(wide)")
        let onFire = manager.tip(for: CoachingContext(outcome: .make, streak: 4))
        #expect(CoachingTips.standard.encouragement.contains(onFire))
        var previous = ""
        for index in 0..<40 {
            let tip = manager.tip(for: CoachingContext(outcome: index % 3 == 0 ? .make : .miss, streak: 1))
            #expect(tip != previous)
            previous = tip
        }
    }

    @Test func aUserFileIsValidatedWithEveryProblemNamed() throws {
        let good = try CoachingTips.parse(
            Data(#"{"tips":["Elbow in."],"encouragement":["Nice!"],"makes":["Money!"],"misses":["Next one."]}"#.utf8))
        #expect(good.count == 4)
        do {
            _ = try CoachingTips.parse(
                Data(#"{"tips":["", 3],"encouragement":[],"makes":"Money","extra":[]}"#.utf8), name: "mine.json")
            Issue.record("a bad file was accepted")
        } catch {
            for expected in [
                "unknown key \"extra\"", "tips[0] is blank", "tips[1] is not a string", "\"encouragement\" is empty",
                "\"makes\" must be a list", "\"misses\" is missing",
            ] {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(throws: MediaError.self) { try CoachingTips.parse(Data("not json".utf8)) }
    }

    @Test("a user's own short-miss tips are said for short misses; a file without them gives a general tip")
    func aUsersOwnListsForMissesAreUsed() throws {
        let general = #""tips":["Elbow in."],"encouragement":["Nice!"],"makes":["Money!"],"misses":["Next one."]"#
        let own = try CoachingTips.parse(Data("{\(general),\"short\":[\"Jump!\"],\"wide\":[\"Square up.\"]}".utf8))
        #expect(own.count == 6)
        var manager = CoachingTipsManager(tips: own)
        #expect(manager.tip(for: CoachingContext(outcome: .miss, entryAngle: 45, missedBy: .short)) == "Jump!")
        #expect(manager.tip(for: CoachingContext(outcome: .miss, entryAngle: 45, missedBy: .wide)) == "Square up.")
        // No long list in the file: a general tip, and the file's lists survive a round trip.
        let long = manager.tip(for: CoachingContext(outcome: .miss, entryAngle: 45, missedBy: .long))
        #expect(["Elbow in.", "Next one."].contains(long))
        let again = try CoachingTips.parse(try JSONEncoder().encode(own))
        #expect(again == own)
        do {
            _ = try CoachingTips.parse(Data("{\(general),\"short\":\"Jump!\"}".utf8), name: "mine.json")
            Issue.record("a short list that is not a list was accepted")
        } catch {
            #expect(error.message.contains("\"short\" must be a list"), "\(error.message)")
        }
    }
}

@Suite struct SpeechTests {
    @Test func espeakWritesASpokenWAVThatIsNotSilent() throws {
        let path = NSTemporaryDirectory() + "lebot-speech-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try EspeakSynthesizer().synthesize("Money! Great shot!", style: .forOutcome(.make), to: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count > 10_000)
        #expect(data.prefix(4) == Data("RIFF".utf8))
        // 16-bit samples after the 44-byte header: speech has energy.
        let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let loud = samples.filter { abs(Int($0)) > 2000 }.count
        #expect(loud > samples.count / 50, "\(loud) of \(samples.count) samples above 2000")
        // A make is spoken faster than a miss: shorter audio for the same words.
        let missPath = path + ".miss.wav"
        defer { try? FileManager.default.removeItem(atPath: missPath) }
        try EspeakSynthesizer().synthesize("Money! Great shot!", style: .forOutcome(.miss), to: missPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: missPath)).count > data.count)
        #expect(throws: MediaError.self) {
            try EspeakSynthesizer(executable: "no-such-speaker").synthesize("hi", style: SpeechStyle(), to: path)
        }
    }
}
