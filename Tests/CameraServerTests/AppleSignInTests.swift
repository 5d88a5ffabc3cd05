import CameraTestPeers
import CameraTesting
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import CameraServer

/// A local stand-in for Apple's key server (`GET /auth/keys`), in its public wire format: a JWKS of
/// RS256 keys with `kty`, `kid`, `use`, `alg`, `n`, `e`. Counts fetches; can be made to fail.
final class AppleKeyServer: Sendable {
    private let state = Mutex<(document: String, fetches: Int, status: Int)>(("{\"keys\":[]}", 0, 200))
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let portBox = Mutex(0)

    var url: String { "http://127.0.0.1:\(portBox.withLock { $0 })/auth/keys" }
    var fetches: Int { state.withLock { $0.fetches } }

    func publish(_ keys: [(kid: String, key: Insecure.RSA.PrivateKey)]) throws {
        let entries = try keys.map { kid, key in
            let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
            return [
                "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                "n": base64URL(modulus), "e": base64URL(exponent),
            ]
        }
        let document = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": entries]), as: UTF8.self)
        state.withLock { $0.document = document }
    }

    func failWith(status: Int) { state.withLock { $0.status = status } }

    func start() async throws {
        let router = Router()
        router.get("/auth/keys") { _, _ -> Response in
            let (document, status) = self.state.withLock { state in
                state.fetches += 1
                return (state.document, state.status)
            }
            return Response(
                status: .init(code: status), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: document)))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        task.withLock { $0 = Task { _ = try? await app.runService() } }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            throw TestPeerError("the key server did not start")
        }
        portBox.withLock { $0 = port }
    }

    func stop() { task.withLock { $0?.cancel() } }
}

/// An RSA key made by the openssl command line, so the key material is not our own code's.
func rsaKey() throws -> Insecure.RSA.PrivateKey {
    let path = try temporaryDirectory() + "/key.pem"
    try Subprocess.run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path])
    return try Insecure.RSA.PrivateKey(pem: try String(contentsOfFile: path, encoding: .utf8))
}

/// An identity token as Apple issues it: RS256, `kid` in the header, Apple's issuer, the app as audience.
func identityToken(
    key: Insecure.RSA.PrivateKey, kid: String, subject: String, email: String?, audience: String = "com.cameracore.app",
    issuer: String = "https://appleid.apple.com", expires: Date = Date().addingTimeInterval(600)
) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
    let claims = AppleIdentityToken(
        issuer: .init(value: issuer), audience: .init(value: [audience]), expires: .init(value: expires),
        issuedAt: .init(value: Date()), subject: .init(value: subject), email: email,
        emailVerified: .init(value: true))
    return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
}

@Suite("Sign in with Apple", .serialized)
struct AppleSignInTests {
    @Test(
        "Apple identity tokens: verified against the key server's JWKS (cached, refetched on rotation); forged, expired, foreign and unreachable cases are named"
    )
    func signInWithApple() async throws {
        let apple = AppleKeyServer()
        try await apple.start()
        defer { apple.stop() }
        let first = try rsaKey()
        let attacker = try rsaKey()
        try apple.publish([("k1", first)])
        let server = try await TestServer.start {
            $0.appleJWKSURL = apple.url
            $0.appleClientID = "com.cameracore.app"
            $0.appleKeysRefetchSeconds = 1
        }
        defer { Task { await server.stop() } }
        func signIn(_ token: String) async throws -> TestServer.Reply {
            try await server.request(.POST, "/api/auth/apple", json: ["identityToken": token])
        }

        // A new Apple user: an account with the token's e-mail; the next sign-in finds it by subject.
        let created = try await signIn(
            try await identityToken(key: first, kid: "k1", subject: "001.apple", email: "new@privaterelay.appleid.com"))
        #expect(created.status == 200, "\(created.text)")
        let user = created.object["user"] as? [String: Any]
        #expect(user?["email"] as? String == "new@privaterelay.appleid.com")
        let again = try await signIn(try await identityToken(key: first, kid: "k1", subject: "001.apple", email: nil))
        #expect(again.status == 200, "\(again.text)")
        #expect((again.object["user"] as? [String: Any])?["id"] as? String == user?["id"] as? String)
        let token = again.object["accessToken"] as? String
        #expect(
            try await server.request(.GET, "/api/me", token: token).object["email"] as? String == user?["email"]
                as? String)

