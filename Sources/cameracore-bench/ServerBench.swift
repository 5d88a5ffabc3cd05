import CameraTestPeers
import CameraTesting
import Foundation
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import WSClient

#if canImport(Glibc)
    import Glibc
#endif

/// The server's benchmarks, with the release `cameracore-server` as a child process on loopback:
/// wrk on the authenticated clip list (against the server's own public health route, the framework
/// floor), a large clip upload with curl (against `cp` of the same file), and 50 live-view viewers
/// of one camera (against one viewer).
enum ServerBench {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func run(work: String, server executable: String, runs: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            print("| server | skipped: wrk is missing (scripts/install-deps.sh installs it) | | | |")
            return
        }
        let server = try RunningServer(executable: executable, work: work)
        defer { server.stop() }
        let token = try server.signIn()
        for index in 0..<20 {
            let metadata =
                "{\"game\":\"Fortnite\",\"events\":[\"Kill\",\"Kill\"],\"timestamp\":\"2026-11-20T18:\(10 + index):00Z\",\"duration\":12.5}"
            try server.curl(
                ["-X", "PUT", "-H", "Content-Type: application/json", "-d", metadata], "/api/clips/clip\(index)",
                token: token)
        }

        print("| case | ours | alternative | ratio | goal |")
        print("|---|---|---|---|---|")
        var clipList: [Load] = []
        var health: [Load] = []
        for _ in 0..<max(2, min(runs, 3)) {
            clipList.append(try Load.wrk(server.base + "/api/clips", token: token))
            health.append(try Load.wrk(server.base + "/api/health", token: nil))
        }
        let ours = clipList.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[clipList.count / 2]
        let floor = health.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[health.count / 2]
        print(
            "| authenticated GET /api/clips (20 clips, 2.9 KB JSON), wrk 50 connections 2 threads 10 s, vs public GET /api/health | \(format(ours.requestsPerSecond, digits: 0)) req/s, p99 \(format(ours.p99Milliseconds, digits: 1)) ms | \(format(floor.requestsPerSecond, digits: 0)) req/s, p99 \(format(floor.p99Milliseconds, digits: 1)) ms | \(format(ours.requestsPerSecond / floor.requestsPerSecond, digits: 2)) | ≥ 10,000 req/s, p99 ≤ 20 ms |"
        )

        let video = try largeClip(in: work)
        let size = Double((try FileManager.default.attributesOfItem(atPath: video)[.size] as? Int) ?? 0)
        try server.curl(
            [
                "-X", "PUT", "-H", "Content-Type: application/json", "-d",
                "{\"game\":\"Fortnite\",\"events\":[\"Kill\"],\"timestamp\":\"2026-11-20T19:00:00Z\",\"duration\":20}",
            ],
            "/api/clips/big", token: token)
        var uploads: [Double] = []
        var copies: [Double] = []
        for _ in 0..<max(3, runs) {
            let started = Date()
            let reply = try server.curl(["-T", video, "-w", "%{http_code}"], "/api/clips/big/file", token: token)
            guard reply.hasSuffix("200") else { throw Failure(description: "upload answered \(reply.suffix(200))") }
            uploads.append(Date().timeIntervalSince(started))
            copies.append(try Measurement.run(["cp", video, "\(work)/copy-of-upload.mp4"]).wallSeconds)
        }
        let megabytes = size / 1_048_576
        print(
            "| upload of a \(format(megabytes, digits: 0)) MB clip over loopback (curl -T; streamed to disk, checked by FFmpeg, renamed) vs `cp` of the file | \(format(megabytes / median(uploads), digits: 0)) MB/s (\(format(median(uploads), digits: 2)) s) | \(format(megabytes / median(copies), digits: 0)) MB/s (\(format(median(copies), digits: 2)) s) | \(format(median(uploads) / median(copies), digits: 2)) | ≥ 200 MB/s |"
        )
        try? FileManager.default.removeItem(atPath: "\(work)/copy-of-upload.mp4")

