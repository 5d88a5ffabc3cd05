import CameraCommon
import FoundationEssentials
import Networking

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
    /// The camera's WS-Discovery endpoint reference (`urn:uuid:…`), kept from discovery: a Hello
    /// from a new address with this reference means the camera moved (DHCP) — see ``CameraRelocation``.
    public var endpoint: String?
    /// The serial number its ONVIF service reported when it was added: how a move is confirmed.
    public var serialNumber: String?

    public init(
        id: UUID = UUID(), name: String, rtspURL: String, username: String? = nil, ipAddress: String? = nil,
        port: Int16? = nil, manufacturer: String? = nil, model: String? = nil, isActive: Bool = true,
        gridPosition: Int16 = 0, dateAdded: Date = Date(), lastConnected: Date? = nil, thumbnailData: Data? = nil,
        endpoint: String? = nil, serialNumber: String? = nil
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
        self.endpoint = endpoint.map(CameraRelocation.normalEndpoint)
        self.serialNumber = serialNumber
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
