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

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Print the events a profile finds in a video, without saving clips.",
        discussion: "Use it to check a profile on a recording: each line is a time, an event type and the text read.")

    @OptionGroup var source: SourceOptions
    @Flag(help: "Print events as JSON.")
    var json = false

    func run() throws {
        let settings = try UserSettings.load()
        let profile = try source.loadProfile(settings: settings)
        let pipeline = HighlightPipeline(
            configuration: .init(
                source: source.source, profile: profile, detector: source.detectorOptions(), exportClips: false))
        StopSignal.install { pipeline.stop() }
        let quiet = json
        let summary = try pipeline.run(
            store: nil,
            onEvent: { event in
                guard !quiet else { return }
                print(
                    "\(clock(event.time.seconds))  \(event.type)  \(event.text)\(event.correctionNote)"
                )
            })
        if json {
            try printJSON(DetectReport(game: summary.game, events: summary.events, statistics: summary.statistics))
        } else {
            Terminal.status(
                "\(summary.events.count) events in \(clock(summary.mediaSeconds)) of video; "
                    + "\(summary.statistics.analyzed) frames read, \(summary.statistics.dropped) dropped, "
                    + "\(String(format1: summary.speed))× realtime")
        }
    }

    struct DetectReport: Encodable {
        var game: String
        var events: [DetectedEvent]
        var statistics: EventDetector.Statistics
    }
}

extension DetectedEvent {
    /// Said after a line printed for an event heard before, when it corrects that one's text.
    var correctionNote: String { corrects ? "  (corrected: the line read better)" : "" }
}
