import CameraCommon
import CameraIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import WatchBoxKit

/// Continuous recording (opt-in per camera), the camera's timeline (segments and health events) and
/// playback or download of any span of it.
///
/// Recording subscribes to the camera's one upstream (live view and health share it) and keeps it
/// running without viewers. Segments go to `<data>/recordings/<camera id>/`, named by the time they
/// cover; retention (age and bytes per camera) runs after each segment. A server killed while
/// recording repairs the open segment at its next start.
extension CameraService {
    /// A stream state change worth a mark on the timeline (nil for the steps in between).
    static func timelineEvent(from previous: StreamState?, to state: StreamState) -> (kind: String, reason: String)? {
        let wasPlaying: Bool
        if case .playing? = previous { wasPlaying = true } else { wasPlaying = false }
        switch state {
        case .playing:
            return wasPlaying ? nil : ("online", "picture back")
        case .reconnecting(_, _, let reason):
            return wasPlaying ? ("offline", reason ?? "the stream ended") : nil
        case .loginRefused:
            if case .loginRefused? = previous { return nil }
            return ("loginRefused", "login refused")
        case .failed(let reason):
            if case .failed(let before)? = previous, before == reason { return nil }
            return ("failed", reason)
        case .idle, .connecting:
            return nil
        }
    }

    /// Stores a timeline event for a camera (stream ids of sub-stream profiles are not cameras and
    /// are skipped), and drops the camera's events older than 30 days.
    static func saveEvent(store: ServerStore, cameraID: UUID, kind: String, reason: String, at: Date? = nil) {
        let key = ServerCameraRepository.key(cameraID)
        Task {
            guard try await !store.database.read("SELECT id FROM cameras WHERE id = ?", [key]).isEmpty else { return }
            let now = Date()
            try await store.database.write(
                "INSERT INTO camera_events (id, camera_id, kind, reason, at) VALUES (?, ?, ?, ?, ?)",
                [.text(UUID().uuidString), key, .text(kind), .text(String(reason.prefix(200))), SQLValue(at ?? now)])
            try await store.database.write(
                "DELETE FROM camera_events WHERE camera_id = ? AND at < ?",
                [key, SQLValue(now.addingTimeInterval(-30 * 86400))])
        }
    }

    func recordingFolder(_ id: UUID) -> String { recordingRoot + "/" + id.uuidString.lowercased() }

    /// Starts recording `camera` (its stream is started if no one watches it).
    func startRecording(_ camera: Camera, user: String) async throws {
        let url = try await streamURL(camera, user: user)
        let retention = self.retention
        let folder = recordingFolder(camera.id)
        let recording = StreamRecording(
            manager: manager, cameraID: camera.id, directory: folder, segmentSeconds: recordingSegmentSeconds,
            onSegment: { _ in RecordingArchive(directory: folder).enforce(retention) })
        let replaced = tables.recordings.withLock { table in
            defer { table[camera.id] = (recording, user) }
            return table[camera.id]?.recording
        }
        _ = try? replaced?.finish()
        manager.start(camera.id, url: url, visible: false)
    }

    /// Stops recording a camera (its segments stay unless `deleting`); the stream stops when no
    /// one watches it.
    func stopRecording(_ id: UUID, deleting: Bool = false) {
        let recording = tables.recordings.withLock { $0.removeValue(forKey: id) }?.recording
        _ = try? recording?.finish()
        if live.viewerCount(id) == 0 { manager.stop(id) }
        if deleting { try? FileManager.default.removeItem(atPath: recordingFolder(id)) }
    }

    /// Finishes every open segment (the server is stopping).
    func finishRecordings() {
        let all = tables.recordings.withLock { table in
            defer { table.removeAll() }
            return table.values.map(\.recording)
        }
        for recording in all { _ = try? recording.finish() }
    }

    /// Starts the recordings users turned on (at server start). A camera whose address the policy
    /// no longer allows stays off, with a timeline event saying why.
    func resumeRecordings() async {
        guard let rows = try? await store.database.read("SELECT camera_id, user_id FROM recordings", []) else {
            return
        }
        for row in rows {
            guard let user = row["user_id"].string, let text = row["camera_id"].string, let id = UUID(uuidString: text),
                let camera = try? await ServerCameraRepository(database: store.database, userID: user).camera(id: id)
            else { continue }
            do {
                try await startRecording(camera, user: user)
            } catch {
                Self.saveEvent(
                    store: store, cameraID: id, kind: "failed", reason: "recording not resumed: \(error)")
            }
        }
    }

    /// After a camera was changed: a recording follows it to its new URL.
    func restartRecording(_ camera: Camera) async throws {
        guard let user = tables.recordings.withLock({ $0[camera.id]?.user }) else { return }
        try await startRecording(camera, user: user)
    }

    struct RecordingSwitch: Codable {
        var enabled: Bool
    }

    struct RecordingStatus: Codable {
        var enabled: Bool
        /// Why recording stopped by itself (a full disk), if it did.
        var failure: String?
        var bytes: Int
        var oldest: Date?
        var newest: Date?
        var keepHours: Double
        var segmentSeconds: Double
    }

