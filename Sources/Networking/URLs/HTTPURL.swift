import CameraCommon

/// An http(s) URL split into parts, enough to substitute a host and build requests.
public struct HTTPURL: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    public var host: String
    public var port: Int?
    /// Path with query, starting with `/`.
    public var path: String

    public init?(_ text: String) {
        guard let parts = URLParts(text.trimmingWhitespace()), parts.scheme == "http" || parts.scheme == "https" else {
            return nil
        }
        scheme = parts.scheme
        host = parts.host
        port = parts.port
        path = parts.path
    }

    public var effectivePort: Int { port ?? (scheme == "https" ? 443 : 80) }

    public var description: String {
        let hostPart = URLParts.bracketedHost(host)
        return "\(scheme)://\(hostPart)\(port.map { ":\($0)" } ?? "")\(path)"
    }
}
