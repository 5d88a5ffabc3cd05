import CGameKit
import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import WSClient

@testable import CameraServer

/// What one live-view viewer received.
struct ViewerLog: Sendable {
    var texts: [String] = []
    var binaries: [[UInt8]] = []
    var boxes: [String] { binaries.map { $0.count >= 8 ? String(decoding: $0[4..<8], as: UTF8.self) : "" } }
}

/// A quiet logger and a client configuration carrying the session token, for the server's WebSockets.
func webSocketClient(token: String, label: String) -> (Logger, WebSocketClientConfiguration) {
    var logger = Logger(label: label)
    logger.logLevel = .critical
    return (
        logger,
        WebSocketClientConfiguration(
            maxFrameSize: 1 << 24, additionalHeaders: [.authorization: "Bearer \(token)"], closeTimeout: .seconds(1))
    )
}

/// Connects to the live view with the session token and collects messages until `fragments`
/// fragments arrived (or the deadline).
func watch(base: String, cameraID: String, token: String, fragments: Int, seconds: Double = 20) async throws
    -> ViewerLog
{
    final class Box: Sendable { let log = Mutex(ViewerLog()) }
    let box = Box()
    let url = base.replacingOccurrences(of: "http://", with: "ws://") + "/api/cameras/\(cameraID)/live"
    let (logger, configuration) = webSocketClient(token: token, label: "viewer")
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    let done = box.log.withLock { log -> Bool in
                        switch message {
                        case .text(let text): log.texts.append(text)
                        case .binary(let buffer): log.binaries.append(Array(buffer.readableBytesView))
                        }
                        return log.boxes.filter { $0 == "moof" || $0 == "styp" }.count >= fragments
                    }
                    if done { return }
                }
            }
        }
        group.addTask { try await Task.sleep(for: .seconds(seconds)) }
        try await group.next()
        group.cancelAll()
    }
    return box.log.withLock { $0 }
}

