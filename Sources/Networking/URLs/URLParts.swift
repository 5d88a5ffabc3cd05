/// The one URL parser: `scheme://[user[:password]@]host[:port]/path?query`, with `[IPv6]` hosts
/// and percent-decoded credentials. ``StreamURL`` (cameras) and ``HTTPURL`` (HTTP requests) are
/// this with their schemes and default ports.
///
/// It refuses what a request line must never carry: control characters (CR, LF, NUL …) and spaces
/// anywhere, a missing host, and a port outside 1–65535.
public struct URLParts: Sendable, Equatable {
    /// Lowercased.
    public var scheme: String
    public var user: String?
    public var password: String?
    /// Without brackets for IPv6.
    public var host: String
    /// Nil when the URL names none.
    public var port: Int?
    /// Path with query, starting with `/` (`/` when the URL has none).
    public var path: String

    public init?(_ text: String) {
        guard !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
            let schemeEnd = text.firstRange(of: "://")
        else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return nil
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = Self.percentDecoded(String(credentials[..<colon]))
                password = Self.percentDecoded(String(credentials[credentials.index(after: colon)...]))
            } else {
                user = Self.percentDecoded(String(credentials))
            }
        }
        var host = String(authority)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            } else if !after.isEmpty {
                return nil
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
        path = rest.isEmpty ? "/" : rest.hasPrefix("?") ? "/" + rest : String(rest)
    }

    /// `%41` → `A`, leniently: a malformed escape stays as it is written, bytes that are not UTF-8
    /// become U+FFFD. (URL credentials and ONVIF scopes are written by people and cameras.)
    public static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `host`, or `[host]` for IPv6, as it stands in a URL or a Host header.
    public static func bracketedHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