        try liveViewers(server: server, token: token)
        print("")
    }

    /// 50 WebSocket viewers of one 720p camera for 10 s: the server's CPU and memory, TCP
    /// connections to the camera, and fragments each viewer received; the same with one viewer.
    static func liveViewers(server: RunningServer, token: String) throws {
        let camera = RTSPTestServer(auth: .digest, width: 1280, height: 720)
        try camera.start()
        defer { camera.stop() }
        let body =
            "{\"name\":\"Bench\",\"rtspURL\":\"\(camera.url())\",\"username\":\"\(camera.user)\",\"password\":\"\(camera.password)\"}"
        let added = try server.curl(
            ["-X", "POST", "-H", "Content-Type: application/json", "-d", body], "/api/cameras", token: token)
        guard let id = (try? JSONSerialization.jsonObject(with: Data(added.utf8)) as? [String: Any])?["id"] as? String
        else { throw Failure(description: "could not add the camera: \(added.prefix(200))") }
        let url = server.base.replacingOccurrences(of: "http://", with: "ws://") + "/api/cameras/\(id)/live"
        var rows: [(viewers: Int, result: ViewerRun)] = []
        for viewers in [1, 50] {
            rows.append(
                (
                    viewers,
                    try ViewerRun.measure(
                        url: url, token: token, viewers: viewers, server: server, cameraPort: camera.port)
                ))
            sleep(12)  // the upstream closes 10 s after the last viewer, so each run starts cold
        }
        let one = rows[0].result
        let many = rows[1].result
        print(
            "| 50 live viewers of one 720p30 camera for 10 s: server CPU, RSS, upstream TCP connections, fragments per viewer (min–max) vs one viewer | \(format(many.cpuPercent, digits: 1)) % of a core, \(format(many.residentMB, digits: 0)) MB, \(many.upstreamConnections) upstream, \(many.fragments.min() ?? 0)–\(many.fragments.max() ?? 0) fragments | \(format(one.cpuPercent, digits: 1)) % of a core, \(format(one.residentMB, digits: 0)) MB, \(one.upstreamConnections) upstream, \(one.fragments.first ?? 0) fragments | \(format(many.cpuPercent / max(one.cpuPercent, 0.01), digits: 1)) | 1 upstream connection |"
        )
    }

    /// A clip of about 100 MB: 1080p30 x264 at 40 Mbit/s for 20 s, made once and kept in `work`.
    static func largeClip(in work: String) throws -> String {
        let path = "\(work)/upload-1080p-100MB.mp4"
        if FileManager.default.fileExists(atPath: path) { return path }
        FileHandle.standardError.write(Data("generating \(path) (once)…\n".utf8))
        try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20", "-c:v",
                "libx264", "-preset", "ultrafast", "-b:v", "40M", "-minrate", "40M", "-maxrate", "40M", "-bufsize",
                "40M", "-x264-params", "nal-hrd=cbr:filler=1", "-pix_fmt", "yuv420p", "\(path).tmp.mp4",
            ])
        try FileManager.default.moveItem(atPath: "\(path).tmp.mp4", toPath: path)
        return path
    }
}

/// `cameracore-server` started as a child on a free loopback port with its own data folder.
final class RunningServer: @unchecked Sendable {
    // @unchecked: set in init, read afterwards.
    let process = Process()
    let base: String
    let folder: String
    static let email = "bench@cameracore.local"
    static let password = "bench-password"

    init(executable: String, work: String) throws {
        folder = "\(work)/server-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let port = try LoopbackPort.free()
        base = "http://127.0.0.1:\(port)"
        process.executableURL = URL(fileURLWithPath: executable)
        // The bench's camera is a GStreamer server on this machine, and 50 people watch it: an
        // operator's settings, not the defaults (loopback cameras off, 8 viewers per camera).
        let settings = folder + "/bench-server.json"
        try Data(
            #"{"allowLoopbackCameras": true, "allowedNetworks": ["127.0.0.0/8"], "liveViewsPerUser": 64, "viewersPerCamera": 64}"#
                .utf8
        ).write(to: URL(fileURLWithPath: settings))
        process.arguments = [
            "--config", settings, "--port", String(port), "--data", folder, "--demo", "\(Self.email):\(Self.password)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? curl([], "/api/health"))?.contains("ok") == true { return }
            usleep(100_000)
        }
        stop()
        throw ServerBench.Failure(description: "\(executable) did not start on \(base)")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// curl with the token; returns the body (plus whatever `-w` adds).
    @discardableResult
    func curl(_ arguments: [String], _ path: String, token: String? = nil) throws -> String {
        let auth = token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []
        return try Subprocess.run("curl", ["-sS", "--max-time", "120"] + auth + arguments + [base + path]).stdout
    }

    func signIn() throws -> String {
        let reply = try curl(
            [
                "-X", "POST", "-H", "Content-Type: application/json", "-d",
                "{\"email\":\"\(Self.email)\",\"password\":\"\(Self.password)\"}",
            ], "/api/auth/login")
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
            let token = object["accessToken"] as? String
        else { throw ServerBench.Failure(description: "sign-in failed: \(reply.prefix(200))") }
        return token
    }

    /// CPU seconds (user + system) the server has used so far, from /proc.
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name's closing parenthesis; utime and stime are the 12th and 13th.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    var residentMB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }
}

/// wrk's summary of one run.
struct Load {
    var requestsPerSecond: Double
    var p99Milliseconds: Double

