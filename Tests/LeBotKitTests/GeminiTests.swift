import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import LeBotKit
import Testing

let tinyJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9]
let request = ShotAnalysisRequest(prompt: "Analyze this basketball shot.", images: [tinyJPEG])

func config(_ server: GeminiTestServer) -> GeminiConfiguration {
    GeminiConfiguration(restBase: server.restBase, liveBase: server.liveBase, timeout: .seconds(5))
}

@Suite(.serialized) struct GeminiLiveTests {
    @Test func setupOnceThenOneTurnPerShotAndTheFencedJSONIsRead() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        let first = try await client.analyze(request)
        #expect(first == ShotAnalysisResponse(outcome: .make, tip: "Great arc, keep it."))
        server.set(
            modelText: "Looks like a miss to me. {\"outcome\": \"miss\", \"tip\": \"Use your legs.\"} Keep going!")
        let second = try await client.analyze(request)
        #expect(second == ShotAnalysisResponse(outcome: .miss, tip: "Use your legs."))
        #expect(server.liveSetups == 1)
        #expect(server.liveTurns == 2)
        #expect(await client.sessionsOpened == 1)
    }

    @Test func goAwayClosesTheSessionAndTheNextShotReconnects() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        server.set(.goAwayAfterAnswer)
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        _ = try await client.analyze(request)
        _ = try await client.analyze(request)
        #expect(await client.sessionsOpened == 2)
        #expect(server.liveSetups == 2)
    }

    /// Shots decided close together are asked at once and queue on one session. When every session
    /// ends after its first answer (a goAway), each of the others must be asked again on a new
    /// session: none of them falls back for a session someone else used up.
    @Test func shotsAskedTogetherAreEachAnsweredWhenEverySessionEndsAfterOneAnswer() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        server.set(.goAwayAfterAnswer)
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        let tips = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<4 { group.addTask { try? await client.analyze(request).tip } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(tips == Array(repeating: "Great arc, keep it.", count: 4))
        #expect(server.liveTurns == 4)
        #expect(server.refusals.isEmpty, "\(server.refusals)")
    }

    @Test func badKeysAndMalformedFramesAreTypedErrors() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        let wrong = GeminiLiveClient(credential: .apiKey("nope"), configuration: config(server))
        let refused = await #expect(throws: GeminiError.self) { try await wrong.analyze(request) }
        guard case .unauthorized = refused else {
            Issue.record("expected unauthorized, got \(String(describing: refused))")
            return
        }
        #expect(!(refused?.description.contains("nope") ?? true))
        server.set(.malformed)
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        let garbled = await #expect(throws: GeminiError.self) { try await client.analyze(request) }
        guard case .invalidResponse = garbled else {
            Issue.record("expected invalidResponse, got \(String(describing: garbled))")
            return
        }
    }

    @Test func aGoAwayMidAnswerIsAskedAgainOnANewSession() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        server.set(.goAwayMidAnswer)
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        // Every session is cut mid-answer: two tries, then the error says why.
        let error = await #expect(throws: GeminiError.self) { try await client.analyze(request) }
        #expect(error == .goingAway)
        #expect(server.liveTurns == 2)
        server.set(.answer)
        #expect(try await client.analyze(request).tip == "Great arc, keep it.")
        #expect(await client.sessionsOpened == 3)
    }

    @Test func whatTheClientSendsIsTheDocumentedShapeAndTheFakeChecksIt() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        let client = GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: config(server))
        _ = try await client.analyze(request)
        #expect(server.refusals.isEmpty, "\(server.refusals)")
        #expect(server.lastPrompt == "Analyze this basketball shot.")
        #expect(server.lastImages == [tinyJPEG])
        // A setup Gemini would refuse (temperature outside 0–2) is a bad request, named, not retried.
        var hot = config(server)
        hot.temperature = 3
        let refused = await #expect(throws: GeminiError.self) {
            try await GeminiLiveClient(credential: .apiKey(server.apiKey), configuration: hot).analyze(request)
        }
        #expect(refused == .badRequest("setup: generationConfig.temperature must be between 0 and 2"))
        #expect(server.liveSetups == 1)
        // A token Gemini never issued is refused like a bad key.
        let forged = GeminiLiveClient(credential: .accessToken("auth_tokens/forged"), configuration: config(server))
        let unknown = await #expect(throws: GeminiError.self) { try await forged.analyze(request) }
        #expect(unknown == .unauthorized("Unknown or invalid auth token."))
    }
}