    struct TimelineSegment: Codable {
        var start: Date
        var end: Date
    }

    struct TimelineEvent: Codable {
        var at: Date
        var kind: String
        var reason: String
    }

    struct Timeline: Codable {
        var from: Date
        var to: Date
        var recording: RecordingStatus
        var segments: [TimelineSegment]
        var events: [TimelineEvent]
    }

    /// The recording's state; `segments` when the caller has listed the folder already.
    func recordingStatus(_ id: UUID, segments listed: [RecordedSegment]? = nil) -> RecordingStatus {
        let segments = listed ?? RecordingArchive(directory: recordingFolder(id)).segments()
        let active = tables.recordings.withLock { $0[id]?.recording }
        return RecordingStatus(
            enabled: active != nil, failure: active?.failure.map { "recording stopped: \($0.message)" },
            bytes: segments.reduce(0) { $0 + $1.bytes }, oldest: segments.first?.start, newest: segments.last?.end,
            keepHours: (retention.maximumAge ?? 0) / 3600, segmentSeconds: recordingSegmentSeconds)
    }

    /// `from`/`to` query parameters: Unix milliseconds or RFC 3339 text.
    static func time(_ request: Request, _ name: String, default fallback: Date) throws -> Date {
        guard let value = request.uri.queryParameters.get(name) else { return fallback }
        let text = String(value)
        if let milliseconds = Double(text), milliseconds.isFinite {
            return Date(timeIntervalSince1970: milliseconds / 1000)
        }
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        throw APIError(.badRequest, "\(name): \"\(text.prefix(40))\" is not a time (Unix milliseconds or RFC 3339)")
    }

