import CameraCommon
import Crypto
import FoundationEssentials

/// A `WWW-Authenticate` challenge from an RTSP (or HTTP) server.
public struct AuthenticationChallenge: Sendable, Equatable {
    public enum Scheme: String, Sendable, Codable {
        case basic = "Basic"
        case digest = "Digest"
    }
    public var scheme: Scheme
    public var realm: String
    public var nonce: String?
    public var opaque: String?
    /// `MD5` (default), `MD5-sess`, `SHA-256`, `SHA-256-sess`.
    public var algorithm: String
    /// Offered quality-of-protection values; empty for RFC 2069 digests.
    public var qop: [String]
    public var stale: Bool

    /// Parses one header value; nil for schemes we do not speak (e.g. NTLM).
    public init?(header: String) {
        let trimmed = header.trimmingWhitespace()
        guard let space = trimmed.firstIndex(of: " ") ?? Optional(trimmed.endIndex) else { return nil }
        let name = trimmed[..<space].lowercased()
        switch name {
        case "basic": scheme = .basic
        case "digest": scheme = .digest
        default: return nil
        }
        let parameters = Self.parameters(String(trimmed[space...]))
        realm = parameters["realm"] ?? ""
        nonce = parameters["nonce"]
        opaque = parameters["opaque"]
        algorithm = parameters["algorithm"] ?? "MD5"
        qop = (parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter {
            !$0.isEmpty
        }
        stale = parameters["stale"]?.lowercased() == "true"
        if scheme == .digest && nonce == nil { return nil }
    }

    /// `key=value, key="quoted, value"` pairs (keys lowercased).
    static func parameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var index = text.startIndex
        func skip(_ characters: Set<Character>) {
            while index < text.endIndex, characters.contains(text[index]) { index = text.index(after: index) }
        }
        while index < text.endIndex {
            skip([" ", ",", "\t"])
            let keyStart = index
            while index < text.endIndex, text[index] != "=", text[index] != "," { index = text.index(after: index) }
            let key = text[keyStart..<index].trimmingWhitespace().lowercased()
            guard index < text.endIndex, text[index] == "=" else { continue }
            index = text.index(after: index)
            skip([" "])
            var value = ""
            if index < text.endIndex, text[index] == "\"" {
                index = text.index(after: index)
                while index < text.endIndex, text[index] != "\"" {
                    if text[index] == "\\", text.index(after: index) < text.endIndex {
                        index = text.index(after: index)
                    }
                    value.append(text[index])
                    index = text.index(after: index)
                }
                if index < text.endIndex { index = text.index(after: index) }
            } else {
                let valueStart = index
                while index < text.endIndex, text[index] != "," { index = text.index(after: index) }
                value = text[valueStart..<index].trimmingWhitespace()
            }
            if !key.isEmpty { result[key] = value }
        }
        return result
    }

    /// Prefers Digest with SHA-256, then Digest with MD5, then Basic.
    public static func strongest(_ challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        challenges.max { rank($0) < rank($1) }
    }

    static func rank(_ challenge: AuthenticationChallenge) -> Int {
        switch (challenge.scheme, challenge.algorithm.uppercased().hasPrefix("SHA-256")) {
        case (.digest, true): 3
        case (.digest, false): 2
        case (.basic, _): 1
        }
    }
}

/// Builds `Authorization` headers: Basic, and Digest per RFC 2617 (with `qop=auth`) and RFC 2069
/// (without), MD5 or SHA-256 (RFC 7616), with the `-sess` variants.
public struct DigestAuthenticator: Sendable {
    public var username: String
    public var password: String
    private var nonceCount = 0

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The header value answering `challenge` for `method` on `uri`. `clientNonce` is random unless
    /// given (tests pass one to compare with published examples).
    public mutating func authorization(
        for challenge: AuthenticationChallenge, method: String, uri: String, clientNonce: String? = nil
    ) -> String {
        switch challenge.scheme {
        case .basic:
            return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        case .digest:
            nonceCount += 1
            let nonce = challenge.nonce ?? ""
            let algorithm = challenge.algorithm.uppercased()
            let useSHA256 = algorithm.hasPrefix("SHA-256")
            func hash(_ text: String) -> String { useSHA256 ? Self.sha256(text) : Self.md5(text) }
            let cnonce = clientNonce ?? Self.randomHex(16)
            var ha1 = hash("\(username):\(challenge.realm):\(password)")
            if algorithm.hasSuffix("-SESS") { ha1 = hash("\(ha1):\(nonce):\(cnonce)") }
            let ha2 = hash("\(method):\(uri)")
            let nc = String(nonceCount, radix: 16).leftPadded(to: 8)
            var fields = [
                "username=\"\(username)\"", "realm=\"\(challenge.realm)\"", "nonce=\"\(nonce)\"", "uri=\"\(uri)\"",
            ]
            if challenge.qop.contains("auth") {
                let response = hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
                fields += ["response=\"\(response)\"", "qop=auth", "nc=\(nc)", "cnonce=\"\(cnonce)\""]
            } else {
                fields.append("response=\"\(hash("\(ha1):\(nonce):\(ha2)"))\"")
            }
            if challenge.algorithm != "MD5" || challenge.qop.isEmpty == false {
                fields.append("algorithm=\(challenge.algorithm)")
            }
            if let opaque = challenge.opaque { fields.append("opaque=\"\(opaque)\"") }
            return "Digest " + fields.joined(separator: ", ")
        }
    }

    static func md5(_ text: String) -> String {
        Insecure.MD5.hash(data: Data(text.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16).leftPadded(to: 2)
        }
        .joined()
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
