import ArgumentParser
import CameraCommon
import CommandLineSupport
import FoundationEssentials
import Synchronization
import WatchBoxKit

struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover", abstract: "Find ONVIF cameras on the local network (WS-Discovery).",
        discussion: """
            Sends a WS-Discovery probe to 239.255.255.250:3702 on every interface that supports multicast
            (three times, since UDP drops packets) and lists the cameras that answer. With --user, also logs
            in to each camera over ONVIF and lists its stream profiles and RTSP URLs.

              watchbox discover
              watchbox discover --interface eth0 --timeout 5
              watchbox discover --user admin --password-stdin --json
            """)

    @Option(help: "Seconds to listen for answers.") var timeout: Double = 3
    @Option(name: .customLong("interface"), help: "Probe only on this interface (repeatable).")
    var interfaces: [String] = []
    @Option(help: "ONVIF user name: also read each camera's identity, profiles and stream URLs.") var user: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Print as JSON.") var json = false

    struct Found: Codable {
        var device: DiscoveredDevice
        var information: ONVIFDeviceInformation?
        var profiles: [Profile]?
        /// Why the ONVIF details are missing, when they are.
        var error: String?
    }

    struct Profile: Codable {
        var profile: ONVIFProfile
        var streamURL: String?
    }

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be between 0 and 60 seconds") }
    }

    func run() async throws {
        var password: String?
        if passwordStdin || user != nil { password = readPassword(prompt: "password for \(user ?? "the cameras"): ") }
        let discovery = WSDiscovery(timeout: .milliseconds(Int(timeout * 1000)), interfaces: interfaces)
        let quiet = json
        if !quiet { Terminal.status("probing for \(String(format1: timeout)) s…") }
        let devices: [DiscoveredDevice]
        do {
            devices = try await discovery.discover { device in
                if !quiet {
                    print(
                        "found \(device.name ?? device.endpoint) at \(device.address) after \(device.milliseconds) ms")
                }
            }
        } catch let error as MediaError {
            throw ValidationError(error.description)
        }
        var found = devices.map { Found(device: $0) }
        if let user {
            for index in found.indices {
                await Self.describe(&found[index], user: user, password: password)
            }
        }
        if json {
            try printJSON(found)
            return
        }
        if found.isEmpty {
            print("No ONVIF camera answered within \(String(format1: timeout)) s.")
            print("Cameras on another subnet do not hear multicast: try `watchbox scan <cidr>`.")
            return
        }
        var table = TextTable(headers: ["name", "hardware", "address", "device service"])
        for item in found {
            table.rows.append([
                item.device.name ?? "-", item.device.hardware ?? "-", item.device.address,
                item.device.serviceURL ?? "-",
            ])
        }
        print(table.rendered)
        for item in found where item.profiles != nil || item.error != nil {
            print("\n\(item.device.name ?? item.device.address):")
            if let information = item.information {
                print(
                    "  \([information.manufacturer, information.model, information.firmwareVersion].compactMap { $0 }.joined(separator: " "))"
                )
            }
            for profile in item.profiles ?? [] {
                let size = profile.profile.width.map { w in profile.profile.height.map { "\(w)x\($0)" } ?? "" } ?? ""
                print(
                    "  \(profile.profile.name) \(profile.profile.encoding ?? "") \(size)  \(profile.streamURL ?? "-")")
            }
            if let error = item.error { print("  problem: \(error)") }
        }
    }

    /// Logs in over ONVIF and reads identity, profiles and stream URLs.
    static func describe(_ item: inout Found, user: String, password: String?) async {
        guard let url = item.device.serviceURL else {
            item.error = "the camera gave no device service address"
            return
        }
        let result: Result<(ONVIFDeviceInformation, [Profile]), ONVIFError>
        do {
            let client = try ONVIFClient(deviceURL: url, username: user, password: password ?? "")
            try await client.systemDateAndTime()
            let information = try await client.deviceInformation()
            var profiles: [Profile] = []
            for profile in try await client.profiles() {
                profiles.append(
                    Profile(profile: profile, streamURL: try? await client.streamURI(profile: profile.token)))
            }
            result = .success((information, profiles))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let (information, profiles)):
            item.information = information
            item.profiles = profiles
        case .failure(let error):
            item.error = error.description
        }
    }
}

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Find RTSP services on a range of addresses.",
        discussion: """
            Connects to each address and port (64 at a time) and confirms open ports with an RTSP OPTIONS
            request, so a web server on port 88 is not mistaken for a camera. Scan only networks you run:
            ranges larger than a /16 need --force.

              watchbox scan 192.168.1.0/24
              watchbox scan 192.168.1.10-60 --ports 554,8554 --timeout 0.5
              watchbox scan 10.0.0.0/24 --json
            """)

    @Argument(help: "A CIDR block (192.168.1.0/24), a range (192.168.1.10-60 or …10-192.168.1.60) or one address.")
    var range: String
    @Option(help: "Ports, comma-separated.") var ports: String = PortScanner.defaultPorts.map(String.init).joined(
        separator: ",")
    @Option(help: "Connections at a time.") var concurrency: Int = 64
    @Option(help: "Seconds to wait for each connection.") var timeout: Double = 1
    @Flag(help: "Allow ranges larger than a /16.") var force = false
    @Flag(help: "Also list open ports that do not speak RTSP.") var all = false
    @Flag(help: "Print as JSON.") var json = false

    func portList() throws -> [Int] {
        let list = ports.split(separator: ",").map { Int($0.trimmingWhitespace()) }
        guard !list.isEmpty, list.allSatisfy({ $0.map { (1...65535).contains($0) } ?? false }) else {
            throw ValidationError("--ports must be numbers from 1 to 65535 separated by commas, got '\(ports)'")
        }
        return list.compactMap { $0 }
    }

    func validate() throws {
        _ = try portList()
        guard (1...1024).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 1024") }
        guard timeout > 0, timeout <= 30 else { throw ValidationError("--timeout must be between 0 and 30 seconds") }
    }

    struct Report: Codable {
        var range: String
        var addresses: Int
        var ports: [Int]
        var milliseconds: Int
        var found: [ScanFinding]
    }

    func run() async throws {
        let addressRange: AddressRange
        do {
            addressRange = try AddressRange(range, force: force)
        } catch {
            throw ValidationError(error.message)
        }
        let scanner = PortScanner(
            ports: try portList(), concurrency: concurrency, timeout: .milliseconds(Int(timeout * 1000)))
        let bar = Terminal.ProgressBar("scanning \(addressRange)", enabled: !json && Terminal.stderrIsTerminal)
        let started = ContinuousClock.now
        let findings = await scanner.scan(addressRange) { progress in
            bar.update(Double(progress.checked) / Double(max(1, progress.total)))
        }
        bar.finish()
        let shown = all ? findings : findings.filter(\.isRTSP)
        let report = Report(
            range: addressRange.text, addresses: addressRange.count, ports: scanner.ports,
            milliseconds: Int(((ContinuousClock.now - started).seconds * 1000).rounded()), found: shown)
        if json {
            try printJSON(report)
            return
        }
        if shown.isEmpty {
            print(
                "No RTSP service on \(addressRange.count) address\(addressRange.count == 1 ? "" : "es") (ports \(ports)) after \(String(format1: Double(report.milliseconds) / 1000)) s."
            )
            return
        }
        var table = TextTable(headers: ["address", "port", "rtsp", "server", "url"])
        for finding in shown {
            table.rows.append([
                finding.host, String(finding.port), finding.isRTSP ? "yes" : "no", finding.server ?? "-",
                finding.url ?? "-",
            ])
        }
        print(table.rendered)
        print(
            "\(shown.count) found on \(addressRange.count) addresses in \(String(format1: Double(report.milliseconds) / 1000)) s. Add one with: watchbox cameras add <name> <url>/<path> --user <user> --password-stdin"
        )
    }
}
