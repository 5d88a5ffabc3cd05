import FoundationEssentials

/// The metadata `cgame sync` sends for a clip (`PUT /api/clips/{id}`): the one definition the
/// client encodes and the CameraCore server decodes.
public struct ClipInput: Sendable, Codable {
    public var game: String
    public var name: String?
    public var events: [String]
    public var timestamp: Date
    public var duration: Double

    public init(game: String, name: String? = nil, events: [String], timestamp: Date, duration: Double) {
        self.game = game
        self.name = name
        self.events = events
        self.timestamp = timestamp
        self.duration = duration
    }
}
