import ArgumentParser
import CameraCommon
import CommandLineSupport
import FoundationEssentials
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

@main
struct WatchBoxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watchbox",
        abstract: "Keep a list of RTSP cameras and check that they answer.",
        discussion: """
              watchbox probe rtsp://192.168.1.20/stream1 --user admin      asks for the password
              watchbox cameras add "Front door" rtsp://192.168.1.20/stream1 --user admin --password-stdin
              watchbox cameras list --json
              watchbox cameras reorder <id> <id> ...

            Cameras live in $WATCHBOX_HOME/cameras.sqlite (default ~/.local/share/watchbox); passwords only in
            the encrypted credential file next to it, never in the database, logs or output.
            """,
        subcommands: [CamerasCommand.self, ProbeCommand.self]
    )
}

/// Where the database and the credentials are.
struct StoreOptions: ParsableArguments {
    @Option(help: "Data folder (default: $WATCHBOX_HOME or ~/.local/share/watchbox).")
    var home: String?

    var folder: String { home ?? WatchBoxPaths.home }

    func open() throws -> (SQLiteCameraRepository, FileCredentialStore) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (
            try SQLiteCameraRepository(path: folder + "/cameras.sqlite"),
            try FileCredentialStore(directory: folder + "/credentials")
        )
    }
}

/// Reads a password from standard input (one line), so it is not in the shell history or `ps`.
func readPassword(prompt: String) -> String? {
    if isatty(STDIN_FILENO) != 0 { writeStandardError(prompt) }
    guard let line = readLine(strippingNewline: true) else { return nil }
    return line
}

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Ask an RTSP URL what it serves (OPTIONS, DESCRIBE, login).",
        discussion: "Prints reachability, the login scheme, codecs and size. Exit status 1 when it cannot be played.")

    @Argument(help: "rtsp://host[:port]/path (credentials in the URL work but end up in shell history).")
    var url: String
    @Option(help: "User name.") var user: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Option(help: "Seconds to wait for answers.") var timeout: Double = 5
    @Flag(help: "Print as JSON.") var json = false

    func run() async throws {
        var password: String?
        if passwordStdin || user != nil && StreamURL(url)?.password == nil {
            password = readPassword(prompt: "password for \(user ?? "the camera"): ")
        }
        let prober = RTSPProber(timeout: .milliseconds(Int(timeout * 1000)))
        let result = await prober.probe(url, username: user, password: password)
        if json {
            try printJSON(result)
        } else {
            print(Self.describe(result))
        }
        if !result.isPlayable { throw ExitCode(1) }
    }

    static func describe(_ result: RTSPProbeResult) -> String {
        var lines = ["\(result.url)"]
        lines.append("  reachable   \(result.reachable ? "yes" : "no")\(result.server.map { " (\($0))" } ?? "")")
        switch result.authentication {
        case .none?: lines.append("  login       not needed")
        case .required(let schemes)?:
            lines.append("  login       needed: \(schemes.map(\.rawValue).joined(separator: ", ")) (give --user)")
        case .accepted(let scheme)?: lines.append("  login       accepted (\(scheme.rawValue))")
        case .rejected(let scheme)?: lines.append("  login       refused (\(scheme.rawValue)): check user and password")
        case nil: break
        }
        if let codec = result.videoCodec {
            var video = "  video       \(codec)"
            if let width = result.width, let height = result.height { video += " \(width)x\(height)" }
            if let fps = result.frameRate { video += " at \(String(format1: fps)) fps" }
            lines.append(video)
        }
        if let audio = result.audioCodec { lines.append("  audio       \(audio)") }
        lines.append("  answered in \(result.milliseconds) ms")
        if let error = result.error { lines.append("  problem     \(error)") }
        return lines.joined(separator: "\n")
    }
}

