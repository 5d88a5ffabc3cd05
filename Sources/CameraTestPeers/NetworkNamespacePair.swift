import CameraTesting
import Foundation

/// Two network namespaces joined by a veth pair, for tests that need multicast or a subnet to scan
/// without touching any real network: `client` (10.77.0.1/24) and `device` (10.77.0.2/24), each
/// with only loopback and its end of the pair, multicast on, and 239.255.255.250 routed through it.
///
/// Needs root (CI runs as root) and iproute2. Everything is removed by ``close()`` or deinit.
public final class NetworkNamespacePair: @unchecked Sendable {
    // @unchecked: immutable after init except `closed`, which only close() touches.
    public static let ip = FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip"
    public static let clientAddress = "10.77.0.1"
    public static let deviceAddress = "10.77.0.2"
    public static let subnet = "10.77.0.0/24"

    public let client: String
    public let device: String
    public let clientInterface: String
    public let deviceInterface: String
    private var closed = false

    /// Whether this machine lets tests make namespaces (root and iproute2).
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
    }

    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    public init() throws {
        let n = Self.lock.withLock {
            Self.counter += 1
            return Self.counter
        }
        let tag = "\(getpid() % 100_000)x\(n)"
        client = "wbc\(tag)"
        device = "wbd\(tag)"
        clientInterface = "wc\(tag)"
        deviceInterface = "wd\(tag)"
        do {
            try Self.ip(["netns", "add", client])
            try Self.ip(["netns", "add", device])
            try Self.ip(["link", "add", clientInterface, "type", "veth", "peer", "name", deviceInterface])
            for (namespace, interface, address) in [
                (client, clientInterface, Self.clientAddress), (device, deviceInterface, Self.deviceAddress),
            ] {
                try Self.move(interface, into: namespace, address: address)
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Deletes both namespaces (the veth pair goes with them). Kill processes inside first.
    public func close() {
        guard !closed else { return }
        closed = true
        _ = try? Self.ip(["netns", "del", client], check: false)
        _ = try? Self.ip(["netns", "del", device], check: false)
    }

    /// `ip netns exec <namespace>` + `command`, for Process.
    public func exec(in namespace: String, _ command: [String]) -> (executable: String, arguments: [String]) {
        (Self.ip, ["netns", "exec", namespace] + command)
    }

    /// Moves one end of a veth pair into `namespace` with `address`/24, loopback and the end up,
    /// multicast on and WS-Discovery's group routed through it.
    static func move(_ interface: String, into namespace: String, address: String) throws {
        try ip(["link", "set", interface, "netns", namespace])
        try ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", interface])
        try ip(["-n", namespace, "link", "set", "lo", "up"])
        try ip(["-n", namespace, "link", "set", interface, "multicast", "on", "up"])
        try ip(["-n", namespace, "route", "add", "239.255.255.250/32", "dev", interface])
    }

    @discardableResult
    static func ip(_ arguments: [String], check: Bool = true) throws -> Subprocess.Output {
        let output = try Subprocess.run(ip, arguments, check: false)
        if check && output.status != 0 {
            throw TestPeerError("ip \(arguments.joined(separator: " ")) failed: \(output.stderr)")
        }
        return output
    }
}

/// One network namespace joined to this machine's own namespace by a veth pair: `device`
/// (10.78.n.2/24) for camera peers, and `hostInterface` (10.78.n.1/24) here, with multicast on
/// and 239.255.255.250 routed through it. An in-process server can then discover and play cameras
/// on a subnet of its own, and no packet leaves this machine.
///
/// Needs root and iproute2. ``close()`` (or deinit) deletes the namespace; the pair and the route
/// go with it.
public final class NetworkNamespaceLink: @unchecked Sendable {
    // @unchecked: immutable after init except `closed`, which only close() touches.
    public let device: String
    public let hostInterface: String
    public let hostAddress: String
    public let deviceAddress: String
    public let subnet: String
    /// The device's end of the pair, inside `device`.
    public let deviceInterface: String
    private var closed = false

    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    public init() throws {
        let n = Self.lock.withLock {
            Self.counter += 1
            return Self.counter
        }
        let tag = "\(getpid() % 100_000)l\(n)"
        let octet = (Int(getpid()) + n) % 200 + 20
        device = "wbl\(tag)"
        hostInterface = "wh\(tag)"
        hostAddress = "10.78.\(octet).1"
        deviceAddress = "10.78.\(octet).2"
        subnet = "10.78.\(octet).0/24"
        deviceInterface = "wl\(tag)"
        do {
            try NetworkNamespacePair.ip(["netns", "add", device])
            try NetworkNamespacePair.ip(["link", "add", hostInterface, "type", "veth", "peer", "name", deviceInterface])
            try NetworkNamespacePair.move(deviceInterface, into: device, address: deviceAddress)
            try NetworkNamespacePair.ip(["addr", "add", "\(hostAddress)/24", "dev", hostInterface])
            try NetworkNamespacePair.ip(["link", "set", hostInterface, "multicast", "on", "up"])
            try NetworkNamespacePair.ip(["route", "add", "239.255.255.250/32", "dev", hostInterface])
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Gives the device another address in its subnet (`10.78.n.<host>`), as a DHCP server would
    /// after a lease ran out; with `replacing`, that address is taken away.
    @discardableResult
    public func renumberDevice(to host: Int, replacing old: String? = nil) throws -> String {
        let address = subnet.replacingOccurrences(of: ".0/24", with: ".\(host)")
        if let old {
            try NetworkNamespacePair.ip(["-n", device, "addr", "del", "\(old)/24", "dev", deviceInterface])
        }
        try NetworkNamespacePair.ip(["-n", device, "addr", "add", "\(address)/24", "dev", deviceInterface])
        // An interface that lost its last address lost its routes with it: the multicast one again.
        try NetworkNamespacePair.ip(["-n", device, "route", "replace", "239.255.255.250/32", "dev", deviceInterface])
        return address
    }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = try? NetworkNamespacePair.ip(["netns", "del", device], check: false)
        _ = try? NetworkNamespacePair.ip(["link", "del", hostInterface], check: false)
    }
}
