import CameraCommon
import Crypto
import Foundation
import HummingbirdBcrypt
import JWTKit
import NIOHTTP1
import NIOPosix
import NetworkSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The claims of an access token: who, which session (so logout can revoke it), when it ends.
struct AccessClaims: JWTPayload {
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var typ: String

    func verify(using _: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
        guard typ == "access" else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "not an access token")
        }
    }
}

/// Tokens handed to a client after sign-in.
public struct SessionTokens: Sendable, Codable {
    public var user: User
    public var accessToken: String
    public var refreshToken: String
    /// When the access token stops working; refresh before.
    public var expiresAt: Date
}

/// Why a request could not be authenticated. The text never repeats the token.
public enum AuthError: Error, Equatable, CustomStringConvertible {
    case missing
    case invalid
    case expired
    case revoked
    case wrongCredentials
    case appleToken(String)
    /// Apple's key server could not be reached or answered nonsense: not the user's fault (503).
    case appleUnavailable(String)
    case emailTaken

    public var description: String {
        switch self {
        case .missing: "sign in first (no session token)"
        case .invalid: "the session token is not valid"
        case .expired: "the session token has expired; refresh it or sign in again"
        case .revoked: "the session was signed out"
        case .wrongCredentials: "wrong e-mail or password"
        case .appleToken(let reason): "Sign in with Apple failed: \(reason)"
        case .appleUnavailable(let reason): "Sign in with Apple is unavailable: \(reason); try again later"
        case .emailTaken: "an account with this e-mail already exists"
        }
    }
}

/// Password hashes, session tokens (HS256 JWTs from jwt-kit, short-lived, with a rotating refresh
/// secret stored hashed), revocation, and Sign in with Apple.
public final class Authenticator: Sendable {
    let store: ServerStore
    let keys: JWTKeyCollection
    let accessLifetime: Double
    let refreshLifetime: Double
    let bcryptCost: Int
    let apple: AppleKeySet
    /// Revoked session ids whose access tokens could still be unexpired. Checked on every request
    /// without a database round trip; filled from the database at start.
    private let revoked = Mutex<[String: Date]>([:])

    init(store: ServerStore, secret: [UInt8], configuration: ServerConfiguration) async throws {
        self.store = store
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        accessLifetime = configuration.accessTokenSeconds
        refreshLifetime = configuration.refreshTokenSeconds
        bcryptCost = configuration.bcryptCost
        apple = AppleKeySet(
            url: configuration.appleJWKSURL, clientID: configuration.appleClientID,
            refetchInterval: configuration.appleKeysRefetchSeconds)
        let since = Date().addingTimeInterval(-configuration.accessTokenSeconds)
        let ids = try await store.revokedSessionIDs(since: since)
        revoked.withLock { table in for id in ids { table[id] = Date() } }
    }

