import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import Synchronization
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
              watchbox discover                                           ONVIF cameras on this network
              watchbox scan 192.168.1.0/24                                RTSP services on a subnet
              watchbox probe rtsp://192.168.1.20/stream1 --user admin      asks for the password
              watchbox cameras add "Front door" rtsp://192.168.1.20/stream1 --user admin --password-stdin
              watchbox cameras list --json
              watchbox cameras reorder <id> <id> ...
              watchbox snapshot "Front door" -o door.jpg
              watchbox record "Front door" --for 10:00 --segment 60 -o recordings/door
              watchbox watch                                              live table of every camera

            Cameras live in $WATCHBOX_HOME/cameras.sqlite (default ~/.local/share/watchbox); passwords only in
            the encrypted credential file next to it, never in the database, logs or output.
            """,
        subcommands: [
            CamerasCommand.self, DiscoverCommand.self, ScanCommand.self, ProbeCommand.self, SnapshotCommand.self,
            RecordCommand.self, WatchCommand.self,
        ]
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

/// The camera's URL with its stored password, for FFmpeg only.
func playableURL(_ camera: Camera, credentials: FileCredentialStore) throws -> String {
    guard let parts = StreamURL(camera.rtspURL) else { return camera.rtspURL }
    return parts.withCredentials(user: camera.username, password: try credentials.password(for: camera.id))
}

func parseSeconds(_ text: String) throws -> Double {
    guard let time = try? MediaTime(parsing: text), time.seconds > 0 else {
        throw ValidationError("'\(text)' is not a duration (60, 90s, 1:30, 500ms)")
    }
    return time.seconds
}

struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Save a JPEG of a camera's current picture.")
    @OptionGroup var store: StoreOptions
    @Argument(help: "Camera id or name.") var camera: String
    @Option(name: .shortAndLong, help: "Output JPEG.") var output: String = "snapshot.jpg"
    @Option(help: "Width in pixels (height follows).") var width: Int?

    func run() async throws {
        let (repository, credentials) = try store.open()
        let found = try find(camera, in: repository)
        let jpeg = try Snapshot.jpeg(url: try playableURL(found, credentials: credentials), width: width)
        try AtomicFile.write(jpeg, to: output, durable: false)
        print("saved \(output) (\(jpeg.count / 1024) KB) from \(found.name)")
    }
}

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record a camera into MP4 segments cut at keyframes.",
        discussion: "  watchbox record Porch --for 10m --segment 60 -o recordings/porch   (Ctrl-C stops early)")
    @OptionGroup var store: StoreOptions
    @Argument(help: "Camera id or name.") var camera: String
    @Option(name: .customLong("for"), help: "How long (90s, 10m as 10:00); default until Ctrl-C.") var duration: String?
    @Option(help: "Seconds per segment.") var segment: Double = 60
    @Option(name: .shortAndLong, help: "Folder for the segments.") var output: String = "recordings"

    func run() async throws {
        let (repository, credentials) = try store.open()
        let found = try find(camera, in: repository)
        let seconds = try duration.map(parseSeconds)
        let manager = StreamManager(onState: { _, state in Terminal.status("\(found.name): \(state)") })
        let recorder = Mutex<SegmentRecorder?>(nil)
        let failure = Mutex<String?>(nil)
        let output = self.output
        let segment = self.segment
        manager.subscribe(found.id) { id, sample in
            recorder.withLock { holder in
                do throws(MediaError) {
                    if holder == nil, let streams = manager.streamInfo(id) {
                        holder = try SegmentRecorder(directory: output, streams: streams, segmentSeconds: segment)
                    }
                    try holder?.write(sample)
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
            }
        }
        let stop = Atomic<Bool>(false)
        StopSignal.install { stop.store(true, ordering: .relaxed) }
        manager.start(found.id, url: try playableURL(found, credentials: credentials))
        let started = ContinuousClock.now
        while !stop.load(ordering: .relaxed), failure.withLock({ $0 }) == nil {
            if let seconds, ContinuousClock.now - started >= .milliseconds(Int(seconds * 1000)) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        manager.stopAll()
        let files = try recorder.withLock { holder throws -> [String] in
            try holder?.finish()
            return holder?.segments ?? []
        }
        if let failure = failure.withLock({ $0 }) { Terminal.error("stopped: \(failure)") }
        print(files.isEmpty ? "nothing recorded" : files.joined(separator: "\n"))
    }
}

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Connect to every active camera and show a live table of their health.",
        discussion: "State, frames per second, bit rate and the age of the last packet, redrawn each second.")
    @OptionGroup var store: StoreOptions
    @Option(name: .customLong("for"), help: "Stop after this long (default: until Ctrl-C).") var duration: String?
    @Flag(help: "Print the final table as JSON.") var json = false

    struct Row: Encodable {
        var name: String
        var state: String
        var statistics: StreamStatistics?
        var health: [String]
    }

    func run() async throws {
        let (repository, credentials) = try store.open()
        let cameras = try repository.cameras().filter(\.isActive)
        guard !cameras.isEmpty else {
            print("No active cameras. Add one with `watchbox cameras add`.")
            return
        }
        let seconds = try duration.map(parseSeconds)
        let health = Mutex<[UUID: [String]]>([:])
        let manager = StreamManager(onHealth: { event in
            health.withLock { $0[event.cameraID, default: []].append("\(event.kind.rawValue): \(event.reason)") }
        })
        for camera in cameras { manager.start(camera.id, url: try playableURL(camera, credentials: credentials)) }
        let stop = Atomic<Bool>(false)
        StopSignal.install { stop.store(true, ordering: .relaxed) }
        let started = ContinuousClock.now
        func rows() -> [Row] {
            cameras.map { camera in
                Row(
                    name: camera.name, state: manager.state(camera.id).description,
                    statistics: manager.statistics(camera.id), health: health.withLock { $0[camera.id] ?? [] })
            }
        }
        while !stop.load(ordering: .relaxed) {
            if let seconds, ContinuousClock.now - started >= .milliseconds(Int(seconds * 1000)) { break }
            if !json {
                var table = TextTable(headers: ["camera", "state", "fps", "kbit/s", "last packet", "health"])
                for row in rows() {
                    let statistics = row.statistics
                    table.rows.append([
                        row.name, row.state, statistics.map { String(format1: $0.framesPerSecond) } ?? "-",
                        statistics.map { "\(Int($0.bitRate / 1000))" } ?? "-",
                        statistics?.lastSampleAge.map { "\(String(format1: $0)) s ago" } ?? "-",
                        row.health.last ?? "ok",
                    ])
                }
                let clear = Terminal.stdoutIsTerminal ? "\u{1B}[H\u{1B}[2J" : ""
                print(clear + table.rendered + "\n")
            }
            try await Task.sleep(for: .seconds(1))
        }
        let final = rows()
        manager.stopAll()
        if json { try printJSON(final) }
    }
}
