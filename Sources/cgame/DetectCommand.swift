import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Print the events a profile finds in a video, without saving clips.",
        discussion: """
            Use it to check a profile on a recording: each line is a time, an event type and the text read.

            When an event you saw is missing (or one is found twice), add --trace: every line read in \
            every analysed frame is printed (to standard error) with what became of it: a new line \
            waiting for a second reading, the same line read again, a doubtful reading set aside, a \
            replacement, text with no event's words. With --json the trace is in the report instead.
            """)

    @OptionGroup var source: SourceOptions
    @Flag(help: "Print events as JSON.")
    var json = false
    @Flag(help: "Print every line read and what became of it (why an event was found or lost).")
    var trace = false

    func run() throws {
        let settings = try UserSettings.load()
        let profile = try source.loadProfile(settings: settings)
        var options = source.detectorOptions()
        let traced = Mutex<[EventDetector.TraceLine]>([])
        if trace {
            options.trace = { [json] line in
                if json { traced.withLock { $0.append(line) } } else { Terminal.error(line.description) }
            }
        }
        let pipeline = HighlightPipeline(
            configuration: .init(source: source.source, profile: profile, detector: options, exportClips: false))
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
            try printJSON(
                DetectReport(
                    game: summary.game, events: summary.events, statistics: summary.statistics,
                    trace: trace ? traced.withLock { $0 } : nil))
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
        /// With --trace: every line read and what became of it.
        var trace: [EventDetector.TraceLine]?
    }
}

extension DetectedEvent {
    /// Said after a line printed for an event heard before, when it corrects that one's text.
    var correctionNote: String { corrects ? "  (corrected: the line read better)" : "" }
}
