import CameraCommon
import Crypto
import Foundation
import HummingbirdBcrypt
import JWTKit
import NIOHTTP1
import NIOPosix
import Networking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Password hashes, session tokens (HS256 JWTs from jwt-kit, short-lived, with a rotating refresh
/// secret stored hashed), revocation, and Sign in with Apple.
final class Authenticator: Sendable {
    let store: ServerStore
    let keys: JWTKeyCollection
    let accessLifetime: Double
    let refreshLifetime: Double
    /// However often it is refreshed, a session ends this long after sign-in.
    let sessionLifetime: Double
    let bcryptCost: Int
    let apple: AppleKeySet
    /// Revoked session ids whose access tokens could still be unexpired. Checked on every request
    /// without a database round trip; filled from the database at start.
    private let revoked = Mutex<[String: Date]>([:])

    init(
        store: ServerStore, secret: [UInt8], configuration: ServerConfiguration,
        verificationSent: @escaping @Sendable (_ email: String, _ secret: String) -> Void = { _, _ in }
    ) async throws {
        self.store = store
        self.verificationSent = verificationSent
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        accessLifetime = configuration.accessTokenSeconds
        refreshLifetime = configuration.refreshTokenSeconds
        sessionLifetime = configuration.sessionMaxSeconds
        bcryptCost = configuration.bcryptCost
        apple = AppleKeySet(
            url: configuration.appleJWKSURL,
            clientIDs: [configuration.appleClientID] + [configuration.appleWebClientID].compactMap { $0 },
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
        let verification = Self.randomSecret()
        do {
            user = try await store.createUser(email: email, passwordHash: hash, verifyHash: Self.digest(verification))
        } catch let error as DatabaseFailure where error.isConflict {
            throw AuthError.emailTaken
        }
        verificationSent(email, verification)
        return try await openSession(for: user)
    }

    /// Where a new account's verification secret goes: the server mails it (``MailDrop``).
    let verificationSent: @Sendable (_ email: String, _ secret: String) -> Void

    /// Sends a new verification secret to the account's address (the old one stops working), and
    /// returns the address; nil when the address is confirmed already.
    func resendVerification(userID: String) async throws -> String? {
        let verification = Self.randomSecret()
        guard let email = try await store.renewVerification(userID: userID, hash: Self.digest(verification)) else {
            return nil
        }
        verificationSent(email, verification)
        return email
    }

    /// Marks the account that was sent `secret` as owning its e-mail address.
    func verifyEmail(secret: String) async throws -> User {
        guard secret.count == 64, let user = try await store.verifyEmail(hash: Self.digest(secret)) else {
            throw AuthError.invalid
        }
        return user
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
            !email.contains(where: { $0.isWhitespace }),
            !email.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
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
        let presented = Self.digest(String(parts[1]))
        guard
            let userID = try await store.rotateSession(
                id: sessionID, oldHash: presented, newHash: Self.digest(secret),
                expiresAt: Date().addingTimeInterval(refreshLifetime),
                startedAfter: Date().addingTimeInterval(-sessionLifetime)),
            let user = try await store.user(id: userID)
        else {
            // A secret already rotated away is used again: it was copied. End the session for
            // both holders; the owner signs in again.
            if try await store.isReplayedSecret(id: sessionID, hash: presented) {
                try await logOut(sessionID: sessionID)
                throw AuthError.revoked
            }
            throw AuthError.invalid
        }
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

    /// Ends sessions of `userID` (all but `keep`), their access tokens included.
    func logOutEverywhere(userID: String, except keep: String? = nil) async throws {
        let ended = try await store.revokeSessions(userID: userID, except: keep)
        let now = Date()
        revoked.withLock { table in
            for id in ended { table[id] = now }
        }
    }

    /// Checks the account's password (false for accounts without one, e.g. Sign in with Apple only).
    func checkPassword(userID: String, password: String) async throws -> Bool {
        guard let stored = try await passwordHash(userID: userID) else { return false }
        return try await verify(password: password, hash: stored)
    }

    /// The account's password hash; nil for accounts without a password (Sign in with Apple only).
    func passwordHash(userID: String) async throws -> String? {
        guard let user = try await store.user(id: userID) else { return nil }
        return try await store.user(email: user.email)?.passwordHash
    }

    /// Sets a new password after checking the current one; every other session ends.
    func changePassword(userID: String, sessionID: String, current: String, new: String) async throws {
        guard new.count >= 8, new.utf8.count <= 72 else {
            throw MediaError(
                .invalidArgument, operation: "change password", message: "newPassword: use 8 to 72 characters")
        }
        guard try await checkPassword(userID: userID, password: current) else { throw AuthError.wrongCredentials }
        try await store.setPasswordHash(userID: userID, hash: try await hash(password: new))
        try await logOutEverywhere(userID: userID, except: sessionID)
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

    /// Whether the session was signed out (or ended for reuse) while this server ran.
    func isRevoked(_ sessionID: String) -> Bool { revoked.withLock { $0[sessionID] != nil } }

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
    /// by Apple's subject, or by e-mail (linking it only when the account verified that address —
    /// otherwise whoever signed up first with someone else's address would get their Apple sign-in),
    /// or creates one.
    func signInWithApple(identityToken: String) async throws -> SessionTokens {
        let token = try await apple.verify(identityToken)
        if let user = try await store.user(appleSubject: token.subject.value) {
            return try await openSession(for: user)
        }
        guard let email = token.email.flatMap({ try? Self.normalized(email: $0) }) else {
            throw AuthError.appleToken("the token has no e-mail and no account is linked to it")
        }
        if let existing = try await store.user(email: email) {
            guard existing.user.emailVerified else { throw AuthError.unverifiedEmail }
            try await store.linkApple(userID: existing.user.id, subject: token.subject.value)
            return try await openSession(for: existing.user)
        }
        let user = try await store.createUser(email: email, passwordHash: nil, appleSubject: token.subject.value)
        return try await openSession(for: user)
    }
}
