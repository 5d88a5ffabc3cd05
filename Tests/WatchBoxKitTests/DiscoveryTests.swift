import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import Networking
import Testing

@testable import WatchBoxKit

/// Discovery and scans run `watchbox` inside a client namespace joined by a veth pair to a device
/// namespace: multicast and a subnet to scan, and no packet leaves this machine.
@Suite(.serialized, .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"))
struct NamespaceDiscoveryTests {
    /// Our device with every quirk real ones show (named in onvif_device.py): one answering in
    /// SOAP 1.1 without the ProbeMatches wrapper, RelatesTo rewritten and an IPv6 XAddr first; one
    /// wanting HTTP Digest without qop (RFC 2069) even for its clock. Both are found, once each,
    /// and read with their login.
    @Test func quirkyDevicesAreFoundAndRead() throws {
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        let loose = ONVIFTestDevice(
            name: "Loose", hardware: "Q-1", address: NetworkNamespacePair.deviceAddress, port: 80,
            namespace: lab.device, discovery: true,
            quirks: [.soap11, .noWrapper, .relatesToRewritten, .ipv6XAddrs, .authForTime])
        let old = ONVIFTestDevice(
            auth: .digest, name: "Old", hardware: "Q-2", address: NetworkNamespacePair.deviceAddress, port: 8080,
            namespace: lab.device, discovery: true, quirks: [.rfc2069Digest, .authForTime])
        try loose.start()
        defer { loose.stop() }
        try old.start()
        defer { old.stop() }
        let run = try watchbox(
            ["discover", "--timeout", "2", "--user", "admin", "--password-stdin", "--json"], input: "secret\n",
            namespace: lab.client)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
        let byName = Dictionary(
            found.map { ((($0["device"] as? [String: Any])?["name"] as? String) ?? "", $0) },
            uniquingKeysWith: { a, _ in a })
        #expect(found.count == 2, "\(run.stdout)")
        // The IPv4 address it answered from comes first, though the device listed it second.
        let looseURLs = (byName["Loose"]?["device"] as? [String: Any])?["serviceURLs"] as? [String] ?? []
        #expect(looseURLs.first == "http://10.77.0.2:80/onvif/device_service", "\(looseURLs)")
        for name in ["Loose", "Old"] {
            let item = byName[name] ?? [:]
            #expect(item["error"] == nil, "\(name): \(item["error"] ?? "")")
            let profiles = item["profiles"] as? [[String: Any]] ?? []
            #expect(profiles.count == 2, "\(name): \(item)")
            #expect(((item["information"] as? [String: Any])?["serialNumber"] as? String) == "SN0001")
        }
    }

    @Test func discoveryFindsBothNamespaceCamerasWithinThreeSecondsAndReadsTheirProfiles() throws {
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        // Two cameras on one address; the first says 0.0.0.0 in its XAddrs, as many firmwares do.
        let door = ONVIFTestDevice(
            name: "Front Door", hardware: "TC-100", address: NetworkNamespacePair.deviceAddress, port: 80,
            namespace: lab.device, advertisedHost: "0.0.0.0", discovery: true)
        let yard = ONVIFTestDevice(
            auth: .digest, name: "Back Yard", hardware: "TC-200", address: NetworkNamespacePair.deviceAddress,
            port: 8080, namespace: lab.device, discovery: true)
        try door.start()
        defer { door.stop() }
        try yard.start()
        defer { yard.stop() }

        let started = Date()
        let run = try watchbox(["discover", "--timeout", "2", "--json"], namespace: lab.client)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
        let devices = found.compactMap { $0["device"] as? [String: Any] }
        // Three probes, several answers each: still one entry per camera.
        #expect(devices.count == 2, "\(run.stdout)")
        let byName = Dictionary(devices.map { (($0["name"] as? String) ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["Front Door"]?["hardware"] as? String == "TC-100")
        #expect(byName["Back Yard"]?["hardware"] as? String == "TC-200")
        #expect(byName["Front Door"]?["serviceURLs"] as? [String] == ["http://10.77.0.2:80/onvif/device_service"])
        #expect(byName["Front Door"]?["endpoint"] as? String == door.endpoint)
        for device in devices { #expect((device["milliseconds"] as? Int ?? 9999) < 3000) }
        #expect(Date().timeIntervalSince(started) < 3.5)

        // With credentials: identity, profiles and stream URLs, over WS-Security on one camera and
        // HTTP Digest on the other.
        let detailed = try watchbox(
            ["discover", "--timeout", "1.5", "--user", "admin", "--password-stdin", "--json"], input: "secret\n",
            namespace: lab.client)
        #expect(detailed.status == 0, "\(detailed.stderr)")
        #expect(!detailed.stdout.contains("secret"))
        let details = try JSONSerialization.jsonObject(with: Data(detailed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(details.count == 2)
        for item in details {
            let profiles = item["profiles"] as? [[String: Any]] ?? []
            #expect(profiles.count == 2, "\(item["error"] ?? "")")
            #expect(profiles.first?["streamURL"] as? String == "rtsp://10.77.0.2:554/main")
        }
    }

    @Test func theScanFindsTheRTSPPortAndTellsItFromOtherOpenPorts() throws {
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        let camera = RTSPTestServer(auth: .digest, port: 554, address: "0.0.0.0", namespace: lab.device)
        try camera.start()
        defer { camera.stop() }
        let web = ONVIFTestDevice(address: NetworkNamespacePair.deviceAddress, port: 80, namespace: lab.device)
        try web.start()
        defer { web.stop() }

        let run = try watchbox(
            ["scan", "10.77.0.1-6", "--ports", "554,8554,80,5000", "--timeout", "0.5", "--all", "--json"],
            namespace: lab.client)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        let found = (report["found"] as? [[String: Any]] ?? []).map {
            "\($0["host"] ?? "")|\($0["port"] ?? "")|\($0["isRTSP"] ?? "")"
        }
        // The camera's RTSP port, the web server as open but not RTSP, and nothing closed.
        #expect(found == ["10.77.0.2|80|0", "10.77.0.2|554|1"], "\(run.stdout)")
        #expect(report["addresses"] as? Int == 6)
    }
}

@Suite(.serialized) struct ONVIFClientTests {
    @Test func wsSecurityOnTheDevicesSkewedClockAndEveryMediaCall() async throws {
        // The device's clock is 2 minutes ahead and it rejects timestamps more than 5 s off.
        let device = ONVIFTestDevice(auth: .wsse, clockSkew: 120)
        try device.start()
        defer { device.stop() }
        let client = try ONVIFClient(deviceURL: device.deviceURL, username: device.user, password: device.password)
        let information = try await client.deviceInformation()
        #expect(information.manufacturer == "CameraCore")
        #expect(information.serialNumber == "SN0001")
        let offset = await client.clockOffset?.seconds ?? 0
        #expect(abs(offset - 120) < 2, "clock offset \(offset)")
        let profiles = try await client.profiles()
        #expect(profiles.map(\.token) == ["main", "sub"])
        #expect(profiles.first?.width == 1920 && profiles.first?.height == 1080 && profiles.first?.encoding == "H264")
        #expect(profiles.last?.frameRate == 15)
        // 0.0.0.0 in the answer becomes the device's address.
        #expect(try await client.streamURI(profile: "main") == "rtsp://127.0.0.1:554/main")
        #expect(try await client.snapshotURI(profile: "sub") == "http://127.0.0.1:\(device.boundPort)/snapshot.jpg")
        await #expect(
            throws: ONVIFError.fault(code: "s:Sender", subcode: "ter:InvalidArgVal", reason: "No such profile")
        ) {
            try await client.streamURI(profile: "nope")
        }
        // Our idea of its clock went stale (a slow answer, or its clock was set since): the refused
        // stamp makes the client read the clock again, and the call goes through.
        await client.assumeClockOffset(.seconds(60))
        #expect(try await client.deviceInformation().model == "TC-100")
        let again = await client.clockOffset?.seconds ?? 0
        #expect(abs(again - 120) < 2, "clock offset \(again)")
    }

    /// A camera that drops a request now and then still gives every profile's stream URL; when it
    /// gives none, the description says why instead of leaving the URL out silently.
    @Test func aDroppedStreamURIRequestIsAskedAgainAndAFaultIsSaid() async throws {
        let device = ONVIFTestDevice(auth: .wsse, quirks: [.dropsFirstStreamURI])
        try device.start()
        defer { device.stop() }
        let found = DiscoveredDevice(
            endpoint: device.endpoint, address: "127.0.0.1", serviceURLs: [device.deviceURL], types: [], scopes: [],
            interface: "lo", milliseconds: 1)
        let described = await ONVIFDeviceDescription.read(found, username: device.user, password: device.password)
        #expect(described.error == nil, "\(described.error ?? "")")
        #expect(
            described.profiles?.map(\.streamURL) == ["rtsp://127.0.0.1:554/main", "rtsp://127.0.0.1:554/sub"],
            "\(described.profiles?.map { $0.streamError ?? "" } ?? [])")

        // A profile the camera has no stream for: the camera's own words, asked once.
        let client = try ONVIFClient(deviceURL: device.deviceURL, username: device.user, password: device.password)
        let missing = await ONVIFDeviceDescription.streamURL(
            of: ONVIFProfile(token: "gone", name: "Gone"), from: client)
        #expect(missing.streamURL == nil)
        #expect(missing.streamError?.contains("No such profile") == true, "\(missing.streamError ?? "")")
    }

    @Test func wrongOrMissingCredentialsAreNotAuthorizedWithBothSchemes() async throws {
        for auth in [ONVIFTestDevice.Auth.wsse, .digest] {
            let device = ONVIFTestDevice(auth: auth)
            try device.start()
            defer { device.stop() }
            let right = try ONVIFClient(deviceURL: device.deviceURL, username: device.user, password: device.password)
            #expect(try await right.deviceInformation().model == "TC-100", "\(auth)")
            let wrong = try ONVIFClient(deviceURL: device.deviceURL, username: device.user, password: "guess")
            let error = await #expect(throws: ONVIFError.self) { try await wrong.deviceInformation() }
            guard case .notAuthorized = error else {
                Issue.record("\(auth): \(String(describing: error))")
                continue
            }
            #expect(!(error?.description.contains("guess") ?? true))
            let anonymous = try ONVIFClient(deviceURL: device.deviceURL)
            await #expect(throws: ONVIFError.self) { try await anonymous.profiles() }
            // The clock needs no login.
            _ = try await anonymous.systemDateAndTime()
        }
    }

    @Test func closedPortsAndGarbageAnswersAreTypedErrorsNotCrashes() async throws {
        let closed = try ONVIFClient(deviceURL: "http://127.0.0.1:9/onvif/device_service", timeout: .seconds(1))
        let error = await #expect(throws: ONVIFError.self) { try await closed.deviceInformation() }
        guard case .transport = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        var generator = SeededGenerator(seed: 21)
        let body = """
            <?xml version="1.0"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>\
            <tds:GetDeviceInformationResponse xmlns:tds="x"><tds:Manufacturer>A&amp;B</tds:Manufacturer>\
            </tds:GetDeviceInformationResponse></s:Body></s:Envelope>
            """
        var replies: [[UInt8]] = (0..<16).map { index in
            var bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
            for _ in 0..<(index + 1) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            return bytes
        }
        replies += [
            Array("HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\nfail".utf8), [],
            Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8),
        ]
        var parsed = 0
        for reply in replies {
            let peer = try LoopbackPeer(reply: reply)
            defer { peer.close() }
            let client = try ONVIFClient(deviceURL: "http://127.0.0.1:\(peer.port)/onvif", timeout: .seconds(1))
            if let information = try? await client.deviceInformation() {
                parsed += 1
                #expect(information.manufacturer?.isEmpty == false)
            }
        }
        // The untouched shape parses; most mutations do not, and none crash.
        #expect(parsed < replies.count)
    }
}

@Suite struct DiscoveryParsingTests {
    static func probeMatches(relatesTo: String, xaddrs: String, scopes: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" \
            xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery">
            <SOAP-ENV:Header><wsa:RelatesTo>\(relatesTo)</wsa:RelatesTo></SOAP-ENV:Header>
            <SOAP-ENV:Body><d:ProbeMatches><d:ProbeMatch>
            <wsa:EndpointReference><wsa:Address>urn:uuid:abc</wsa:Address></wsa:EndpointReference>
            <d:Types>dn:NetworkVideoTransmitter</d:Types><d:Scopes>\(scopes)</d:Scopes>
            <d:XAddrs>\(xaddrs)</d:XAddrs></d:ProbeMatch></d:ProbeMatches></SOAP-ENV:Body></SOAP-ENV:Envelope>
            """.utf8)
    }

    @Test func addressesAreSubstitutedAndOrderedAndScopesDecoded() throws {
        let zero = try WSDiscovery.parseProbeMatches(
            Self.probeMatches(
                relatesTo: "uuid:1", xaddrs: "http://0.0.0.0/onvif/device_service",
                scopes: "onvif://www.onvif.org/name/Caf%C3%A9%20Cam onvif://www.onvif.org/hardware/DS-2CD"),
            sender: "192.168.7.9", probeID: "uuid:1")
        #expect(zero.first?.serviceURL == "http://192.168.7.9/onvif/device_service")
        #expect(zero.first?.name == "Café Cam")
        #expect(zero.first?.hardware == "DS-2CD")
        // A multi-homed camera: the address that answered comes first; IPv6 kept.
        let homes = try WSDiscovery.parseProbeMatches(
            Self.probeMatches(
                relatesTo: "uuid:1",
                xaddrs:
                    "http://169.254.1.1/onvif/device_service http://[fe80::1]:8080/x http://10.0.0.8:8000/onvif/device_service",
                scopes: ""), sender: "10.0.0.8", probeID: "uuid:1")
        #expect(homes.first?.serviceURLs.first == "http://10.0.0.8:8000/onvif/device_service")
        #expect(homes.first?.serviceURLs.contains("http://[fe80::1]:8080/x") == true)
        // An answer to someone else's probe is not ours.
        let other = try WSDiscovery.parseProbeMatches(
            Self.probeMatches(relatesTo: "uuid:2", xaddrs: "http://10.0.0.8/", scopes: ""), sender: "10.0.0.8",
            probeID: "uuid:1")
        #expect(other.isEmpty)
    }

    @Test func xmlThatIsMalformedOrDangerousIsRefusedByName() {
        let cases: [(String, String)] = [
            ("", "empty document"),
            ("<a><b></a>", "</a> closes <b>"),
            ("<a>", "never closed"),
            ("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "document type declarations are not allowed"),
            ("<a>&unknown;</a>", "unknown entity"),
            ("<a x=1/>", "not quoted"),
            (String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100), "nested deeper"),
            ("<a/><b/>", "content after the root element"),
        ]
        for (text, expected) in cases {
            #expect(throws: MediaError.self, "\(text.prefix(30))") { try XMLNode.parse(text) }
            do {
                _ = try XMLNode.parse(text)
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        let node = try? XMLNode.parse(
            "<?xml version='1.0'?><!-- hi --><p:a q:k='v &amp; w'>x<![CDATA[<y>]]>&#x41;<b/></p:a>")
        #expect(node?.name == "a" && node?.prefix == "p")
        #expect(node?.attributes["k"] == "v & w")
        #expect(node?.text == "x<y>A")
    }

    @Test func fuzzedProbeMatchesNeverCrash() {
        var generator = SeededGenerator(seed: 5)
        let original = Self.probeMatches(relatesTo: "uuid:1", xaddrs: "http://0.0.0.0/x", scopes: "a b")
        var survived = 0
        for round in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &generator)..<bytes.count)
                default: bytes.insert(UInt8(ascii: "<"), at: Int.random(in: 0..<bytes.count, using: &generator))
                }
                if bytes.isEmpty { break }
            }
            if (try? WSDiscovery.parseProbeMatches(bytes, sender: "10.0.0.1", probeID: nil)) != nil { survived += 1 }
        }
        #expect(survived < 400)
    }

    @Test func addressRangesParseAndRefuseWhatTheyShould() throws {
        let block = try AddressRange("192.168.1.0/24")
        #expect(block.count == 254)
        #expect(block.addresses.first == "192.168.1.1" && block.addresses.last == "192.168.1.254")
        #expect(try AddressRange("10.0.0.10-20").count == 11)
        #expect(try AddressRange("10.0.0.250-10.0.1.5").count == 12)
        #expect(try AddressRange("10.0.0.7").addresses == ["10.0.0.7"])
        #expect(try AddressRange("10.0.0.8/31").count == 2)
        #expect(try AddressRange("10.0.0.0/16").count == 65534)
        #expect(try AddressRange("10.0.0.0/15", force: true).count == 131_070)
        let refused: [(String, String)] = [
            ("10.0.0.0/15", "more than a /16"), ("10.0.0.300", "expected an IPv4 address"),
            ("10.0.0.5-3", "ends before it starts"), ("10.0.0.0/33", "prefix length"), ("fe80::1", "expected an IPv4"),
        ]
        for (text, expected) in refused {
            do {
                _ = try AddressRange(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.message.contains(expected), "\(text): \(error.message)")
            }
        }
    }

    @Test func aLoopbackScanFindsTheRTSPServerAndNotTheClosedPort() async throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let closedPort = try LoopbackPort.free()
        let scanner = PortScanner(ports: [server.port, closedPort], timeout: .seconds(1))
        var checked = 0
        let found = await scanner.scan(try AddressRange("127.0.0.1")) { _ in checked += 1 }
        #expect(
            found == [ScanFinding(host: "127.0.0.1", port: server.port, isRTSP: true, server: "GStreamer RTSP server")])
        #expect(checked == 2)
    }
}