@Suite(.serialized) struct GeminiRESTTests {
    @Test func generateContentAnswersAndStatusesMapToTheSpecsErrors() async throws {
        let server = GeminiTestServer()
        try await server.start()
        defer { server.stop() }
        let client = GeminiRESTClient(apiKey: server.apiKey, configuration: config(server))
        #expect(try await client.analyze(request).tip == "Great arc, keep it.")
        #expect(server.lastRequestKeys == ["contents", "generationConfig", "systemInstruction"])
        let cases: [(Int, (GeminiError) -> Bool)] = [
            (400, { if case .badRequest = $0 { true } else { false } }),
            (401, { if case .unauthorized = $0 { true } else { false } }),
            (500, { if case .serverError = $0 { true } else { false } }),
            (503, { if case .unavailable = $0 { true } else { false } }),
        ]
        for (status, matches) in cases {
            server.set(.status(status))
            let error = await #expect(throws: GeminiError.self) { try await client.analyze(request) }
            #expect(error.map(matches) == true, "\(status): \(String(describing: error))")
        }
        server.set(.answer)
        let stranger = GeminiRESTClient(apiKey: "wrong", configuration: config(server))
        await #expect(
            throws: GeminiError.unauthorized("INVALID_ARGUMENT: API key not valid. Please pass a valid API key.")
        ) {
            try await stranger.analyze(request)
        }
    }

    @Test func theDirectChainGoesLiveThenRESTThenLocalTips() async throws {
        let server = GeminiTestServer()
        try await server.start()
        let live = GeminiLiveClient(credential: .apiKey("revoked"), configuration: config(server))
        let rest = GeminiRESTClient(apiKey: server.apiKey, configuration: config(server))
        let chain = FallbackShotAnalyzer(chain: [live, rest])
        var tips = CoachingTipsManager()
        let shot = ShotEvent(
            number: 1, releaseTime: 1, apexTime: 1.5, rimTime: 2, decidedTime: 2.2, outcome: .miss,
            reason: "came down in front of the rim", releasePoint: NormalizedPoint(x: 0.2, y: 0.5), entryAngle: 44,
            apexHeight: 0.1, trajectory: nil, missedBy: .short)
        let viaREST = await chain.analyze(request, shot: shot, tips: &tips, streak: -1)
        #expect(viaREST.source == 1)
        #expect(viaREST.response.tip == "Great arc, keep it.")
        #expect(viaREST.errors.count == 1)
        // Offline: every link fails, a local tip that fits a short miss is used.
        server.stop()
        try await Task.sleep(for: .milliseconds(200))
        let offline = await chain.analyze(request, shot: shot, tips: &tips, streak: -1)
        #expect(offline.source == nil)
        #expect(offline.response.outcome == .miss)
        #expect(
            offline.response.tip?.lowercased().contains("legs") == true
                || offline.response.tip?.contains("knees") == true)
        #expect(offline.errors.count == 2)
    }

    @Test func modelTextIsReadFromJSONFencesAndProse() throws {
        #expect(try ShotAnalysisResponse.parse(modelText: #"{"outcome":"MAKE","tip":"Nice"}"#).outcome == .make)
        #expect(try ShotAnalysisResponse.parse(modelText: "```json\n{\"outcome\": \"miss\"}\n```").tip == nil)
        #expect(
            try ShotAnalysisResponse.parse(
                modelText: #"Sure! {"note": {"x": 1}} then {"outcome": "Miss", "tip": "a {brace} in text"}"#
            )
            .tip == "a {brace} in text")
        #expect(throws: GeminiError.self) { try ShotAnalysisResponse.parse(modelText: "I think it went in.") }
        #expect(throws: GeminiError.self) { try ShotAnalysisResponse.parse(modelText: #"{"outcome": "maybe"}"#) }
    }
}
