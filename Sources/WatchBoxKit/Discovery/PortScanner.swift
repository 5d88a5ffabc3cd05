import CameraCommon
import NIOCore
import NIOPosix
import Networking

#if canImport(Glibc)
    import Glibc
#endif

/// An open port the scan found.
public struct ScanFinding: Sendable, Codable, Equatable {
    public var host: String
    public var port: Int
    /// Whether the port answered an RTSP OPTIONS request.
    public var isRTSP: Bool
    /// The RTSP `Server` header, when it answered.
    public var server: String?
    public init(host: String, port: Int, isRTSP: Bool, server: String? = nil) {
        self.host = host
        self.port = port
        self.isRTSP = isRTSP
        self.server = server
    }

    /// `rtsp://host:port/` for RTSP ports.
    public var url: String? { isRTSP ? "rtsp://\(host):\(port)/" : nil }
}

/// How far a scan has got.
public struct ScanProgress: Sendable {
    public var checked: Int
    public var total: Int
    public var open: Int
}

/// Finds RTSP services on a range of addresses: TCP connects with bounded concurrency and a
/// per-connection timeout, then an RTSP OPTIONS on each open port to tell cameras from other
/// services (port 5000 is often something else).
public struct PortScanner: Sendable {
    /// RTSP (554), alternative RTSP (8554), and ports common camera brands use (88, 7447, 5000).
    public static let defaultPorts = [554, 8554, 88, 7447, 5000]

    public var ports: [Int]
    public var concurrency: Int
    public var timeout: Duration
    public var userAgent: String

    public init(
        ports: [Int] = PortScanner.defaultPorts, concurrency: Int = 64, timeout: Duration = .seconds(1),
        userAgent: String = "WatchBox/1.0 (CameraCore)"
    ) {
        self.ports = ports
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// Scans every address × port. `progress` is called after each connection attempt (from
    /// the calling task). Findings come back sorted by address, then port.
    ///
    /// Most of a subnet is usually empty, and an empty address costs a full timeout per port. So
    /// the first port goes to every host first; a host that stayed silent *and* whose link-layer
    /// address the kernel could not resolve (an incomplete entry in `/proc/net/arp`: nobody is
    /// there) is not tried on the other ports. Hosts that answered, refused, or are routed (no
    /// ARP entry) get every port. This is what makes a /24 take seconds rather than ports × seconds.
    public func scan(_ range: AddressRange, progress: (ScanProgress) -> Void = { _ in }) async -> [ScanFinding] {
        let hosts = range.addresses
        let total = hosts.count * ports.count
        var findings: [ScanFinding] = []
        var checked = 0
        func report(_ answer: PortAnswer, skipping: Int = 0) {
            checked += 1 + skipping
            if case .open(let finding) = answer { findings.append(finding) }
            progress(ScanProgress(checked: checked, total: total, open: findings.count))
        }
        guard let firstPort = ports.first else { return [] }
        // Read the neighbour table as each silent answer comes in: the kernel forgets failed
        // entries a few seconds later.
        var absent = Set<String>()
        await forEachConcurrently(hosts.map { ($0, firstPort) }) { host, _, answer in
            if case .silent = answer, Self.unresolvedNeighbours().contains(host) { absent.insert(host) }
            report(answer)
        }
        if !absent.isEmpty {
            checked += absent.count * (ports.count - 1)
            progress(ScanProgress(checked: checked, total: total, open: findings.count))
        }
        let rest = hosts.filter { !absent.contains($0) }.flatMap { host in ports.dropFirst().map { (host, $0) } }
        await forEachConcurrently(rest) { _, _, answer in report(answer) }
        return findings.sorted {
            (AddressRange.address(Substring($0.host)) ?? 0, $0.port)
                < (AddressRange.address(Substring($1.host)) ?? 0, $1.port)
        }
    }

    /// Runs ``answer(host:port:)`` on every target, at most ``concurrency`` at once, handing each
    /// result to `handle` on the calling task.
    private func forEachConcurrently(
        _ targets: [(String, Int)], _ handle: (String, Int, PortAnswer) -> Void
    ) async {
        await withTaskGroup(of: (String, Int, PortAnswer).self) { group in
            var next = 0
            func startNext() {
                guard next < targets.count, !Task.isCancelled else { return }
                let (host, port) = targets[next]
                next += 1
                group.addTask { (host, port, await self.answer(host: host, port: port)) }
            }
            for _ in 0..<min(concurrency, targets.count) { startNext() }
            while let (host, port, answer) = await group.next() {
                handle(host, port, answer)
                startNext()
            }
        }
    }

    /// Addresses the kernel tried and failed to resolve to a link-layer address: nobody is there.
    static func unresolvedNeighbours() -> Set<String> {
        guard let table = readSmallFile("/proc/net/arp") else { return [] }
        var result = Set<String>()
        for line in table.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(whereSeparator: \.isWhitespace)
            // IP address, HW type, Flags (0x0: incomplete), HW address, Mask, Device.
            if fields.count >= 4, fields[2] == "0x0" { result.insert(String(fields[0])) }
        }
        return result
    }

    /// Reads a /proc file (whose size reads as 0) to its end.
    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while bytes.count < 1 << 22 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isRefusal(_ error: any Error) -> Bool {
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
        }
        return (error as? IOError)?.errnoCode == ECONNREFUSED
    }

    /// What a port said: something answered (RTSP or not), the host refused, or nothing came back.
    enum PortAnswer: Sendable {
        case open(ScanFinding)
        case refused
        case silent
    }

    /// Nil when the port is closed or filtered; otherwise what answered.
    public func check(host: String, port: Int) async -> ScanFinding? {
        if case .open(let finding) = await answer(host: host, port: port) { return finding }
        return nil
    }

    func answer(host: String, port: Int) async -> PortAnswer {
        let timeout = self.timeout
        let userAgent = self.userAgent
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await withDeadline(timeout, operation: "connect \(host):\(port)") {
                try await RTSPProber.connect(host: host, port: port, timeout: timeout)
            }
        } catch {
            // Refused means a host is there; a timeout, or "unreachable" once the kernel's ARP
            // attempts fail, means nobody answered.
            return Self.isRefusal(error) ? .refused : .silent
        }
        var finding = ScanFinding(host: host, port: port, isRTSP: false)
        let answer = try? await withDeadline(timeout, operation: "OPTIONS \(host):\(port)") {
            try await channel.executeThenClose { inbound, outbound in
                let connection = RTSPProber.Connection(outbound: outbound, inbound: inbound.makeAsyncIterator())
                let response = try await connection.send(
                    "OPTIONS", uri: "rtsp://\(host):\(port)/", headers: ["User-Agent": userAgent])
                return response.header("server") ?? ""
            }
        }
        if let answer {
            finding.isRTSP = true
            finding.server = answer.isEmpty ? nil : answer
        } else {
            try? await channel.channel.close()
        }
        return .open(finding)
    }
}
