import ArgumentParser
import CameraCommon
import CommandLineSupport
import FoundationEssentials
import Networking
import Synchronization
import WatchBoxKit

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Find RTSP services on a range of addresses.",
        discussion: """
            Connects to each address and port (64 at a time) and confirms open ports with an RTSP OPTIONS \
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
