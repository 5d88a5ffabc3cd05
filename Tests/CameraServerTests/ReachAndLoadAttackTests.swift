import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Testing

@testable import CameraServer

#if canImport(Glibc)
    import Glibc
#endif

/// Attacks on where the server connects and on its capacity: cameras pointed at the server's own
/// services, slow or silent peers meant to hold its threads and connections.
@Suite("Attacks: reach and load", .serialized)
struct ReachAndLoadAttackTests {
    @Test(
        "camera URLs outside the camera networks are refused when added and when changed, with the same words whatever listens there",
        arguments: Backend.allCases)
    func cameraAddressesFollowThePolicy(backend: Backend) async throws {
        let listener = try SilentHost()
        defer { listener.stop() }
        let server = try await TestServer.start(on: backend) {
            $0.allowLoopbackCameras = false
            $0.allowedNetworks = ["10.99.0.0/24"]
        }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let refused = [
            "rtsp://127.0.0.1:\(listener.port)/live", "rtsp://127.0.0.1:9/live", "rtsp://localhost:\(server.port)/",
            "rtsp://169.254.169.254/latest", "rtsp://0.0.0.0/", "rtsp://224.0.0.1/", "rtsp://10.98.0.5/live",
        ]
        var messages: [String] = []
        for url in refused {
            let added = try await server.request(
                .POST, "/api/cameras", token: user.token, json: ["name": "Inside", "rtspURL": url])
            #expect(added.status == 403, "\(url) → \(added.status) \(added.text)")
            let message = added.object["error"] as? String ?? ""
            #expect(message.hasPrefix("rtspURL: "), "\(message)")
            messages.append(message)
        }
        // An open port and a closed one on the same address get the same answer: no port oracle.
        #expect(messages[0] == messages[1])
        let unresolvable = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Nowhere", "rtspURL": "rtsp://no-such-camera.invalid/live"])
        #expect(unresolvable.status == 400)
        #expect((unresolvable.object["error"] as? String ?? "").contains("no-such-camera.invalid"))
        #expect(try await server.request(.GET, "/api/cameras", token: user.token).array.isEmpty)

        let inside = try await server.request(
            .POST, "/api/cameras", token: user.token, json: ["name": "Gate", "rtspURL": "rtsp://10.99.0.5/live"])
        #expect(inside.status == 201)
        let id = try #require(inside.object["id"] as? String)
        let moved = try await server.request(
            .PUT, "/api/cameras/\(id)", token: user.token, json: ["rtspURL": "rtsp://127.0.0.2:554/live"])
        #expect(moved.status == 403)
        #expect(
            try await server.request(.GET, "/api/cameras/\(id)", token: user.token).object["rtspURL"] as? String
                == "rtsp://10.99.0.5:554/live")
    }

    @Test("a camera saved while its address was allowed is checked again when opened")
    func addressesAreCheckedAtConnectTime() async throws {
        let catcher = try CredentialCatcher()
        defer { catcher.stop() }
        let first = try await TestServer.start()
        let user = try await first.user()
        let added = try await first.request(
            .POST, "/api/cameras", token: user.token,
            json: [
                "name": "Local", "rtspURL": "rtsp://127.0.0.1:\(catcher.port)/live", "username": "u", "password": "p",
            ])
        let id = try #require(added.object["id"] as? String)
        await first.stop()
        // The same data, served by a server that no longer allows loopback cameras.
        let second = try await TestServer.start {
            $0.dataDirectory = first.directory
            $0.allowLoopbackCameras = false
        }
        defer { Task { await second.stop() } }
        // Same data directory, same signing key: the user's token still works.
        let snapshot = try await second.request(.GET, "/api/cameras/\(id)/snapshot", token: user.token)
        #expect(snapshot.status == 403, "\(snapshot.text)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(catcher.received.isEmpty, "the server connected: \(catcher.received)")
        // The catcher does record connections (so the check above can fail).
        let third = try await TestServer.start()
        defer { Task { await third.stop() } }
        let other = try await third.user()
        let again = try await third.request(
            .POST, "/api/cameras", token: other.token,
            json: ["name": "Local", "rtspURL": "rtsp://127.0.0.1:\(catcher.port)/live"])
        let otherID = try #require(again.object["id"] as? String)
        _ = try await third.request(.GET, "/api/cameras/\(otherID)/snapshot", token: other.token)
        #expect(!catcher.received.isEmpty)
    }

    @Test("32 snapshots of a silent host do not stall anyone: health and lists stay fast, extra work gets 429")
    func silentHostsCannotFreezeTheServer() async throws {
        let silent = try SilentHost()
        defer { silent.stop() }
        let server = try await TestServer.start {
            $0.mediaWorkers = 2
            $0.mediaQueue = 2
            $0.mediaJobsPerUser = 2
            $0.snapshotSeconds = 2
        }
        defer { Task { await server.stop() } }
        var cameras: [(token: String, id: String)] = []
        for _ in 0..<8 {
            let user = try await server.user()
            let added = try await server.request(
                .POST, "/api/cameras", token: user.token,
                json: ["name": "Silent", "rtspURL": "rtsp://127.0.0.1:\(silent.port)/live"])
            cameras.append((user.token, try #require(added.object["id"] as? String)))
        }
        let reader = try await server.user()
        let started = ContinuousClock.now
        let storm = Task {
            try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<32 {
                    let (token, id) = cameras[index % cameras.count]
                    group.addTask {
                        let reply = try await server.request(.GET, "/api/cameras/\(id)/snapshot", token: token)
                        return (reply.status, reply.header("Retry-After"))
                    }
                }
                var results: [(Int, String?)] = []
                for try await result in group { results.append(result) }
                return results
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        var slowestHealth = Duration.zero
        var slowestList = Duration.zero
        for _ in 0..<10 {
            let clock = ContinuousClock.now
            #expect(try await server.request(.GET, "/api/health").status == 200)
            slowestHealth = max(slowestHealth, ContinuousClock.now - clock)
            let listed = ContinuousClock.now
            #expect(try await server.request(.GET, "/api/clips", token: reader.token).status == 200)
            slowestList = max(slowestList, ContinuousClock.now - listed)
            try await Task.sleep(for: .milliseconds(100))
        }
        let results = try await storm.value
        let elapsed = ContinuousClock.now - started
        #expect(slowestHealth < .milliseconds(50), "health took \(slowestHealth) during the storm")
        #expect(slowestList < .milliseconds(200), "the clip list took \(slowestList) during the storm")
        // Two run and two wait; every other request is told at once to come back.
        let refused = results.filter { $0.0 == 429 }
        #expect(refused.count == 28, "\(results.map(\.0))")
        #expect(refused.allSatisfy { $0.1 == "5" })
        #expect(results.filter { $0.0 != 429 }.allSatisfy { $0.0 == 504 }, "\(results.map(\.0))")
        // The four admitted ran two at a time with their 2 s deadline.
        #expect(elapsed < .seconds(8), "the storm lasted \(elapsed)")
    }

    @Test("an oversized request head gets 431 and a close; a head never finished is cut off")
    func requestHeadsAreBounded() async throws {
        let server = try await TestServer.start {
            $0.headSeconds = 1
            $0.maxHeadBytes = 8 * 1024
        }
        defer { Task { await server.stop() } }
        let big = try RawConnection(port: server.port)
        try big.send("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Fill: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        let answer = big.readUntilClosed(timeout: 5)
        #expect(answer.text.hasPrefix("HTTP/1.1 431"), "\(answer.text.prefix(80))")
        #expect(answer.closed)

        let garbage = try RawConnection(port: server.port)
        try garbage.send("HELLO THERE\r\n\r\n")
        let refused = garbage.readUntilClosed(timeout: 5)
        #expect(refused.text.hasPrefix("HTTP/1.1 400"), "\(refused.text.prefix(80))")

        let slow = try RawConnection(port: server.port)
        try slow.send("GET /api/health HTTP/1.1\r\nHo")
        let cut = slow.readUntilClosed(timeout: 5)
        #expect(cut.closed && cut.text.isEmpty)
        #expect(cut.seconds >= 0.8 && cut.seconds < 3, "closed after \(cut.seconds) s")

        // A normal request on the same server still works, twice on one connection.
        let normal = try RawConnection(port: server.port)
        try normal.send("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(1500))
        try normal.send("GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let both = normal.readUntilClosed(timeout: 5)
        #expect(both.text.components(separatedBy: "HTTP/1.1 200").count == 3, "\(both.text)")
    }

    @Test("an upload trickled below the minimum rate is dropped with 408 and stores nothing")
    func slowUploadsAreDropped() async throws {
        let server = try await TestServer.start {
            $0.minUploadBytesPerSecond = 64 * 1024
            $0.uploadGraceSeconds = 1
        }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        #expect(
            try await server.request(.PUT, "/api/clips/slow-1", token: user.token, json: clipMetadata).status == 200)
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "PUT /api/clips/slow-1/file HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(user.token)\r\n"
                + "Content-Type: video/mp4\r\nContent-Length: 10000000\r\n\r\n")
        let started = ContinuousClock.now
        var answer = RawConnection.Answer(text: "", closed: false, seconds: 0)
        while ContinuousClock.now - started < .seconds(6) {
            try? connection.send(String(repeating: "x", count: 1000))
            answer = connection.readUntilClosed(timeout: 0.25)
            if !answer.text.isEmpty { break }
        }
        #expect(answer.text.hasPrefix("HTTP/1.1 408"), "\(answer.text.prefix(120))")
        let clip = try await server.request(.GET, "/api/clips/slow-1", token: user.token)
        #expect(clip.object["uploadedAt"] == nil || clip.object["uploadedAt"] is NSNull)
    }
}

extension TestServer {
    /// Opens a WebSocket on `path` that the server should refuse in words, with a client that
    /// cannot miss a reply sent right after the upgrade
    /// (``RawConnection/webSocketTexts(port:path:token:timeout:)``); reads until the server closes
    /// it or 20 s pass.
    func refusedWebSocket(_ path: String, token: String) async throws -> CaptureAttackTests.Log {
        let port = self.port
        let answer = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try RawConnection.webSocketTexts(port: port, path: path, token: token) })
            }
        }
        guard let answer else { throw TestPeerError("\(path) did not upgrade to a WebSocket") }
        return CaptureAttackTests.Log(texts: answer.texts, closed: answer.closed)
    }
}

