import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import Networking
import Synchronization
import WatchBoxKit

/// What the web app needs around a camera besides storing it: a connection test before saving,
/// the grid order, and health in words a person understands.
extension CameraService {
    /// `POST /api/cameras/test`: a URL and login to try, or a saved camera (`cameraID`) whose stored
    /// password is used when none is given and the URL still names the same device.
    struct TestRequest: Decodable {
        var rtspURL: String?
        var username: String?
        var password: String?
        var cameraID: String?
    }

    /// The answer of a connection test: `ok` and one sentence, then the details.
    struct TestResult: Codable {
        var ok: Bool
        var summary: String
        var reachable: Bool
        /// `none`, `accepted`, `refused` or `required`.
        var login: String?
        var videoCodec: String?
        var width: Int?
        var height: Int?
        var milliseconds: Int
    }

    /// A stream profile of a camera being added (from ONVIF discovery).
    struct ProfileInput: Decodable {
        var name: String
        var rtspURL: String
        var width: Int?
        var height: Int?
        var fps: Int?
    }

    /// `POST /api/cameras`: the camera's fields, and optionally its stream profiles.
    struct NewCamera: Decodable {
        var camera: CameraInput
        var profiles: [ProfileInput]?

        enum CodingKeys: String, CodingKey { case profiles }

