import CameraCommon
import FoundationEssentials
import NIOCore
import NIOPosix
import Networking
import Synchronization

/// A camera that answered a WS-Discovery probe.
public struct DiscoveredDevice: Sendable, Codable, Equatable {
    /// The device's endpoint reference (`urn:uuid:…`), stable across reboots and address changes.
    public var endpoint: String
    /// The address the answer came from.
    public var address: String
    /// Device service URLs, with `0.0.0.0` (or no host) replaced by ``address``; the first is the
    /// one to use (on the sender's address when the device lists several).
    public var serviceURLs: [String]
    /// e.g. `dn:NetworkVideoTransmitter tds:Device`.
    public var types: [String]
    public var scopes: [String]
    /// From `onvif://www.onvif.org/name/…`, percent-decoded.
    public var name: String?
    /// From `onvif://www.onvif.org/hardware/…`.
    public var hardware: String?
    /// From `onvif://www.onvif.org/location/…`.
    public var location: String?
    /// The interface the probe went out on.
    public var interface: String
    /// Milliseconds from the first probe to this device's first answer.
    public var milliseconds: Int

    public var serviceURL: String? { serviceURLs.first }
}

/// ONVIF device discovery with WS-Discovery (SOAP over UDP, multicast 239.255.255.250:3702).
///
/// A probe goes out on every IPv4 interface that supports multicast (or the ones named), repeated
/// as SOAP-over-UDP asks since UDP drops packets, with one message id; answers that relate to it
/// are collected until the timeout, merged by endpoint.
public struct WSDiscovery: Sendable {
    public static let multicastAddress = "239.255.255.250"
    public static let port = 3702

    public var timeout: Duration
    /// Interface names to probe on (`eth0`); empty means every multicast-capable IPv4 interface.
    public var interfaces: [String]
    /// How many times the probe is sent (at 0, 250 ms, 750 ms, …).
    public var repeats: Int
    /// Sent to a different port in tests; 3702 otherwise.
    public var destinationPort: Int

    public init(
        timeout: Duration = .seconds(3), interfaces: [String] = [], repeats: Int = 3, destinationPort: Int = 3702
    ) {
        self.timeout = timeout
        self.interfaces = interfaces
        self.repeats = max(1, repeats)
        self.destinationPort = destinationPort
    }

