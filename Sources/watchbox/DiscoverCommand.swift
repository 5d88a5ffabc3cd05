import ArgumentParser
import CameraCommon
import CommandLineSupport
import FoundationEssentials
import Networking
import Synchronization
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover", abstract: "Find ONVIF cameras on the local network (WS-Discovery).",
        discussion: """
            Sends a WS-Discovery probe to 239.255.255.250:3702 on every interface that supports multicast \
            (three times, since UDP drops packets) and lists the cameras that answer. With --user, also logs \
            in to each camera over ONVIF and lists its stream profiles and RTSP URLs.

              watchbox discover
              watchbox discover --interface eth0 --timeout 5
              watchbox discover --user admin --password-stdin --json
              watchbox discover --listen 600   also cameras announcing or leaving
            """)

    @Option(help: "Seconds to listen for answers.") var timeout: Double = 3
    @Option(name: .customLong("interface"), help: "Probe only on this interface (repeatable).")
    var interfaces: [String] = []
    @Option(help: "ONVIF user name: also read each camera's identity, profiles and stream URLs.") var user: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Print as JSON.") var json = false
    @Option(
        help:
            "After probing, keep listening this many seconds for cameras that announce themselves (Hello: switched on, new address) or leave (Bye)."
    ) var listen: Double?

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be between 0 and 60 seconds") }
        if let listen, !(listen > 0 && listen <= 86400) {
            throw ValidationError("--listen must be between 0 and 86400 seconds")
        }
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
        } else {
            printTable(found)
        }
        if let listen { try await announcements(discovery, seconds: listen) }
    }

    /// Prints Hello and Bye announcements as they arrive (JSON lines with --json) for `seconds`.
    func announcements(_ discovery: WSDiscovery, seconds: Double) async throws {
        let quiet = json
        if !quiet { Terminal.status("listening for announcements for \(String(format1: seconds)) s…") }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await discovery.listen { announcement in
                        switch announcement {
                        case .hello(let device):
                            if quiet {
                                printJSONLine([
                                    "event": "hello", "endpoint": device.endpoint, "address": device.address,
                                    "deviceService": device.serviceURL ?? "",
                                ])
                            } else {
                                print(
                                    "hello: \(device.name ?? device.endpoint) at \(device.address) (\(device.serviceURL ?? "no device service"))"
                                )
                            }
                        case .bye(let endpoint, let address):
                            if quiet {
                                printJSONLine(["event": "bye", "endpoint": endpoint, "address": address])
                            } else {
                                print("bye: \(endpoint) at \(address)")
                            }
                        }
                    }
                }
                group.addTask { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
                _ = try await group.next()
                group.cancelAll()
            }
        } catch let error as MediaError {
            throw ValidationError(error.description)
        }
    }

    /// One JSON object per line, flushed at once (for scripts reading as it runs).
    func printJSONLine(_ object: [String: String]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return }
        print(String(decoding: data, as: UTF8.self))
        fflush(nil)
    }

    func printTable(_ found: [ONVIFDeviceDescription]) {
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
                    "  \(profile.profile.name) \(profile.profile.encoding ?? "") \(size)  \(profile.streamURL ?? "no stream URL: \(profile.streamError ?? "the camera gave none")")"
                )
            }
            if let error = item.error { print("  problem: \(error)") }
        }
    }
}
