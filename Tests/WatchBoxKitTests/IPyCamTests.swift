import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import Testing

@testable import WatchBoxKit

/// WatchBox against a camera nobody here wrote: ipycam 1.3.0 from PyPI, in a device namespace,
/// with `watchbox` in a client namespace joined to it by a veth pair.
@Suite(
    "ipycam, a virtual camera from PyPI", .serialized,
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"))
struct IPyCamTests {
    @Test("discover --listen hears ipycam's Hello when it starts and its Bye when it stops, by endpoint reference")
    func helloAndBye() throws {
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ip)
        listener.arguments = [
            "netns", "exec", lab.client, SiblingTool.path("watchbox"), "discover", "--timeout", "0.5", "--listen", "40",
            "--json",
        ]
        let output = Pipe()
        listener.standardOutput = output
        listener.standardError = FileHandle.nullDevice
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }
        usleep(1_500_000)
        // The camera comes online after the probe: only its Hello can tell.
        let camera = IPyCam(namespace: lab.device, address: NetworkNamespacePair.deviceAddress)
        try camera.start()
        usleep(1_000_000)
        camera.stopAnnouncing()
        usleep(1_500_000)
        listener.terminate()
        listener.waitUntilExit()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
        let hello = lines.first { $0["event"] == "hello" }
        let bye = lines.first { $0["event"] == "bye" }
        #expect(hello?["address"] == NetworkNamespacePair.deviceAddress, "\(lines)")
        #expect(hello?["deviceService"] == "http://\(camera.address):8080/onvif/device_service", "\(lines)")
        #expect(bye != nil && bye?["endpoint"] == hello?["endpoint"], "\(lines)")
    }

    @Test("discover finds ipycam; with its login, identity, both profiles and their RTSP URIs; probe reads the stream")
    func discoverDescribeAndProbe() throws {
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        let camera = IPyCam(namespace: lab.device, address: NetworkNamespacePair.deviceAddress)
        try camera.start()
        defer { camera.stop() }

        let plain = try watchbox(["discover", "--timeout", "2", "--json"], namespace: lab.client)
        #expect(plain.status == 0, "\(plain.stderr)")
        let found = try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(found.count == 1, "\(plain.stdout)")
        let device = found.first?["device"] as? [String: Any] ?? [:]
        #expect(device["address"] as? String == NetworkNamespacePair.deviceAddress)
        // ipycam writes its name unescaped in the scope ("name/Virtual Camera").
        #expect(device["name"] as? String == "Virtual Camera")
        #expect(device["serviceURLs"] as? [String] == ["http://\(camera.address):8080/onvif/device_service"])

        // ipycam wants WS-Security even for GetSystemDateAndTime once a password is set.
        let detailed = try watchbox(
            ["discover", "--timeout", "2", "--user", "admin", "--password-stdin", "--json"], input: "secret\n",
            namespace: lab.client)
        #expect(detailed.status == 0, "\(detailed.stderr)")
        #expect(!detailed.stdout.contains("secret"))
        let item =
            (try JSONSerialization.jsonObject(with: Data(detailed.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        #expect(item["error"] == nil, "\(item["error"] ?? "")")
        let information = item["information"] as? [String: Any] ?? [:]
        #expect(information["manufacturer"] as? String == "PythonCam")
        let profiles = item["profiles"] as? [[String: Any]] ?? []
        #expect(
            profiles.compactMap { $0["streamURL"] as? String } == [camera.mainStream, camera.subStream],
            "\(profiles.map { $0["streamError"] ?? "" })")
        let sizes = profiles.compactMap {
            ($0["profile"] as? [String: Any]).map { "\($0["width"] ?? 0)x\($0["height"] ?? 0)" }
        }
        #expect(sizes == ["640x360", "320x180"])
        // The wrong password: said so, nothing else invented.
        let wrong = try watchbox(
            ["discover", "--timeout", "1.5", "--user", "admin", "--password-stdin", "--json"], input: "nope\n",
            namespace: lab.client)
        let refused =
            (try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        #expect((refused["error"] as? String)?.contains("refused") == true, "\(wrong.stdout)")
        #expect(refused["profiles"] == nil)

        let probe = try watchbox(["probe", camera.mainStream, "--json"], namespace: lab.client)
        #expect(probe.status == 0, "\(probe.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(report["reachable"] as? Bool == true)
        #expect(report["videoCodec"] as? String == "h264")
        #expect(report["width"] as? Int == 640 && report["height"] as? Int == 360)
    }

    @Test("answers as real devices send them: no ProbeMatches wrapper, RelatesTo rewritten, raw spaces in scopes")
    func tolerantProbeMatches() throws {
        // ipycam 1.3's answer, byte for byte in shape: ProbeMatch straight in the Body.
        let ipycam = """
            <?xml version="1.0" encoding="UTF-8"?>
            <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" \
            xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery">
            <soap:Header><wsa:RelatesTo>URN:uuid:ABC</wsa:RelatesTo></soap:Header>
            <soap:Body><d:ProbeMatch><d:EndpointReference><wsa:Address>urn:uuid:cam-1</wsa:Address></d:EndpointReference>
            <d:Types>dn:NetworkVideoTransmitter</d:Types>
            <d:Scopes>onvif://www.onvif.org/name/Front Door onvif://www.onvif.org/hardware/X1</d:Scopes>
            <d:XAddrs>http://10.0.0.9:8080/onvif/device_service http://[fe80::1]/onvif/device_service</d:XAddrs>
            </d:ProbeMatch></soap:Body></soap:Envelope>
            """
        let devices = try WSDiscovery.parseProbeMatches(Array(ipycam.utf8), sender: "10.0.0.9", probeID: "uuid:abc")
        #expect(devices.count == 1)
        #expect(devices.first?.name == "Front Door")
        #expect(devices.first?.hardware == "X1")
        #expect(devices.first?.endpoint == "urn:uuid:cam-1")
        #expect(devices.first?.serviceURLs.first == "http://10.0.0.9:8080/onvif/device_service")
        // An answer to someone else's probe is still ignored.
        #expect(
            try WSDiscovery.parseProbeMatches(Array(ipycam.utf8), sender: "10.0.0.9", probeID: "uuid:other").isEmpty)
    }
}
