import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Networking
import Synchronization
import WatchBoxKit

/// The WatchBox API: cameras per user (passwords only in the credential store), health, snapshots,
/// discovery and scans inside the configured networks, and live view.
final class CameraService: Sendable {
    let store: ServerStore
    let credentials: FileCredentialStore
    let allowed: [IPv4Network]
    let manager: StreamManager
    let live: LiveView
    let tables = Tables()

    /// Recent health events per camera, and the live view once made (a class, so the stream
    /// manager's callbacks, made before the live view, can hold it).
    final class Tables: Sendable {
        let live = Mutex<LiveView?>(nil)
        let events = Mutex<[UUID: [HealthEvent]]>([:])
    }

    init(store: ServerStore, configuration: ServerConfiguration) throws(MediaError) {
        self.store = store
        credentials = try FileCredentialStore(directory: configuration.dataDirectory + "/credentials")
        allowed = configuration.allowedNetworks.compactMap(IPv4Network.init)
        let tables = self.tables
        manager = StreamManager(
            onState: { id, state in
                tables.live.withLock { $0 }?.stateChanged(id, state)
            },
            onHealth: { event in
                tables.events.withLock { table in
                    table[event.cameraID, default: []] = Array((table[event.cameraID] ?? []).suffix(19) + [event])
                }
            })
        let live = LiveView(manager: manager)
        self.live = live
        tables.live.withLock { $0 = live }
    }

    func stopAll() {
        manager.stopAll()
    }

    struct Health: Codable {
        var state: String
        var statistics: StreamStatistics?
        var events: [HealthEvent]
        var viewers: Int
    }

    struct GridCell: Codable {
        var cameraID: String
        var name: String
        var frame: GridLayoutCalculator.Frame
    }

    struct Grid: Codable {
        var columns: Int
        var cells: [GridCell]
    }

    struct DiscoveryRequest: Decodable { var timeout: Double? }
    struct ScanRequest: Decodable {
        var range: String
        var ports: [Int]?
    }

    /// The API form of camera rows; the credential store is read once for all of them.
    func records(_ rows: [SQLRow]) throws -> [CameraRecord] {
        let withPasswords = try credentials.camerasWithPasswords()
        return rows.map { row in
            ServerStore.camera(
                row, hasPassword: UUID(uuidString: row.string("id")).map(withPasswords.contains) ?? false)
        }
    }

    func record(_ row: SQLRow) throws -> CameraRecord { try records([row])[0] }

    func owned(_ context: AppContext) async throws -> (row: SQLRow, id: UUID) {
        let text = try pathID(context)
        guard let id = UUID(uuidString: text),
            let row = try await store.cameraRow(userID: try context.user(), id: id.uuidString.lowercased())
        else { throw APIError(.notFound, "no camera \(text)") }
        return (row, id)
    }

    /// The stream URL with credentials, for FFmpeg only (never logged, never answered).
    func streamURL(_ row: SQLRow, id: UUID) throws -> String {
        try credentials.playableURL(row.string("rtsp_url"), username: row["username"].string, cameraID: id)
    }

    func camera(from input: CameraInput, id: UUID, existing: CameraRecord?) throws -> (Camera, password: String?) {
        let url = input.rtspURL ?? existing?.rtspURL ?? ""
        guard let parts = StreamURL(url), ["rtsp", "rtsps"].contains(parts.scheme.lowercased()), !parts.host.isEmpty
        else { throw APIError(.badRequest, "rtspURL: must be rtsp://host[:port]/path") }
        let name = (input.name ?? existing?.name ?? "").trimmingWhitespace()
        guard !name.isEmpty, name.count <= 100 else { throw APIError(.badRequest, "name: must be 1–100 characters") }
        let camera = Camera(
            id: id, name: name, rtspURL: url, username: input.username ?? parts.user ?? existing?.username,
            manufacturer: input.manufacturer ?? existing?.manufacturer, model: input.model ?? existing?.model,
            isActive: input.isActive ?? existing?.isActive ?? true,
            gridPosition: Int16(clamping: input.gridPosition ?? existing?.gridPosition ?? 0),
            dateAdded: existing?.dateAdded ?? Date())
        return (camera, input.password ?? parts.password)
    }

