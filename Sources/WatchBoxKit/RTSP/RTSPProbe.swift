import CameraCommon
import FoundationEssentials
import NIOCore
import NIOPosix
import Networking
import Synchronization

/// An RTSP response: status, headers (names lowercased, repeats kept) and body.
public struct RTSPResponse: Sendable {
    public var status: Int
    public var reason: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    public func headers(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name == wanted }.map(\.value)
    }

    /// Parses one response from the front of `bytes`; nil when more bytes are needed. Returns the
    /// number of bytes used.
    ///
    /// - Throws: ``MediaError`` `invalidData` when the bytes are not an RTSP response or it is
    ///   larger than `limit`.
    static func parse(_ bytes: [UInt8], limit: Int = 1 << 20) throws(MediaError) -> (RTSPResponse, Int)? {
        let operation = "read RTSP response"
        // End of headers: CRLFCRLF, or LFLF from sloppy servers.
        var headerEnd: Int?
        var bodyStart = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 10 {
                if index + 1 < bytes.count, bytes[index + 1] == 10 {
                    headerEnd = index
                    bodyStart = index + 2
                    break
                }
                if index + 2 < bytes.count, bytes[index + 1] == 13, bytes[index + 2] == 10 {
                    headerEnd = index
                    bodyStart = index + 3
                    break
                }
            }
            index += 1
        }
        guard let headerEnd else {
            if bytes.count > 65536 {
                throw MediaError(.invalidData, operation: operation, message: "headers longer than 64 KB")
            }
            return nil
        }
        let head = String(decoding: bytes[..<headerEnd], as: UTF8.self)
        var lines = head.split(whereSeparator: { $0.isNewline }).map(String.init)
        guard !lines.isEmpty else {
            throw MediaError(.invalidData, operation: operation, message: "empty response")
        }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("RTSP/"), let status = Int(statusLine[1]),
            (100...999).contains(status)
        else {
            throw MediaError(
                .invalidData, operation: operation,
                message: "not an RTSP response: \(String(lines.first?.prefix(40) ?? "").debugDescription)")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (
                    line[..<colon].trimmingWhitespace().lowercased(),
                    String(line[line.index(after: colon)...]).trimmingWhitespace()
                ))
        }
        var response = RTSPResponse(
            status: status, reason: statusLine.count > 2 ? String(statusLine[2]) : "", headers: headers, body: [])
        let length = Int(response.header("content-length") ?? "0") ?? -1
        guard length >= 0, length <= limit else {
            throw MediaError(.invalidData, operation: operation, message: "bad Content-Length \(length)")
        }
        guard bytes.count - bodyStart >= length else { return nil }
        response.body = Array(bytes[bodyStart..<(bodyStart + length)])
        return (response, bodyStart + length)
    }
}

/// What probing an RTSP URL found (the spec's RTSPConnectionTester).
public struct RTSPProbeResult: Sendable, Codable, Equatable {
    public enum Authentication: Sendable, Codable, Equatable {
        /// The stream is open to anyone.
        case none
        /// Credentials are needed and none were given; the schemes offered.
        case required([AuthenticationChallenge.Scheme])
        /// The credentials were accepted with this scheme.
        case accepted(AuthenticationChallenge.Scheme)
        /// The credentials were refused.
        case rejected(AuthenticationChallenge.Scheme)
    }

    /// The URL without credentials.
    public var url: String
    public var reachable: Bool
    public var authentication: Authentication?
    /// `Server` header, e.g. `GStreamer RTSP server`.
    public var server: String?
    /// Methods from OPTIONS' `Public` header.
    public var methods: [String]
    public var videoCodec: String?
    public var width: Int?
    public var height: Int?
    public var frameRate: Double?
    public var audioCodec: String?
    /// Round trip of the whole probe, milliseconds.
    public var milliseconds: Int
    /// Why it failed, when it did (never contains credentials).
    public var error: String?

    /// Whether the stream can be played with what was given.
    public var isPlayable: Bool {
        guard reachable, videoCodec != nil else { return false }
        switch authentication {
        case .none?, .accepted?: return true
        default: return false
        }
    }
}

/// Probes RTSP URLs with OPTIONS and DESCRIBE over SwiftNIO, answering Basic or Digest challenges.
///
/// Cameras lock a client out after a few failed logins, so after ``maximumFailures`` rejected
/// attempts on a host the prober refuses to try it again until a back-off (30 s, doubling to 10 min)
/// has passed.
public final class RTSPProber: Sendable {
    public let timeout: Duration
    public let userAgent: String
    public static let maximumFailures = 3
    private let failures = Mutex<[String: (count: Int, until: ContinuousClock.Instant)]>([:])

