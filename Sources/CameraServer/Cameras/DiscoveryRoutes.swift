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

/// Finding cameras: ONVIF discovery and RTSP port scans, only on interfaces and ranges inside the
/// configured `allowedNetworks`.
extension CameraService {
    struct DiscoveryRequest: Decodable {
        var timeout: Double?
        /// The cameras' ONVIF login: with it, each camera's profiles and stream URLs are read too.
        var username: String?
        var password: String?
    }

    func isAllowed(_ address: String) -> Bool {
        IPv4Network.parse(address).map { policy.refusal(for: $0) == nil } ?? false
    }
    struct ScanRequest: Decodable {
        var range: String
        var ports: [Int]?
    }

    func discoveryRoutes() -> [Route] {
        [
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
                let devices = try await discovery.discover().filter { device in self.isAllowed(device.address) }
                var described = devices.map(ONVIFDeviceDescription.init(device:))
                if let username = body.username, !username.isEmpty {
                    // With the cameras' login: identity, profiles and stream URLs, as `watchbox
                    // discover --user` reads them; only from a device service inside allowedNetworks.
                    for index in described.indices {
                        guard let service = described[index].device.serviceURL.flatMap(HTTPURL.init),
                            self.isAllowed(service.host)
                        else {
                            described[index].error = "the camera's device service is outside allowedNetworks"
                            continue
                        }
                        described[index] = await ONVIFDeviceDescription.read(
                            described[index].device, username: username, password: body.password ?? "")
                    }
                }
                return try json(described)
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
                // The server's own loopback, link-local and "this network" addresses are never scanned,
                // whatever allowedNetworks says: they would map the server's own services.
                guard
                    !EgressPolicy.refusedRanges.contains(where: { $0.network.overlaps(first: range.first, last: last) })
                else {
                    throw APIError(
                        .forbidden, "range: loopback, link-local, multicast and reserved addresses are never scanned")
                }
                let ports = body.ports ?? PortScanner.defaultPorts
                guard !ports.isEmpty, ports.count <= 16, ports.allSatisfy({ (1...65535).contains($0) }) else {
                    throw APIError(.badRequest, "ports: 1 to 16 port numbers")
                }
                try self.scanLimiter.check(
                    try context.user(), refusal: "at most \(self.scanLimiter.perMinute) scans a minute")
                // Only services that answered RTSP: other open ports are none of a camera app's business.
                let findings = await PortScanner(ports: ports).scan(range).filter(\.isRTSP)
                return try json(findings)
            },
        ]
    }
}