struct CamerasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameras", abstract: "Add, list, edit, reorder and remove cameras.",
        subcommands: [Add.self, List.self, Edit.self, Remove.self, Reorder.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a camera (checks it answers first unless --no-check).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "A name, e.g. \"Front door\".") var name: String
        @Argument(help: "rtsp://host[:port]/path") var url: String
        @Option(help: "User name.") var user: String?
        @Flag(help: "Read the password from standard input.") var passwordStdin = false
        @Flag(help: "Add without probing the camera.") var noCheck = false
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            guard let parts = StreamURL(url) else {
                throw ValidationError("'\(URLRedaction.redactingURLs(in: url))' is not an rtsp:// URL with a host")
            }
            let user = self.user ?? parts.user
            var password = parts.password
            if passwordStdin { password = readPassword(prompt: "password for \(user ?? "the camera"): ") }
            if !noCheck {
                let result = await RTSPProber().probe(url, username: user, password: password)
                guard result.isPlayable else {
                    Terminal.error(ProbeCommand.describe(result))
                    throw ValidationError("the camera did not answer as expected; add --no-check to add it anyway")
                }
            }
            let (repository, credentials) = try store.open()
            let camera = try repository.add(Camera(name: name, rtspURL: url, username: user))
            if let password { try credentials.setPassword(password, for: camera.id) }
            if json { try printJSON(camera) } else { print("added \(camera.name) (\(camera.id.uuidString))") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cameras in grid order.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            let (repository, _) = try store.open()
            let cameras = try repository.cameras()
            if json {
                try printJSON(cameras)
                return
            }
            guard !cameras.isEmpty else {
                print("No cameras yet. Add one with `watchbox cameras add NAME rtsp://...`.")
                return
            }
            var table = TextTable(headers: ["#", "name", "url", "user", "active", "id"])
            for camera in cameras {
                table.rows.append([
                    "\(camera.gridPosition + 1)", camera.name, camera.rtspURL, camera.username ?? "-",
                    camera.isActive ? "yes" : "no", camera.id.uuidString,
                ])
            }
            print(table.rendered)
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a camera's name, URL, user or password.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Camera id (or its first 8 characters) or name.") var camera: String
        @Option(help: "New name.") var name: String?
        @Option(help: "New rtsp:// URL.") var url: String?
        @Option(help: "New user name.") var user: String?
        @Flag(help: "Read a new password from standard input.") var passwordStdin = false
        @Option(help: "true or false.") var active: Bool?

        func run() async throws {
            let (repository, credentials) = try store.open()
            var found = try find(camera, in: repository)
            if let name { found.name = name }
            if let url {
                guard let parts = StreamURL(url) else { throw ValidationError("--url is not an rtsp:// URL") }
                found.rtspURL = parts.withoutCredentials
                found.ipAddress = parts.host
                found.port = Int16(clamping: parts.port)
            }
            if let user { found.username = user }
            if let active { found.isActive = active }
            try repository.update(found)
            if passwordStdin, let password = readPassword(prompt: "new password: ") {
                try credentials.setPassword(password, for: found.id)
            }
            print("updated \(found.name)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a camera, its profiles and its password.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Camera id (or its first 8 characters) or name.") var camera: String

        func run() async throws {
            let (repository, credentials) = try store.open()
            let found = try find(camera, in: repository)
            try repository.remove(id: found.id)
            try credentials.removePassword(for: found.id)
            print("removed \(found.name)")
        }
    }

    struct Reorder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put cameras first, in this order.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Camera ids or names.") var cameras: [String]

        func run() async throws {
            let (repository, _) = try store.open()
            let ids = try cameras.map { try find($0, in: repository).id }
            try repository.reorder(ids)
            print(try repository.cameras().map(\.name).joined(separator: ", "))
        }
    }
}

/// A camera by full id, id prefix (8+ characters) or exact name.
func find(_ key: String, in repository: SQLiteCameraRepository) throws -> Camera {
    let cameras = try repository.cameras()
    let matches = cameras.filter {
        $0.id.uuidString.lowercased() == key.lowercased()
            || (key.count >= 8 && $0.id.uuidString.lowercased().hasPrefix(key.lowercased())) || $0.name == key
    }
    guard matches.count == 1, let camera = matches.first else {
        throw ValidationError(
            matches.isEmpty ? "no camera '\(key)'; see `watchbox cameras list`" : "'\(key)' matches several cameras")
    }
    return camera
}