        // A password account with the same e-mail is linked only once it verified the address:
        // before, whoever signed up with someone else's e-mail would receive their Apple sign-in.
        let password = try await server.user("linked")
        let early = try await signIn(
            try await identityToken(key: first, kid: "k1", subject: "002.apple", email: "linked@example.com"))
        #expect(early.status == 409, "\(early.text)")
        #expect((early.object["error"] as? String ?? "").contains("verif"))
        let secret = try server.mailedCode(to: "linked@example.com")
        let wrong = try await server.request(
            .POST, "/api/auth/verify", json: ["token": String(repeating: "0", count: 64)])
        #expect(wrong.status == 400)
        let verified = try await server.request(.POST, "/api/auth/verify", json: ["token": secret])
        #expect(verified.object["emailVerified"] as? Bool == true, "\(verified.text)")
        let linked = try await signIn(
            try await identityToken(key: first, kid: "k1", subject: "002.apple", email: "linked@example.com"))
        #expect((linked.object["user"] as? [String: Any])?["id"] as? String == password.id)
        #expect(try await server.request(.POST, "/api/auth/verify", json: ["token": secret]).status == 400)
        #expect(apple.fetches == 1, "the key set is fetched once and cached")

        // Refused, each with its reason: another app's token, not Apple's issuer, expired, forged signature.
        let refusals: [(String, String, String)] = [
            (
                "another app",
                try await identityToken(
                    key: first, kid: "k1", subject: "003", email: "x@example.com", audience: "com.someone.else"),
                "for another app"
            ),
            (
                "not Apple",
                try await identityToken(
                    key: first, kid: "k1", subject: "003", email: "x@example.com", issuer: "https://evil.example"),
                "not from Apple"
            ),
            (
                "expired",
                try await identityToken(
                    key: first, kid: "k1", subject: "003", email: "x@example.com",
                    expires: Date().addingTimeInterval(-60)),
                "expired"
            ),
            (
                "forged",
                try await identityToken(key: attacker, kid: "k1", subject: "003", email: "x@example.com"),
                "signature"
            ),
        ]
        for (label, token, reason) in refusals {
            let reply = try await signIn(token)
            #expect(reply.status == 401, "\(label): \(reply.status) \(reply.text)")
            #expect(reply.text.contains(reason), "\(label): \(reply.text)")
            #expect(reply.header("Set-Cookie") == nil, "\(label) must not open a session")
        }
        #expect(try await server.request(.GET, "/api/me", token: nil).status == 401)

        // Apple rotates keys: a token with a new kid makes the server fetch the set again, but not
        // more often than the refetch interval (1 s here), so a flood of made-up kids cannot hammer Apple.
        let rotated = try rsaKey()
        try apple.publish([("k1", first), ("k2", rotated)])
        try await Task.sleep(for: .seconds(1.2))
        let afterRotation = try await signIn(
            try await identityToken(key: rotated, kid: "k2", subject: "001.apple", email: nil))
        #expect(afterRotation.status == 200, "\(afterRotation.text)")
        #expect(apple.fetches == 2)
        for index in 0..<3 {
            let madeUp = try await signIn(
                try await identityToken(key: attacker, kid: "made-up-\(index)", subject: "001.apple", email: nil))
            #expect(madeUp.status == 401)
            #expect(madeUp.text.contains("not one of Apple's keys"))
        }
        #expect(apple.fetches == 2, "unknown kids right after a fetch use the cached set")
    }

    @Test("Apple's key server down or answering garbage: 503 (try later), not 401 (bad token)")
    func keyServerUnavailable() async throws {
        let apple = AppleKeyServer()
        try await apple.start()
        defer { apple.stop() }
        let key = try rsaKey()
        let server = try await TestServer.start { $0.appleJWKSURL = apple.url }
        defer { Task { await server.stop() } }
        let token = try await identityToken(key: key, kid: "k1", subject: "004", email: "y@example.com")
        apple.failWith(status: 500)
        let down = try await server.request(.POST, "/api/auth/apple", json: ["identityToken": token])
        #expect(down.status == 503, "\(down.text)")
        #expect(down.text.contains("try again later"))
        apple.failWith(status: 200)  // The set is still the empty placeholder: the kid is unknown.
        try apple.publish([("other", key)])
        // The same key published under another id: the token's kid is not Apple's, so it is refused
        // (jwt-kit alone would fall back to the set's first key and accept it).
        let unknown = try await server.request(.POST, "/api/auth/apple", json: ["identityToken": token])
        #expect(unknown.status == 401, "\(unknown.text)")
        #expect(unknown.text.contains("not one of Apple's keys"))
        // Nothing listening: a port the kernel just handed out and that nobody holds.
        let closedPort = try LoopbackPort.free()
        let closed = try await TestServer.start { $0.appleJWKSURL = "http://127.0.0.1:\(closedPort)/auth/keys" }
        defer { Task { await closed.stop() } }
        let unreachable = try await closed.request(.POST, "/api/auth/apple", json: ["identityToken": token])
        #expect(unreachable.status == 503, "\(unreachable.text)")
    }
}
