import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

/// Tries analysers in order — Gemini Live, REST through the proxy — and falls back to a local tip
/// when all fail (offline). The outcome then is the detector's own.
public struct FallbackShotAnalyzer: Sendable {
    public var chain: [any ShotAnalyzing]

    public init(chain: [any ShotAnalyzing]) {
        self.chain = chain
    }

    public struct Answer: Sendable {
        public var response: ShotAnalysisResponse
        /// Which link answered: 0 for the first; nil for the local tips.
        public var source: Int?
        public var errors: [GeminiError]
        /// Seconds the answer took (every coach tried).
        public var seconds: Double = 0
    }

    public func analyze(
        _ request: ShotAnalysisRequest, shot: ShotEvent, tips: inout CoachingTipsManager, streak: Int
    ) async -> Answer {
        var errors: [GeminiError] = []
        let started = ContinuousClock.now
        for (index, analyzer) in chain.enumerated() {
            do {
                let response = try await analyzer.analyze(request)
                return Answer(
                    response: response, source: index, errors: errors, seconds: (ContinuousClock.now - started).seconds)
            } catch {
                errors.append(error)
            }
        }
        let tip = tips.tip(for: CoachingContext(shot, streak: streak))
        return Answer(
            response: ShotAnalysisResponse(outcome: shot.outcome, tip: tip), source: nil, errors: errors,
            seconds: (ContinuousClock.now - started).seconds)
    }
}
