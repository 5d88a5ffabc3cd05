import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// Where a server may connect on a user's behalf (cameras, discovery, scans): an address must lie
/// inside one of ``networks`` and outside the ranges that would reach the server itself or its
/// cloud — loopback, "this network", link-local (where cloud metadata services answer), multicast
/// and reserved — whatever the networks say. Loopback can be let through explicitly for
/// development and tests (``allowsLoopback``).
///
/// Names are resolved here and every address they resolve to must pass; the caller then connects
/// to the checked address itself (``StreamURL/withHost(_:)``), so a name that resolves elsewhere a
/// second later (DNS rebinding) cannot redirect the connection.
public struct EgressPolicy: Sendable {
    public var networks: [IPv4Network]
    public var allowsLoopback: Bool

    public init(networks: [IPv4Network], allowsLoopback: Bool = false) {
        self.networks = networks
        self.allowsLoopback = allowsLoopback
    }

    /// Ranges never reached, with the words a user is told.
    public static let refusedRanges: [(network: IPv4Network, reason: String)] = [
        ("0.0.0.0/8", "a \"this network\" address"), ("127.0.0.0/8", "a loopback address (this server itself)"),
        ("169.254.0.0/16", "a link-local address (where cloud metadata services answer)"),
        ("100.100.100.200/32", "a cloud metadata address"), ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved address"),
    ].compactMap { text, reason in IPv4Network(text).map { ($0, reason) } }

    /// Why `address` may not be reached, or nil when it may.
    public func refusal(for address: UInt32) -> String? {
        let dotted = AddressRange.text(address)
        if allowsLoopback, address >> 24 == 127 { return nil }
        if let refused = Self.refusedRanges.first(where: { $0.network.contains(address) }) {
            return "\(dotted) is \(refused.reason)"
        }
        guard networks.contains(where: { $0.contains(address) }) else {
            return "\(dotted) is outside the camera networks this server may reach (allowedNetworks)"
        }
        return nil
    }

    /// The checked IPv4 address to connect to for `host` (an address or a name).
    ///
    /// - Throws: ``MediaError`` `invalidArgument` naming the host when it does not resolve to an
    ///   IPv4 address or any address it resolves to is refused.
    public func address(for host: String) throws(MediaError) -> String {
        let operation = "check camera address"
        let addresses = IPv4Network.parse(host).map { [$0] } ?? Self.resolve(host)
        guard let first = addresses.first else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "\(host) is not an IPv4 address or a name that resolves to one")
        }
        for address in addresses {
            if let reason = refusal(for: address) {
                throw MediaError(
                    .notAllowed, operation: operation,
                    message: host == AddressRange.text(address) ? reason : "\(host) resolves to \(reason)")
            }
        }
        return AddressRange.text(first)
    }

    /// The IPv4 addresses of `name` (blocking: call off the server's event loops).
    static func resolve(_ name: String) -> [UInt32] {
        guard !name.isEmpty, name.utf8.count <= 253, !name.contains(":") else { return [] }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let list else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [UInt32] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET {
                let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
                if !addresses.contains(address) { addresses.append(address) }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// The IPv4 networks of this machine's interfaces that are up, loopback excluded: the default
    /// camera networks (cameras on the server's own LAN).
    public static func localNetworks() -> [IPv4Network] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let list else { return [] }
        defer { freeifaddrs(list) }
        var networks: [IPv4Network] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = list
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                let mask = entry.pointee.ifa_netmask
            else { continue }
            func value(_ pointer: UnsafeMutablePointer<sockaddr>) -> UInt32 {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
            }
            let prefix = value(mask).nonzeroBitCount
            if let network = IPv4Network("\(AddressRange.text(value(address)))/\(prefix)"), !networks.contains(network)
            {
                networks.append(network)
            }
        }
        return networks
    }
}
