import ArgumentParser
import CGameKit
import CameraCommon
import CommandLineSupport
import Foundation

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign in to a CameraCore server once, so `cgame sync` needs no flags.",
        discussion: """
            Saves the server, your e-mail and a session token (never the password) in \
            $CGAME_HOME/account.json, readable only by you. `cgame sync` then uploads to that \
            account, and `cgame logout` ends the session.

              cgame login --server http://192.168.1.10:8080 --email me@example.com
              echo "$PASSWORD" | cgame login --server https://cameracore.example.com --email me@example.com
            """)

    @Option(help: "The server's base URL.") var server = "http://127.0.0.1:8080"
    @Option(help: "Account e-mail.") var email: String
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        guard let password = Terminal.readPassword(prompt: "password for \(email): "), !password.isEmpty else {
            throw ValidationError("type the account's password (or pipe it on standard input)")
        }
        do {
            let (_, login) = try await ClipSync.logIn(server: server, email: email, password: password)
            try login.save()
            if json {
                try printJSON(["server": login.server, "email": login.email, "saved": AccountLogin.defaultPath])
            } else {
                print("Signed in as \(login.email) on \(login.server). `cgame sync` now uploads there without flags.")
            }
        } catch let error as MediaError {
            Terminal.error("cgame login: \(error.message)")
            throw ExitCode(1)
        }
    }
}

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "End the saved session and forget it.")

    func run() async throws {
        guard let login = try AccountLogin.load() else {
            print("Not signed in.")
            return
        }
        // Ending the session on the server is best effort; the saved token goes either way.
        if let client = try? await ClipSync.resume(login) { await client.logOut() }
        AccountLogin.remove()
        print("Signed out of \(login.server).")
    }
}
