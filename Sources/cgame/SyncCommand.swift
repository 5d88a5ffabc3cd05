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

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Upload pending clips to a CameraCore server.",
        discussion: """
            A clip stays pending until the server confirms it has the whole file, so a dropped \
            connection only means the next `cgame sync` sends it again (never twice on the server).

              cgame login --server http://127.0.0.1:8080 --email me@example.com   (once)
              cgame sync
              echo "$PASSWORD" | cgame sync --server http://127.0.0.1:8080 --email me@example.com --password-stdin
              CAMERACORE_TOKEN=… cgame sync --server https://cameracore.example.com --json
            """)

    @OptionGroup var store: ClipStoreOption
    @Option(help: "The server's base URL (default: the one `cgame login` saved, else http://127.0.0.1:8080).")
    var server: String?
    @Option(help: "Account e-mail (with --password-stdin); or set CAMERACORE_TOKEN, or run `cgame login` once.")
    var email: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let clips = try store.open()
        let client: ClipSync
        do {
            client = try await signIn()
        } catch let error as MediaError {
            // One line a person can act on: which server, and why.
            Terminal.error("cgame sync: \(error.message); \(clips.loadPendingClipMetadata().count) clips stay pending")
            throw ExitCode(1)
        }
        let quiet = json
        let report = await client.upload(from: clips) { clip, ok in
            if !quiet { print("\(ok ? "uploaded" : "kept pending") \(clip.name) (\(clip.id))") }
        }
        if json {
            try printJSON(report)
        } else {
            for failure in report.failed { Terminal.error("\(failure.id): \(failure.reason)") }
            print("\(report.uploaded.count) uploaded, \(report.failed.count) still pending")
        }
        if !report.failed.isEmpty { throw ExitCode(1) }
    }

    /// The client for --email, CAMERACORE_TOKEN or the saved login, in that order.
    func signIn() async throws -> ClipSync {
        if let email {
            guard passwordStdin, let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("--email needs the password on standard input (--password-stdin)")
            }
            return try await ClipSync.signIn(server: server ?? Self.defaultServer, email: email, password: password)
        }
        if let token = ProcessInfo.processInfo.environment["CAMERACORE_TOKEN"], !token.isEmpty {
            return ClipSync(server: server ?? Self.defaultServer, accessToken: token)
        }
        if let login = try AccountLogin.load() {
            if let server, server != login.server {
                throw ValidationError(
                    "signed in to \(login.server), not \(server): run `cgame login --server \(server)` or drop --server"
                )
            }
            return try await ClipSync.resume(login)
        }
        throw ValidationError("not signed in: run `cgame login --email you@example.com` once (or pass --email)")
    }

    static let defaultServer = "http://127.0.0.1:8080"
}