        init(from decoder: any Decoder) throws {
            camera = try CameraInput(from: decoder)
            profiles = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
                [ProfileInput].self, forKey: .profiles)
        }
    }

    /// The profiles to store, checked: at most 8, each on the camera's own device (so a profile
    /// cannot send the camera's password elsewhere); the largest is the default.
    static func profiles(_ inputs: [ProfileInput], of camera: Camera) throws -> [StreamProfile] {
        guard inputs.count <= 8 else { throw APIError(.badRequest, "profiles: at most 8") }
        let made = try inputs.enumerated().map { index, input -> StreamProfile in
            guard let parts = StreamURL(input.rtspURL), device(input.rtspURL) == device(camera.rtspURL) else {
                throw APIError(
                    .badRequest, "profiles[\(index)].rtspURL: must be a stream of the same camera (host and port)")
            }
            let name = input.name.trimmingWhitespace()
            guard !name.isEmpty, name.count <= 100 else {
                throw APIError(.badRequest, "profiles[\(index)].name: must be 1–100 characters")
            }
            return StreamProfile(
                cameraID: camera.id, name: name, rtspURL: parts.withoutCredentials,
                resolution: "\(max(0, input.width ?? 0))x\(max(0, input.height ?? 0))",
                fps: Int16(clamping: max(0, input.fps ?? 0)))
        }
        guard let main = made.max(by: { area($0) < area($1) }) else { return [] }
        return made.map { profile in
            var profile = profile
            profile.isDefault = profile.id == main.id
            return profile
        }
    }

    static func area(_ profile: StreamProfile) -> Int {
        let parts = profile.resolution.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * parts[1] : 0
    }

    struct OrderRequest: Decodable {
        var ids: [String]
    }

    /// Health as words: `summary` ("login refused — check the user name and password", "no picture
    /// for 12 s") and `since`, when the camera got into that state.
    struct HealthWords: Codable {
        var level: String
        var summary: String
        var since: Date?
    }

    func checkRoutes() -> [Route] {
        [
            Route(
                method: .post, path: "/api/cameras/test", access: .user,
                summary: "Test a camera's URL and login before saving: reachable, login accepted, codec and size"
            ) { request, context in
                let user = try context.user()
                try self.testLimiter.check(
                    user, refusal: "at most \(self.testLimiter.perMinute) connection tests a minute")
                let body = try await decode(TestRequest.self, from: request, context: context)
                var existing: Camera?
                if let text = body.cameraID {
                    guard let id = UUID(uuidString: text),
                        let camera = try await self.repository(context).camera(id: id)
                    else { throw APIError(.notFound, "no camera \(text)") }
                    existing = camera
                }
                let url = body.rtspURL ?? existing?.rtspURL ?? ""
                guard let parts = StreamURL(url), !parts.host.isEmpty else {
                    throw APIError(.badRequest, "rtspURL: must be rtsp://host[:port]/path")
                }
                let address = try await self.checkedAddress(parts.host, user: user)
                var username = body.username ?? parts.user
                var password = body.password ?? parts.password
                if let existing, password == nil, Self.device(existing.rtspURL) == Self.device(url) {
                    password = try self.credentials.password(for: existing.id)
                    username = username ?? existing.username
                }
                let probe = await self.prober.probe(
                    parts.withHost(address).withoutCredentials, username: username, password: password)
                return try json(Self.testResult(probe, device: "\(parts.host):\(parts.port)"))
            },
            Route(
                method: .get, path: "/api/cameras/:id/profiles", access: .user,
                summary: "The camera's stream profiles (main and sub), largest first"
            ) { _, context in
                let camera = try await self.owned(context)
                let profiles = try await self.repository(context).profiles(cameraID: camera.id)
                return try json(profiles.sorted { Self.area($0) > Self.area($1) })
            },
            Route(
                method: .put, path: "/api/cameras/order", access: .user,
                summary: "Set the grid order: {\"ids\": [camera ids, first to last]}"
            ) { request, context in
                let body = try await decode(OrderRequest.self, from: request, context: context)
                guard body.ids.count <= 64, Set(body.ids).count == body.ids.count else {
                    throw APIError(.badRequest, "ids: each camera at most once, at most 64")
                }
                let ids = try body.ids.map { text -> UUID in
                    guard let id = UUID(uuidString: text) else {
                        throw APIError(.badRequest, "ids: \(text) is not a camera id")
                    }
                    return id
                }
                let repository = try self.repository(context)
                do {
                    try await repository.reorder(ids)
                } catch let error as MediaError where error.kind == .notFound {
                    throw APIError(.notFound, error.message)
                }
                return try json(try self.records(try await repository.cameras()))
            },
        ]
    }

    /// The probe in one sentence a person acts on.
    static func testResult(_ probe: RTSPProbeResult, device: String) -> TestResult {
        var login: String?
        switch probe.authentication {
        case .none?: login = "none"
        case .accepted?: login = "accepted"
        case .rejected?: login = "refused"
        case .required?: login = "required"
        case nil: login = nil
        }
        let summary: String
        if !probe.reachable {
            summary =
                "cannot reach \(device): \(probe.error ?? "no answer") — check the address and that the camera is on"
        } else if login == "refused" {
            summary = "login refused — check the user name and password"
        } else if login == "required" {
            summary = "the camera asks for a login — enter its user name and password"
        } else if let codec = probe.videoCodec {
            let size = probe.width.flatMap { w in probe.height.map { "\(w)×\($0)" } }
            summary =
                "works: \(codec.uppercased())\(size.map { " \($0)" } ?? "")"
                + (login == "accepted" ? ", login accepted" : "")
        } else if let error = probe.error {
            summary = "the camera answered but not with a stream: \(error) — check the path in the URL"
        } else {
            summary = "the camera answered but offers no video at this path — check the path in the URL"
        }
        return TestResult(
            ok: probe.isPlayable, summary: summary, reachable: probe.reachable, login: login,
            videoCodec: probe.videoCodec, width: probe.width, height: probe.height, milliseconds: probe.milliseconds)
    }

    /// The camera's state and latest problem as words.
    func words(_ id: UUID) -> HealthWords {
        let (state, since, lost) = tables.states.withLock { $0[id] } ?? (.idle, nil, nil)
        // Frozen and no data last until "recovered"; a timestamp jump is news for ten seconds only.
        let events = tables.events.withLock { $0[id] ?? [] }
        let problem = events.last { [.frozen, .noData, .recovered].contains($0.event.kind) }
        let jump = events.last { $0.event.kind == .timestampJump && $0.at > Date().addingTimeInterval(-10) }
        if case .playing = state {
            if let problem, problem.event.kind == .noData {
                return HealthWords(level: "bad", summary: "no picture", since: problem.at)
            }
            if let problem, problem.event.kind == .frozen {
                return HealthWords(level: "bad", summary: "picture frozen", since: problem.at)
            }
            if let jump { return HealthWords(level: "warn", summary: jump.event.reason, since: jump.at) }
        }
        return Self.words(for: state, since: since, lost: lost)
    }

    /// What a stream's state says to a person (the health summary's words and the live view's):
    /// `lost` is when a picture that had been playing went away, if it did.
    static func words(for state: StreamState, since: Date?, lost: Date?) -> HealthWords {
        switch state {
        case .idle:
            return HealthWords(level: "idle", summary: "not streaming (opens when someone watches)", since: since)
        case .connecting where lost != nil:
            return HealthWords(level: "bad", summary: "no picture; reconnecting", since: lost)
        case .connecting:
            return HealthWords(level: "warn", summary: "connecting", since: since)
        case .reconnecting(_, let delay, let reason) where lost != nil:
            // It was playing: the picture is gone, and why.
            let why = reason.map { ": \($0)" } ?? ""
            return HealthWords(
                level: "bad", summary: "no picture\(why); retrying in \(Int(delay.rounded(.up))) s", since: lost)
        case .reconnecting(_, let delay, let reason):
            let why = reason.map { "\($0); " } ?? ""
            return HealthWords(
                level: "warn", summary: "cannot connect: \(why)retrying in \(Int(delay.rounded(.up))) s", since: since)
        case .loginRefused:
            return HealthWords(level: "bad", summary: "login refused — check the user name and password", since: since)
        case .failed(let reason):
            return HealthWords(level: "bad", summary: "failed: \(reason)", since: since)
        case .playing:
            return HealthWords(level: "ok", summary: "playing", since: since)
        }
    }
}
