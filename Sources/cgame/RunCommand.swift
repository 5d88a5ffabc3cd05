import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch a game and save a clip around every highlight.",
        discussion: """
            Clips go to the pending folder as MP4 with a JPEG thumbnail and a JSON entry; `cgame clips` lists \
            them and `cgame sync` uploads them. Ctrl-C stops a live input and still saves the open highlight.
            """)

    @OptionGroup var source: SourceOptions

    @Option(help: "Seconds kept before the first event (default: settings).")
    var preRoll: Double?
    @Option(help: "Seconds kept after the last event (default: settings).")
    var postRoll: Double?
    @Option(help: "Events closer than this many seconds make one highlight (a multi-kill).")
    var cooldown: Double = 5
    @Option(help: "Seconds of recent video kept in memory.")
    var buffer: Double = 30
    @OptionGroup var store: ClipStoreOption
    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() async throws {
        let settings = try await AccountSettings.current().settings
        let profile = try source.loadProfile(settings: settings)
        let clipStore = try store.open()
        let highlights = HighlightSettings(
            preRoll: preRoll ?? settings.preRollDuration, postRoll: postRoll ?? settings.postRollDuration,
            cooldown: cooldown)
        let pipeline = HighlightPipeline(
            configuration: .init(
                source: source.source, profile: profile, highlights: highlights, detector: source.detectorOptions(),
                bufferDuration: buffer))
        StopSignal.install { pipeline.stop() }
        let bar = Terminal.ProgressBar("Watching \(profile.name)")
        let quiet = json
        let summary = try pipeline.run(
            store: clipStore,
            onEvent: { event in
                guard !quiet else { return }
                Terminal.status(
                    "\(clock(event.time.seconds))  \(event.type): \(event.text)\(event.correctionNote)"
                )
            },
            onClip: { clip in
                if !quiet {
                    Terminal.status("saved \(clip.name) (\(String(format1: clip.duration)) s) \(clip.localPath)")
                }
            },
            progress: { progress in
                if let duration = progress.duration, duration > 0 { bar.update(progress.position / duration) }
            })
        bar.finish()
        if json {
            try printJSON(summary)
            return
        }
        print(Table.render(summary))
    }
}
