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
struct SessionTokens: Sendable, Codable {
    var user: User
    var accessToken: String
    var refreshToken: String
    /// When the access token stops working; refresh before.
    var expiresAt: Date
}

/// Why a request could not be authenticated. The text never repeats the token.
enum AuthError: Error, Equatable, CustomStringConvertible {
    case missing
    case invalid
    case expired
    case revoked
    case wrongCredentials
    case appleToken(String)
    /// Apple's key server could not be reached or answered nonsense: not the user's fault (503).
    case appleUnavailable(String)
    case emailTaken
    /// Sign in with Apple found a password account with its e-mail that never verified it (409).
    case unverifiedEmail

    var description: String {
        switch self {
        case .missing: "sign in first (no session token)"
        case .invalid: "the session token is not valid"
        case .expired: "the session token has expired; refresh it or sign in again"
        case .revoked: "the session was signed out"
        case .wrongCredentials: "wrong e-mail or password"
        case .appleToken(let reason): "Sign in with Apple failed: \(reason)"
        case .appleUnavailable(let reason): "Sign in with Apple is unavailable: \(reason); try again later"
        case .emailTaken: "an account with this e-mail already exists"
        case .unverifiedEmail:
            "an account with this e-mail exists but has not verified it; sign in with its password and verify the address first"
        }
    }
}
