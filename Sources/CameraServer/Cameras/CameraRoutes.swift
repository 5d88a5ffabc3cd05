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
    /// Where cameras may be; ``allowed`` are its networks (discovery interfaces, scan ranges).
    let policy: EgressPolicy
    var allowed: [IPv4Network] { policy.networks }
    let workers: MediaWorkers
    let snapshotTimeout: Duration
    let manager: StreamManager
    let live: LiveView
    /// Scans per user per minute.
    let scanLimiter = RateLimiter(perMinute: 6)
    /// Connection tests per user per minute (each one sends a login to a camera).
    let testLimiter = RateLimiter(perMinute: 20)
    /// One prober for every test, so its lockout after refused logins protects cameras across requests.
    let prober = RTSPProber(timeout: .seconds(5))
    let tables = Tables()
    /// Live views open per user and the cameras they keep streaming.
    let viewers: ViewerTable

    /// Recent health events per camera, and the live view once made (a class, so the stream
    /// manager's callbacks, made before the live view, can hold it).
    final class Tables: Sendable {
        let live = Mutex<LiveView?>(nil)
        let events = Mutex<[UUID: [StampedEvent]]>([:])
        /// Each camera's stream state, when it began, and when its picture was lost (it stopped
        /// playing and has not played since).
        let states = Mutex<[UUID: (state: StreamState, since: Date, lost: Date?)]>([:])
        /// Cameras being recorded, with their owner.
        let recordings = Mutex<[UUID: (recording: StreamRecording, user: String)]>([:])
        /// When each stream's poster was last taken, and the task taking them.
        let thumbnails = Mutex<(taken: [UUID: Date], task: Task<Void, Never>?)>(([:], nil))
        /// Losses of picture not yet on the timeline (a hiccup never gets there).
        let outages = OutageDebounce()
        /// The task listening for cameras' Hello announcements, and when each endpoint was last handled.
        let follower = Mutex<(task: Task<Void, Never>?, handled: [String: Date])>((nil, [:]))
    }

    /// Continuous recording: where, how long each segment, what each camera keeps.
    let recordingRoot: String
    let recordingSegmentSeconds: Double
    let retention: RetentionPolicy
    let recordingCamerasPerUser: Int
    let playbackMaxSeconds: Double
    /// Posters for the grid: a small JPEG per stream, from a keyframe, refreshed while it plays.
    let thumbnailRoot: String
    let thumbnailSeconds: Double

    /// A health event and when it happened.
    struct StampedEvent: Encodable, Sendable {
        var event: HealthEvent
        var at: Date

        enum CodingKeys: String, CodingKey { case kind, reason, at }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(event.kind, forKey: .kind)
            try container.encode(event.reason, forKey: .reason)
            try container.encode(at, forKey: .at)
        }
    }

    init(store: ServerStore, configuration: ServerConfiguration, workers: MediaWorkers) throws(MediaError) {
        self.store = store
        self.workers = workers
        credentials = try FileCredentialStore(directory: configuration.dataDirectory + "/credentials")
        policy = configuration.egressPolicy
        snapshotTimeout = .milliseconds(Int(configuration.snapshotSeconds * 1000))
        viewers = ViewerTable(
            perUser: configuration.liveViewsPerUser, perCamera: configuration.viewersPerCamera,
            streamsPerUser: configuration.streamsPerUser)
        recordingRoot = configuration.dataDirectory + "/recordings"
        recordingSegmentSeconds = configuration.recordingSegmentSeconds
        retention = RetentionPolicy(
            maximumAge: configuration.recordingKeepHours * 3600, maximumBytes: configuration.recordingBytesPerCamera)
        recordingCamerasPerUser = configuration.recordingCamerasPerUser
        playbackMaxSeconds = configuration.playbackMaxSeconds
        let tables = self.tables
        manager = StreamManager(
            onState: { id, state in
                let previous = tables.states.withLock { table in
                    let previous = table[id]?.state
                    var lost = table[id]?.lost
                    if case .playing = state {
                        lost = nil
                    } else if case .playing? = table[id]?.state {
                        lost = Date()
                    }
                    table[id] = (state, Date(), lost)
                    return previous
                }
                if let event = Self.timelineEvent(from: previous, to: state),
                    let (kind, reason) = tables.outages.filter(
                        event, camera: id,
                        later: { lost in
                            Self.saveEvent(store: store, cameraID: id, kind: event.kind, reason: event.reason, at: lost)
                        })
                {
                    Self.saveEvent(store: store, cameraID: id, kind: kind, reason: reason)
                }
                tables.live.withLock { $0 }?.stateChanged(id, state)
                // The spec's lastConnected: when the camera last started playing.
                if case .playing = state {
                    Task {
                        try? await store.database.write(
                            "UPDATE cameras SET last_connected = ? WHERE id = ?",
                            [SQLValue(Date()), ServerCameraRepository.key(id)])
                    }
                }
            },
            onHealth: { event in
                tables.events.withLock { table in
                    table[event.cameraID, default: []] = Array(
                        (table[event.cameraID] ?? []).suffix(19) + [StampedEvent(event: event, at: Date())])
                }
                Self.saveEvent(store: store, cameraID: event.cameraID, kind: event.kind.rawValue, reason: event.reason)
            })
        let live = LiveView(
            manager: manager, keepsStreaming: { id in tables.recordings.withLock { $0[id] != nil } })
        self.live = live
        tables.live.withLock { $0 = live }
        thumbnailRoot = configuration.dataDirectory + "/thumbnails"
        thumbnailSeconds = configuration.thumbnailSeconds
        try? FileManager.default.createDirectory(atPath: thumbnailRoot, withIntermediateDirectories: true)
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                await self?.refreshThumbnails()
            }
        }
        tables.thumbnails.withLock { $0.task = task }
    }

    struct Health: Encodable {
        var state: String
        /// The state and latest problem in words, and since when.
        var status: HealthWords
        var statistics: StreamStatistics?
        var events: [StampedEvent]
        var viewers: Int
    }

    struct GridCell: Codable {
        var cameraID: String
        var name: String
        var frame: GridLayoutCalculator.Frame
        /// The smallest of several stream profiles, for the grid; full screen plays the main one.
        var gridProfileID: String?
    }

    struct Grid: Codable {
        var columns: Int
        var cells: [GridCell]
    }

    /// The caller's cameras (WatchBoxKit's repository on the server's database, scoped to the user).
    func repository(_ context: AppContext) throws -> ServerCameraRepository {
        ServerCameraRepository(database: store.database, userID: try context.user())
    }

    /// The API form of cameras; the credential store is read once for all of them.
    func records(_ cameras: [Camera]) throws -> [CameraRecord] {
        let withPasswords = try credentials.camerasWithPasswords()
        return cameras.map { CameraRecord($0, hasPassword: withPasswords.contains($0.id)) }
    }

    func record(_ camera: Camera) throws -> CameraRecord { try records([camera])[0] }

    /// The camera named in the path if it is the caller's; otherwise 404 (the same answer whether it
    /// exists for someone else or not at all).
    func owned(_ context: AppContext) async throws -> Camera {
        let text = try pathID(context)
        guard let id = UUID(uuidString: text), let camera = try await repository(context).camera(id: id) else {
            throw APIError(.notFound, "no camera \(text)")
        }
        return camera
    }

    /// The stream URL with credentials, for FFmpeg only (never logged, never answered), with the
    /// host replaced by the address checked against the policy now: FFmpeg connects to exactly the
    /// address that was checked, so a name that resolves elsewhere later cannot move it.
    func streamURL(_ camera: Camera, user: String) async throws -> String {
        guard let parts = StreamURL(camera.rtspURL) else {
            throw APIError(.badRequest, "rtspURL: the camera's URL is not valid; edit the camera")
        }
        let address = try await checkedAddress(parts.host, user: user)
        return try credentials.playableURL(
            parts.withHost(address).withoutCredentials, username: camera.username, cameraID: camera.id)
    }

    /// The address to connect to for a camera's host, or 403/400 saying why not (in words that
    /// never depend on what listens there). Names are looked up on a media worker.
    func checkedAddress(_ host: String, user: String) async throws -> String {
        let policy = self.policy
        do {
            if IPv4Network.parse(host) != nil { return try policy.address(for: host) }
            return try await workers.run(user: user) { () throws(MediaError) -> String in try policy.address(for: host)
            }
        } catch let error as MediaError {
            throw APIError(
                error.kind == .notAllowed ? .forbidden : .badRequest, "rtspURL: \(error.message)")
        }
    }

    /// Scheme, host and port: which device a URL reaches (the path only picks a stream on it).
    static func device(_ url: String) -> String? {
        StreamURL(url).map { "\($0.scheme)://\($0.host.lowercased()):\($0.port)" }
    }

    /// The camera `input` describes (over `existing` when changing one), checked: fields, and a new
    /// URL's address against the policy.
    func camera(from input: CameraInput, id: UUID, existing: Camera?, user: String) async throws -> (
        Camera, password: String?
    ) {
        let url = input.rtspURL ?? existing?.rtspURL ?? ""
        guard let parts = StreamURL(url), !parts.host.isEmpty
        else { throw APIError(.badRequest, "rtspURL: must be rtsp://host[:port]/path") }
        let name = (input.name ?? existing?.name ?? "").trimmingWhitespace()
        guard !name.isEmpty, name.count <= 100 else { throw APIError(.badRequest, "name: must be 1–100 characters") }
        for (field, value, limit) in [
            ("username", input.username, 256), ("password", input.password, 256),
            ("manufacturer", input.manufacturer, 100), ("model", input.model, 100),
            ("endpoint", input.endpoint, 200), ("serialNumber", input.serialNumber, 100),
        ] where (value?.utf8.count ?? 0) > limit {
            throw APIError(.badRequest, "\(field): at most \(limit) bytes")
        }
        let camera = Camera(
            id: id, name: name, rtspURL: url, username: input.username ?? parts.user ?? existing?.username,
            manufacturer: input.manufacturer ?? existing?.manufacturer, model: input.model ?? existing?.model,
            isActive: input.isActive ?? existing?.isActive ?? true,
            gridPosition: input.gridPosition.map { Int16(clamping: $0) } ?? existing?.gridPosition ?? 0,
            dateAdded: existing?.dateAdded ?? Date(), lastConnected: existing?.lastConnected,
            // From discovery, when adding; a change keeps what discovery said.
            endpoint: existing == nil ? input.endpoint : existing?.endpoint,
            serialNumber: existing == nil ? input.serialNumber : existing?.serialNumber)
        if url != existing?.rtspURL { _ = try await checkedAddress(parts.host, user: user) }
        return (camera, input.password ?? parts.password)
    }

    func routes(server: CameraCoreServer) -> [Route] {
        [
            Route(method: .get, path: "/api/cameras", access: .user, summary: "The user's cameras in grid order") {
                _, context in
                try json(try self.records(try await self.repository(context).cameras()))
            },
            Route(
                method: .post, path: "/api/cameras", access: .user,
                summary:
                    "Add a camera (password write-only; endpoint and serialNumber from discovery let the server follow it to a new address)"
            ) {
                request, context in
                let repository = try self.repository(context)
                let body = try await decode(NewCamera.self, from: request, context: context)
                let input = body.camera
                let count = try await repository.cameras().count
                guard count < 64 else { throw APIError(.badRequest, "at most 64 cameras per account") }
                var (camera, password) = try await self.camera(
                    from: input, id: UUID(), existing: nil, user: try context.user())
                let profiles = try Self.profiles(body.profiles ?? [], of: camera)
                if input.gridPosition == nil { camera.gridPosition = Int16(count) }
                do {
                    try await repository.add(camera)
                } catch let error as DatabaseFailure where error.isConflict {
                    throw APIError(.conflict, "a camera with this URL already exists")
                }
                if let password, !password.isEmpty { try self.credentials.setPassword(password, for: camera.id) }
                for profile in profiles { try await repository.addProfile(profile) }
                guard let saved = try await repository.camera(id: camera.id) else {
                    throw APIError(.internalServerError, "the camera was not saved")
                }
                return try json(try self.record(saved), status: .created)
            },
            Route(method: .get, path: "/api/cameras/:id", access: .user, summary: "One camera") { _, context in
                try json(try self.record(try await self.owned(context)))
            },
            Route(
                method: .put, path: "/api/cameras/:id", access: .user,
                summary: "Change a camera (empty password removes it)"
            ) {
                request, context in
                let repository = try self.repository(context)
                let existing = try await self.owned(context)
                let input = try await decode(CameraInput.self, from: request, context: context)
                var (camera, password) = try await self.camera(
                    from: input, id: existing.id, existing: existing, user: try context.user())
                // Pointing the camera at another device forgets its password unless a new one comes
                // with the change: otherwise the stored password would be sent to whatever host
                // the new URL names.
                // Another device is not the discovered camera either: nothing follows it by its identity.
                if Self.device(camera.rtspURL) != Self.device(existing.rtspURL) {
                    camera.endpoint = nil
                    camera.serialNumber = nil
                }
                if password == nil, Self.device(camera.rtspURL) != Self.device(existing.rtspURL) {
                    password = ""
                    if input.username == nil, StreamURL(input.rtspURL ?? "")?.user == nil { camera.username = nil }
                }
                do {
                    try await repository.update(camera)
                } catch let error as DatabaseFailure where error.isConflict {
                    throw APIError(.conflict, "a camera with this URL already exists")
                }
                if let password {
                    if password.isEmpty {
                        try self.credentials.removePassword(for: camera.id)
                    } else {
                        try self.credentials.setPassword(password, for: camera.id)
                    }
                }
                self.restart(camera.id)
                try await self.restartRecording(camera)
                guard let updated = try await repository.camera(id: camera.id) else {
                    throw APIError(.notFound, "no camera")
                }
                return try json(try self.record(updated))
            },
            Route(method: .delete, path: "/api/cameras/:id", access: .user, summary: "Remove a camera and its password")
            {
                _, context in
                let camera = try await self.owned(context)
                let profiles = try await self.repository(context).profiles(cameraID: camera.id)
                try await self.repository(context).remove(id: camera.id)
                try self.credentials.removePassword(for: camera.id)
                self.stopRecording(camera.id, deleting: true)
                self.restart(camera.id, profiles: profiles)
                for id in [camera.id] + profiles.map(\.id) { unlink(self.thumbnailPath(id)) }
                return Response(status: .noContent)
            },
            Route(
                method: .get, path: "/api/cameras/:id/health", access: .user,
                summary: "Stream state, counters and health events"
            ) {
                request, context in
                var id = try await self.owned(context).id
                // `?profile=<id>`: the health of that stream profile's upstream.
                if let text = request.uri.queryParameters.get("profile") {
                    guard let profile = UUID(uuidString: String(text)),
                        try await self.repository(context).profiles(cameraID: id).contains(where: { $0.id == profile })
                    else { throw APIError(.notFound, "no stream profile \(text) on this camera") }
                    id = profile
                }
                let viewers = self.live.viewerCount(id)
                return try json(
                    Health(
                        state: self.manager.state(id).description, status: self.words(id),
                        statistics: self.manager.statistics(id),
                        events: self.tables.events.withLock { $0[id] ?? [] }, viewers: viewers))
            },
            Route(
                method: .get, path: "/api/cameras/:id/snapshot", access: .user,
                summary: "A JPEG of the camera's picture now"
            ) {
                _, context in
                let camera = try await self.owned(context)
                let id = camera.id
                let jpeg: [UInt8]
                if case .playing = self.manager.state(id) {
                    // Live view or a recording has the camera open: take the picture from that stream.
                    jpeg = try await Snapshot.jpeg(
                        from: self.manager, cameraID: id, timeout: self.snapshotTimeout, width: 640)
                } else {
                    let user = try context.user()
                    let url = try await self.streamURL(camera, user: user)
                    let timeout = self.snapshotTimeout
                    jpeg = try await self.workers.run(user: user) { () throws(MediaError) -> [UInt8] in
                        try Snapshot.jpeg(url: url, timeout: timeout, width: 640)
                    }
                }
                return Response(
                    status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
            },
            Route(
                webSocket: "/api/cameras/:id/live",
                summary: "Live view: fragmented MP4 over a WebSocket (one upstream per camera)"
            ) { request, context in
                var camera = try await self.owned(context)
                let user = try context.user()
                let session = context.sessionID ?? ""
                // `?profile=<id>`: one of the camera's stream profiles (the grid plays the small one);
                // each profile is its own upstream, shared by its viewers.
                var key = camera.id
                if let text = request.uri.queryParameters.get("profile") {
                    guard let id = UUID(uuidString: String(text)),
                        let profile = try await self.repository(context).profiles(cameraID: camera.id).first(where: {
                            $0.id == id
                        })
                    else { throw APIError(.notFound, "no stream profile \(text) on this camera") }
                    camera.rtspURL = profile.rtspURL
                    key = profile.id
                }
                let url = try await self.streamURL(camera, user: user)
                let (streamKey, cameraID) = (key, camera.id)
                return { inbound, outbound in
                    let ticket: ViewerTable.Ticket
                    switch self.viewers.admit(user: user, camera: cameraID) {
                    case .success(let admitted): ticket = admitted
                    case .failure(let refusal):
                        try await outbound.write(.text(Self.text(["type": "error", "message": refusal.message])))
                        return
                    }
                    defer { self.viewers.release(ticket) }
                    try await self.liveView(
                        inbound: inbound, outbound: outbound, cameraID: streamKey, url: url,
                        signedOut: { server.auth.isRevoked(session) })
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
                let repository = try self.repository(context)
                let rows = try await repository.cameras().filter(\.isActive)
                let frames = GridLayoutCalculator.frames(count: rows.count, width: width, height: height)
                var small: [UUID: String] = [:]
                for (camera, profiles) in try await repository.profilesByCamera() {
                    if profiles.count > 1, let sub = profiles.min(by: { Self.area($0) < Self.area($1) }) {
                        small[camera] = sub.id.uuidString.lowercased()
                    }
                }
                return try json(
                    Grid(
                        columns: rows.isEmpty
                            ? 0 : GridLayoutCalculator.columns(count: rows.count, width: width - 16, height: height),
                        cells: zip(rows, frames).map {
                            GridCell(
                                cameraID: $0.id.uuidString.lowercased(), name: $0.name, frame: $1,
                                gridProfileID: small[$0.id])
                        }))
            },
        ]
    }

    /// A changed or removed camera drops its upstreams (its profiles' too); viewers get the new
    /// stream on reconnect.
    func restart(_ id: UUID, profiles: [StreamProfile] = []) {
        live.close(id)
        for profile in profiles { live.close(profile.id) }
    }

    func stopAll() {
        tables.thumbnails.withLock { $0.task?.cancel() }
        tables.follower.withLock { $0.task?.cancel() }
        manager.stopAll()
        finishRecordings()
    }

    // MARK: Live view

    /// Forwards the camera's live view to a WebSocket until the viewer goes away: a header becomes
    /// a JSON text message (`{"type":"init","codec":…}`) followed by the init segment, fragments
    /// become binary messages, state changes `{"type":"state","state":…,"level":…,"words":…}` (the
    /// words and level the health summary gives, so the page says them as they are).
    func liveView(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, cameraID: UUID, url: String,
        signedOut: @escaping @Sendable () -> Bool = { false }
    ) async throws {
        let (messages, ticket) = live.join(cameraID: cameraID, url: url)
        defer { live.leave(ticket) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The viewer sends nothing we need; reading notices when it leaves.
                for try await _ in inbound {}
            }
            group.addTask {
                // Signing out ends the live views the session opened, within half a second.
                while !signedOut() { try await Task.sleep(for: .milliseconds(500)) }
                try await outbound.write(.text(Self.text(["type": "error", "message": "signed out"])))
            }
            group.addTask {
                // Once it has played, a lost picture is said as such.
                var played = false
                var lost: Date?
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
                        if case .playing = state {
                            (played, lost) = (true, nil)
                        } else if played, lost == nil, case .reconnecting = state {
                            lost = Date()
                        }
                        let words = Self.words(for: state, since: nil, lost: lost)
                        try await outbound.write(
                            .text(
                                Self.text([
                                    "type": "state", "state": state.description, "level": words.level,
                                    "words": words.summary,
                                ])))
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

/// Live views per user and per camera, and how many cameras one user keeps streaming: the
/// server's 16 upstream slots are shared, so one account must not take them all.
final class ViewerTable: Sendable {
    let perUser: Int
    let perCamera: Int
    let streamsPerUser: Int
    private let open = Mutex<[Ticket]>([])

    struct Ticket: Sendable, Equatable {
        let id = UUID()
        let user: String
        let camera: UUID
    }

    init(perUser: Int, perCamera: Int, streamsPerUser: Int) {
        self.perUser = perUser
        self.perCamera = perCamera
        self.streamsPerUser = streamsPerUser
    }

    struct Refusal: Error {
        let message: String
    }

    /// A ticket for the view, or the refusal in words.
    func admit(user: String, camera: UUID) -> Result<Ticket, Refusal> {
        open.withLock { open in
            if let refusal = Self.refusal(open, user: user, camera: camera, limits: self) {
                return .failure(Refusal(message: refusal))
            }
            let ticket = Ticket(user: user, camera: camera)
            open.append(ticket)
            return .success(ticket)
        }
    }

    func release(_ ticket: Ticket) {
        open.withLock { $0.removeAll { $0 == ticket } }
    }

    private static func refusal(_ open: [Ticket], user: String, camera: UUID, limits: ViewerTable) -> String? {
        let mine = open.filter { $0.user == user }
        if mine.count >= limits.perUser { return "you have \(limits.perUser) live views open; close one first" }
        if open.filter({ $0.camera == camera }).count >= limits.perCamera {
            return "this camera has \(limits.perCamera) viewers already"
        }
        let streaming = Set(mine.map(\.camera))
        if !streaming.contains(camera), streaming.count >= limits.streamsPerUser {
            return "you are streaming \(limits.streamsPerUser) cameras already; close one first"
        }
        return nil
    }
}
