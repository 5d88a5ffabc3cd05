import CGameKit
import CameraCommon
import CommandLineSupport

/// The settings `cgame` works with: the account's, from the server, when `cgame login` was run
/// (kept in the local file too, for runs without the server); otherwise the local file.
enum AccountSettings {
    /// The settings and where they came from, in words.
    static func current() async throws -> (settings: UserSettings, source: String) {
        guard let login = try AccountLogin.load() else { return (try UserSettings.load(), "this PC") }
        do {
            let client = try await ClipSync.resume(login)
            let settings = try await client.settings()
            try settings.save()
            return (settings, "your account on \(login.server)")
        } catch {
            Terminal.error("cgame: using the settings saved on this PC (\(error.message))")
            return (try UserSettings.load(), "this PC (the server was not reachable)")
        }
    }

    /// Saves `settings` here and, when signed in, to the account.
    static func save(_ settings: UserSettings) async throws {
        try settings.save()
        guard let login = try AccountLogin.load() else { return }
        do {
            let client = try await ClipSync.resume(login)
            try await client.saveSettings(settings)
        } catch {
            Terminal.error("cgame: saved on this PC only (\(error.message))")
        }
    }
}
