import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show or change your settings.",
        discussion: """
            After `cgame login` the settings are your account's (the web app's Settings tab shows the \
            same); changes go to the server too.

              cgame settings --game apex --pre-roll 6 --post-roll 2
            """)

    @Option(help: "Active game profile.") var game: String?
    @Option(help: "Video quality: \(UserSettings.qualities.joined(separator: ", ")).") var quality: String?
    @Option(help: "Seconds before the first event.") var preRoll: Double?
    @Option(help: "Seconds after the last event.") var postRoll: Double?
    @Flag(help: "Print as JSON.") var json = false

    func run() async throws {
        var (settings, source) = try await AccountSettings.current()
        let changing = game != nil || quality != nil || preRoll != nil || postRoll != nil
        if let game { settings.gameProfileName = try ProfileLibrary.profile(named: game).name }
        if let quality { settings.videoQuality = quality }
        if let preRoll { settings.preRollDuration = preRoll }
        if let postRoll { settings.postRollDuration = postRoll }
        if changing {
            try settings.validate()
            try await AccountSettings.save(settings)
        }
        if json {
            try printJSON(settings)
        } else {
            print(
                """
                game        \(settings.gameProfileName)
                quality     \(settings.videoQuality)
                pre-roll    \(settings.preRollDuration) s
                post-roll   \(settings.postRollDuration) s
                from        \(source)
                """)
        }
    }
}
