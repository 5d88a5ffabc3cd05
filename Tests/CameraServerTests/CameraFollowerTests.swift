import CameraCommon
import CameraServer
import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Testing
import WatchBoxKit

/// A camera that changes address (a new DHCP lease) is followed by its ONVIF Hello — against
/// ipycam from PyPI in a namespace of its own — and one that only claims to be it is not.
@Suite("Server: following a camera to a new address", .serialized)
struct CameraFollowerTests {
    /// One poll's answer; nil (after half a second) when its connection broke before an answer:
    /// once in a fresh-clone CI run a poll's connection was closed under it ("I/O on closed
    /// channel"). Polls go on to their deadline, so a server that stopped answering fails there on
    /// what was last seen; `broken` counts broken polls in a row, and a fourth fails at once.
    func poll(_ broken: inout Int, _ request: () async throws -> TestServer.Reply) async throws
        -> TestServer.Reply?
    {
        do {
            let reply = try await request()
            broken = 0
            return reply
        } catch let error as MediaError where error.kind == .network {
            broken += 1
            if broken > 3 { throw error }
            try await Task.sleep(for: .milliseconds(500))
            return nil
        }
    }

    /// Polls the camera until `done` holds; returns the last answer.
    func camera(
        _ server: TestServer, _ id: String, token: String, seconds: Double,
        until done: ([String: Any], [String]) -> Bool
    ) async throws -> ([String: Any], [(kind: String, reason: String)]) {
        let deadline = Date().addingTimeInterval(seconds)
        var camera: [String: Any] = [:]
        var events: [(kind: String, reason: String)] = []
        var broken = 0
        repeat {
            guard
                let answer = try await poll(
                    &broken, { try await server.request(.GET, "/api/cameras/\(id)", token: token) }),
                let timeline = try await poll(
                    &broken,
                    {
                        try await server.request(.GET, "/api/cameras/\(id)/timeline", token: token)
                    })?.object
            else { continue }
            camera = answer.object
            events = (timeline["events"] as? [[String: Any]] ?? []).compactMap { event in
                guard let kind = event["kind"] as? String, let reason = event["reason"] as? String else { return nil }
                return (kind, reason)
            }
            if done(camera, events.map(\.kind)) { break }
            try await Task.sleep(for: .milliseconds(500))
        } while Date() < deadline
        return (camera, events)
    }

    func health(_ server: TestServer, _ id: String, token: String, seconds: Double) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var state = ""
        var broken = 0
        repeat {
            guard
                let answer = try await poll(
                    &broken,
                    {
                        try await server.request(.GET, "/api/cameras/\(id)/health", token: token)
                    })
            else { continue }
            state = answer.object["state"] as? String ?? ""
            if state == "playing" { break }
            try await Task.sleep(for: .milliseconds(500))
        } while Date() < deadline
        return state
    }

    @Test(
        "ipycam restarts at a new address: its Hello moves the stored camera, its profiles and its recording; an impostor with the same endpoint but another serial number is not followed",
        .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for a network namespace"))
    func followsAMovedCameraAndNotAnImpostor() async throws {
        let link = try NetworkNamespaceLink()
        defer { link.close() }
        let endpoint = "urn:uuid:\(UUID().uuidString.lowercased())"
        var camera = IPyCam(namespace: link.device, address: link.deviceAddress, endpoint: endpoint)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start { $0.allowedNetworks = [link.subnet] }
        defer { Task { await server.stop() } }
        let user = try await server.user()

        // Added from discovery with its login: endpoint, serial number and both profiles.
        let found = try await server.request(
            .POST, "/api/discovery", token: user.token,
            json: ["timeout": 2, "username": camera.user, "password": camera.password]
        ).array
        let device = try #require(
            found.first { ($0["device"] as? [String: Any])?["address"] as? String == camera.address })
        let serial = (device["information"] as? [String: Any])?["serialNumber"] as? String
        #expect(serial == "PY-000001")
        let profiles = (device["profiles"] as? [[String: Any]] ?? []).compactMap { item -> [String: Any]? in
            guard let url = item["streamURL"] as? String, let profile = item["profile"] as? [String: Any] else {
                return nil
            }
            return ["name": profile["name"] as? String ?? "stream", "rtspURL": url]
        }
        #expect(profiles.count == 2)
        let added = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: [
                "name": "Garage", "rtspURL": camera.mainStream, "username": camera.user, "password": camera.password,
                "endpoint": (device["device"] as? [String: Any])?["endpoint"] as? String ?? "",
                "serialNumber": serial ?? "", "profiles": profiles,
            ])
        #expect(added.status == 201, "\(added.text)")
        let id = try #require(added.object["id"] as? String)
        #expect(added.object["endpoint"] as? String == CameraRelocation.normalEndpoint(endpoint))
        // Recorded, so the stream runs without a viewer and its health is watched.
        let on = try await server.request(
            .PUT, "/api/cameras/\(id)/recording", token: user.token, json: ["enabled": true])
        #expect(on.status == 200, "\(on.text)")
        #expect(try await health(server, id, token: user.token, seconds: 30) == "playing")

        // A new lease: the camera stops, comes back at .3 and says Hello — 2.5 s before its
        // ONVIF service takes connections (as it boots), so asking its serial number once fails.
        let old = camera.address
        camera.stopAnnouncing()
        let moved = try link.renumberDevice(to: 3, replacing: old)
        camera = IPyCam(namespace: link.device, address: moved, endpoint: endpoint, serviceDelay: 2.5)
        try camera.start()
        let started = Date()
        let (after, events) = try await self.camera(server, id, token: user.token, seconds: 20) { camera, _ in
            camera["ipAddress"] as? String == moved
        }
        #expect(after["rtspURL"] as? String == "rtsp://\(moved):8554/video_main", "\(after) \(events)")
        #expect(events.contains { $0.kind == "moved" && $0.reason.contains("from \(old) to \(moved)") }, "\(events)")
        #expect(
            Date().timeIntervalSince(started) < 15, "the Hello took \(Date().timeIntervalSince(started)) s to act on")
        let storedProfiles = try await server.request(.GET, "/api/cameras/\(id)/profiles", token: user.token).array
        #expect(
            Set(storedProfiles.compactMap { $0["rtspURL"] as? String })
                == ["rtsp://\(moved):8554/video_main", "rtsp://\(moved):8554/video_sub"], "\(storedProfiles)")
        // Its password went with it: the recording plays again from the new address.
        #expect(try await health(server, id, token: user.token, seconds: 30) == "playing")

        // An impostor: the same endpoint reference from .4, but another serial number.
        camera.stopAnnouncing()
        let impostorAddress = try link.renumberDevice(to: 4, replacing: moved)
        let impostor = IPyCam(
            namespace: link.device, address: impostorAddress, endpoint: endpoint, serialNumber: "EVIL-1")
        try impostor.start()
        defer { impostor.stop() }
        let (kept, refused) = try await self.camera(server, id, token: user.token, seconds: 20) { _, kinds in
            kinds.contains("moveRefused")
        }
        #expect(kept["ipAddress"] as? String == moved, "\(kept)")
        #expect(
            refused.contains {
                $0.kind == "moveRefused" && $0.reason.contains("serial number EVIL-1, not PY-000001")
            }, "\(refused)")
        // The password is in no answer.
        #expect(!kept.description.contains(camera.password))
    }
}
