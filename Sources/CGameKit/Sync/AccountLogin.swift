import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

#if canImport(Glibc)
    import Glibc
#endif

/// The account `cgame login` signed in to: the server, the e-mail, and the session's refresh token
/// (never the password), in `$CGAME_HOME/account.json` with mode 0600. Refresh tokens are single
/// use: every ``ClipSync/resume(_:savingTo:)`` saves the new one before using the session, since the
/// server ends a session whose old token is presented again.
public struct AccountLogin: Sendable, Codable, Equatable {
    public var server: String
    public var email: String
    public var refreshToken: String

    public init(server: String, email: String, refreshToken: String) {
        self.server = server
        self.email = email
        self.refreshToken = refreshToken
    }

    public static var defaultPath: String { CGamePaths.home + "/account.json" }

    /// The saved login, or nil when there is none.
    public static func load(from path: String = defaultPath) throws(MediaError) -> AccountLogin? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONFile.decode(AccountLogin.self, from: data, operation: "read the saved login \(path)")
    }

    /// Writes the login readable by its owner only (created 0600, then renamed into place).
    public func save(to path: String = Self.defaultPath) throws(MediaError) {
        let operation = "save the login \(path)"
        let folder = AtomicFile.folder(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.writeFailed, operation: operation, message: "cannot create \(folder)")
        }
        let bytes = try JSONFile.text(self, operation: operation)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw MediaError(.writeFailed, operation: operation, message: "cannot write") }
        fchmod(descriptor, 0o600)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw MediaError(.writeFailed, operation: operation, message: "cannot write")
        }
    }

    public static func remove(at path: String = defaultPath) {
        unlink(path)
    }
}

extension ClipSync {
    struct Tokens: Decodable {
        var accessToken: String
        var refreshToken: String
    }

    /// Signs in with e-mail and password; returns the client and the login to save.
    public static func logIn(server: String, email: String, password: String) async throws(MediaError) -> (
        ClipSync, AccountLogin
    ) {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        let body = Array((try? JSONEncoder().encode(["email": email, "password": password])) ?? Data())
        let response = try await reach(base) { () async throws(MediaError) in
            try await send(.POST, base + "/api/auth/login", token: nil, body: body, timeout: .seconds(20))
        }
        guard response.status == 200, let tokens = try? JSONDecoder().decode(Tokens.self, from: Data(response.body))
        else {
            throw MediaError(.authenticationFailed, operation: "sign in to \(base)", message: message(response))
        }
        return (
            ClipSync(server: base, accessToken: tokens.accessToken),
            AccountLogin(server: base, email: email, refreshToken: tokens.refreshToken)
        )
    }

    /// A client for the saved login: trades its refresh token for a new session token and saves
    /// the new refresh token at `path` first.
    public static func resume(_ login: AccountLogin, savingTo path: String = AccountLogin.defaultPath)
        async throws(MediaError) -> ClipSync
    {
        let body = Array((try? JSONEncoder().encode(["refreshToken": login.refreshToken])) ?? Data())
        let response = try await reach(login.server) { () async throws(MediaError) in
            try await send(.POST, login.server + "/api/auth/refresh", token: nil, body: body, timeout: .seconds(20))
        }
        guard response.status == 200, let tokens = try? JSONDecoder().decode(Tokens.self, from: Data(response.body))
        else {
            throw MediaError(
                .authenticationFailed, operation: "sign in to \(login.server)",
                message: "the saved login of \(login.email) has ended (\(message(response))); run `cgame login` again")
        }
        var renewed = login
        renewed.refreshToken = tokens.refreshToken
        try renewed.save(to: path)
        return ClipSync(server: login.server, accessToken: tokens.accessToken)
    }

    /// The account's CGame settings on the server.
    public func settings() async throws(MediaError) -> UserSettings {
        let response = try await Self.reach(server) { () async throws(MediaError) in
            try await Self.send(.GET, server + "/api/settings", token: accessToken, body: [], timeout: .seconds(10))
        }
        guard response.status == 200,
            let settings = try? JSONFile.decoder().decode(UserSettings.self, from: Data(response.body))
        else {
            throw MediaError(.network, operation: "read settings from \(server)", message: Self.message(response))
        }
        return settings
    }

    /// Saves the account's CGame settings on the server (it checks the game against its profiles).
    public func saveSettings(_ settings: UserSettings) async throws(MediaError) {
        let body = Array((try? JSONFile.encoder(pretty: false).encode(settings)) ?? Data())
        let response = try await Self.reach(server) { () async throws(MediaError) in
            try await Self.send(.PUT, server + "/api/settings", token: accessToken, body: body, timeout: .seconds(10))
        }
        guard response.status == 200 else {
            throw MediaError(.network, operation: "save settings on \(server)", message: Self.message(response))
        }
    }

    /// Ends the session on the server (best effort: the saved login is removed either way).
    public func logOut() async {
        _ = try? await Self.send(
            .POST, server + "/api/auth/logout", token: accessToken, body: [], timeout: .seconds(10))
    }

    /// Runs a request, turning "cannot connect" into one sentence that names the server.
    static func reach(_ server: String, _ request: () async throws(MediaError) -> HTTPClientResponse)
        async throws(MediaError) -> HTTPClientResponse
    {
        do throws(MediaError) {
            return try await request()
        } catch {
            throw MediaError(
                .network, operation: "reach \(server)",
                message: "cannot reach the CameraCore server at \(server) (\(error.message)); is it running?")
        }
    }
}
