import CameraServer
import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Testing

/// Continuous recording through the server, against GStreamer's RTSP server: the switch, the
/// timeline (segments and health events), playback of a chosen span, a restart that resumes, and
/// what strangers and bad times get.
@Suite("Server recordings", .serialized)
struct RecordingRoutesTests {
    /// Polls the timeline until `done` holds (or `seconds` pass); returns the last answer.
    func timeline(
        _ server: TestServer, _ id: String, token: String, seconds: Double = 25,
        until done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try await server.request(.GET, "/api/cameras/\(id)/timeline", token: token).object
            if done(last) { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        return last
    }

    static func recorded(_ timeline: [String: Any]) -> Double {
        (timeline["segments"] as? [[String: Any]] ?? []).reduce(0) { total, segment in
            guard let start = (segment["start"] as? String).flatMap(parse),
                let end = (segment["end"] as? String).flatMap(parse)
            else { return total }
            return total + end.timeIntervalSince(start)
        }
    }

    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    static func kinds(_ timeline: [String: Any]) -> [String] {
        (timeline["events"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    }

    @Test(
        "record a camera, see it on the timeline with its events, play back a chosen span from the keyframe before it",
        arguments: Backend.allCases)
    func recordAndPlayBack(backend: Backend) async throws {
        let rtsp = RTSPTestServer(auth: .digest)
        try rtsp.start()
        defer { rtsp.stop() }
        var server = try await TestServer.start(on: backend) { $0.recordingSegmentSeconds = 2 }
        let user = try await server.user()
        let stranger = try await server.user()
        let camera = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Yard", "rtspURL": rtsp.url(), "username": rtsp.user, "password": rtsp.password])
        let id = camera.object["id"] as? String ?? ""
        let off = try await server.request(.GET, "/api/cameras/\(id)/recording", token: user.token)
        #expect(off.object["enabled"] as? Bool == false)

        let on = try await server.request(
            .PUT, "/api/cameras/\(id)/recording", token: user.token, json: ["enabled": true])
        #expect(on.status == 200, "\(on.text)")
        #expect(on.object["enabled"] as? Bool == true)
        // No one watches: the recording keeps the stream open by itself.
        var timeline = try await timeline(server, id, token: user.token) { Self.recorded($0) >= 5 }
        #expect(Self.recorded(timeline) >= 5, "\(timeline)")
        #expect(Self.kinds(timeline).contains("online"), "\(timeline)")

        // The grid's poster: taken from a keyframe of the running stream, 320 pixels wide.
        var poster = try await server.request(.GET, "/api/cameras/\(id)/thumbnail", token: user.token)
        for _ in 0..<20 where poster.status != 200 {
            try await Task.sleep(for: .milliseconds(500))
            poster = try await server.request(.GET, "/api/cameras/\(id)/thumbnail", token: user.token)
        }
        #expect(poster.status == 200 && poster.header("Content-Type") == "image/jpeg", "\(poster.text.prefix(200))")
        let posterFile = try temporaryDirectory() + "/poster.jpg"
        try Data(poster.body).write(to: URL(fileURLWithPath: posterFile))
        #expect(try FFprobeReport.read(posterFile).width == 320)

        // Strangers learn nothing, change nothing.
        for (method, path) in [
            (HTTPMethod.GET, "/api/cameras/\(id)/timeline"), (.GET, "/api/cameras/\(id)/recording"),
            (.GET, "/api/cameras/\(id)/playback"), (.GET, "/api/cameras/\(id)/thumbnail"),
        ] {
            let reply = try await server.request(method, path, token: stranger.token)
            #expect(reply.status == 404, "\(path): \(reply.status)")
        }
        let hijack = try await server.request(
            .PUT, "/api/cameras/\(id)/recording", token: stranger.token, json: ["enabled": false])
        #expect(hijack.status == 404)

        // A span starting 1.3 s into the first recorded run.
        let first = (timeline["segments"] as? [[String: Any]] ?? []).first ?? [:]
        let start = (first["start"] as? String).flatMap(Self.parse) ?? Date()
        let from = start.addingTimeInterval(1.3)
        let to = from.addingTimeInterval(3)
        let millis = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        let path = "/api/cameras/\(id)/playback?from=\(millis(from))&to=\(millis(to))"
        let playback = try await server.request(.GET, path, token: user.token)
        #expect(playback.status == 200, "\(playback.text.prefix(200))")
        #expect(playback.header("Content-Type") == "video/mp4")
        let file = try temporaryDirectory() + "/span.mp4"
        try Data(playback.body).write(to: URL(fileURLWithPath: file))
        let probe = try FFprobeReport.read(file)
        #expect(probe.videoFrames.first?.isKeyframe == true)
        let duration = probe.formatDuration ?? 0
        // From the keyframe at or before `from` (one a second here) to `to`.
        #expect(duration >= 2.9 && duration <= 4.2, "\(duration) s")
        let ranged = try await server.request(.GET, path, token: user.token, headers: [("Range", "bytes=0-99")])
        #expect(ranged.status == 206 && ranged.body.count == 100)
        let download = try await server.request(.GET, path + "&download=1", token: user.token)
        #expect(download.header("Content-Disposition")?.contains("attachment; filename=\"Yard ") == true)

        // Bad times are named; an empty span is "nothing recorded", not an error page.
        let garbage = try await server.request(.GET, "/api/cameras/\(id)/playback?from=yesterday", token: user.token)
        #expect(garbage.status == 400 && garbage.text.contains("from"), "\(garbage.text)")
        let long = try await server.request(
            .GET, "/api/cameras/\(id)/playback?from=\(millis(from))&to=\(millis(from) + 7_200_000)", token: user.token)
        #expect(long.status == 400 && long.text.contains("3600"), "\(long.text)")
        let future = try await server.request(
            .GET, "/api/cameras/\(id)/playback?from=\(millis(Date()) + 3_600_000)", token: user.token)
        #expect(future.status == 404 && future.text.contains("nothing was recorded"), "\(future.text)")

        // A restart resumes the recording the user turned on (and repairs the open segment).
        let directory = server.directory
        let databaseURL = server.databaseURL
        let before = Self.recorded(timeline)
        await server.stop()
        server = try await TestServer.start(on: backend) {
            $0.recordingSegmentSeconds = 2
            $0.dataDirectory = directory
            $0.databaseURL = databaseURL
        }
        timeline = try await self.timeline(server, id, token: user.token) { Self.recorded($0) >= before + 4 }
        #expect(Self.recorded(timeline) >= before + 4, "recording did not resume: \(timeline)")
        #expect((timeline["recording"] as? [String: Any])?["enabled"] as? Bool == true)

        // The camera goes away: the timeline says so.
        rtsp.stop()
        timeline = try await self.timeline(server, id, token: user.token, seconds: 20) {
            Self.kinds($0).contains("offline")
        }
        #expect(Self.kinds(timeline).contains("offline"), "\(Self.kinds(timeline))")

        // Off keeps what was recorded; deleting the camera deletes it.
        let stopped = try await server.request(
            .PUT, "/api/cameras/\(id)/recording", token: user.token, json: ["enabled": false])
        #expect(stopped.object["enabled"] as? Bool == false)
        #expect((stopped.object["bytes"] as? Int ?? 0) > 0)
        let folder = directory + "/recordings/\(id.lowercased())"
        #expect(FileManager.default.fileExists(atPath: folder))
        let deleted = try await server.request(.DELETE, "/api/cameras/\(id)", token: user.token)
        #expect(deleted.status == 204)
        #expect(!FileManager.default.fileExists(atPath: folder))
        await server.stop()
    }
}
