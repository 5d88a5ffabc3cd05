import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

/// Uploads pending clips to a CameraCore server (the spec's CloudSyncService). A clip leaves the
/// pending list only after the server confirms it holds the whole file (its size matches); any
/// failure leaves it pending for the next run. Uploads are idempotent on the server (by clip id),
/// so a run interrupted half-way simply sends the clip again.
public struct ClipSync: Sendable {
    public let server: String
    public let accessToken: String
    public var timeout: Duration = .seconds(120)

    public struct Report: Sendable, Codable, Equatable {
        public var uploaded: [String] = []
        /// Clip id and the reason, for clips that stay pending.
        public var failed: [Failure] = []
        public struct Failure: Sendable, Codable, Equatable {
            public var id: String
            public var reason: String
        }
    }

    public init(server: String, accessToken: String) {
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.accessToken = accessToken
    }

    /// Signs in with e-mail and password and returns a client holding the session token.
    public static func signIn(server: String, email: String, password: String) async throws(MediaError) -> ClipSync {
        try await logIn(server: server, email: email, password: password).0
    }

    static func message(_ response: HTTPClientResponse) -> String {
        struct ErrorBody: Decodable { var error: String }
        let text = (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)))?.error
        return "HTTP \(response.status)" + (text.map { ": \($0)" } ?? "")
    }

    static func send(
        _ method: HTTPMethod, _ url: String, token: String?, body: [UInt8], contentType: String = "application/json",
        timeout: Duration
    ) async throws(MediaError) -> HTTPClientResponse {
        guard let parsed = HTTPURL(url) else {
            throw MediaError(.invalidArgument, operation: "sync", message: "\(url) is not an http(s) URL")
        }
        var headers = [("Content-Type", contentType)]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await HTTPClient.send(method, url: parsed, headers: headers, body: body, timeout: timeout)
    }

    /// Uploads every pending clip of `store`; `progress` is told each clip as it finishes.
    public func upload(
        from store: PendingClipStore, progress: @Sendable (ClipMetadata, Bool) -> Void = { _, _ in }
    ) async -> Report {
        var report = Report()
        for clip in store.loadPendingClipMetadata() {
            do {
                try await upload(clip)
                _ = try store.keep(clip)
                report.uploaded.append(clip.id)
                progress(clip, true)
            } catch {
                report.failed.append(.init(id: clip.id, reason: error.description))
                progress(clip, false)
            }
        }
        return report
    }

    struct Confirmed: Decodable { var size: Int? }

    func upload(_ clip: ClipMetadata) async throws(MediaError) {
        let operation = "upload clip \(clip.id)"
        guard let video = FileManager.default.contents(atPath: clip.localPath) else {
            throw MediaError(.notFound, operation: operation, message: "\(clip.localPath) is missing")
        }
        let encoder = JSONFile.encoder(pretty: false)
        let metadata = ClipInput(
            game: clip.game, name: clip.name, events: clip.events, timestamp: clip.timestamp, duration: clip.duration)
        let base = server + "/api/clips/\(clip.id)"
        let saved = try await Self.send(
            .PUT, base, token: accessToken, body: Array((try? encoder.encode(metadata)) ?? Data()), timeout: timeout)
        guard saved.status == 200 else {
            throw MediaError(.network, operation: operation, message: Self.message(saved))
        }
        let file = try await Self.send(
            .PUT, base + "/file", token: accessToken, body: Array(video), contentType: "video/mp4", timeout: timeout)
        guard file.status == 200, let confirmed = try? JSONDecoder().decode(Confirmed.self, from: Data(file.body)),
            confirmed.size == video.count
        else {
            throw MediaError(
                .network, operation: operation, message: "the server did not confirm the file: \(Self.message(file))")
        }
        if let thumbnail = clip.thumbnailPath, let jpeg = FileManager.default.contents(atPath: thumbnail) {
            // A missing thumbnail is not worth keeping the clip pending for.
            _ = try? await Self.send(
                .PUT, base + "/thumbnail", token: accessToken, body: Array(jpeg), contentType: "image/jpeg",
                timeout: timeout)
        }
    }
}
