import FoundationEssentials

/// A camera as the CameraCore server's API shows it: everything but the password, plus whether one
/// is stored. The one definition of the camera JSON for the server and its clients.
public struct CameraRecord: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var rtspURL: String
    public var username: String?
    public var ipAddress: String
    public var port: Int
    public var manufacturer: String?
    public var model: String?
    public var isActive: Bool
    public var gridPosition: Int
    public var dateAdded: Date
    public var lastConnected: Date?
    public var hasPassword: Bool
    /// The ONVIF endpoint reference the server follows the camera by when its address changes.
    public var endpoint: String?

    public init(
        id: String, name: String, rtspURL: String, username: String?, ipAddress: String, port: Int,
        manufacturer: String?, model: String?, isActive: Bool, gridPosition: Int, dateAdded: Date,
        lastConnected: Date?, hasPassword: Bool, endpoint: String? = nil
    ) {
        self.id = id
        self.name = name
        self.rtspURL = rtspURL
        self.username = username
        self.ipAddress = ipAddress
        self.port = port
        self.manufacturer = manufacturer
        self.model = model
        self.isActive = isActive
        self.gridPosition = gridPosition
        self.dateAdded = dateAdded
        self.lastConnected = lastConnected
        self.hasPassword = hasPassword
        self.endpoint = endpoint
    }
}

extension CameraRecord {
    /// The API form of a stored camera.
    public init(_ camera: Camera, hasPassword: Bool) {
        self.init(
            id: camera.id.uuidString.lowercased(), name: camera.name, rtspURL: camera.rtspURL,
            username: camera.username, ipAddress: camera.ipAddress, port: Int(camera.port),
            manufacturer: camera.manufacturer, model: camera.model, isActive: camera.isActive,
            gridPosition: Int(camera.gridPosition), dateAdded: camera.dateAdded, lastConnected: camera.lastConnected,
            hasPassword: hasPassword, endpoint: camera.endpoint)
    }
}

/// What a client sends to add or change a camera. `password` is write-only: stored in the
/// credential store, never in the database, never sent back.
public struct CameraInput: Sendable, Codable {
    public var name: String?
    public var rtspURL: String?
    public var username: String?
    public var password: String?
    public var manufacturer: String?
    public var model: String?
    public var isActive: Bool?
    public var gridPosition: Int?
    /// From discovery: the camera's WS-Discovery endpoint reference and ONVIF serial number, so the
    /// server can follow it to a new address (only when adding; a later change keeps them).
    public var endpoint: String?
    public var serialNumber: String?

    public init(
        name: String? = nil, rtspURL: String? = nil, username: String? = nil, password: String? = nil,
        manufacturer: String? = nil, model: String? = nil, isActive: Bool? = nil, gridPosition: Int? = nil,
        endpoint: String? = nil, serialNumber: String? = nil
    ) {
        self.name = name
        self.rtspURL = rtspURL
        self.username = username
        self.password = password
        self.manufacturer = manufacturer
        self.model = model
        self.isActive = isActive
        self.gridPosition = gridPosition
        self.endpoint = endpoint
        self.serialNumber = serialNumber
    }
}
