import CameraCommon
import CameraIO
import FoundationEssentials

/// The player's settings (the spec's `settings/userSettings` document), kept in
/// `$CGAME_HOME/settings.json` and synced by the server.
public struct UserSettings: Sendable, Codable, Equatable {
    /// The active detection profile, e.g. `Fortnite`.
    public var gameProfileName: String
    /// Capture quality, e.g. `1080p`; reels are not scaled above it.
    public var videoQuality: String
    /// Seconds kept before the first event of a highlight.
    public var preRollDuration: Double
    /// Seconds kept after the last event.
    public var postRollDuration: Double

    public init(
        gameProfileName: String = "Fortnite", videoQuality: String = "1080p", preRollDuration: Double = 5,
        postRollDuration: Double = 3
    ) {
        self.gameProfileName = gameProfileName
        self.videoQuality = videoQuality
        self.preRollDuration = preRollDuration
        self.postRollDuration = postRollDuration
    }

    public static let qualities = ["480p", "720p", "1080p", "1440p", "2160p"]

    /// Checks ranges; the message names the field.
    public func validate() throws(MediaError) {
        let operation = "check settings"
        guard Self.qualities.contains(videoQuality) else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "videoQuality: \"\(videoQuality)\" is not one of \(Self.qualities.joined(separator: ", "))")
        }
        for (name, value) in [("preRollDuration", preRollDuration), ("postRollDuration", postRollDuration)]
        where !(0...30).contains(value) {
            throw MediaError(
                .invalidArgument, operation: operation, message: "\(name): must be 0…30 seconds, got \(value)")
        }
        if gameProfileName.trimmingWhitespace().isEmpty {
            throw MediaError(.invalidArgument, operation: operation, message: "gameProfileName: must not be empty")
        }
    }

    public static var defaultPath: String { CGamePaths.home + "/settings.json" }

    /// The saved settings, or the defaults when there is no file yet.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` naming the field when the file is damaged.
    public static func load(from path: String = defaultPath) throws(MediaError) -> UserSettings {
        let operation = "load settings \(path)"
        guard let data = FileManager.default.contents(atPath: path) else { return UserSettings() }
        let settings = try JSONFile.decode(UserSettings.self, from: data, operation: operation)
        do {
            try settings.validate()
        } catch {
            throw MediaError(error.kind, operation: operation, message: error.message)
        }
        return settings
    }

    /// Saves atomically (the old file stays whole until the new one is complete).
    public func save(to path: String = defaultPath) throws(MediaError) {
        try validate()
        try? FileManager.default.createDirectory(atPath: AtomicFile.folder(of: path), withIntermediateDirectories: true)
        try JSONFile.write(self, to: path, operation: "save settings")
    }

    /// The highlight cutting settings these imply.
    public var highlightSettings: HighlightSettings {
        HighlightSettings(preRoll: preRollDuration, postRoll: postRollDuration)
    }
}
