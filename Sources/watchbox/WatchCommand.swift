import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import Networking
import Synchronization
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Connect to every active camera and show a live table of their health.",
        discussion: "State, frames per second, bit rate and the age of the last packet, redrawn each second.")
    @OptionGroup var store: StoreOptions
    @Option(name: .customLong("for"), help: "Stop after this long (default: until Ctrl-C).") var duration: String?
    @Flag(help: "Print the final table as JSON.") var json = false

    struct Row: Encodable {
        var name: String
        var state: String
        var statistics: StreamStatistics?
        var health: [String]
    }

    func run() async throws {
        let (repository, credentials) = try store.open()
        let cameras = try repository.cameras().filter(\.isActive)
        guard !cameras.isEmpty else {
            print("No active cameras. Add one with `watchbox cameras add`.")
            return
        }
        let seconds = try duration.map(parseSeconds)
        let health = Mutex<[UUID: [String]]>([:])
        let manager = StreamManager(onHealth: { event in
            health.withLock { $0[event.cameraID, default: []].append("\(event.kind.rawValue): \(event.reason)") }
        })
        for camera in cameras { manager.start(camera.id, url: try credentials.playableURL(for: camera)) }
        let stop = Atomic<Bool>(false)
        StopSignal.install { stop.store(true, ordering: .relaxed) }
        let started = ContinuousClock.now
        func rows() -> [Row] {
            cameras.map { camera in
                Row(
                    name: camera.name, state: manager.state(camera.id).description,
                    statistics: manager.statistics(camera.id), health: health.withLock { $0[camera.id] ?? [] })
            }
        }
        while !stop.load(ordering: .relaxed) {
            if let seconds, ContinuousClock.now - started >= .milliseconds(Int(seconds * 1000)) { break }
            if !json {
                var table = TextTable(headers: ["camera", "state", "fps", "kbit/s", "last packet", "health"])
                for row in rows() {
                    let statistics = row.statistics
                    table.rows.append([
                        row.name, row.state, statistics.map { String(format1: $0.framesPerSecond) } ?? "-",
                        statistics.map { "\(Int($0.bitRate / 1000))" } ?? "-",
                        statistics?.lastSampleAge.map { "\(String(format1: $0)) s ago" } ?? "-",
                        row.health.last ?? "ok",
                    ])
                }
                let clear = Terminal.stdoutIsTerminal ? "\u{1B}[H\u{1B}[2J" : ""
                print(clear + table.rendered + "\n")
            }
            try await Task.sleep(for: .seconds(1))
        }
        let final = rows()
        manager.stopAll()
        if json { try printJSON(final) }
    }
}
