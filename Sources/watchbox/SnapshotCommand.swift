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
        let jpeg = try Snapshot.jpeg(url: try credentials.playableURL(for: found), width: width)
        try AtomicFile.write(jpeg, to: output, durable: false)
        print("saved \(output) (\(jpeg.count / 1024) KB) from \(found.name)")
    }
}
