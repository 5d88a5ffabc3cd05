import CameraCommon
import CameraTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL for tests: Debian's server binaries run a throwaway cluster in a temporary
/// folder, listening on a free loopback port only (no Unix socket outside the folder), with trust
/// authentication for one role. Each test asks for its own database with ``makeDatabase()``.
///
/// `initdb` refuses to run as root, so when the tests run as root the cluster belongs to the
/// `postgres` user that Debian's package creates, and commands run through `runuser`.
public final class PostgreSQLTestServer: @unchecked Sendable {
    // @unchecked: every stored property is set in init and only read afterwards; `counter` is locked.
    public let port: Int
    public let role = "cameracore"
    private let folder: String
    private let binaries: String
    private let runAs: String?
    private let lock = NSLock()
    private var counter = 0

    /// One cluster per test process, started on first use and stopped when the process exits.
    public static let shared: Result<PostgreSQLTestServer, any Error> = Result { try PostgreSQLTestServer() }

    /// Creates and starts a cluster (about 1–2 s). Throws a ``TestPeerError`` naming what is missing
    /// when PostgreSQL is not installed.
    public init() throws {
        binaries = try Self.binaryFolder()
        runAs = getuid() == 0 ? "postgres" : nil
        folder = NSTemporaryDirectory() + "pg-test-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let runAs {
            try Subprocess.run("chown", [runAs, folder])
        }
        try Self.command(
            runAs, "\(binaries)/initdb",
            ["-D", "\(folder)/data", "-U", role, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
        var lastError: (any Error)?
        for _ in 0..<5 {
            let candidate = try LoopbackPort.free()
            do {
                // fsync off: a test cluster that dies is thrown away anyway. The postmaster that
                // pg_ctl forks would keep a pipe open forever, so pg_ctl writes nowhere (the
                // server's own log is server.log).
                try Self.detached(
                    runAs, "\(binaries)/pg_ctl",
                    [
                        "-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "20", "start", "-o",
                        "-p \(candidate) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
                    ])
                port = candidate
                runningClusters.append(folder: folder, pgctl: "\(binaries)/pg_ctl", runAs: runAs)
                return
            } catch {
                lastError = error  // The port was taken between the probe and the start: try another.
            }
        }
        let log = (try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? ""
        throw TestPeerError("PostgreSQL did not start: \(lastError.map { "\($0)" } ?? "") \(log.suffix(1000))")
    }

    /// A new empty database; returns its URL (`postgres://cameracore@127.0.0.1:PORT/NAME`).
    public func makeDatabase() throws -> String {
        let name = lock.withLock {
            counter += 1
            return "test_\(getpid())_\(counter)"
        }
        try Subprocess.run(
            "\(binaries)/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", role, name])
        return "postgres://\(role)@127.0.0.1:\(port)/\(name)"
    }

    /// Stops the cluster now (fast shutdown) and removes its folder.
    public func stop() {
        Self.stop(folder: folder, pgctl: "\(binaries)/pg_ctl", runAs: runAs)
    }

    static func stop(folder: String, pgctl: String, runAs: String?) {
        try? detached(runAs, pgctl, ["-D", "\(folder)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The newest installed server's bin folder (`/usr/lib/postgresql/15/bin` on Debian 12).
    static func binaryFolder() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        guard let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb")
        else {
            throw TestPeerError("PostgreSQL's server is not installed (apt-get install postgresql)")
        }
        return "\(root)/\(newest)/bin"
    }

    /// Runs a command whose children outlive it (pg_ctl's postmaster) with no pipes or sockets of
    /// ours: Foundation's `Process` learns of an exit when a socket the child inherited closes, which
    /// never happens while the postmaster holds it. Throws on a non-zero exit.
    static func detached(_ runAs: String?, _ executable: String, _ arguments: [String]) throws {
        let command = runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", executable] } ?? [executable]
        let exit = try ChildProcess.run(command + arguments, silenceErrors: true)
        guard exit.status == 0 else {
            throw TestPeerError("\(executable) \(arguments.first ?? "") exited with status \(exit.status)")
        }
    }

    @discardableResult
    static func command(_ runAs: String?, _ executable: String, _ arguments: [String]) throws
        -> Subprocess.Output
    {
        if let runAs {
            return try Subprocess.run("runuser", ["-u", runAs, "--", executable] + arguments)
        }
        return try Subprocess.run(executable, arguments)
    }

}

/// Clusters still running when the test process exits are stopped then, so no postgres is left behind.
private let runningClusters = ClusterRegistry()

private final class ClusterRegistry: @unchecked Sendable {
    // @unchecked: `clusters` is only touched under `lock`.
    private let lock = NSLock()
    private var clusters: [(folder: String, pgctl: String, runAs: String?)] = []
    private var registered = false

    func append(folder: String, pgctl: String, runAs: String?) {
        let first = lock.withLock {
            clusters.append((folder, pgctl, runAs))
            defer { registered = true }
            return !registered
        }
        if first {
            atexit {
                for cluster in runningClusters.drain() {
                    PostgreSQLTestServer.stop(folder: cluster.folder, pgctl: cluster.pgctl, runAs: cluster.runAs)
                }
            }
        }
    }

    func drain() -> [(folder: String, pgctl: String, runAs: String?)] {
        lock.withLock {
            defer { clusters = [] }
            return clusters
        }
    }
}

/// Loopback ports for test peers and benchmark children.
public enum LoopbackPort {
    /// A port the kernel just gave out on 127.0.0.1 and that nothing holds now (a later bind can still lose a race).
    public static func free() throws -> Int {
        let (descriptor, port) = try bound()
        close(descriptor)
        return port
    }

    /// A TCP socket on 127.0.0.1 listening with `backlog`, and its port.
    public static func listening(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let (descriptor, port) = try bound()
        guard listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw TestPeerError("cannot listen on 127.0.0.1:\(port)")
        }
        return (descriptor, port)
    }

    /// A TCP socket bound to a free port on 127.0.0.1.
    private static func bound() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestPeerError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestPeerError("could not bind a loopback port")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