    func routes(server: CameraCoreServer) -> [Route] {
        [
            Route(method: .get, path: "/api/cameras", access: .user, summary: "The user's cameras in grid order") {
                _, context in
                try json(try self.records(try await self.store.cameraRows(userID: try context.user())))
            },
            Route(method: .post, path: "/api/cameras", access: .user, summary: "Add a camera (password write-only)") {
                request, context in
                let userID = try context.user()
                let input = try await decode(CameraInput.self, from: request, context: context)
                let count = try await self.store.cameraRows(userID: userID).count
                guard count < 64 else { throw APIError(.badRequest, "at most 64 cameras per account") }
                var (camera, password) = try self.camera(from: input, id: UUID(), existing: nil)
                if input.gridPosition == nil { camera.gridPosition = Int16(count) }
                do {
                    try await self.store.insertCamera(userID: userID, camera: camera)
                } catch let error as DatabaseFailure where error.isConflict {
                    throw APIError(.conflict, "a camera with this URL already exists")
                }
                if let password, !password.isEmpty { try self.credentials.setPassword(password, for: camera.id) }
                guard let row = try await self.store.cameraRow(userID: userID, id: camera.id.uuidString.lowercased())
                else { throw APIError(.internalServerError, "the camera was not saved") }
                return try json(try self.record(row), status: .created)
            },
            Route(method: .get, path: "/api/cameras/:id", access: .user, summary: "One camera") { _, context in
                try json(try self.record(try await self.owned(context).row))
            },
            Route(
                method: .put, path: "/api/cameras/:id", access: .user,
                summary: "Change a camera (empty password removes it)"
            ) {
                request, context in
                let userID = try context.user()
                let (row, id) = try await self.owned(context)
                let input = try await decode(CameraInput.self, from: request, context: context)
                let (camera, password) = try self.camera(from: input, id: id, existing: try self.record(row))
                try await self.store.updateCamera(userID: userID, camera: camera)
                if let password {
                    if password.isEmpty {
                        try self.credentials.removePassword(for: id)
                    } else {
                        try self.credentials.setPassword(password, for: id)
                    }
                }
                self.restart(id)
                guard let updated = try await self.store.cameraRow(userID: userID, id: id.uuidString.lowercased())
                else {
                    throw APIError(.notFound, "no camera")
                }
                return try json(try self.record(updated))
            },
            Route(method: .delete, path: "/api/cameras/:id", access: .user, summary: "Remove a camera and its password")
            {
                _, context in
                let (_, id) = try await self.owned(context)
                try await self.store.deleteCamera(userID: try context.user(), id: id.uuidString.lowercased())
                try self.credentials.removePassword(for: id)
                self.restart(id)
                return Response(status: .noContent)
            },
            Route(
                method: .get, path: "/api/cameras/:id/health", access: .user,
                summary: "Stream state, counters and health events"
            ) {
                _, context in
                let (_, id) = try await self.owned(context)
                let viewers = self.live.viewerCount(id)
                return try json(
                    Health(
                        state: self.manager.state(id).description, statistics: self.manager.statistics(id),
                        events: self.tables.events.withLock { $0[id] ?? [] }, viewers: viewers))
            },
            Route(
                method: .get, path: "/api/cameras/:id/snapshot", access: .user,
                summary: "A JPEG of the camera's picture now"
            ) {
                _, context in
                let (row, id) = try await self.owned(context)
                let jpeg: [UInt8]
                if case .playing = self.manager.state(id) {
                    // Live view or a recording has the camera open: take the picture from that stream.
                    jpeg = try await Snapshot.jpeg(from: self.manager, cameraID: id, timeout: .seconds(8), width: 640)
                } else {
                    let url = try self.streamURL(row, id: id)
                    jpeg = try await Task.detached { () throws(MediaError) -> [UInt8] in
                        try Snapshot.jpeg(url: url, timeout: .seconds(8), width: 640)
                    }.value
                }
                return Response(
                    status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
            },
            Route(
                webSocket: "/api/cameras/:id/live",
                summary: "Live view: fragmented MP4 over a WebSocket (one upstream per camera)"
            ) { _, context in
                let (row, id) = try await self.owned(context)
                let url = try self.streamURL(row, id: id)
                return { inbound, outbound in
                    try await self.liveView(inbound: inbound, outbound: outbound, cameraID: id, url: url)
                }
            },
            Route(
                method: .get, path: "/api/grid", access: .user, summary: "The camera grid laid out for ?width=&height="
            ) {
                request, context in
                let width = request.uri.queryParameters.get("width").flatMap { Double($0) } ?? 1280
                let height = request.uri.queryParameters.get("height").flatMap { Double($0) } ?? 720
                guard (100...10000).contains(width), (100...10000).contains(height) else {
                    throw APIError(.badRequest, "width and height: 100–10000")
                }
                let rows = try await self.store.cameraRows(userID: try context.user()).filter {
                    $0["is_active"].int == 1
                }
                let frames = GridLayoutCalculator.frames(count: rows.count, width: width, height: height)
                return try json(
                    Grid(
                        columns: rows.isEmpty
                            ? 0 : GridLayoutCalculator.columns(count: rows.count, width: width - 16, height: height),
                        cells: zip(rows, frames).map {
                            GridCell(cameraID: $0.string("id"), name: $0.string("name"), frame: $1)
                        }))
            },
            Route(
                method: .post, path: "/api/discovery", access: .user, summary: "ONVIF discovery on the allowed networks"
            ) {
                request, context in
                let body =
                    (try? await decode(DiscoveryRequest.self, from: request, context: context)) ?? DiscoveryRequest()
                let interfaces = try WSDiscovery().probeInterfaces().filter { interface in
                    IPv4Network.parse(interface.address).map { address in self.allowed.contains { $0.contains(address) }
                    }
                        ?? false
                }
                guard !interfaces.isEmpty else {
                    throw APIError(.forbidden, "no network interface of this server is inside allowedNetworks")
                }
                let timeout = min(max(body.timeout ?? 3, 0.5), 10)
                let discovery = WSDiscovery(
                    timeout: .milliseconds(Int(timeout * 1000)), interfaces: interfaces.map(\.name))
                let devices = try await discovery.discover().filter { device in
                    IPv4Network.parse(device.address).map { address in self.allowed.contains { $0.contains(address) } }
                        ?? false
                }
                return try json(devices)
            },
            Route(
                method: .post, path: "/api/scan", access: .user,
                summary: "RTSP port scan of a range inside the allowed networks"
            ) {
                request, context in
                let body = try await decode(ScanRequest.self, from: request, context: context)
                let range = try AddressRange(body.range)
                let last = range.first &+ UInt32(max(range.count - 1, 0))
                guard range.count <= 1024,
                    self.allowed.contains(where: { $0.contains(range.first) && $0.contains(last) })
                else {
                    throw APIError(
                        .forbidden,
                        "range: \(body.range) is not inside allowedNetworks (or is larger than 1024 addresses)")
                }
                let ports = body.ports ?? PortScanner.defaultPorts
                guard !ports.isEmpty, ports.count <= 16, ports.allSatisfy({ (1...65535).contains($0) }) else {
                    throw APIError(.badRequest, "ports: 1 to 16 port numbers")
                }
                let findings = await PortScanner(ports: ports).scan(range)
                return try json(findings)
            },
        ]
    }

    /// A changed or removed camera drops its upstream; viewers get the new stream on reconnect.
    func restart(_ id: UUID) {
        live.close(id)
    }

    // MARK: Live view

    /// Forwards the camera's live view to a WebSocket until the viewer goes away: a header becomes
    /// a JSON text message (`{"type":"init","codec":…}`) followed by the init segment, fragments
    /// become binary messages, state changes `{"type":"state","state":…}`.
    func liveView(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, cameraID: UUID, url: String
    ) async throws {
        let (messages, ticket) = live.join(cameraID: cameraID, url: url)
        defer { live.leave(ticket) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The viewer sends nothing we need; reading notices when it leaves.
                for try await _ in inbound {}
            }
            group.addTask {
                for await message in messages {
                    switch message {
                    case .header(let header):
                        try await outbound.write(
                            .text(
                                Self.text([
                                    "type": "init", "codec": header.codec, "width": "\(header.width)",
                                    "height": "\(header.height)",
                                ])))
                        try await outbound.write(.binary(ByteBuffer(bytes: header.initSegment)))
                    case .fragment(let bytes):
                        try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                    case .state(let state):
                        try await outbound.write(.text(Self.text(["type": "state", "state": state.description])))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    static func text(_ object: [String: String]) -> String {
        String(decoding: (try? jsonEncoder.encode(object)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