    static func wrk(_ url: String, token: String?) throws -> Load {
        let header = token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []
        let output = try Subprocess.run("wrk", ["-t2", "-c50", "-d10s", "--latency"] + header + [url]).stdout
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let rate = lines.first(where: { $0.hasPrefix("Requests/sec:") })?.split(separator: " ").last,
            let requests = Double(rate),
            let p99 = lines.first(where: { $0.hasPrefix("99%") })?.split(separator: " ").last
        else { throw ServerBench.Failure(description: "wrk printed no summary:\n\(output)") }
        if let errors = lines.first(where: { $0.hasPrefix("Non-2xx") }) {
            throw ServerBench.Failure(description: "wrk saw failures on \(url): \(errors)")
        }
        return Load(requestsPerSecond: requests, p99Milliseconds: milliseconds(String(p99)))
    }

    /// wrk's `12.34ms`, `850.00us`, `1.20s`.
    static func milliseconds(_ text: String) -> Double {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return (Double(text.dropLast(unit.count)) ?? .nan) * scale
        }
        return .nan
    }
}

/// Viewers connected at once for 10 s of measurement.
struct ViewerRun {
    var cpuPercent: Double
    var residentMB: Double
    var upstreamConnections: Int
    var fragments: [Int]

    static func measure(url: String, token: String, viewers: Int, server: RunningServer, cameraPort: Int) throws
        -> ViewerRun
    {
        final class Shared: Sendable {
            let counts: Mutex<[Int]>
            let measuring = Atomic<Bool>(false)
            let stop = Atomic<Bool>(false)
            init(viewers: Int) { counts = Mutex([Int](repeating: 0, count: viewers)) }
        }
        let shared = Shared(viewers: viewers)
        var logger = Logger(label: "bench-viewer")
        logger.logLevel = .critical
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 24, additionalHeaders: [.authorization: "Bearer \(token)"], closeTimeout: .seconds(1))
        let done = DispatchSemaphore(value: 0)
        let task = Task { [logger] in
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<viewers {
                    group.addTask {
                        _ = try? await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                            inbound, _, _ in
                            for try await message in inbound.messages(maxSize: 1 << 24) {
                                if shared.stop.load(ordering: .relaxed) { return }
                                guard case .binary(let buffer) = message, shared.measuring.load(ordering: .relaxed),
                                    buffer.readableBytes >= 8,
                                    buffer.getString(at: buffer.readerIndex + 4, length: 4) == "moof"
                                else { continue }
                                shared.counts.withLock { $0[index] += 1 }
                            }
                        }
                    }
                }
            }
            done.signal()
        }
        sleep(4)  // connect, start the upstream, first keyframe
        let cpuBefore = server.cpuSeconds
        let started = Date()
        shared.measuring.store(true, ordering: .relaxed)
        sleep(10)
        shared.measuring.store(false, ordering: .relaxed)
        let wall = Date().timeIntervalSince(started)
        let cpu = server.cpuSeconds - cpuBefore
        let resident = server.residentMB
        let upstream =
            (try? Subprocess.run("ss", ["-Htn", "state", "established", "( dport = :\(cameraPort) )"]).stdout)?
            .split(separator: "\n").count ?? -1
        shared.stop.store(true, ordering: .relaxed)
        task.cancel()
        _ = done.wait(timeout: .now() + 10)
        return ViewerRun(
            cpuPercent: cpu / wall * 100, residentMB: resident, upstreamConnections: upstream,
            fragments: shared.counts.withLock { $0 })
    }
}