    public init(timeout: Duration = .seconds(5), userAgent: String = "WatchBox/1.0 (CameraCore)") {
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// Probes `url`. Credentials come from the arguments or from the URL's user info; they never
    /// appear in the result.
    public func probe(_ url: String, username: String? = nil, password: String? = nil) async -> RTSPProbeResult {
        let started = ContinuousClock.now
        guard let parts = StreamURL(url) else {
            return RTSPProbeResult(
                url: URLRedaction.redactingURLs(in: url), reachable: false, methods: [], milliseconds: 0,
                error: "not an rtsp:// URL with a host")
        }
        let user = username ?? parts.user
        let secret = password ?? parts.password
        let clean = parts.withoutCredentials
        var result = RTSPProbeResult(url: clean, reachable: false, methods: [], milliseconds: 0)
        let hostKey = "\(parts.host):\(parts.port)"
        if let lockout = lockedOut(hostKey) {
            result.error =
                "not trying \(hostKey) for \(lockout) s after \(Self.maximumFailures) refused logins (cameras lock out clients that keep failing)"
            return result
        }
        do {
            result = try await withConnection(host: parts.host, port: parts.port) { connection in
                try await self.exchange(connection, url: clean, user: user, password: secret, hostKey: hostKey)
            }
        } catch let error as MediaError {
            result.error = error.message
        } catch {
            result.error = URLRedaction.redactingURLs(in: "\(error)")
        }
        result.milliseconds = Int(((ContinuousClock.now - started).seconds * 1000).rounded())
        return result
    }

    /// OPTIONS, DESCRIBE, and DESCRIBE again with credentials when challenged.
    private func exchange(
        _ connection: Connection, url: String, user: String?, password: String?, hostKey: String
    ) async throws -> RTSPProbeResult {
        var result = RTSPProbeResult(url: url, reachable: false, methods: [], milliseconds: 0)
        let options = try await connection.send("OPTIONS", uri: url, headers: ["User-Agent": userAgent])
        result.reachable = true
        result.server = options.header("server")
        result.methods = (options.header("public") ?? "").split(separator: ",").map { $0.trimmingWhitespace() }
        let describeHeaders = ["User-Agent": userAgent, "Accept": "application/sdp"]
        var describe = try await connection.send("DESCRIBE", uri: url, headers: describeHeaders)
        if describe.status == 401 {
            let challenges = describe.headers("www-authenticate").compactMap(AuthenticationChallenge.init(header:))
            guard let user, let password, let challenge = AuthenticationChallenge.strongest(challenges) else {
                result.authentication = .required(challenges.map(\.scheme))
                return result
            }
            var authenticator = DigestAuthenticator(username: user, password: password)
            var headers = describeHeaders
            headers["Authorization"] = authenticator.authorization(for: challenge, method: "DESCRIBE", uri: url)
            describe = try await connection.send("DESCRIBE", uri: url, headers: headers)
            if describe.status == 401 {
                result.authentication = .rejected(challenge.scheme)
                recordFailure(hostKey)
                return result
            }
            result.authentication = .accepted(challenge.scheme)
            clearFailures(hostKey)
        } else {
            result.authentication = RTSPProbeResult.Authentication.none
        }
        guard describe.status == 200 else {
            result.error = "DESCRIBE answered \(describe.status) \(describe.reason)"
            return result
        }
        let sdp = SessionDescription(parsing: String(decoding: describe.body, as: UTF8.self))
        if let video = sdp.video {
            result.videoCodec = video.codec
            result.frameRate = video.frameRate
            if let size = video.resolution {
                result.width = size.width
                result.height = size.height
            }
        }
        result.audioCodec = sdp.audio?.codec
        return result
    }

    private func lockedOut(_ host: String) -> Int? {
        failures.withLock { table in
            guard let entry = table[host], entry.count >= Self.maximumFailures else { return nil }
            let left = entry.until - ContinuousClock.now
            return left > .zero ? Int(left.components.seconds) + 1 : nil
        }
    }

    private func recordFailure(_ host: String) {
        failures.withLock { table in
            let count = (table[host]?.count ?? 0) + 1
            let backoff = count >= Self.maximumFailures ? min(600, 30 << min(5, count - Self.maximumFailures)) : 0
            table[host] = (count, ContinuousClock.now + .seconds(backoff))
        }
    }

    private func clearFailures(_ host: String) {
        _ = failures.withLock { $0.removeValue(forKey: host) }
    }

    /// One TCP connection carrying requests and responses in order.
    final class Connection {
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var pending: [UInt8] = []
        var sequence = 0

        init(
            outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
            inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        ) {
            self.outbound = outbound
            self.inbound = inbound
        }

        func send(_ method: String, uri: String, headers: [String: String]) async throws -> RTSPResponse {
            sequence += 1
            var request = "\(method) \(uri) RTSP/1.0\r\nCSeq: \(sequence)\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
            request += "\r\n"
            try await outbound.write(ByteBuffer(string: request))
            while true {
                if let (response, used) = try RTSPResponse.parse(pending) {
                    pending.removeFirst(used)
                    return response
                }
                guard var chunk = try await inbound.next() else {
                    throw MediaError(
                        .network, operation: "\(method) \(uri)", message: "the server closed the connection")
                }
                pending += chunk.readBytes(length: chunk.readableBytes) ?? []
            }
        }
    }

    private func withConnection<T: Sendable>(
        host: String, port: Int, _ body: @escaping @Sendable (Connection) async throws -> T
    ) async throws -> T {
        let timeout = self.timeout
        // One deadline for connecting and talking: a host that accepts and then says nothing, or a
        // connect stuck behind a busy machine, both end at `timeout`.
        return try await withDeadline(timeout, operation: "probe \(host):\(port)") {
            let channel = try await Self.connect(host: host, port: port, timeout: timeout)
            return try await channel.executeThenClose { inbound, outbound in
                try await body(Connection(outbound: outbound, inbound: inbound.makeAsyncIterator()))
            }
        }
    }

    /// A TCP connection to `host:port` carrying bytes.
    static func connect(host: String, port: Int, timeout: Duration) async throws -> NIOAsyncChannel<
        ByteBuffer, ByteBuffer
    > {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.init(timeout))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
