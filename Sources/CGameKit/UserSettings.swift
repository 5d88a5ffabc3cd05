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
        guard let data = FileManager.default.contents(atPath: path) else { return UserSettings() }
        do {
            let settings = try JSONDecoder().decode(UserSettings.self, from: data)
            try settings.validate()
            return settings
        } catch let error as DecodingError {
            throw MediaError(decoding: error, operation: "load settings \(path)")
        } catch let error as MediaError {
            throw MediaError(error.kind, operation: "load settings \(path)", message: error.message)
        } catch {
            throw MediaError(.invalidArgument, operation: "load settings \(path)", message: "\(error)")
        }
    }

    /// Saves atomically (the old file stays whole until the new one is complete).
    public func save(to path: String = defaultPath) throws(MediaError) {
        try validate()
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else {
            throw MediaError(.other, operation: "save settings", message: "cannot encode")
        }
        try AtomicFile.write([UInt8](data), to: path)
    }

    /// The highlight cutting settings these imply.
    public var highlightSettings: HighlightSettings {
        HighlightSettings(preRoll: preRollDuration, postRoll: postRollDuration)
    }
}
