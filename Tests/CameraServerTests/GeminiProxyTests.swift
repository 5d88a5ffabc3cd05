import CameraCommon
import CameraServer
import CameraTestPeers
import CameraTesting
import Foundation
import LeBotKit
import NIOHTTP1
import Testing

/// LeBot's AI path as it runs for real: our server holds the key and hands out single-use tokens;
/// the client talks to Gemini's own Live endpoint (here the strict stand-in), never to our server.
@Suite(.serialized) struct GeminiProxyTests {
    let shotRequest = ShotAnalysisRequest(
        prompt: "Analyze this basketball shot.",
        images: [[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9]])

    func servers() async throws -> (GeminiTestServer, TestServer) {
        let gemini = GeminiTestServer()
        try await gemini.start()
        let server = try await TestServer.start {
            $0.geminiAPIKey = gemini.apiKey
            $0.geminiBaseURL = gemini.restBase
            $0.ephemeralTokensPerMinute = 30
        }
        return (gemini, server)
    }

    @Test("lebot live --proxy: every shot coached by Gemini Live at Gemini's endpoint, one new token per session")
    func lebotLiveThroughTheServer() async throws {
        let (gemini, server) = try await servers()
        defer {
            gemini.stop()
            Task { await server.stop() }
        }
        let user = try await server.user()
        let folder = try ScratchFolder.make("gemini-proxy")
        let video = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 6, seed: 5).first)
        let shots = video.events.filter(\.kind.isShot).count
        gemini.set(.goAwayAfterAnswer)  // every answer ends its session: each shot needs a new token
        let run = try await SiblingTool.detached(
            "lebot",
            [
                "live", video.path, "--rim", video.rim.map { String($0) }.joined(separator: ","), "--quiet", "--json",
                "--proxy", server.base, "--session-token", user.token, "--gemini-live-url", gemini.liveBase,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let reports = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["shot"] != nil }
        #expect(reports.count == shots)
        #expect(reports.allSatisfy { $0["tipSource"] as? String == "gemini-live" }, "\(run.stdout)")
        #expect(reports.allSatisfy { $0["tip"] as? String == "Great arc, keep it." })
        #expect(gemini.liveTurns == shots)
        #expect(gemini.liveSetups == shots)
        #expect(gemini.refusals.isEmpty, "\(gemini.refusals)")
        // One token per session, each from our server's call to auth_tokens (none wasted on a refusal).
        #expect(gemini.tokenRequests == shots)
        #expect(!run.stdout.contains(gemini.apiKey) && !run.stderr.contains(gemini.apiKey))
    }

    @Test("ephemeral tokens: single use, a one-minute start window, said in the answer; a reused token is refused")
    func tokensAreSingleUseAndSaySo() async throws {
        let (gemini, server) = try await servers()
        defer {
            gemini.stop()
            Task { await server.stop() }
        }
        let user = try await server.user()
        let answer = try await server.request(.POST, "/api/ephemeral-token", token: user.token)
        #expect(answer.status == 200, "\(answer.text)")
        let formatter = ISO8601DateFormatter()
        let startBy = try #require((answer.object["newSessionExpiresAt"] as? String).flatMap(formatter.date(from:)))
        let expires = try #require((answer.object["expiresAt"] as? String).flatMap(formatter.date(from:)))
        #expect((50...61).contains(startBy.timeIntervalSinceNow))
        #expect(expires.timeIntervalSinceNow > 1700)
        #expect(answer.object["uses"] as? Int == 1)

        // The same token for a second session is refused by Gemini: the client must not reuse it.
        let token = try #require(answer.object["token"] as? String)
        let configuration = GeminiConfiguration(liveBase: gemini.liveBase, timeout: .seconds(5))
        let first = GeminiLiveClient(credential: .accessToken(token), configuration: configuration)
        #expect(try await first.analyze(shotRequest).outcome == .make)
        let second = GeminiLiveClient(credential: .accessToken(token), configuration: configuration)
        let reused = await #expect(throws: GeminiError.self) { try await second.analyze(shotRequest) }
        #expect(reused == .unauthorized("Auth token has no uses left."))

        // A token whose start window has passed opens nothing.
        let stale = gemini.issueToken(newSessionWithin: 0.3)
        try await Task.sleep(for: .milliseconds(600))
        let late = GeminiLiveClient(credential: .accessToken(stale), configuration: configuration)
        let refused = await #expect(throws: GeminiError.self) { try await late.analyze(shotRequest) }
        #expect(refused?.description.contains("newSessionExpireTime") == true, "\(String(describing: refused))")

        // The client: a new token for every session (goAway after each answer), none reused.
        gemini.set(.goAwayAfterAnswer)
        let auth = SessionAuthService(base: server.base, sessionToken: user.token)
        let client = GeminiLiveClient(credential: .ephemeral(auth), configuration: configuration)
        for _ in 0..<3 { #expect(try await client.analyze(shotRequest).tip == "Great arc, keep it.") }
        #expect(await client.sessionsOpened == 3)
        #expect(await auth.fetched == 3)
        #expect(gemini.refusals.count == 2, "\(gemini.refusals)")
        // A goAway in the middle of an answer: the question is asked again on a new session.
        gemini.set(.goAwayMidAnswer)
        let before = gemini.liveSetups
        let cut = await #expect(throws: GeminiError.self) { try await client.analyze(shotRequest) }
        #expect(cut == .goingAway)
        #expect(gemini.liveSetups == before + 2, "\(String(describing: cut))")
        #expect(gemini.refusals.count == 2, "a reconnect presented a used token: \(gemini.refusals)")
    }

    @Test("the fallback chain: Live refused → REST through our server → local tips when everything is down")
    func fallbackChainThroughTheServer() async throws {
        let (gemini, server) = try await servers()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let configuration = GeminiConfiguration(liveBase: gemini.liveBase, timeout: .seconds(5))
        let forged = SessionAuthService(base: server.base, sessionToken: "forged")
        let chain = FallbackShotAnalyzer(chain: [
            GeminiLiveClient(credential: .ephemeral(forged), configuration: configuration),
            ProxyShotClient(base: server.base, sessionToken: user.token, timeout: .seconds(5)),
        ])
        var tips = CoachingTipsManager()
        let shot = ShotEvent(
            number: 1, releaseTime: 1, apexTime: 1.5, rimTime: 2, decidedTime: 2.2, outcome: .miss,
            reason: "came down in front of the rim", releasePoint: NormalizedPoint(x: 0.2, y: 0.5), entryAngle: 44,
            apexHeight: 0.1, trajectory: nil, missedBy: .short)
        // The request LeBot sends about a detected shot: its facts are ones the proxy takes.
        let asked = ShotAnalysisRequest(shot: shot, images: shotRequest.images)
        let viaProxy = await chain.analyze(asked, shot: shot, tips: &tips, streak: -1)
        #expect(viaProxy.source == 1, "\(viaProxy.errors)")
        #expect(viaProxy.response.tip == "Great arc, keep it.")
        #expect(gemini.lastPrompt.contains("The on-device detector says: miss, entry angle is 44 degrees."))
        #expect(viaProxy.errors.count == 1)
        #expect(viaProxy.errors.first?.description.contains("401") == true, "\(viaProxy.errors)")
        // Gemini down: the server answers 503 and a local tip that fits a short miss is used.
        gemini.stop()
        try await Task.sleep(for: .milliseconds(200))
        let offline = await chain.analyze(asked, shot: shot, tips: &tips, streak: -1)
        #expect(offline.source == nil)
        #expect(offline.response.outcome == .miss)
        #expect(
            offline.response.tip?.lowercased().contains("legs") == true
                || offline.response.tip?.contains("knees") == true)
        #expect(offline.errors.count == 2)
    }
}
