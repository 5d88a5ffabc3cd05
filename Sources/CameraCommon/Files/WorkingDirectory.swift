import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A folder the engine owns for intermediate files (segments, thumbnails, exports in progress).
///
/// `temporary` folders are removed with everything in them when the value is released or
/// ``remove()`` is called; `persistent` ones are created if missing and left alone.
public final class WorkingDirectory: Sendable {
    public let path: String
    private let removeOnDeinit: Bool

    /// A new, empty, private (0700) folder under `parent` (default: `$TMPDIR` or `/tmp`).
    public static func temporary(prefix: String = "cameracore", in parent: String? = nil) throws(MediaError)
        -> WorkingDirectory
    {
        let base = parent ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw AtomicFile.systemError("create a working folder in \(base)")
        }
        return WorkingDirectory(path: String(cString: created), removeOnDeinit: true)
    }

    /// A folder at `path`, created with its parents when missing; never removed automatically.
    public static func persistent(_ path: String) throws(MediaError) -> WorkingDirectory {
        try createDirectories(path)
        return WorkingDirectory(path: path, removeOnDeinit: false)
    }

    private init(path: String, removeOnDeinit: Bool) {
        self.path = path
        self.removeOnDeinit = removeOnDeinit
    }

    deinit {
        if removeOnDeinit { Self.removeTree(path) }
    }

    /// The path of `name` inside this folder.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// A subfolder, created when missing.
    public func subdirectory(_ name: String) throws(MediaError) -> String {
        let sub = file(name)
        try Self.createDirectories(sub)
        return sub
    }

    /// Deletes the folder and its contents now.
    public func remove() { Self.removeTree(path) }

    /// `mkdir -p`.
    public static func createDirectories(_ path: String) throws(MediaError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/\(component)"
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw AtomicFile.systemError("create folder \(path)")
            }
        }
    }

    static func removeTree(_ path: String) {
        guard let names = names(in: path) else {
            unlink(path)
            return
        }
        for name in names {
            let child = "\(path)/\(name)"
            var info = stat()
            if lstat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                removeTree(child)
            } else {
                unlink(child)
            }
        }
        rmdir(path)
    }

    /// The names in the folder at `path`, but `.` and `..`; nil when it cannot be opened as one.
    static func names(in path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// Where an app keeps its files: `$<OVERRIDE>` when set, else `$XDG_DATA_HOME/<app>`, else
/// `~/.local/share/<app>` (the XDG base-directory convention).
public enum DataDirectory {
    public static func home(app: String, overrideVariable: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let home = environment[overrideVariable], !home.isEmpty { return home }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/" + app }
        return (environment["HOME"] ?? ".") + "/.local/share/" + app
    }
}
