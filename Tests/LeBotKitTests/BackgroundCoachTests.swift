import CameraCommon
import Testing

@testable import LeBotKit

/// A coach that never answers in time.
struct SilentCoach: ShotAnalyzing {
    var sourceName: String { "silent" }
    func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        try? await Task.sleep(for: .seconds(30))
        throw .timedOut
    }
}

@Suite struct BackgroundCoachTests {
    @Test func shotsStillWaitingWhenTheSessionEndsGetALocalTipAndAreAllReported() {
        let coach = BackgroundCoach(chain: FallbackShotAnalyzer(chain: [SilentCoach()]), tips: CoachingTipsManager())
        let shots = (1...3).map { number in
            ShotEvent(
                number: number, releaseTime: Double(number), apexTime: Double(number) + 0.5, rimTime: nil,
                decidedTime: Double(number) + 1, outcome: number == 2 ? .make : .miss,
                reason: "came down in front of the rim", releasePoint: NormalizedPoint(x: 0.2, y: 0.5),
                entryAngle: nil, apexHeight: 0.1, trajectory: nil)
        }
        for shot in shots { coach.ask(shot: shot, images: [], streak: 0) }
        let started = ContinuousClock.now
        let answers = coach.drain(seconds: 0.5)
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(answers.map(\.0.number) == [1, 2, 3])
        #expect(answers.allSatisfy { $0.1.source == nil && $0.1.errors == [.timedOut] })
        #expect(answers.allSatisfy { ($0.1.response.tip ?? "").isEmpty == false })
        #expect(answers.map(\.1.response.outcome) == [.miss, .make, .miss])
    }
}
