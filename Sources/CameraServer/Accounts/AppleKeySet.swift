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

/// Apple's public keys, fetched from a configurable URL and cached for an hour; an unknown key id
/// fetches again (Apple rotates keys), at most once per `refetchInterval`.
final class AppleKeySet: Sendable {
    let url: String
    /// The audiences accepted: the app's client id and, if set, the web's Services ID.
    let clientIDs: [String]
    let refetchInterval: Double
    private let cache = Mutex<(keys: JWTKeyCollection, fetched: Date, kids: Set<String>)?>(nil)

    init(url: String, clientIDs: [String], refetchInterval: Double) {
        self.url = url
        self.clientIDs = clientIDs
        self.refetchInterval = refetchInterval
    }

    private struct KeySetDocument: Decodable {
        struct Key: Decodable { var kid: String? }
        var keys: [Key]
    }

    private func fetch() async throws -> (keys: JWTKeyCollection, kids: Set<String>) {
        guard let target = HTTPURL(url) else { throw AuthError.appleUnavailable("appleJWKSURL is not a URL") }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.send(
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
        for (index, clientID) in clientIDs.enumerated() {
            do {
                // jwt-kit checks the signature, issuer, expiry and that the audience is this app.
                return try await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: clientID)
            } catch let error as JWTError where error.errorType == .claimVerificationFailure {
                if index == clientIDs.count - 1 {
                    throw AuthError.appleToken("the token is expired, not from Apple, or for another app")
                }
            } catch {
                throw AuthError.appleToken("the token's signature does not verify")
            }
        }
        throw AuthError.appleToken("no client id is configured")
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
