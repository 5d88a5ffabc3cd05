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

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record a camera into MP4 segments cut at keyframes.",
        discussion: "  watchbox record Porch --for 10m --segment 60 -o recordings/porch   (Ctrl-C stops early)")
    @OptionGroup var store: StoreOptions
    @Argument(help: "Camera id or name.") var camera: String
    @Option(name: .customLong("for"), help: "How long (90s, 10m as 10:00); default until Ctrl-C.") var duration: String?
    @Option(help: "Seconds per segment.") var segment: Double = 60
    @Option(name: .shortAndLong, help: "Folder for the segments.") var output: String = "recordings"

    func run() async throws {
        let (repository, credentials) = try store.open()
        let found = try find(camera, in: repository)
        let seconds = try duration.map(parseSeconds)
        let manager = StreamManager(onState: { _, state in Terminal.status("\(found.name): \(state)") })
        let recording = StreamRecording(
            manager: manager, cameraID: found.id, directory: output, segmentSeconds: segment)
        let stop = Atomic<Bool>(false)
        StopSignal.install { stop.store(true, ordering: .relaxed) }
        manager.start(found.id, url: try credentials.playableURL(for: found))
        let started = ContinuousClock.now
        while !stop.load(ordering: .relaxed), recording.failure == nil {
            if let seconds, ContinuousClock.now - started >= .milliseconds(Int(seconds * 1000)) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        manager.stopAll()
        let files = try recording.finish()
        if let failure = recording.failure { Terminal.error("stopped: \(failure)") }
        print(files.isEmpty ? "nothing recorded" : files.map(\.path).joined(separator: "\n"))
    }
}