    /// The Probe for ONVIF network video transmitters.
    public static func probeMessage(id: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" \
        xmlns:w="http://schemas.xmlsoap.org/ws/2004/08/addressing" \
        xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" \
        xmlns:dn="http://www.onvif.org/ver10/network/wsdl">\
        <e:Header><w:MessageID>\(id)</w:MessageID>\
        <w:To e:mustUnderstand="true">urn:schemas-xmlsoap-org:ws:2005:04:discovery</w:To>\
        <w:Action e:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</w:Action>\
        </e:Header><e:Body><d:Probe><d:Types>dn:NetworkVideoTransmitter</d:Types></d:Probe></e:Body></e:Envelope>
        """
    }

    /// Reads a ProbeMatches answer (or a Hello announcement). Answers to other probes (RelatesTo not
    /// `probeID`) and anything else give an empty list; malformed XML throws.
    ///
    /// Tolerant of what real devices send:
    /// - a `ProbeMatch` straight in the Body without the `ProbeMatches` wrapper (ipycam 1.3, and
    ///   several low-cost Hikvision/Dahua OEM firmwares);
    /// - `RelatesTo` with our id in other case, or without / with an extra `urn:` prefix (some
    ///   Axis and Uniview firmwares rewrite it);
    /// - any namespace prefix, and XAddrs lists with several URLs (IPv6 ones are skipped).
    public static func parseProbeMatches(
        _ bytes: [UInt8], sender: String, probeID: String?, interface: String = "", milliseconds: Int = 0
    ) throws(MediaError) -> [DiscoveredDevice] {
        let envelope = try XMLNode.parse(bytes, limit: 64 << 10)
        if let probeID, let relatesTo = envelope.value(of: "RelatesTo"), !sameMessageID(relatesTo, probeID) {
            return []
        }
        return (envelope.all("ProbeMatch") + envelope.all("Hello")).compactMap { match in
            let words = { (name: String) in
                (match.value(of: name) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            }
            let endpoint = match.first("EndpointReference")?.value(of: "Address")
            var urls = words("XAddrs").compactMap { substitute(host: sender, in: $0) }
            // Prefer the URL on the address that answered: multi-homed cameras list every interface.
            if let index = urls.firstIndex(where: { HTTPURL($0)?.host == sender }), index > 0 {
                urls.insert(urls.remove(at: index), at: 0)
            }
            guard let key = endpoint ?? urls.first else { return nil }
            let scopes = joinedScopes(words("Scopes"))
            return DiscoveredDevice(
                endpoint: key, address: sender, serviceURLs: urls, types: words("Types"), scopes: scopes,
                name: scope("name", in: scopes), hardware: scope("hardware", in: scopes),
                location: scope("location", in: scopes), interface: interface, milliseconds: milliseconds)
        }
    }

    /// Scopes are URIs separated by spaces, so a space inside one should be `%20`; ipycam 1.3 and
    /// some Reolink firmwares write the camera's name raw ("name/Front Door"). A word that is not
    /// a URI continues the scope before it.
    static func joinedScopes(_ words: [String]) -> [String] {
        var scopes: [String] = []
        for word in words {
            if !word.contains(":"), let last = scopes.popLast() {
                scopes.append(last + " " + word)
            } else {
                scopes.append(word)
            }
        }
        return scopes
    }

    /// Message ids compared as devices echo them: case and a `urn:` prefix do not matter.
    static func sameMessageID(_ a: String, _ b: String) -> Bool {
        func normal(_ id: String) -> String {
            let lowered = id.trimmingWhitespace().lowercased()
            return lowered.hasPrefix("urn:") ? String(lowered.dropFirst(4)) : lowered
        }
        return normal(a) == normal(b)
    }

    /// `http://0.0.0.0/onvif/device_service` answered from 10.0.0.5 → `http://10.0.0.5/…`. Nil for
    /// text that is not an http(s) URL.
    static func substitute(host sender: String, in url: String) -> String? {
        guard var parsed = HTTPURL(url) else { return nil }
        if parsed.host.isEmpty || parsed.host == "0.0.0.0" { parsed.host = sender }
        return parsed.description
    }

    /// The value of `onvif://www.onvif.org/<kind>/<value>` scopes, percent-decoded; several joined by spaces.
    static func scope(_ kind: String, in scopes: [String]) -> String? {
        let prefix = "onvif://www.onvif.org/\(kind)/"
        let values = scopes.filter { $0.lowercased().hasPrefix(prefix) }.map {
            URLParts.percentDecoded(String($0.dropFirst(prefix.count)))
        }
        return values.isEmpty ? nil : values.joined(separator: " ")
    }

    /// The IPv4 interfaces a probe goes out on: name and address.
    public func probeInterfaces() throws -> [(name: String, address: String)] {
        try probeDevices().compactMap { device in device.address?.ipAddress.map { (device.name, $0) } }
    }

    /// The IPv4 devices of ``interfaces`` (every multicast-capable one when empty), one per name.
    func probeDevices() throws -> [NIONetworkDevice] {
        var seen = Set<String>()
        return try System.enumerateDevices().filter { device in
            guard case .v4 = device.address, device.address?.ipAddress != nil else { return false }
            guard interfaces.isEmpty ? device.multicastSupported : interfaces.contains(device.name) else {
                return false
            }
            return seen.insert(device.name).inserted
        }
    }

    /// Why there is nothing to probe or listen on, naming the interfaces asked for.
    func noInterface(_ operation: String) -> MediaError {
        MediaError(
            .invalidArgument, operation: operation,
            message: interfaces.isEmpty
                ? "no IPv4 interface that supports multicast is up"
                : "no IPv4 interface named \(interfaces.joined(separator: ", "))")
    }

    /// Probes and collects answers until the timeout; `found` is called once per new device as it
    /// answers. Devices come back in the order they answered.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when no interface can send multicast (or a named
    ///   one does not exist).
    public func discover(found: @escaping @Sendable (DiscoveredDevice) -> Void = { _ in }) async throws
        -> [DiscoveredDevice]
    {
        let targets = try probeInterfaces()
        guard !targets.isEmpty else { throw noInterface("discover ONVIF cameras") }
        let probeID = "uuid:\(UUID().uuidString.lowercased())"
        let message = Self.probeMessage(id: probeID)
        let started = ContinuousClock.now
        let results = Found()
        let timeout = self.timeout
        let repeats = self.repeats
        let destination = try SocketAddress(ipAddress: Self.multicastAddress, port: destinationPort)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for target in targets {
                group.addTask {
                    try await Self.probe(
                        on: target, message: message, probeID: probeID, destination: destination, repeats: repeats,
                        timeout: timeout, started: started
                    ) { device in
                        let isNew = results.devices.withLock { list in
                            if let index = list.firstIndex(where: { $0.endpoint == device.endpoint }) {
                                for url in device.serviceURLs where !list[index].serviceURLs.contains(url) {
                                    list[index].serviceURLs.append(url)
                                }
                                return false
                            }
                            list.append(device)
                            return true
                        }
                        if isNew { found(device) }
                    }
                }
            }
            try await group.waitForAll()
        }
        return results.devices.withLock { $0 }
    }

    /// Devices found so far, shared by the per-interface tasks.
    private final class Found: Sendable {
        let devices = Mutex<[DiscoveredDevice]>([])
    }

    private static func probe(
        on target: (name: String, address: String), message: String, probeID: String, destination: SocketAddress,
        repeats: Int, timeout: Duration, started: ContinuousClock.Instant,
        answer: @escaping @Sendable (DiscoveredDevice) -> Void
    ) async throws {
        // IP_MULTICAST_IF takes the interface's address as an in_addr: four bytes in network order,
        // which Linux reads from the front of the (8-byte) option value.
        let octets = target.address.split(separator: ".").compactMap { UInt8($0) }
        guard octets.count == 4 else { return }
        let sendOn = Int(octets.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.ipOption(.ip_multicast_if), value: sendOn)
                .channelOption(.ipOption(.ip_multicast_ttl), value: 1)
                .bind(host: target.address, port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            // An interface that went away or refuses multicast: the others may still answer.
            return
        }
        let payload = ByteBuffer(string: message)
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var delay = Duration.milliseconds(250)
                    for attempt in 0..<repeats {
                        if attempt > 0 {
                            try await Task.sleep(for: delay)
                            delay *= 2
                        }
                        try? await outbound.write(AddressedEnvelope(remoteAddress: destination, data: payload))
                    }
                    // Listening ends at the deadline: this task finishing ends the group.
                    try await Task.sleep(until: started + timeout)
                }
                group.addTask {
                    for try await envelope in inbound {
                        guard let sender = envelope.remoteAddress.ipAddress else { continue }
                        let elapsed = Int(((ContinuousClock.now - started).seconds * 1000).rounded())
                        let devices =
                            (try? parseProbeMatches(
                                Array(envelope.data.readableBytesView), sender: sender, probeID: probeID,
                                interface: target.name, milliseconds: elapsed)) ?? []
                        devices.forEach(answer)
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }
}
