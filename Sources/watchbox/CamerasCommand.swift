import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import Networking
import Synchronization
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

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
            if passwordStdin { password = Terminal.readPassword(prompt: "password for \(user ?? "the camera"): ") }
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
            if passwordStdin, let password = Terminal.readPassword(prompt: "new password: ") {
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
