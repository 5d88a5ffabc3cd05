import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import Logging
import NIOHTTP1
import Networking
import Synchronization
import Testing

@testable import CameraServer

/// A new folder, removed when the test process exits.
func temporaryDirectory() throws -> String { try ScratchFolder.make("server-tests") }

/// Where a test server keeps its records: the default SQLite file in its data directory, or a fresh
/// database in a real PostgreSQL cluster started for the test process (``PostgreSQLTestServer``).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite = "SQLite"
    case postgresql = "PostgreSQL"

    var testDescription: String { rawValue }

    /// The `databaseURL` setting for a new, empty database on this backend (nil: SQLite in the data directory).
    func databaseURL() throws -> String? {
        switch self {
        case .sqlite: nil
        case .postgresql: try PostgreSQLTestServer.shared.get().makeDatabase()
        }
    }
}

/// A server on a free loopback port with its own data directory, and a small HTTP client for it.
final class TestServer: Sendable {
    let server: CameraCoreServer
    let port: Int
    let directory: String
    /// The PostgreSQL database's URL; nil on SQLite.
    let databaseURL: String?

    static func start(
        on backend: Backend = .sqlite, logger: Logger = Logger(label: "cameracore-server"),
        _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = try temporaryDirectory()
        configuration.bcryptCost = 4
        configuration.allowedNetworks = ["127.0.0.0/8"]
        configuration.allowLoopbackCameras = true
        configuration.databaseURL = try backend.databaseURL()
        adjust(&configuration)
        let server = try await CameraCoreServer(configuration: configuration, logger: logger)
        let port = try await server.start()
        return TestServer(
            server: server, port: port, directory: configuration.dataDirectory, databaseURL: configuration.databaseURL)
    }

    private init(server: CameraCoreServer, port: Int, directory: String, databaseURL: String?) {
        self.server = server
        self.port = port
        self.directory = directory
        self.databaseURL = databaseURL
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() async { await server.stop() }

    struct Reply {
        var status: Int
        var body: [UInt8]
        var headers: [(name: String, value: String)]
        var text: String { String(decoding: body, as: UTF8.self) }
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var array: [[String: Any]] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? [] }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    func request(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: Any? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = []
    ) async throws -> Reply {
        var fields = headers
        var bytes = body ?? []
        if let json {
            bytes = Array(try JSONSerialization.data(withJSONObject: json))
            fields.append(("Content-Type", "application/json"))
        }
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        let response = try await HTTPClient.send(
            method, url: HTTPURL(base + path)!, headers: fields, body: bytes, timeout: .seconds(60), limit: 256 << 20)
        return Reply(status: response.status, body: response.body, headers: response.headers)
    }

    /// The mail the server wrote to `email` (its Maildir's `new/`), oldest first.
    func mail(to email: String) throws -> [String] {
        let folder = directory + "/mail/new"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return try names.sorted().map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
            .filter { $0.contains("\r\nTo: <\(email)>\r\n") }
    }

    /// The confirmation code in the last mail to `email`, as a person would copy it.
    func mailedCode(to email: String) throws -> String {
        let message = try #require(try mail(to: email).last, "no mail to \(email)")
        let line = message.components(separatedBy: "\r\n").map { $0.trimmingWhitespace() }
            .first { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        return try #require(line, "no code in the mail to \(email)")
    }

    /// Signs up a new user and returns the access token.
    func user(_ name: String = UUID().uuidString.lowercased()) async throws -> (
        token: String, refresh: String, id: String
    ) {
        let reply = try await request(
            .POST, "/api/auth/signup", json: ["email": "\(name)@example.com", "password": "password-\(name)"])
        #expect(reply.status == 201, "\(reply.text)")
        let user = reply.object["user"] as? [String: Any] ?? [:]
        return (
            reply.object["accessToken"] as? String ?? "", reply.object["refreshToken"] as? String ?? "",
            user["id"] as? String ?? ""
        )
    }
}

/// A small H.264 MP4 and JPEG made by the ffmpeg command line, shared by the tests.
enum ServerMedia {
    static let folder: String = (try? temporaryDirectory()) ?? "/tmp"
    static let clip: Result<[UInt8], any Error> = Result {
        let video = try TestMedia.lavfi(in: folder, name: "clip.mp4", width: 320, height: 240, seconds: 2)
        return Array(try Data(contentsOf: URL(fileURLWithPath: video.path)))
    }
    static let jpeg: Result<[UInt8], any Error> = Result {
        let path = folder + "/thumb.jpg"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90", "-frames:v",
                "1", path,
            ])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

nonisolated(unsafe) let clipMetadata: [String: Any] = [
    "game": "Fortnite", "events": ["Kill", "Kill"], "timestamp": "2026-11-20T18:30:00Z", "duration": 2.0,
]

/// Keeps every line a logger writes, so a test can say what a server's operator would read.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    var logger: Logger {
        Logger(label: "recorded") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
        }
    }
}
