import CameraCommon
import Foundation
import Logging
import Networking
import Synchronization
import WatchBoxKit

private let followerLog = Logger(label: "cameracore-server.cameras")

/// Following cameras that change address: the server listens for ONVIF Hello announcements on its
/// interfaces inside `allowedNetworks`, and a stored camera whose endpoint reference (kept when it
/// was added from discovery) is heard from a new address is moved there — its URL, its stream
/// profiles, its live view and its recording — when ``CameraRelocation/decide(_:hasPassword:newAddress:sameNetwork:serialThere:)``
/// says so. Either way the camera's event list says what happened.
extension CameraService {
    /// A Hello for one endpoint from one address is handled at most this often (a camera may repeat
    /// its Hello, and anyone on the LAN can send a flood of them).
    static let helloInterval: TimeInterval = 10

    /// Starts listening (once); does nothing when no interface of this machine is inside
    /// `allowedNetworks` (a server that reaches no camera network hears no camera).
    func followCameras() {
        let interfaces =
            ((try? WSDiscovery().probeInterfaces()) ?? []).filter { interface in
                IPv4Network.parse(interface.address).map { address in allowed.contains { $0.contains(address) } }
                    ?? false
            }
        guard !interfaces.isEmpty else { return }
        let (hellos, continuation) = AsyncStream<DiscoveredDevice>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let task = Task { [weak self] in
            let listener = Task {
                do {
                    try await WSDiscovery(interfaces: interfaces.map(\.name)).listen { announcement in
                        if case .hello(let device) = announcement { continuation.yield(device) }
                    }
                } catch {
                    followerLog.warning("not following cameras that change address: \(error)")
                }
                continuation.finish()
            }
            for await device in hellos {
                guard !Task.isCancelled else { break }
                await self?.cameraAnnounced(device)
            }
            listener.cancel()
        }
        tables.follower.withLock { state in
            state.task?.cancel()
            state.task = task
        }
    }

    /// Handles one Hello: each stored camera with its endpoint reference at another address is
    /// moved, or told why not.
    func cameraAnnounced(_ device: DiscoveredDevice) async {
        let endpoint = CameraRelocation.normalEndpoint(device.endpoint)
        let now = Date()
        // Per endpoint and address: Hellos forged from other addresses cannot hold back the real one.
        let key = endpoint + " " + device.address
        let due = tables.follower.withLock { state in
            if let last = state.handled[key], now.timeIntervalSince(last) < Self.helloInterval { return false }
            state.handled = state.handled.filter { now.timeIntervalSince($0.value) < Self.helloInterval }
            state.handled[key] = now
            return true
        }
        guard due, !endpoint.isEmpty, isAllowed(device.address) else { return }
        let rows =
            (try? await store.database.read(
                "SELECT * FROM cameras WHERE onvif_endpoint = ? LIMIT 16", [.text(endpoint)])) ?? []
        for row in rows {
            guard let camera = ServerCameraRepository.camera(row), let user = row["user_id"].string,
                camera.ipAddress != device.address, let moved = CameraRelocation.moved(camera, to: device.address)
            else { continue }
            let password = try? credentials.password(for: camera.id)
            let sameNetwork = Self.sameNetwork(camera.ipAddress, device.address)
            var serial: Result<String?, ONVIFError>?
            // Asked only at the address the Hello came from (checked against the policy above).
            if sameNetwork, camera.serialNumber != nil,
                let service = device.serviceURLs.first(where: { HTTPURL($0)?.host == device.address })
            {
                // A camera announces itself as it starts, before its web service takes connections
                // (ipycam's first answer was a closed connection, and the move was refused for
                // good): a connection that fails is tried again 0.5, 1, 2 and 4 s later. An answer
                // (another serial number, refused credentials) is final at once, and so is a
                // silence that has lasted 10 s.
                let deadline = Date().addingTimeInterval(10)
                for pause in [0.5, 1, 2, 4, nil] {
                    do {
                        let client = try ONVIFClient(
                            deviceURL: service, username: camera.username, password: password, timeout: .seconds(5))
                        serial = .success(try await client.deviceInformation().serialNumber)
                    } catch {
                        serial = .failure(error)
                        if case .transport = error, let pause, Date() < deadline {
                            try? await Task.sleep(for: .seconds(pause))
                            continue
                        }
                    }
                    break
                }
            }
            switch CameraRelocation.decide(
                camera, hasPassword: password != nil, newAddress: device.address, sameNetwork: sameNetwork,
                serialThere: serial)
            {
            case .follow:
                await relocate(moved, from: camera.ipAddress, user: user)
            case .stay(let why):
                Self.saveEvent(store: store, cameraID: camera.id, kind: "moveRefused", reason: why)
            }
        }
    }

    /// Both addresses in one /24 (a DHCP lease changes within the LAN it was given on).
    static func sameNetwork(_ a: String, _ b: String) -> Bool {
        guard let a = IPv4Network.parse(a), let b = IPv4Network.parse(b) else { return false }
        return a >> 8 == b >> 8
    }

    func relocate(_ camera: Camera, from old: String, user: String) async {
        let repository = ServerCameraRepository(database: store.database, userID: user)
        do {
            let profiles = try await repository.profiles(cameraID: camera.id)
            let moved = profiles.map { profile in
                var copy = profile
                copy.rtspURL =
                    CameraRelocation.moved(profile.rtspURL, from: old, to: camera.ipAddress) ?? profile.rtspURL
                return copy
            }
            try await repository.relocate(camera, profiles: moved)
            Self.saveEvent(
                store: store, cameraID: camera.id, kind: "moved",
                reason: "moved from \(old) to \(camera.ipAddress) (it announced itself)")
            restart(camera.id, profiles: profiles)
            try await restartRecording(camera)
        } catch {
            followerLog.warning("could not move camera \(camera.id) to \(camera.ipAddress): \(error)")
        }
    }
}
