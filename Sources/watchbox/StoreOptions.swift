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

func parseSeconds(_ text: String) throws -> Double {
    guard let time = try? MediaTime(parsing: text), time.seconds > 0 else {
        throw ValidationError("'\(text)' is not a duration (60, 90s, 1:30, 500ms)")
    }
    return time.seconds
}
