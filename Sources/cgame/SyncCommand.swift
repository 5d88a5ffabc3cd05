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
            A clip stays pending until the server confirms it has the whole file, so a dropped
            connection only means the next `cgame sync` sends it again (never twice on the server).

              echo "$PASSWORD" | cgame sync --server http://127.0.0.1:8080 --email me@example.com --password-stdin
              CAMERACORE_TOKEN=… cgame sync --server https://cameracore.example.com --json
            """)

    @OptionGroup var store: ClipStoreOption
    @Option(help: "The server's base URL.") var server = "http://127.0.0.1:8080"
    @Option(help: "Account e-mail (with --password-stdin); or set CAMERACORE_TOKEN.") var email: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let clips = try store.open()
        let client: ClipSync
        if let email {
            guard passwordStdin, let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("--email needs the password on standard input (--password-stdin)")
            }
            client = try await ClipSync.signIn(server: server, email: email, password: password)
        } else if let token = ProcessInfo.processInfo.environment["CAMERACORE_TOKEN"], !token.isEmpty {
            client = ClipSync(server: server, accessToken: token)
        } else {
            throw ValidationError("sign in with --email and --password-stdin, or set CAMERACORE_TOKEN")
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
}