    /// The signing key: the configured secret, or 32 random bytes kept in `session.key` (mode 0600)
    /// so tokens survive a restart.
    static func secret(configuration: ServerConfiguration) throws(MediaError) -> [UInt8] {
        if let secret = configuration.sessionSecret {
            guard secret.utf8.count >= 32 else {
                throw MediaError(
                    .invalidArgument, operation: "check configuration",
                    message: "sessionSecret: must be at least 32 characters")
            }
            return Array(secret.utf8)
        }
        let path = configuration.dataDirectory + "/session.key"
        if let data = FileManager.default.contents(atPath: path), data.count >= 32 { return Array(data) }
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(.writeFailed, operation: "create session key", message: "cannot create \(path)")
        }
        defer { close(descriptor) }
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw MediaError(.writeFailed, operation: "create session key", message: "cannot write \(path)")
        }
        return bytes
    }

    // MARK: Passwords

    func hash(password: String) async throws -> String {
        let cost = UInt8(bcryptCost)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash to check against when the e-mail is unknown, so both cases take as long.
    private static let decoyHash = Bcrypt.hash("decoy-password", cost: 10)

    func signUp(email: String, password: String) async throws -> SessionTokens {
        let email = try Self.normalized(email: email)
        guard password.count >= 8, password.utf8.count <= 72 else {
            throw MediaError(.invalidArgument, operation: "sign up", message: "password: use 8 to 72 characters")
        }
        let hash = try await hash(password: password)
        let user: User
        do {
            user = try await store.createUser(email: email, passwordHash: hash)
        } catch let error as DatabaseFailure where error.isConflict {
            throw AuthError.emailTaken
        }
        return try await openSession(for: user)
    }

    func logIn(email: String, password: String) async throws -> SessionTokens {
        let email = (try? Self.normalized(email: email)) ?? ""
        guard let found = try await store.user(email: email), let stored = found.passwordHash else {
            _ = try await verify(password: password, hash: Self.decoyHash)
            throw AuthError.wrongCredentials
        }
        guard try await verify(password: password, hash: stored) else { throw AuthError.wrongCredentials }
        return try await openSession(for: found.user)
    }

    static func normalized(email: String) throws(MediaError) -> String {
        let email = email.trimmingWhitespace().lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !email.contains(where: { $0.isWhitespace })
        else {
            throw MediaError(.invalidArgument, operation: "sign up", message: "email: not an e-mail address")
        }
        return email
    }

    // MARK: Sessions

    func openSession(for user: User) async throws -> SessionTokens {
        let sessionID = UUID().uuidString.lowercased()
        let secret = Self.randomSecret()
        try await store.createSession(
            id: sessionID, userID: user.id, refreshHash: Self.digest(secret),
            expiresAt: Date().addingTimeInterval(refreshLifetime))
        return try await tokens(user: user, sessionID: sessionID, secret: secret)
    }

    private func tokens(user: User, sessionID: String, secret: String) async throws -> SessionTokens {
        let now = Date()
        let expiry = now.addingTimeInterval(accessLifetime)
        let claims = AccessClaims(
            sub: .init(value: user.id), sid: sessionID, iat: .init(value: now), exp: .init(value: expiry),
            typ: "access")
        let token = try await keys.sign(claims)
        return SessionTokens(user: user, accessToken: token, refreshToken: "\(sessionID).\(secret)", expiresAt: expiry)
    }

    /// A new access token and a new refresh secret; the old secret stops working (a stolen one used
    /// after the owner refreshed fails).
    func refresh(_ refreshToken: String) async throws -> SessionTokens {
        let parts = refreshToken.split(separator: ".")
        guard parts.count == 2 else { throw AuthError.invalid }
        let sessionID = String(parts[0])
        let secret = Self.randomSecret()
        guard
            let userID = try await store.rotateSession(
                id: sessionID, oldHash: Self.digest(String(parts[1])), newHash: Self.digest(secret),
                expiresAt: Date().addingTimeInterval(refreshLifetime)),
            let user = try await store.user(id: userID)
        else { throw AuthError.invalid }
        return try await tokens(user: user, sessionID: sessionID, secret: secret)
    }

    func logOut(sessionID: String) async throws {
        try await store.revokeSession(id: sessionID)
        let now = Date()
        let horizon = now.addingTimeInterval(-accessLifetime)
        revoked.withLock { table in
            table[sessionID] = now
            table = table.filter { $0.value > horizon }
        }
    }

    /// The user and session of a valid, unexpired, unrevoked access token.
    func authenticate(_ token: String) async throws(AuthError) -> (userID: String, sessionID: String) {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw .expired
        } catch {
            throw .invalid
        }
        if revoked.withLock({ $0[claims.sid] != nil }) { throw .revoked }
        return (claims.sub.value, claims.sid)
    }

    static func randomSecret() -> String { hex((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    static func digest(_ text: String) -> String { hex(SHA256.hash(data: Array(text.utf8))) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Sign in with Apple

    /// Verifies an identity token against Apple's keys and the app's client id; finds the account
    /// by Apple's subject, or by e-mail (linking it), or creates one.
    func signInWithApple(identityToken: String) async throws -> SessionTokens {
        let token = try await apple.verify(identityToken)
        if let user = try await store.user(appleSubject: token.subject.value) {
            return try await openSession(for: user)
        }
        guard let email = token.email.flatMap({ try? Self.normalized(email: $0) }) else {
            throw AuthError.appleToken("the token has no e-mail and no account is linked to it")
        }
        if let existing = try await store.user(email: email) {
            try await store.linkApple(userID: existing.user.id, subject: token.subject.value)
            return try await openSession(for: existing.user)
        }
        let user = try await store.createUser(email: email, passwordHash: nil, appleSubject: token.subject.value)
        return try await openSession(for: user)
    }
}

/// Apple's public keys, fetched from a configurable URL and cached for an hour; an unknown key id
/// fetches again (Apple rotates keys), at most once per `refetchInterval`.
final class AppleKeySet: Sendable {
    let url: String
    let clientID: String
    let refetchInterval: Double
    private let cache = Mutex<(keys: JWTKeyCollection, fetched: Date, kids: Set<String>)?>(nil)

    init(url: String, clientID: String, refetchInterval: Double) {
        self.url = url
        self.clientID = clientID
        self.refetchInterval = refetchInterval
    }

    private struct KeySetDocument: Decodable {
        struct Key: Decodable { var kid: String? }
        var keys: [Key]
    }

    private func fetch() async throws -> (keys: JWTKeyCollection, kids: Set<String>) {
        guard let target = HTTPURL(url) else { throw AuthError.appleUnavailable("appleJWKSURL is not a URL") }
        let response: HTTPExchangeResponse
        do {
            response = try await HTTPExchange.send(
                .GET, url: target, headers: [], body: [], timeout: .seconds(5), limit: 1 << 20)
        } catch {
            throw AuthError.appleUnavailable("Apple's keys could not be fetched")
        }
        guard response.status == 200 else {
            throw AuthError.appleUnavailable("Apple's key server answered \(response.status)")
        }
        let json = String(decoding: response.body, as: UTF8.self)
        let document = try? JSONDecoder().decode(KeySetDocument.self, from: Data(json.utf8))
        let keys = JWTKeyCollection()
        do { try await keys.add(jwksJSON: json) } catch {
            throw AuthError.appleUnavailable("Apple's key set is not a JWKS")
        }
        return (keys, Set(document?.keys.compactMap(\.kid) ?? []))
    }

    /// The cached set (fetched again when stale, or when `kid` is new and the last fetch is older
    /// than the refetch interval) and the key ids it holds.
    private func keys(for kid: String) async throws -> (keys: JWTKeyCollection, kids: Set<String>) {
        let now = Date()
        if let cached = cache.withLock({ $0 }) {
            let fresh = now.timeIntervalSince(cached.fetched) < 3600
            let known = cached.kids.contains(kid)
            if fresh && known { return (cached.keys, cached.kids) }
            if !known && now.timeIntervalSince(cached.fetched) < refetchInterval { return (cached.keys, cached.kids) }
        }
        let fetched = try await fetch()
        cache.withLock { $0 = (fetched.keys, now, fetched.kids) }
        return fetched
    }

    func verify(_ token: String) async throws -> AppleIdentityToken {
        let header = token.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) }
        guard let kid = header.flatMap({ try? JSONDecoder().decode([String: String].self, from: Data($0)) })?["kid"]
        else { throw AuthError.appleToken("the token names no key id") }
        let (keys, kids) = try await keys(for: kid)
        // jwt-kit falls back to its first key for an unknown kid; Apple's tokens always name one of
        // Apple's keys, so anything else is refused before any signature is checked.
        guard kids.contains(kid) else { throw AuthError.appleToken("the token's key id is not one of Apple's keys") }
        do {
            // jwt-kit checks the signature, issuer, expiry and that the audience is this app.
            return try await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: clientID)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw AuthError.appleToken("the token is expired, not from Apple, or for another app")
        } catch {
            throw AuthError.appleToken("the token's signature does not verify")
        }
    }
}

enum Base64URL {
    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// A sliding one-minute window per key (user id or address). Small and in memory: enough for one
/// server process; several processes behind a balancer would each allow the limit.
final class RateLimiter: Sendable {
    let perMinute: Int
    private let windows = Mutex<[String: [ContinuousClock.Instant]]>([:])

    init(perMinute: Int) { self.perMinute = perMinute }

    /// True when `key` may go ahead now (and counts it); otherwise the seconds to wait.
    func allow(_ key: String) -> (allowed: Bool, retryAfter: Int) {
        let now = ContinuousClock.now
        return windows.withLock { table in
            if table.count > 10_000 { table = table.filter { now - ($0.value.last ?? now) < .seconds(60) } }
            var recent = (table[key] ?? []).filter { now - $0 < .seconds(60) }
            guard recent.count < perMinute else {
                let wait = .seconds(60) - (now - recent[0])
                return (false, max(1, Int(wait.components.seconds) + 1))
            }
            recent.append(now)
            table[key] = recent
            return (true, 0)
        }
    }
}