@Suite("Server live view and sync", .serialized)
struct LiveAndSyncTests {
    @Test("live view: fMP4 over a WebSocket, two viewers share one upstream, strangers are refused")
    func liveView() async throws {
        let rtsp = RTSPTestServer(auth: .digest)
        try rtsp.start()
        defer { rtsp.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let stranger = try await server.user()
        let camera = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Yard", "rtspURL": rtsp.url(), "username": rtsp.user, "password": rtsp.password])
        let id = camera.object["id"] as? String ?? ""
        async let first = watch(base: server.base, cameraID: id, token: user.token, fragments: 3)
        async let second = watch(base: server.base, cameraID: id, token: user.token, fragments: 3)
        let (one, two) = try await (first, second)
        for viewer in [one, two] {
            let notes = viewer.texts.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let info = notes.first { $0["type"] as? String == "init" }
            // The state comes in the words the page shows and their level, not for the page to parse.
            let state = notes.last { $0["type"] as? String == "state" }
            #expect(
                state?["words"] as? String == "playing" && state?["level"] as? String == "ok", "\(viewer.texts)")
            #expect((info?["codec"] as? String)?.hasPrefix("avc1.") == true, "\(viewer.texts)")
            #expect(viewer.boxes.first == "ftyp", "the init segment comes first: \(viewer.boxes.prefix(3))")
            #expect(viewer.boxes.filter { $0 == "moof" }.count >= 3, "\(viewer.boxes)")
        }
        // One RTSP session for both viewers.
        let health = try await server.request(.GET, "/api/cameras/\(id)/health", token: user.token)
        #expect(health.object["state"] as? String == "playing")
        let connections = try Subprocess.run("ss", ["-Htn", "state", "established", "( sport = :\(rtsp.port) )"])
            .stdout.split(separator: "\n").count
        #expect(connections == 1, "TCP connections to the camera: \(connections)")
        // Someone else's token: no upgrade, so not a single message (video or text) reaches them.
        let strangerView = try? await watch(
            base: server.base, cameraID: id, token: stranger.token, fragments: 1, seconds: 3)
        #expect(
            strangerView == nil,
            "a stranger got \(strangerView?.binaries.count ?? 0) video and \(strangerView?.texts.count ?? 0) text messages"
        )
        let snapshot = try await server.request(.GET, "/api/cameras/\(id)/snapshot", token: user.token)
        #expect(snapshot.status == 200)
        #expect(snapshot.body.prefix(2) == [0xFF, 0xD8])
    }

    @Test("live view ends when its session signs out; one account cannot take every stream slot")
    func liveViewFollowsTheSessionAndItsLimits() async throws {
        let rtsp = RTSPTestServer(auth: .digest)
        try rtsp.start()
        defer { rtsp.stop() }
        let silent = try SilentHost()
        defer { silent.stop() }
        let server = try await TestServer.start { $0.streamsPerUser = 1 }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let yard = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Yard", "rtspURL": rtsp.url(), "username": rtsp.user, "password": rtsp.password])
        let gate = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Gate", "rtspURL": "rtsp://127.0.0.1:\(silent.port)/live"])
        let (yardID, gateID) = (yard.object["id"] as? String ?? "", gate.object["id"] as? String ?? "")
        let started = ContinuousClock.now
        async let watching = watch(
            base: server.base, cameraID: yardID, token: user.token, fragments: 10_000, seconds: 30)
        try await Task.sleep(for: .seconds(4))
        // A second camera while the first streams: refused in words, no upstream opened.
        let second = try await server.refusedWebSocket("/api/cameras/\(gateID)/live", token: user.token)
        #expect(second.closed, "\(second.texts)")
        #expect(second.texts.contains { $0.contains("streaming 1 cameras already") }, "\(second.texts)")
        // Signing out closes the open view within a second or so.
        #expect(try await server.request(.POST, "/api/auth/logout", token: user.token).status == 204)
        let signedOut = ContinuousClock.now
        let view = try await watching
        #expect(
            ContinuousClock.now - signedOut < .seconds(3), "the view stayed open \(ContinuousClock.now - signedOut)")
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect(view.boxes.contains("moof"), "the view was live before: \(view.boxes.prefix(3))")
        #expect(view.texts.last?.contains("signed out") == true, "\(view.texts.suffix(2))")
    }

    @Test("cgame sync uploads pending clips, clears them only after the server confirms, and keeps them on failure")
    func cgameSync() async throws {
        let home = try temporaryDirectory()
        let store = try PendingClipStore(root: home)
        let clip = try ServerMedia.clip.get()
        for index in 0..<2 {
            let id = "sync-\(index)"
            try Data(clip).write(to: URL(fileURLWithPath: store.pendingVideoPath(id: id)))
            try Data(try ServerMedia.jpeg.get()).write(to: URL(fileURLWithPath: store.pendingThumbnailPath(id: id)))
            try store.saveClipMetadata(
                ClipMetadata(
                    id: id, game: "Fortnite", events: ["Kill", "Kill", "Kill"], timestamp: Date(), duration: 2,
                    name: "Triple Kill", eventOffsets: [0.5, 1, 1.5], localPath: store.pendingVideoPath(id: id),
                    thumbnailPath: store.pendingThumbnailPath(id: id), sourceStart: 0, sourceEnd: 2))
        }
        // The server is down: nothing is lost, both stay pending, exit status 1.
        let down = try await cgame(
            [
                "sync", "--store", home, "--server", "http://127.0.0.1:9", "--email", "x@example.com",
                "--password-stdin",
            ], input: "password-x\n")
        #expect(down.status != 0)
        #expect(store.loadPendingClipMetadata().count == 2)

        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("syncer")
        let run = try await cgame(
            [
                "sync", "--store", home, "--server", server.base, "--email", "syncer@example.com", "--password-stdin",
                "--json",
            ],
            input: "password-syncer\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(store.loadPendingClipMetadata().isEmpty)
        #expect(store.loadSavedClips().count == 2)
        let listed = try await server.request(.GET, "/api/clips", token: user.token).array
        #expect(Set(listed.compactMap { $0["id"] as? String }) == ["sync-0", "sync-1"])
        #expect(listed.allSatisfy { $0["size"] as? Int == clip.count && $0["thumbnailURL"] as? String != nil })
        // Run again: nothing pending, nothing duplicated.
        _ = try await cgame(
            ["sync", "--store", home, "--server", server.base, "--email", "syncer@example.com", "--password-stdin"],
            input: "password-syncer\n")
        #expect(try await server.request(.GET, "/api/clips", token: user.token).array.count == 2)
    }

    @Test("cgame login saves a session (0600, no password); sync then needs no flags, run after run; logout forgets it")
    func cgameLoginThenSync() async throws {
        let home = try temporaryDirectory()
        func run(_ arguments: [String], input: String? = nil) throws -> Subprocess.Output {
            try Subprocess.run(
                "env", ["CGAME_HOME=\(home)", "CAMERACORE_TOKEN=", SiblingTool.path("cgame")] + arguments, input: input,
                check: false)
        }
        let store = try PendingClipStore(root: home)
        let clip = try ServerMedia.clip.get()
        func pend(_ id: String) throws {
            try Data(clip).write(to: URL(fileURLWithPath: store.pendingVideoPath(id: id)))
            try store.saveClipMetadata(
                ClipMetadata(
                    id: id, game: "Fortnite", events: ["Kill"], timestamp: Date(), duration: 2, name: "Kill",
                    eventOffsets: [1], localPath: store.pendingVideoPath(id: id), thumbnailPath: nil, sourceStart: 0,
                    sourceEnd: 2))
        }
        // Not signed in: one sentence saying what to do.
        try pend("first")
        let lost = try run(["sync"])
        #expect(lost.status != 0 && lost.stderr.contains("cgame login"), "\(lost.stderr)")

        let server = try await TestServer.start()
        let user = try await server.user("saver")
        let wrong = try run(["login", "--server", server.base, "--email", "saver@example.com"], input: "guess\n")
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong e-mail or password"), "\(wrong.stderr)")
        let login = try run(
            ["login", "--server", server.base, "--email", "saver@example.com"], input: "password-saver\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in as saver@example.com"))
        let saved = home + "/account.json"
        let mode = (try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(!(try String(contentsOfFile: saved, encoding: .utf8)).contains("password-saver"))

        // Twice: each run trades the single-use refresh token for a new one and saves it.
        for id in ["first", "second"] {
            if id == "second" { try pend(id) }
            let sync = try run(["sync", "--store", home])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(store.loadPendingClipMetadata().isEmpty)
        }
        #expect(try await server.request(.GET, "/api/clips", token: user.token).array.count == 2)

        // Settings are the account's: what the web app saved shows here, and changes go back.
        let web: [String: Any] = [
            "gameProfileName": "Valorant", "videoQuality": "720p", "preRollDuration": 7, "postRollDuration": 2,
        ]
        #expect(try await server.request(.PUT, "/api/settings", token: user.token, json: web).status == 200)
        let shown = try run(["settings", "--json"])
        let settings = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(settings["gameProfileName"] as? String == "Valorant" && settings["preRollDuration"] as? Double == 7)
        let changed = try run(["settings", "--game", "fortnite", "--pre-roll", "4"])
        #expect(changed.status == 0 && changed.stdout.contains("your account on \(server.base)"), "\(changed)")
        let account = try await server.request(.GET, "/api/settings", token: user.token).object
        #expect(account["gameProfileName"] as? String == "Fortnite" && account["preRollDuration"] as? Double == 4)

        // The server goes away: one line naming it, the clip stays pending.
        await server.stop()
        try pend("third")
        let down = try run(["sync", "--store", home])
        #expect(down.status == 1)
        let lines = down.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].contains("cannot reach the CameraCore server at \(server.base)"),
            "\(down.stderr)")
        #expect(lines.first?.contains("1 clips stay pending") == true)
        #expect(store.loadPendingClipMetadata().count == 1)
        // Without the server, the settings saved here are used, and the user is told so.
        let offline = try run(["settings", "--json"])
        #expect(offline.status == 0 && offline.stderr.contains("using the settings saved on this PC"))
        #expect(offline.stdout.contains("\"preRollDuration\" : 4"), "\(offline.stdout)")
        let out = try run(["logout"])
        #expect(out.status == 0 && !FileManager.default.fileExists(atPath: saved))
    }

    @Test(
        "the service worker keeps every script, style and page of the app for offline use, and names no file that is not there"
    )
    func serviceWorkerShellIsComplete() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let publicFolder = root.appendingPathComponent("Sources/CameraServer/Public").path
        let worker = try String(contentsOfFile: publicFolder + "/sw.js", encoding: .utf8)
        // A module missing from the shell breaks every import of it offline; a name with no file
        // makes the worker's install fail, so nothing at all is kept.
        let files = try #require(
            worker.components(separatedBy: "const FILES = [").last?.components(separatedBy: "];").first)
        // The quoted names: every other piece between quotes.
        let listed = Set(files.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
            .subtracting(["/"])
        let scripts = try FileManager.default.contentsOfDirectory(atPath: publicFolder + "/js").filter {
            $0.hasSuffix(".js")
        }
        let shell = Set(scripts.map { "/js/" + $0 } + ["/index.html", "/style.css", "/offline.html", "/manifest.json"])
        #expect(shell.subtracting(listed).isEmpty, "not kept offline: \(shell.subtracting(listed).sorted())")
        for name in listed {
            #expect(
                FileManager.default.fileExists(atPath: publicFolder + name), "sw.js names \(name), which is not there")
        }
    }

    @Test("docs/openapi.json lists exactly the server's routes, with the right security")
    func openAPIIsTrue() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("docs/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: [String: Bool] = [:]  // "GET /path" → public?
        for (path, operations) in paths {
            for (method, operation) in operations {
                let security = (operation as? [String: Any])?["security"] as? [Any]
                documented["\(method.uppercased()) \(path)"] = security?.isEmpty == true
            }
        }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        var actual: [String: Bool] = [:]
        for route in server.server.routes {
            actual["\(route.method.rawValue) \(route.openAPIPath)"] = route.access == .anyone
        }
        #expect(
            Set(documented.keys).subtracting(actual.keys).isEmpty,
            "documented but not served: \(Set(documented.keys).subtracting(actual.keys))")
        #expect(
            Set(actual.keys).subtracting(documented.keys).isEmpty,
            "served but not documented: \(Set(actual.keys).subtracting(documented.keys))")
        for (key, isPublic) in actual { #expect(documented[key] == isPublic, "\(key): security differs") }
    }
}

/// Runs the built `cgame` with `input` on standard input, off Swift's cooperative threads (it talks
/// to this process's test server).
func cgame(_ arguments: [String], input: String) async throws -> (status: Int32, stdout: String, stderr: String) {
    let run = try await SiblingTool.detached("cgame", arguments, input: input)
    return (run.status, run.stdout, run.stderr)
}
