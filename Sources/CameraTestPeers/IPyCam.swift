import CameraTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// ipycam (PyPI, pinned 1.3.0): a virtual IP camera nobody here wrote — WS-Discovery (Hello on
/// start, ProbeMatch without the ProbeMatches wrapper), an ONVIF device service that wants
/// WS-Security on every call (GetSystemDateAndTime included) once a password is set, and a native
/// RTSP server with a main and a sub stream. `scripts/install-deps.sh` installs it into a virtual
/// environment (`$CAMERACORE_PEERS`, default `~/.cache/cameracore/peers`).
///
/// Runs inside a network namespace (its discovery listens on port 3702 of every address), fed a
/// looping test video.
public final class IPyCam: @unchecked Sendable {
    // @unchecked: `process` is set by start() and cleared by stop(), both from the owning test.
    public let namespace: String
    public let address: String
    public let user: String
    public let password: String
    public let width: Int
    public let height: Int
    /// The WS-Discovery endpoint reference to announce. ipycam 1.3 draws a new one at every start,
    /// against WS-Discovery's rule that it stay the same across re-initialisation (real cameras
    /// derive it from their MAC address); a fixed one makes it behave like a real camera that
    /// restarts, possibly at another address.
    public let endpoint: String?
    public let serialNumber: String
    /// Seconds between its Hello and its ONVIF service taking connections. ipycam says Hello
    /// first and opens its web service next, so a real one is briefly late already; this makes the
    /// gap long enough that a client that asks once, at once, always finds the door shut.
    public let serviceDelay: Double
    public let onvifPort = 8080
    public let rtspPort = 8554
    private var process: Process?

    public static var python: String {
        let root =
            ProcessInfo.processInfo.environment["CAMERACORE_PEERS"]
            ?? ((ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
                ?? (NSHomeDirectory() + "/.cache")) + "/cameracore/peers")
        return root + "/bin/python"
    }

    public init(
        namespace: String, address: String, user: String = "admin", password: String = "secret", width: Int = 640,
        height: Int = 360, endpoint: String? = nil, serialNumber: String = "PY-000001", serviceDelay: Double = 0
    ) {
        self.namespace = namespace
        self.address = address
        self.user = user
        self.password = password
        self.width = width
        self.height = height
        self.endpoint = endpoint
        self.serialNumber = serialNumber
        self.serviceDelay = serviceDelay
    }

    deinit { stop() }

    public var mainStream: String { "rtsp://\(address):\(rtspPort)/video_main" }
    public var subStream: String { "rtsp://\(address):\(rtspPort)/video_sub" }

    public func start() throws {
        guard process == nil else { return }
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw TestPeerError(
                "ipycam's virtual environment is missing at \(Self.python): run scripts/install-deps.sh")
        }
        let folder = try ScratchFolder.make("ipycam")
        let source = try TestMedia.lavfi(
            in: folder, name: "ipycam-source.mp4", width: width, height: height, frameRate: 15, seconds: 20)
        let configuration: [String: Any] = [
            "local_ip": address, "onvif_port": onvifPort, "rtsp_port": rtspPort, "web_port": 8081, "username": user,
            "password": password, "main_width": width, "main_height": height, "main_fps": 15,
            "sub_width": width / 2, "sub_height": height / 2, "sub_fps": 15, "name": "Virtual Camera",
            "serial_number": serialNumber,
        ]
        // Pins the endpoint reference (a Python string literal from JSON, so nothing is interpreted).
        let pin =
            endpoint.map { endpoint in
                let literal = String(decoding: (try? JSONEncoder().encode(endpoint)) ?? Data(), as: UTF8.self)
                return "import ipycam.onvif as o; i = o.ONVIFService.__init__; "
                    + "o.ONVIFService.__init__ = lambda self, *a, **k: (i(self, *a, **k), setattr(self, 'device_uuid', \(literal)))[0]; "
            } ?? ""
        // Holds its web server back (it starts right after discovery has said Hello).
        let late =
            serviceDelay > 0
            ? "import time, ipycam.camera as c; h = c.ReusableThreadingTCPServer.__init__; "
                + "c.ReusableThreadingTCPServer.__init__ = lambda self, *a, **k: (time.sleep(\(serviceDelay)), h(self, *a, **k))[1]; "
            : ""
        let configPath = folder + "/ipycam.json"
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ip)
        process.arguments = [
            // `python -m ipycam` with Ctrl-C working: a child started from a test runner's thread
            // inherits that thread's blocked SIGINT, and Python then never raises KeyboardInterrupt
            // (ipycam's clean stop, which sends its WS-Discovery Bye).
            "netns", "exec", namespace, Self.python, "-c",
            pin + late + "import runpy, signal; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
                + "signal.signal(signal.SIGINT, signal.default_int_handler); "
                + "runpy.run_module('ipycam', run_name='__main__', alter_sys=True)",
            "--config", configPath, "--source", source.path,
            "--no-timestamp", "--log-level", "WARNING",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        // Its errors too, so a camera that does not start says why.
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Ready when it says so and its RTSP port answers.
        let handle = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while Date() < deadline, process.isRunning, !text.contains("IP Camera is running") {
            var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, 200) > 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
        }
        guard text.contains("IP Camera is running") else {
            stop()
            throw TestPeerError("ipycam did not start: \(text.suffix(400))")
        }
        // Keep draining its output so a full pipe never blocks it.
        handle.readabilityHandler = { handle in _ = handle.availableData }
    }

    /// Stops the camera as a person would (Ctrl-C): it sends its WS-Discovery Bye first. Falls back
    /// to ``stop()`` after 15 s.
    public func stopAnnouncing() {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGINT)
            // It stops its streams (joining their workers) before it says Bye.
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline { usleep(50_000) }
        }
        stop()
    }

    public func stop() {
        guard let process else { return }
        self.process = nil
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        TestPeer.stop(process)
    }
}