/// A plain TCP connection to the test server for what an HTTP client will not send.
final class RawConnection {
    let descriptor: Int32

    struct Answer {
        var text: String
        var closed: Bool
        var seconds: Double
    }

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestPeerError("cannot connect to 127.0.0.1:\(port)") }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        let sent = Array(text.utf8).withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        guard sent >= 0 else { throw TestPeerError("the server closed the connection") }
    }

    /// Asks for a WebSocket on `path` and reads the server's text messages until its close frame,
    /// the end of the connection or `timeout`: whatever arrives together with the upgrade's answer
    /// is read too (WSClient, on a loaded machine, sometimes heard nothing of a reply sent right
    /// after the upgrade). Nil when the server did not upgrade.
    static func webSocketTexts(port: Int, path: String, token: String, timeout: Double = 20) throws -> (
        texts: [String], closed: Bool
    )? {
        let connection = try RawConnection(port: port)
        try connection.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n")
        let deadline = Date() + timeout
        var bytes: [UInt8] = []
        var texts: [String] = []
        var closed = false
        var head: Int?
        reading: while let read = connection.receive(before: deadline) {
            guard case .bytes(let read) = read else {
                closed = true
                break
            }
            bytes += read
            if head == nil {
                guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<$0 + 4] == [13, 10, 13, 10] })
                else { continue }
                guard String(decoding: bytes[0..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101") else { return nil }
                head = end + 4
            }
            // The server's frames are not masked: opcode, length (7 bits, or 16 or 64 more), data.
            while var at = head, bytes.count >= at + 2 {
                let opcode = bytes[at] & 0x0F
                var length = Int(bytes[at + 1] & 0x7F)
                at += 2
                let extra = length == 126 ? 2 : length == 127 ? 8 : 0
                guard bytes.count >= at + extra else { break }
                if extra > 0 { length = bytes[at..<at + extra].reduce(0) { $0 << 8 | Int($1) } }
                at += extra
                guard bytes.count >= at + length else { break }
                if opcode == 1 { texts.append(String(decoding: bytes[at..<at + length], as: UTF8.self)) }
                head = at + length
                if opcode == 8 {
                    closed = true
                    break reading
                }
            }
        }
        return (texts, closed)
    }

    /// What one read gets: bytes, or the end of the connection.
    enum Received {
        case bytes([UInt8])
        case closed
    }

    /// What arrives next; nil when `deadline` passes first.
    func receive(before deadline: Date) -> Received? {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return nil }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(1, remaining * 1000))) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count <= 0 ? .closed : .bytes(Array(buffer[0..<count]))
    }

    /// Reads until the server closes or `timeout` seconds pass.
    func readUntilClosed(timeout: Double) -> Answer {
        let started = Date()
        var bytes: [UInt8] = []
        var closed = false
        while let read = receive(before: started + timeout) {
            guard case .bytes(let read) = read else {
                closed = true
                break
            }
            bytes += read
        }
        return Answer(
            text: String(decoding: bytes, as: UTF8.self), closed: closed, seconds: Date().timeIntervalSince(started))
    }
}
