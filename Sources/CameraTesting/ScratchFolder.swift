import Foundation

/// Folders a test writes into, all under one folder per test process that is removed when the
/// process exits.
///
/// A test run makes a few hundred of them (videos, databases, recordings; up to 150 MB each), so
/// leaving them behind fills a disk that runs CI often. A process that crashes cannot remove its
/// own: the next test process removes every scratch root whose process is gone.
public enum ScratchFolder {
    /// A new, empty folder whose name starts with `prefix`.
    public static func make(_ prefix: String) throws -> String {
        let path = root + "/" + prefix + "-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// This process's root, `TMPDIR/cameracore-tests-PID`. Named, and its removal at exit arranged,
    /// on first use.
    static let root: String = {
        let temporary = NSTemporaryDirectory()
        removeAbandoned(in: temporary)
        atexit { try? FileManager.default.removeItem(atPath: ScratchFolder.root) }
        return temporary + rootPrefix + String(getpid())
    }()

    static let rootPrefix = "cameracore-tests-"

    /// Removes the roots of test processes that are no longer running (crashed or killed).
    static func removeAbandoned(in temporary: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(rootPrefix) {
            guard let pid = pid_t(name.dropFirst(rootPrefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: temporary + name)
            }
        }
    }
}
