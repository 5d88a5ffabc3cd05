import ArgumentParser
import CameraCommon
import CameraServer
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

@main
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameracore-server",
        abstract:
            "The CameraCore server: accounts, CGame clip sync, the LeBot AI proxy, WatchBox cameras and live view, and the web UI.",
        discussion: """
            Settings come from defaults, then a JSON file (--config, same keys as `--print-config`), \
            then environment variables, then these options.

            Environment:
            \(ServerConfiguration.environmentVariables.map { "  \($0.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \($0.meaning)" }.joined(separator: "\n"))

            Examples:
              cameracore-server                   SQLite in ./data, http://127.0.0.1:8080
              cameracore-server --port 9000 --data /var/lib/cameracore
              DATABASE_URL=postgres://cc:secret@127.0.0.1:5432/cameracore cameracore-server
              cameracore-server --demo demo@cameracore.local:demo-password
              cameracore-server --print-config > server.json   then edit, pass --config
            """)

    @Option(help: "JSON configuration file.") var config: String?
    @Option(help: "Address to listen on.") var host: String?
    @Option(help: "Port to listen on (0: any free port).") var port: Int?
    @Option(name: .customLong("data"), help: "Data directory (database, clips, credentials).") var dataDirectory:
        String?
    @Option(help: "Create this account at start when missing, as email:password.") var demo: String?
    @Flag(help: "Print the effective configuration as JSON (secrets hidden) and exit.") var printConfig = false

    func run() async throws {
        do {
            var settings = ServerConfiguration()
            if let config { settings = try ServerConfiguration.load(file: config) }
            try settings.apply(environment: ProcessInfo.processInfo.environment)
            if let host { settings.host = host }
            if let port { settings.port = port }
            if let dataDirectory { settings.dataDirectory = dataDirectory }
            if let demo {
                let parts = demo.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else {
                    throw MediaError(.invalidArgument, operation: "read --demo", message: "use email:password")
                }
                (settings.demoEmail, settings.demoPassword) = (String(parts[0]), String(parts[1]))
            }
            if printConfig {
                var shown = settings
                shown.geminiAPIKey = shown.geminiAPIKey.map { _ in "(set)" }
                shown.sessionSecret = shown.sessionSecret.map { _ in "(set)" }
                shown.demoPassword = shown.demoPassword.map { _ in "(set)" }
                shown.databaseURL = shown.databaseURL.map(URLRedaction.redactingURLs(in:))
                try printJSON(shown)
                return
            }
            let server = try await CameraCoreServer(configuration: settings)
            let host = settings.host
            let database = settings.databaseURL == nil ? "SQLite in \(settings.dataDirectory)" : "PostgreSQL"
            let demoLine = settings.demoEmail.map { "  demo login: \($0) / \(settings.demoPassword ?? "")\n" } ?? ""
            try await server.run { port in
                print("CameraCore server on http://\(host):\(port)/  (\(database))\n\(demoLine)  Ctrl-C stops it.")
                flushStandardOutput()
            }
        } catch let error as MediaError {
            Terminal.error(error.description)
            throw ExitCode(2)
        }
    }
}
