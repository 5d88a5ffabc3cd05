import CameraCommon
import FoundationEssentials
import NIOCore
import NIOPosix
import Networking

/// A camera saying it joined the network (Hello: at power-on, or after its address changed) or is
/// leaving it (Bye).
public enum Announcement: Sendable, Equatable {
    case hello(DiscoveredDevice)
    /// The endpoint reference of the device that left, and the address the message came from.
    case bye(endpoint: String, address: String)
}

extension WSDiscovery {
    /// Reads a Hello or Bye; nil for any other message (probes, probe matches, resolves).
    public static func parseAnnouncement(_ bytes: [UInt8], sender: String, interface: String = "")
        throws(MediaError) -> Announcement?
    {
        let envelope = try XMLNode.parse(bytes, limit: 64 << 10)
        if envelope.first("Hello") != nil {
            return try parseProbeMatches(bytes, sender: sender, probeID: nil, interface: interface).first.map {
                .hello($0)
            }
        }
        if let bye = envelope.first("Bye") {
            guard let endpoint = bye.first("EndpointReference")?.value(of: "Address") else { return nil }
            return .bye(endpoint: endpoint, address: sender)
        }
        return nil
    }

    /// Listens for Hello and Bye announcements on the WS-Discovery group (on ``interfaces``, or every
    /// multicast-capable IPv4 interface) until the task is cancelled, so a camera that comes online or
    /// changes its address is seen without probing. Malformed messages are ignored.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when there is no interface to listen on, `network`
    ///   when the port cannot be opened.
    public func listen(_ announced: @escaping @Sendable (Announcement) -> Void) async throws {
        let devices = try probeDevices()
        guard !devices.isEmpty else { throw noInterface("listen for ONVIF cameras") }
        let group = try SocketAddress(ipAddress: Self.multicastAddress, port: destinationPort)
        let channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "0.0.0.0", port: destinationPort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
            // Joining needs a bound socket: after bind, on each interface.
            guard let multicast = channel.channel as? any MulticastChannel else {
                throw ChannelError.operationUnsupported
            }
            for device in devices { try await multicast.joinGroup(group, device: device).get() }
        } catch {
            throw MediaError(
                .network, operation: "listen for ONVIF cameras",
                message: "cannot open UDP port \(destinationPort) for the WS-Discovery group: \(error)")
        }
        let interfaceNames = Dictionary(
            devices.map { ($0.address?.ipAddress ?? "", $0.name) }, uniquingKeysWith: { a, _ in a })
        try await channel.executeThenClose { inbound, _ in
            for try await envelope in inbound {
                guard let sender = envelope.remoteAddress.ipAddress else { continue }
                let bytes = Array(envelope.data.readableBytesView)
                if let announcement = try? Self.parseAnnouncement(
                    bytes, sender: sender, interface: interfaceNames[sender] ?? "")
                {
                    announced(announcement)
                }
            }
        }
    }
}
