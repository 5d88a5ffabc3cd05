import CameraCommon
import FoundationEssentials

/// A camera the user monitors (the spec's Camera entity). The password is deliberately not a
/// field: it lives only in a ``CredentialStore``, keyed by the camera's id.
public struct Camera: Sendable, Codable, Equatable, Identifiable {
    public var id: UUID
    /// What the user calls it, e.g. `Front Door`.
    public var name: String
    /// The complete stream URL, without credentials (`rtsp://192.168.1.20:554/stream1`).
    public var rtspURL: String
    public var username: String?
    public var ipAddress: String
    public var port: Int16
    public var manufacturer: String?
    public var model: String?
    public var isActive: Bool
    /// Display order in the grid, 0 first.
    public var gridPosition: Int16
    public var dateAdded: Date
    public var lastConnected: Date?
    /// A small JPEG of the last picture, for lists.
    public var thumbnailData: Data?

    public init(
        id: UUID = UUID(), name: String, rtspURL: String, username: String? = nil, ipAddress: String? = nil,
        port: Int16? = nil, manufacturer: String? = nil, model: String? = nil, isActive: Bool = true,
        gridPosition: Int16 = 0, dateAdded: Date = Date(), lastConnected: Date? = nil, thumbnailData: Data? = nil
    ) {
        let parts = StreamURL(rtspURL)
        self.id = id
        self.name = name
        self.rtspURL = parts?.withoutCredentials ?? rtspURL
        self.username = username ?? parts?.user
        self.ipAddress = ipAddress ?? parts?.host ?? ""
        self.port = port ?? Int16(clamping: parts?.port ?? 554)
        self.manufacturer = manufacturer
        self.model = model
        self.isActive = isActive
        self.gridPosition = gridPosition
        self.dateAdded = Date(timeIntervalSince1970: dateAdded.timeIntervalSince1970.rounded())
        self.lastConnected = lastConnected
        self.thumbnailData = thumbnailData
    }

    /// The path part of the URL (`/stream1`), used with host and port to spot duplicates.
    public var streamPath: String { StreamURL(rtspURL)?.path ?? "/" }
}

/// One of a camera's streams (the spec's StreamProfile entity), e.g. main and sub stream.
public struct StreamProfile: Sendable, Codable, Equatable, Identifiable {
    public var id: UUID
    public var cameraID: UUID
    /// e.g. `Main Stream`, `Sub Stream`.
    public var name: String
    public var rtspURL: String
    /// e.g. `1920x1080`.
    public var resolution: String
    public var fps: Int16
    public var isDefault: Bool

    public init(
        id: UUID = UUID(), cameraID: UUID, name: String, rtspURL: String, resolution: String, fps: Int16,
        isDefault: Bool = false
    ) {
        self.id = id
        self.cameraID = cameraID
        self.name = name
        self.rtspURL = StreamURL(rtspURL)?.withoutCredentials ?? rtspURL
        self.resolution = resolution
        self.fps = fps
        self.isDefault = isDefault
    }
}

/// The parts of an `rtsp://[user[:password]@]host[:port]/path` URL.
public struct StreamURL: Sendable, Equatable {
    public var scheme: String
    public var user: String?
    public var password: String?
    public var host: String
    public var port: Int
    /// Path with query, starting with `/`.
    public var path: String

    /// Nil when `text` is not an `rtsp`/`rtsps` URL with a host.
    public init?(_ text: String) {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "rtsp" || scheme == "rtsps" else { return nil }
        var rest = Substring(text[schemeEnd.upperBound...])
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = String(credentials[..<colon]).percentDecoded ?? String(credentials[..<colon])
                let secret = credentials[credentials.index(after: colon)...]
                password = String(secret).percentDecoded ?? String(secret)
            } else {
                user = String(credentials).percentDecoded ?? String(credentials)
            }
        }
        var host = String(authority)
        var port = scheme == "rtsps" ? 322 : 554
        if host.hasPrefix("[") {
            // [IPv6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
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
        self.path = rest.isEmpty ? "/" : String(rest)
    }

    /// The URL as given but without user and password.
    public var withoutCredentials: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart):\(port)\(path)"
    }

    /// The URL with credentials, for handing to FFmpeg only (never to logs).
    public func withCredentials(user: String?, password: String?) -> String {
        guard let user, !user.isEmpty else { return withoutCredentials }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let secret = password.map { ":" + Self.percentEncode($0) } ?? ""
        return "\(scheme)://\(Self.percentEncode(user))\(secret)@\(hostPart):\(port)\(path)"
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

extension String {
    /// `%41` → `A`; nil when an escape is malformed.
    var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
