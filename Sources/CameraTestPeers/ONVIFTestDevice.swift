import Foundation

/// An ONVIF camera for tests (onvif_device.py): device and media SOAP services over HTTP and,
/// inside a network namespace, a WS-Discovery responder on 239.255.255.250:3702.
public final class ONVIFTestDevice: @unchecked Sendable {
    // @unchecked: `process` and `port` change only in start/stop, called from one task.
    public enum Auth: String, Sendable { case none, wsse, digest }
    /// Ways real devices differ from the specification; onvif_device.py names who behaves so.
    public enum Quirk: String, Sendable, CaseIterable {
        /// GetSystemDateAndTime wants a login too (ipycam 1.3 with a password set).
        case authForTime = "auth-for-time"
        /// HTTP Digest challenges without `qop` (RFC 2069).
        case rfc2069Digest = "rfc2069-digest"
        /// XAddrs lists an IPv6 service address before the IPv4 one.
        case ipv6XAddrs = "ipv6-xaddrs"
        /// RelatesTo with the probe's MessageID in other case and without `urn:`.
        case relatesToRewritten = "relates-to-rewritten"
        /// ProbeMatches in SOAP 1.1's envelope namespace.
        case soap11
        /// ProbeMatch straight in the Body, without ProbeMatches (ipycam 1.3).
        case noWrapper = "no-wrapper"
        /// The first GetStreamUri is not answered: the connection is closed (a busy camera).
        case dropsFirstStreamURI = "drops-first-stream-uri"
        /// The sub profile is listed, but its GetStreamUri is refused with a fault (stream turned off).
        case subStreamOff = "sub-stream-off"
    }

    public let auth: Auth
    public let user: String
    public let password: String
    public let name: String
    public let hardware: String
    public let endpoint: String
    /// Device clock minus real time, seconds.
    public let clockSkew: Double
    public let address: String
    public let namespace: String?
    /// Host written in XAddrs and service addresses (`0.0.0.0` makes clients substitute).
    public let advertisedHost: String?
    /// What GetStreamUri answers; `{profile}` becomes the profile token.
    public let streamURI: String
    public let discovery: Bool
    public let quirks: [Quirk]
    public let port: Int
    private var process: Process?
    public private(set) var boundPort = 0

    public init(
        auth: Auth = .wsse, user: String = "admin", password: String = "secret", name: String = "Test Camera",
        hardware: String = "TC-100", endpoint: String = "urn:uuid:\(UUID().uuidString.lowercased())",
        clockSkew: Double = 0, address: String = "127.0.0.1", port: Int = 0, namespace: String? = nil,
        advertisedHost: String? = nil, streamURI: String = "rtsp://0.0.0.0:554/{profile}", discovery: Bool = false,
        quirks: [Quirk] = []
    ) {
        self.auth = auth
        self.user = user
        self.password = password
        self.name = name
        self.hardware = hardware
        self.endpoint = endpoint
        self.clockSkew = clockSkew
        self.address = address
        self.port = port
        self.namespace = namespace
        self.advertisedHost = advertisedHost
        self.streamURI = streamURI
        self.discovery = discovery
        self.quirks = quirks
    }

    deinit { stop() }

    /// `http://address:port/onvif/device_service`.
    public var deviceURL: String { "http://\(address):\(boundPort)/onvif/device_service" }

    public func start() throws {
        guard process == nil else { return }
        var arguments = [
            "--address", address, "--port", String(port), "--auth", auth.rawValue, "--user", user, "--password",
            password, "--name", name, "--hardware", hardware, "--endpoint", endpoint, "--clock-skew",
            String(clockSkew), "--rtsp-uri", streamURI,
        ]
        if let advertisedHost { arguments += ["--xaddr-host", advertisedHost] }
        if namespace != nil { arguments.append("--inside-namespace") }
        if discovery { arguments += ["--discovery", address] }
        for quirk in quirks { arguments += ["--quirk", quirk.rawValue] }
        let (process, bound) = try TestPeer.launch(
            script: "onvif_device", arguments: arguments, namespace: namespace,
            failure: "the ONVIF test device did not start")
        self.process = process
        boundPort = bound
    }

    public func stop() {
        guard let process else { return }
        self.process = nil
        TestPeer.stop(process)
    }
}