    func recordingRoutes(server: CameraCoreServer) -> [Route] {
        [
            Route(
                method: .get, path: "/api/cameras/:id/recording", access: .user,
                summary: "Whether the camera is recorded, and what is kept"
            ) { _, context in
                try json(self.recordingStatus(try await self.owned(context).id))
            },
            Route(
                method: .put, path: "/api/cameras/:id/recording", access: .user,
                summary: "Turn continuous recording on or off: {\"enabled\": true}"
            ) { request, context in
                let camera = try await self.owned(context)
                let user = try context.user()
                let body = try await decode(RecordingSwitch.self, from: request, context: context)
                let key = ServerCameraRepository.key(camera.id)
                if body.enabled {
                    let mine = self.tables.recordings.withLock { table in
                        table.filter { $0.value.user == user && $0.key != camera.id }.count
                    }
                    guard mine < self.recordingCamerasPerUser else {
                        throw APIError(
                            .badRequest,
                            "enabled: at most \(self.recordingCamerasPerUser) cameras recorded at once; turn one off first"
                        )
                    }
                    try await self.startRecording(camera, user: user)
                    try await self.store.database.write("DELETE FROM recordings WHERE camera_id = ?", [key])
                    try await self.store.database.write(
                        "INSERT INTO recordings (camera_id, user_id, enabled_at) VALUES (?, ?, ?)",
                        [key, .text(user), SQLValue(Date())])
                } else {
                    self.stopRecording(camera.id)
                    try await self.store.database.write("DELETE FROM recordings WHERE camera_id = ?", [key])
                }
                return try json(self.recordingStatus(camera.id))
            },
            Route(
                method: .get, path: "/api/cameras/:id/timeline", access: .user,
                summary: "Recorded segments and health events between ?from= and ?to= (default: the last 3 hours)"
            ) { request, context in
                let camera = try await self.owned(context)
                let now = Date()
                let to = try Self.time(request, "to", default: now)
                let from = try Self.time(request, "from", default: to.addingTimeInterval(-3 * 3600))
                guard from < to, to.timeIntervalSince(from) <= 8 * 86400 else {
                    throw APIError(.badRequest, "from: must be before to, at most 8 days apart")
                }
                // One listing of the folder for the runs and the status; the segment being written
                // counts up to its last fragment on disk, so the timeline reaches "now".
                let archive = RecordingArchive(directory: self.recordingFolder(camera.id))
                let all = (archive.segments() + archive.openSegments()).sorted { $0.start < $1.start }
                // Joined runs of segments, as the timeline draws them.
                var runs: [TimelineSegment] = []
                for segment in all where segment.overlaps(from: from, to: to) {
                    if let last = runs.last, segment.start.timeIntervalSince(last.end) < 1 {
                        runs[runs.count - 1].end = max(last.end, segment.end)
                    } else {
                        runs.append(TimelineSegment(start: segment.start, end: segment.end))
                    }
                }
                let rows = try await self.store.database.read(
                    "SELECT kind, reason, at FROM camera_events WHERE camera_id = ? AND at >= ? AND at <= ? ORDER BY at LIMIT 1000",
                    [ServerCameraRepository.key(camera.id), SQLValue(from), SQLValue(to)])
                let events = rows.compactMap { row -> TimelineEvent? in
                    guard let kind = row["kind"].string, let reason = row["reason"].string, let at = row["at"].double
                    else { return nil }
                    return TimelineEvent(at: Date(timeIntervalSince1970: at), kind: kind, reason: reason)
                }
                return try json(
                    Timeline(
                        from: from, to: to, recording: self.recordingStatus(camera.id, segments: all), segments: runs,
                        events: events))
            },
            Route(
                method: .get, path: "/api/cameras/:id/playback", access: .user,
                summary:
                    "The recording from ?from= to ?to= as one MP4, starting at the keyframe before from (Range supported; ?download=1 to save)"
            ) { request, context in
                let camera = try await self.owned(context)
                let user = try context.user()
                let from = try Self.time(request, "from", default: Date().addingTimeInterval(-60))
                let to = try Self.time(request, "to", default: from.addingTimeInterval(60))
                guard from < to else { throw APIError(.badRequest, "to: must be after from") }
                guard to.timeIntervalSince(from) <= self.playbackMaxSeconds else {
                    throw APIError(.badRequest, "to: at most \(Int(self.playbackMaxSeconds)) s after from")
                }
                let path = try await self.export(camera.id, from: from, to: to, user: user)
                var response = try await server.files.serve(
                    path, contentType: "video/mp4", request: request, context: context)
                if request.uri.queryParameters.get("download") != nil {
                    let stamp = ISO8601DateFormatter().string(from: from).prefix(16).replacingOccurrences(
                        of: ":", with: "-")
                    let name = String(
                        camera.name.unicodeScalars.map {
                            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)
                                ? Character($0) : "-"
                        })
                    response.headers[.contentDisposition] = "attachment; filename=\"\(name) \(stamp).mp4\""
                }
                return response
            },
        ]
    }

    /// The span as an MP4 in the export cache: a player's several range requests for one span reuse
    /// one file; files older than 15 minutes are removed.
    func export(_ id: UUID, from: Date, to: Date, user: String) async throws -> String {
        let cache = recordingRoot + "/.exports"
        try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let archive = RecordingArchive(directory: recordingFolder(id))
        // The newest recorded time in the span is part of the key: a span that reaches into the
        // segment being written is cut again once more of it is on disk.
        let newest = archive.segments(from: from, to: to, includingOpen: true).map(\.end).max() ?? from
        let key = [
            id.uuidString, "\(RecordingArchive.milliseconds(from))", "\(RecordingArchive.milliseconds(to))",
            "\(RecordingArchive.milliseconds(min(newest, to)))",
        ].joined(separator: "|")
        let name = SHA256.hash(data: Array(key.utf8)).map { String(format: "%02x", $0) }.joined().prefix(32)
        let path = cache + "/\(name).mp4"
        let now = Date()
        for file in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? [] {
            let other = cache + "/" + file
            if let modified = (try? FileManager.default.attributesOfItem(atPath: other))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > 15 * 60
            {
                try? FileManager.default.removeItem(atPath: other)
            }
        }
        if FileManager.default.fileExists(atPath: path) { return path }
        do {
            _ = try await workers.run(user: user) { () throws(MediaError) -> RecordingArchive.Span in
                try archive.export(from: from, to: to, into: path)
            }
        } catch let error as MediaError where error.kind == .notFound {
            throw APIError(.notFound, "nothing was recorded between those times")
        }
        return path
    }
}

/// Keeps a brief hiccup off the timeline: a camera that lost its picture is marked "offline" only
/// if it is still without one `grace` seconds later (marked at the moment it was lost), and the
/// "online" that ends an unmarked hiccup is not marked either. One second without a picture is
/// not an alarm; a camera that stays away is, from the moment it went.
final class OutageDebounce: Sendable {
    let grace: Double
    /// Cameras that lost their picture: when, and whether the loss was marked.
    private let outages = Mutex<[UUID: (lost: Date, marked: Bool)]>([:])

    init(grace: Double = 2.5) { self.grace = grace }

    /// What to mark now for a state change's event, if anything; `mark(at:)` is called after
    /// `grace` seconds for a loss still going on.
    func filter(
        _ event: (kind: String, reason: String), camera: UUID, at now: Date = Date(),
        later: @escaping @Sendable (_ lost: Date) -> Void
    ) -> (kind: String, reason: String)? {
        switch event.kind {
        case "offline":
            outages.withLock { $0[camera] = (now, false) }
            let grace = self.grace
            Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(Int(grace * 1000)))
                guard let self else { return }
                let due = self.outages.withLock { table -> Bool in
                    guard let outage = table[camera], outage.lost == now, !outage.marked else { return false }
                    table[camera]?.marked = true
                    return true
                }
                if due { later(now) }
            }
            return nil
        case "online":
            let outage = outages.withLock { $0.removeValue(forKey: camera) }
            // Back from a loss that was never marked: nothing happened as far as the timeline knows.
            if let outage, !outage.marked { return nil }
            return event
        default:
            return event
        }
    }
}
