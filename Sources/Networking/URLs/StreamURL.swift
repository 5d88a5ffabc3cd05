/// The parts of an `rtsp://[user[:password]@]host[:port]/path` URL (``URLParts`` with the RTSP
/// schemes and their default ports, 554 and 322).
public struct StreamURL: Sendable, Equatable {
    public var scheme: String
    public var user: String?
    public var password: String?
    public var host: String
    public var port: Int
    /// Path with query, starting with `/`.
    public var path: String

    /// Nil when `text` is not an `rtsp`/`rtsps` URL with a host (or carries control characters).
    public init?(_ text: String) {
        guard let parts = URLParts(text), parts.scheme == "rtsp" || parts.scheme == "rtsps" else { return nil }
        scheme = parts.scheme
        user = parts.user
        password = parts.password
        host = parts.host
        port = parts.port ?? (parts.scheme == "rtsps" ? 322 : 554)
        path = parts.path
    }

    /// The same URL with another host (the address a checked name resolved to).
    public func withHost(_ host: String) -> StreamURL {
        var copy = self
        copy.host = host
        return copy
    }

    private var hostForURL: String { URLParts.bracketedHost(host) }

    /// The URL as given but without user and password.
    public var withoutCredentials: String { "\(scheme)://\(hostForURL):\(port)\(path)" }

    /// The URL with credentials, for handing to FFmpeg only (never to logs).
    public func withCredentials(user: String?, password: String?) -> String {
        guard let user, !user.isEmpty else { return withoutCredentials }
        let secret = password.map { ":" + Self.percentEncode($0) } ?? ""
        return "\(scheme)://\(Self.percentEncode(user))\(secret)@\(hostForURL):\(port)\(path)"
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80 && (character.isLetter || character.isNumber || "-._~".contains(character)) {
                out.append(character)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
