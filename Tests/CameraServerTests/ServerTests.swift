import CGameKit
import CameraCommon
import CameraTestPeers
import CameraTesting
import Crypto
import Foundation
import HTTPTypes
import JWTKit
import LeBotKit
import NIOHTTP1
import Networking
import Testing

@testable import CameraServer

@Suite("Server", .serialized)
struct ServerTests {
    @Test(
        "sign up, sign in, refresh rotates, sign out revokes; tampered and expired tokens are refused",
        arguments: Backend.allCases)
    func accountsAndSessions(backend: Backend) async throws {
        let secret = String(repeating: "k", count: 40)
        let server = try await TestServer.start(on: backend) { $0.sessionSecret = secret }
        defer { Task { await server.stop() } }
        let alice = try await server.user("alice")
        #expect(
            try await server.request(.GET, "/api/me", token: alice.token).object["email"] as? String
                == "alice@example.com")

        // Same e-mail again: 409; wrong password: 401 with no hint which part was wrong.
        let again = try await server.request(
            .POST, "/api/auth/signup", json: ["email": "ALICE@example.com", "password": "whatever-123"])
        #expect(again.status == 409)
        let wrong = try await server.request(
            .POST, "/api/auth/login", json: ["email": "alice@example.com", "password": "nope-nope-nope"])
        #expect(wrong.status == 401)
        #expect(wrong.text.contains("wrong e-mail or password"))
        let login = try await server.request(
            .POST, "/api/auth/login", json: ["email": "alice@example.com", "password": "password-alice"])
        #expect(login.status == 200)
        #expect(login.header("Set-Cookie")?.contains("HttpOnly") == true)

        // Refresh: new tokens (a reused old secret ends the session: AttackTests).
        let refreshed = try await server.request(.POST, "/api/auth/refresh", json: ["refreshToken": alice.refresh])
        #expect(refreshed.status == 200)
        #expect(refreshed.object["refreshToken"] as? String != alice.refresh)
        let newToken = refreshed.object["accessToken"] as? String ?? ""
        #expect(try await server.request(.GET, "/api/me", token: newToken).status == 200)

        // Tampered: flip the payload's subject. Expired: signed with the right key, exp in the past.
        let parts = newToken.split(separator: ".").map(String.init)
        var payload = try JSONSerialization.jsonObject(with: Data(base64URL: parts[1])) as? [String: Any] ?? [:]
        payload["sub"] = "someone-else"
        let forged = [parts[0], base64URL(try JSONSerialization.data(withJSONObject: payload)), parts[2]].joined(
            separator: ".")
        #expect(try await server.request(.GET, "/api/me", token: forged).status == 401)
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        struct Claims: JWTPayload {
            var sub: SubjectClaim
            var sid: String
            var iat: IssuedAtClaim
            var exp: ExpirationClaim
            var typ: String
            func verify(using _: some JWTAlgorithm) throws {}
        }
        let expired = try await keys.sign(
            Claims(
                sub: .init(value: alice.id), sid: "x", iat: .init(value: Date(timeIntervalSinceNow: -7200)),
                exp: .init(value: Date(timeIntervalSinceNow: -3600)), typ: "access"))
        let expiredReply = try await server.request(.GET, "/api/me", token: expired)
        #expect(expiredReply.status == 401)
        #expect(expiredReply.text.contains("expired"))

