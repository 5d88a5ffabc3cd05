import Foundation

/// A real RTSP server for tests: GStreamer's gst-rtsp-server (through Debian's python3-gi) serving a
/// live test pattern on a loopback port, with Digest, Basic or no authentication.
public final class RTSPTestServer: @unchecked Sendable {
    // @unchecked: `process` and `port` change only in start/stop, which tests call from one task.
    public enum Auth: String, Sendable { case none, basic, digest, both }
    public enum Codec: String, Sendable { case h264, h265 }

    public let auth: Auth
    public let codec: Codec
    public let user: String
    public let password: String
    public let path: String
    public let pattern: String
    public let width: Int
    public let height: Int
    public let fps: Int
    public private(set) var port: Int
    /// Where it listens: loopback, or an address inside ``namespace``.
    public let address: String
    /// A network namespace to run in (see ``NetworkNamespacePair``); nil for the test's own.
    public let namespace: String?
    private var process: Process?

    /// Configures a server; ``start()`` launches it. `port` 0 picks a free one on first start and
    /// keeps it for restarts.
    public init(
        auth: Auth = .digest, codec: Codec = .h264, user: String = "viewer", password: String = "secret",
        path: String = "/stream", pattern: String = "ball", width: Int = 320, height: Int = 240, fps: Int = 30,
        port: Int = 0, address: String = "127.0.0.1", namespace: String? = nil
    ) {
        self.address = address
        self.namespace = namespace
        self.auth = auth
        self.codec = codec
        self.user = user
        self.password = password
        self.path = path
        self.pattern = pattern
        self.width = width
        self.height = height
        self.fps = fps
        self.port = port
    }

    deinit { stop() }

    /// The stream URL with credentials (`nil` user and password for none).
    public func url(user: String? = nil, password: String? = nil) -> String {
        let credentials = user.map { u in password.map { "\(u):\($0)@" } ?? "\(u)@" } ?? ""
        return "rtsp://\(credentials)\(address):\(port)\(path)"
    }

    /// The URL with the right credentials.
    public var authorizedURL: String {
        auth == .none ? url() : url(user: user, password: password)
    }

    /// Starts the server and waits until it listens (at most 10 s).
    public func start() throws {
        guard process == nil else { return }
        var arguments = [
            "--port", String(port), "--auth", auth.rawValue, "--user", user, "--password", password,
            "--path", path, "--codec", codec.rawValue, "--pattern", pattern, "--width", String(width),
            "--height", String(height), "--fps", String(fps), "--address", address,
        ]
        if namespace != nil { arguments.append("--inside-namespace") }
        let (process, bound) = try TestPeer.launch(
            script: "rtsp_server", arguments: arguments, namespace: namespace,
            failure: "the GStreamer RTSP server did not start (is gir1.2-gst-rtsp-server-1.0 installed?)")
        self.process = process
        port = bound
    }

    /// Stops the server (SIGTERM, then SIGKILL after 2 s); connected clients see the connection drop.
    public func stop() {
        guard let process else { return }
        self.process = nil
        TestPeer.stop(process)
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// The server's process id while it runs (tests freeze it with SIGSTOP).
    public var processIdentifier: Int32? { process.map(\.processIdentifier) }
}

/// A test peer that did not start, or a namespace that could not be made.
public struct TestPeerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Launches the Python test peers (RTSP server, ONVIF device) with Debian's python3, which has the
/// GStreamer bindings, optionally inside a network namespace, and waits for their "PORT <n>" line.
enum TestPeer {
    static func launch(script: String, arguments: [String], namespace: String?, failure: String) throws -> (
        Process, Int
    ) {
        guard let path = Bundle.module.path(forResource: script, ofType: "py") else {
            throw TestPeerError("\(script).py is missing from the CameraTesting bundle")
        }
        let process = Process()
        if let namespace {
            process.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ip)
            process.arguments = ["netns", "exec", namespace, "/usr/bin/python3", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [path] + arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read "PORT <n>" with a deadline.
        let handle = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(10)
        var buffer = Data()
        while Date() < deadline {
            var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, 200) > 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                let text = String(decoding: buffer, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                    let bound = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
                {
                    return (process, bound)
                }
            }
            if !process.isRunning { break }
        }
        stop(process)
        throw TestPeerError(failure)
    }

    /// SIGTERM, then SIGKILL after `grace` seconds.
    static func stop(_ process: Process, grace: Double = 2) {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}
