import ArgumentParser
import CameraCommon
import CommandLineSupport
import FoundationEssentials
import Networking
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

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be between 0 and 60 seconds") }
    }

    func run() async throws {
        var password: String?
        if passwordStdin || user != nil {
            password = Terminal.readPassword(prompt: "password for \(user ?? "the cameras"): ")
        }
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
        var found = devices.map(ONVIFDeviceDescription.init(device:))
        if let user {
            for index in found.indices {
                found[index] = await ONVIFDeviceDescription.read(
                    found[index].device, username: user, password: password ?? "")
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
}