        // Sign out: this session's token stops working at once; other sessions go on.
        #expect(try await server.request(.POST, "/api/auth/logout", token: newToken).status == 204)
        #expect(try await server.request(.GET, "/api/me", token: newToken).status == 401)
        #expect(try await server.request(.GET, "/api/me", token: login.object["accessToken"] as? String).status == 200)
        let signedOutRefresh = try await server.request(
            .POST, "/api/auth/refresh", json: ["refreshToken": refreshed.object["refreshToken"] as? String ?? ""])
        #expect(signedOutRefresh.status == 401)
    }

    @Test(
        "every route: signed-out callers get 401; user B can neither read nor change user A's records and files",
        arguments: Backend.allCases)
    func everyRouteChecksTheOwner(backend: Backend) async throws {
        let rtsp = RTSPTestServer(auth: .digest)
        try rtsp.start()
        defer { rtsp.stop() }
        let server = try await TestServer.start(on: backend)
        defer { Task { await server.stop() } }
        let a = try await server.user("owner-a")
        let b = try await server.user("intruder-b")

        // A's data: settings, an uploaded clip with thumbnail, a camera with a password, a reel, a workout.
        let settings: [String: Any] = [
            "gameProfileName": "Apex Legends", "videoQuality": "720p", "preRollDuration": 7, "postRollDuration": 2,
        ]
        #expect(try await server.request(.PUT, "/api/settings", token: a.token, json: settings).status == 200)
        #expect(try await server.request(.PUT, "/api/clips/clip-a", token: a.token, json: clipMetadata).status == 200)
        let clip = try ServerMedia.clip.get()
        #expect(try await server.request(.PUT, "/api/clips/clip-a/file", token: a.token, body: clip).status == 200)
        #expect(
            try await server.request(
                .PUT, "/api/clips/clip-a/thumbnail", token: a.token, body: try ServerMedia.jpeg.get()
            ).status == 200)
        let taught: [String: Any] = [
            "name": "Porch Game", "keyword": "you fragged",
            "region": ["x": 0.1, "y": 0.2, "width": 0.5, "height": 0.1],
        ]
        #expect(try await server.request(.POST, "/api/profiles", token: a.token, json: taught).status == 201)
        let camera = try await server.request(
            .POST, "/api/cameras", token: a.token,
            json: ["name": "Porch", "rtspURL": rtsp.url(), "username": rtsp.user, "password": rtsp.password])
        #expect(camera.status == 201, "\(camera.text)")
        let cameraID = camera.object["id"] as? String ?? ""
        let reel = try await server.request(.POST, "/api/reels", token: a.token, json: ["clipIDs": ["clip-a"]])
        #expect(reel.status == 202, "\(reel.text)")
        let reelID = reel.object["id"] as? String ?? ""
        let workout = try await server.request(
            .POST, "/api/lebot/workouts?rim=0.7,0.3,0.07,0.02", token: a.token, body: clip)
        #expect(workout.status == 201, "\(workout.text)")
        let workoutID = workout.object["id"] as? String ?? ""

        // What B tries with A's ids, route by route, and what must come back.
        typealias Attempt = @Sendable () async throws -> Bool
        func status(_ method: HTTPMethod, _ path: String, _ expected: Int, json: Any? = nil, body: [UInt8]? = nil)
            -> Attempt
        {
            let payload = json.flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map(Array.init)
            let headers = payload == nil ? [] : [("Content-Type", "application/json")]
            return {
                try await server.request(method, path, token: b.token, body: payload ?? body, headers: headers).status
                    == expected
            }
        }
        let attempts: [String: Attempt] = [
            "GET /api/me": {
                try await server.request(.GET, "/api/me", token: b.token).object["id"] as? String == b.id
            },
            // B signs out a second session of B's own: that one ends, A's goes on.
            "POST /api/auth/logout": {
                let again = try await server.request(
                    .POST, "/api/auth/login",
                    json: ["email": "intruder-b@example.com", "password": "password-intruder-b"])
                let token = again.object["accessToken"] as? String ?? ""
                let out = try await server.request(.POST, "/api/auth/logout", token: token).status
                let ended = try await server.request(.GET, "/api/me", token: token).status
                let others = try await server.request(.GET, "/api/me", token: a.token).status
                return out == 204 && ended == 401 && others == 200
            },
            "GET /api/settings": {
                try await server.request(.GET, "/api/settings", token: b.token).object["gameProfileName"] as? String
                    != "Apex Legends"
            },
            "PUT /api/settings": status(
                .PUT, "/api/settings", 200,
                json: [
                    "gameProfileName": "Valorant", "videoQuality": "480p", "preRollDuration": 1, "postRollDuration": 1,
                ]),
            "GET /api/profiles": {
                let games = try await server.request(.GET, "/api/profiles", token: b.token).array
                return games.contains { $0["name"] as? String == "Apex Legends" }
                    && !games.contains { $0["name"] as? String == "Porch Game" }
            },
            // B's own game (A's of the same name would be B's to replace only in B's account).
            "POST /api/profiles": status(
                .POST, "/api/profiles", 201,
                json: [
                    "name": "B Game", "keyword": "eliminated",
                    "region": ["x": 0.0, "y": 0.0, "width": 0.3, "height": 0.2],
                ]),
            "POST /api/profiles/calibrate": status(
                .POST, "/api/profiles/calibrate?keyword=fragged", 400, body: Array("not a picture".utf8)),
            "DELETE /api/profiles/{id}": status(.DELETE, "/api/profiles/porch-game", 404),
            "GET /api/reels": {
                let reels = try await server.request(.GET, "/api/reels", token: b.token)
                return reels.status == 200 && reels.array.isEmpty && !reels.text.contains(reelID)
            },
            "DELETE /api/reels/{id}": status(.DELETE, "/api/reels/\(reelID)", 404),
            "GET /api/lebot/analyses/{id}": status(.GET, "/api/lebot/analyses/x", 404),
            "DELETE /api/lebot/analyses/{id}": status(.DELETE, "/api/lebot/analyses/x", 404),
            "GET /api/lebot/workouts": {
                let list = try await server.request(.GET, "/api/lebot/workouts", token: b.token)
                return list.status == 200 && list.array.isEmpty
            },
            "GET /api/lebot/workouts/{id}/video": status(.GET, "/api/lebot/workouts/\(workoutID)/video", 404),
            "DELETE /api/lebot/workouts/{id}": status(.DELETE, "/api/lebot/workouts/\(workoutID)", 404),
            "POST /api/lebot/workouts/{id}/playable": status(
                .POST, "/api/lebot/workouts/\(workoutID)/playable", 404),
            // B tests a connection naming A's camera: refused, and A's stored password is never sent.
            "POST /api/cameras/test": status(.POST, "/api/cameras/test", 404, json: ["cameraID": cameraID]),
            "GET /api/cameras/{id}/profiles": status(.GET, "/api/cameras/\(cameraID)/profiles", 404),
            "GET /api/cameras/{id}/recording": status(.GET, "/api/cameras/\(cameraID)/recording", 404),
            "PUT /api/cameras/{id}/recording": status(
                .PUT, "/api/cameras/\(cameraID)/recording", 404, json: ["enabled": true]),
            "GET /api/cameras/{id}/timeline": status(.GET, "/api/cameras/\(cameraID)/timeline", 404),
            "GET /api/cameras/{id}/playback": status(.GET, "/api/cameras/\(cameraID)/playback", 404),
            "GET /api/cameras/{id}/thumbnail": status(.GET, "/api/cameras/\(cameraID)/thumbnail", 404),
            "PUT /api/cameras/order": status(.PUT, "/api/cameras/order", 404, json: ["ids": [cameraID]]),
            // Account routes act on B's own account only (A's is checked at the end).
            "POST /api/auth/password": status(
                .POST, "/api/auth/password", 403,
                json: ["currentPassword": "wrong-guess", "newPassword": "new-password-b"]),
            "DELETE /api/me": status(.DELETE, "/api/me", 403, json: ["password": "password-owner-a"]),
            // B's code goes to B's address; A's one mail stays the only one to A.
            "POST /api/auth/verify/resend": {
                let sent = try await server.request(.POST, "/api/auth/verify/resend", token: b.token)
                let mailsToA = try server.mail(to: "owner-a@example.com").count
                return sent.status == 202 && sent.object["sentTo"] as? String == "intruder-b@example.com"
                    && mailsToA == 1
            },
            "POST /api/auth/logout-all": {
                let other = try await server.request(
                    .POST, "/api/auth/login",
                    json: ["email": "intruder-b@example.com", "password": "password-intruder-b"])
                let token = other.object["accessToken"] as? String ?? ""
                let out = try await server.request(.POST, "/api/auth/logout-all", token: token).status
                let ended = try await server.request(.GET, "/api/me", token: token).status
                let others = try await server.request(.GET, "/api/me", token: a.token).status
                return out == 204 && ended == 401 && others == 200
            },
            "GET /api/clips": { try await server.request(.GET, "/api/clips", token: b.token).array.isEmpty },
            "GET /api/clips/{id}": status(.GET, "/api/clips/clip-a", 404),
            "DELETE /api/clips/{id}": status(.DELETE, "/api/clips/clip-a", 404),
            "PUT /api/clips/{id}/file": status(.PUT, "/api/clips/clip-a/file", 404, body: clip),
            "GET /api/clips/{id}/file": status(.GET, "/api/clips/clip-a/file", 404),
            "PUT /api/clips/{id}/thumbnail": status(.PUT, "/api/clips/clip-a/thumbnail", 404, body: [0xFF, 0xD8]),
            "GET /api/clips/{id}/thumbnail": status(.GET, "/api/clips/clip-a/thumbnail", 404),
            "POST /api/reels": status(.POST, "/api/reels", 400, json: ["clipIDs": ["clip-a"]]),
            "GET /api/reels/{id}": status(.GET, "/api/reels/\(reelID)", 404),
            "GET /api/reels/{id}/file": status(.GET, "/api/reels/\(reelID)/file", 404),
            "GET /api/lebot/workouts/{id}": status(.GET, "/api/lebot/workouts/\(workoutID)", 404),
            "GET /api/lebot/workouts/{id}/chart": status(.GET, "/api/lebot/workouts/\(workoutID)/chart", 404),
            "GET /api/cameras": {
                let listed = try await server.request(.GET, "/api/cameras", token: b.token)
                return listed.status == 200 && !listed.text.contains(cameraID)
            },
            "GET /api/cameras/{id}": status(.GET, "/api/cameras/\(cameraID)", 404),
            "PUT /api/cameras/{id}": status(.PUT, "/api/cameras/\(cameraID)", 404, json: ["name": "Mine now"]),
            "DELETE /api/cameras/{id}": status(.DELETE, "/api/cameras/\(cameraID)", 404),
            "GET /api/cameras/{id}/health": status(.GET, "/api/cameras/\(cameraID)/health", 404),
            "GET /api/cameras/{id}/snapshot": status(.GET, "/api/cameras/\(cameraID)/snapshot", 404),
            "GET /api/cameras/{id}/live": status(
                .GET, "/api/cameras/\(cameraID)/live", 404,
                body: nil),
            "GET /api/grid": {
                let grid = try await server.request(.GET, "/api/grid", token: b.token)
                return grid.object["cells"] is [Any] && !grid.text.contains(cameraID)
            },
            // Routes that make new records or reach the network: B gets B's own, never a sign of A's.
            "POST /api/cameras": {
                let made = try await server.request(
                    .POST, "/api/cameras", token: b.token, json: ["name": "B's", "rtspURL": rtsp.url()])
                return made.status == 201 && made.object["id"] as? String != cameraID
                    && made.object["hasPassword"] as? Bool == false
            },
            "POST /api/discovery": {
                let found = try await server.request(.POST, "/api/discovery", token: b.token, json: ["timeout": 0.5])
                return [200, 403].contains(found.status) && !found.text.contains(cameraID)
            },
            "POST /api/scan": {
                let scan = try await server.request(
                    .POST, "/api/scan", token: b.token, json: ["range": "127.0.0.1", "ports": [rtsp.port]])
                return scan.status == 403 && !scan.text.contains(cameraID)
            },
            // No Gemini key on this server: a signed-in caller reaches the route and is told so.
            "POST /api/ephemeral-token": status(.POST, "/api/ephemeral-token", 503),
            "POST /api/analyze-shot": status(.POST, "/api/analyze-shot", 503, json: ["image": "/9j/4AAQSkZJRgABAQ=="]),
            "POST /api/lebot/workouts": {
                let posted = try await server.request(.POST, "/api/lebot/workouts", token: b.token, body: [1, 2, 3])
                return posted.status == 400 && !posted.text.contains(workoutID)
            },
            "POST /api/lebot/rim-fit": status(
                .POST, "/api/lebot/rim-fit?rim=0.5,0.5", 400, body: Array("not a picture".utf8)),
            "POST /api/lebot/first-frame": status(
                .POST, "/api/lebot/first-frame", 400, body: Array("not a video".utf8)),
            // A capture is B's own (no id): a GET without an upgrade passes the checks and gets an
            // empty 200 from the WebSocket router, nothing of A's.
            "GET /api/highlights/capture": status(.GET, "/api/highlights/capture", 200, body: nil),
            "GET /api/lebot/live": status(.GET, "/api/lebot/live", 200, body: nil),
            // B writes a clip under the same id: it is B's own, and A's is untouched (checked below).
            "PUT /api/clips/{id}": status(
                .PUT, "/api/clips/clip-a", 200,
                json: ["game": "Other", "events": [], "timestamp": "2026-01-01T00:00:00Z", "duration": 1]),
        ]
        var unauthenticated: [String] = []
        // B's own clip-a (PUT) would make B's later DELETE legitimately succeed, and signing out
        // everywhere ends B's sessions: those two go last.
        let guarded = server.server.routes.filter { $0.access == .user }
        func isClipWrite(_ route: Route) -> Bool { route.method == .put && route.path == "/api/clips/:id" }
        func isLogoutAll(_ route: Route) -> Bool { route.path == "/api/auth/logout-all" }
        let ordered =
            guarded.filter { !isClipWrite($0) && !isLogoutAll($0) } + guarded.filter(isClipWrite)
            + guarded.filter(isLogoutAll)
        for route in ordered {
            let key = "\(route.method.rawValue) \(route.openAPIPath)"
            let attempt = try #require(attempts[key], "no authorisation case for \(key): add one")
            #expect(try await attempt(), "user B got through on \(key)")
            let path = route.openAPIPath.replacingOccurrences(of: "{id}", with: "x")
            let anonymous = try await server.request(HTTPMethod(rawValue: route.method.rawValue), path)
            if anonymous.status != 401 { unauthenticated.append("\(key) → \(anonymous.status)") }
        }
        #expect(unauthenticated.isEmpty, "answered without a session: \(unauthenticated)")

        // A's records are as A left them.
        let aClip = try await server.request(.GET, "/api/clips/clip-a", token: a.token).object
        #expect(aClip["game"] as? String == "Fortnite")
        #expect(aClip["size"] as? Int == clip.count)
        #expect(try await server.request(.GET, "/api/clips/clip-a/file", token: a.token).body == clip)
        #expect(
            try await server.request(.GET, "/api/settings", token: a.token).object["gameProfileName"] as? String
                == "Apex Legends")
        #expect(
            try await server.request(.GET, "/api/cameras/\(cameraID)", token: a.token).object["name"] as? String
                == "Porch")
        #expect(try await server.request(.GET, "/api/me", token: a.token).status == 200)
        let aGames = try await server.request(.GET, "/api/profiles", token: a.token).array
        #expect(aGames.contains { $0["id"] as? String == "porch-game" })
        #expect(!aGames.contains { $0["name"] as? String == "B Game" })
    }

    @Test(
        "uploads: streamed with a size limit, idempotent by id, Range downloads, hostile ids refused",
        arguments: Backend.allCases)
    func uploads(backend: Backend) async throws {
        let clip = try ServerMedia.clip.get()
        let server = try await TestServer.start(on: backend) { $0.maxClipBytes = clip.count + 1000 }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        #expect(try await server.request(.PUT, "/api/clips/c1", token: user.token, json: clipMetadata).status == 200)
        // The same upload twice: one clip, one file.
        for _ in 0..<2 {
            let reply = try await server.request(.PUT, "/api/clips/c1/file", token: user.token, body: clip)
            #expect(reply.status == 200, "\(reply.text)")
        }
        let list = try await server.request(.GET, "/api/clips", token: user.token).array
        #expect(list.count == 1)
        #expect(list.first?["name"] as? String == "Double Kill")
        #expect(list.first?["timestamp"] as? String == "2026-11-20T18:30:00Z")
        #expect(list.first?["events"] as? [String] == ["Kill", "Kill"])
        #expect(list.first?["storagePath"] as? String == "clips/\(user.id)/c1.mp4")
        // curl sends `Expect: 100-continue` with uploads and waits for the answer before the body;
        // the server answers at once (without it every curl upload lost a second).
        let file = server.directory + "/upload.mp4"
        try Data(clip).write(to: URL(fileURLWithPath: file))
        let curl = try Subprocess.run(
            "curl",
            [
                "-sS", "-v", "--expect100-timeout", "20", "-o", "/dev/null", "-H", "Expect: 100-continue", "-H",
                "Authorization: Bearer \(user.token)", "-T", file, server.base + "/api/clips/c1/file",
            ])
        #expect(curl.stderr.contains("< HTTP/1.1 100 Continue"), "\(curl.stderr.suffix(800))")
        #expect(curl.stderr.contains("< HTTP/1.1 200"), "\(curl.stderr.suffix(800))")
        // Too large: 413, and the earlier file is still whole.
        let big = try await server.request(
            .PUT, "/api/clips/c1/file", token: user.token, body: clip + [UInt8](repeating: 0, count: 2000))
        #expect(big.status == 413)
        #expect(try await server.request(.GET, "/api/clips/c1/file", token: user.token).body == clip)
        // Not a video: 400, the earlier file stays.
        let junk = try await server.request(
            .PUT, "/api/clips/c1/file", token: user.token, body: Array("not a video".utf8))
        #expect(junk.status == 400)
        #expect(try await server.request(.GET, "/api/clips/c1/file", token: user.token).body == clip)
        // Ranges.
        let part = try await server.request(
            .GET, "/api/clips/c1/file", token: user.token, headers: [("Range", "bytes=100-199")])
        #expect(part.status == 206)
        #expect(part.body == Array(clip[100...199]))
        #expect(part.header("Content-Range") == "bytes 100-199/\(clip.count)")
        let tail = try await server.request(
            .GET, "/api/clips/c1/file", token: user.token, headers: [("Range", "bytes=-10")])
        #expect(tail.body == Array(clip.suffix(10)))
        let outside = try await server.request(
            .GET, "/api/clips/c1/file", token: user.token, headers: [("Range", "bytes=\(clip.count + 5)-")])
        #expect(outside.status == 416)
        // Hostile ids never reach the file system.
        for id in ["..%2F..%2Fetc%2Fpasswd", "a.b", "%2e%2e", String(repeating: "x", count: 65)] {
            let reply = try await server.request(.PUT, "/api/clips/\(id)", token: user.token, json: clipMetadata)
            #expect([400, 404].contains(reply.status), "\(id) → \(reply.status)")
        }
        let stored = try FileManager.default.subpathsOfDirectory(atPath: server.directory + "/clips")
        #expect(stored.filter { $0.hasSuffix(".mp4") } == ["\(user.id)/c1.mp4"])
        // Bad JSON names the problem.
        let bad = try await server.request(
            .PUT, "/api/settings", token: user.token,
            json: ["gameProfileName": "X", "videoQuality": "8K", "preRollDuration": 1, "postRollDuration": 1])
        #expect(bad.status == 400)
        #expect(bad.text.contains("videoQuality"))
    }

    @Test(
        "LeBot proxy: ephemeral tokens from Gemini's auth_tokens, analyzeShot's 400/401/503, key never sent to clients, rate limits"
    )
    func lebotProxy() async throws {
        let gemini = GeminiTestServer()
        try await gemini.start()
        defer { gemini.stop() }
        let server = try await TestServer.start {
            $0.geminiAPIKey = gemini.apiKey
            $0.geminiBaseURL = gemini.restBase
            $0.ephemeralTokensPerMinute = 3
        }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let token = try await server.request(.POST, "/api/ephemeral-token", token: user.token)
        #expect(token.status == 200, "\(token.text)")
        #expect((token.object["token"] as? String)?.hasPrefix("auth_tokens/") == true)
        #expect(!token.text.contains(gemini.apiKey))
        #expect(gemini.tokenRequests == 1)
        // The rate limit: 3 a minute, then 429 with Retry-After.
        _ = try await server.request(.POST, "/api/ephemeral-token", token: user.token)
        _ = try await server.request(.POST, "/api/ephemeral-token", token: user.token)
        let limited = try await server.request(.POST, "/api/ephemeral-token", token: user.token)
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)

        let jpeg = try ServerMedia.jpeg.get()
        let shot = try await server.request(
            .POST, "/api/analyze-shot", token: user.token, json: ["image": Data(jpeg).base64EncodedString()])
        #expect(shot.status == 200, "\(shot.text)")
        #expect(shot.object["outcome"] as? String == "MAKE")
        #expect(shot.object["tip"] as? String == "Great arc, keep it.")
        #expect(
            try await server.request(.POST, "/api/analyze-shot", token: user.token, json: ["prompt": "no image"]).status
                == 400)
        #expect(
            try await server.request(.POST, "/api/analyze-shot", token: user.token, json: ["image": "bm90IGFuIGltYWdl"])
                .status == 400)
        #expect(
            try await server.request(.POST, "/api/analyze-shot", json: ["image": Data(jpeg).base64EncodedString()])
                .status == 401)
        gemini.set(.status(500))
        let down = try await server.request(
            .POST, "/api/analyze-shot", token: user.token, json: ["image": Data(jpeg).base64EncodedString()])
        #expect(down.status == 503)
        #expect(!down.text.contains(gemini.apiKey))

        // LeBot's own client reads the proxy's answers.
        gemini.set(.answer)
        let client = ProxyShotClient(base: server.base, sessionToken: user.token)
        let answer = try await client.analyze(ShotAnalysisRequest(prompt: "Analyze", images: [jpeg]))
        #expect(answer.outcome == .make)

        // Without a key the AI routes say so (503), the rest of the server works.
        let keyless = try await TestServer.start()
        defer { Task { await keyless.stop() } }
        let other = try await keyless.user()
        #expect(try await keyless.request(.POST, "/api/ephemeral-token", token: other.token).status == 503)
    }

    @Test(
        "cameras: the password is write-only and never stored in the database; scans stay inside allowed networks",
        arguments: Backend.allCases)
    func cameraPasswordsAndNetworks(backend: Backend) async throws {
        let server = try await TestServer.start(on: backend) { $0.allowedNetworks = ["127.0.0.1/32"] }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let password = "s3cret-\(UUID().uuidString.prefix(8))"
        let added = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Garage", "rtspURL": "rtsp://admin:\(password)@127.0.0.1:8554/live"])
        #expect(added.status == 201, "\(added.text)")
        #expect(added.object["hasPassword"] as? Bool == true)
        #expect(added.object["rtspURL"] as? String == "rtsp://127.0.0.1:8554/live")
        #expect(!added.text.contains(password))
        let listed = try await server.request(.GET, "/api/cameras", token: user.token)
        #expect(!listed.text.contains(password))
        switch backend {
        case .sqlite:
            for name in ["cameracore.sqlite", "cameracore.sqlite-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: server.directory + "/" + name))) ?? Data()
                #expect(bytes.range(of: Data(password.utf8)) == nil, "password found in \(name)")
            }
        case .postgresql:
            // Everything the database holds, as pg_dump writes it: the camera is there, its password is not.
            let dump = try Subprocess.run("pg_dump", ["--data-only", server.databaseURL ?? ""]).stdout
            #expect(dump.contains("rtsp://127.0.0.1:8554/live"))
            #expect(!dump.contains(password), "password found in the PostgreSQL database")
        }
        // Removing the password: an empty string.
        let id = added.object["id"] as? String ?? ""
        let cleared = try await server.request(.PUT, "/api/cameras/\(id)", token: user.token, json: ["password": ""])
        #expect(cleared.object["hasPassword"] as? Bool == false)
        // Scans: outside the allowed networks refused before any packet; inside allowed.
        let outside = try await server.request(.POST, "/api/scan", token: user.token, json: ["range": "10.0.0.0/24"])
        #expect(outside.status == 403)
        let wide = try await server.request(.POST, "/api/scan", token: user.token, json: ["range": "127.0.0.0/30"])
        #expect(wide.status == 403)
        // The server's own loopback is never scanned, even inside allowedNetworks (the test server allows
        // 127.0.0.0/8 for discovery): scanning it listed every open port, this server's included.
        let loopback = try await server.request(
            .POST, "/api/scan", token: user.token, json: ["range": "127.0.0.1", "ports": [server.port]])
        #expect(loopback.status == 403, "\(loopback.text)")
        #expect(loopback.text.contains("loopback"))
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

extension Data {
    init(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self = Data(base64Encoded: base64) ?? Data()
    }
}
