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

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Find where a game writes a keyword in a recording and save a profile around it.",
        discussion: """
            Record a minute or two with a few kills, then name the words the game shows for one:

              cgame calibrate match.mkv --keyword "you fragged" --name "My OpenArena"
              cgame calibrate match.mp4 --keyword eliminated --profile fortnite
              cgame detect match.mp4 --profile "My OpenArena"            check it

            Whole frames are read every --every seconds; lines containing the keyword give the region, \
            widened for longer names and stacked lines. The profile is written to $CGAME_HOME/profiles/ \
            (or --output) and is used like any other.
            """)

    @Argument(help: "A recording (any file FFmpeg reads) with the keyword on screen a few times.")
    var recording: String

    @Option(help: "The words the game shows for the event (case and accents do not matter).")
    var keyword: String

    @Option(help: "A profile to start from (its events and options are kept; its region is replaced).")
    var profile: String?

    @Option(help: "The new profile's name (default: the --profile's name, which your copy then overrides).")
    var name: String?

    @Option(help: "The event type the keyword announces, for a new profile.")
    var event: String = "Kill"

    @Option(help: "Seconds between frames read.")
    var every: Double = 1

    @Option(help: "Most frames to read.")
    var maxFrames: Int = 180

    @Option(help: "Write the profile here instead of $CGAME_HOME/profiles/NAME.json.")
    var output: String?

    @Flag(help: "Replace a profile file that exists.")
    var force = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard !keyword.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--keyword must name the words the game shows")
        }
        guard profile != nil || name != nil else {
            throw ValidationError("give --name for a new profile, or --profile to start from a shipped one")
        }
        guard every >= 0.1, every <= 60 else { throw ValidationError("--every must be 0.1…60 seconds") }
        guard (1...5000).contains(maxFrames) else { throw ValidationError("--max-frames must be 1…5000") }
    }

    func run() throws {
        let base = try profile.map { try ProfileLibrary.profile(named: $0) }
        let bar = Terminal.ProgressBar("Reading frames for \"\(keyword)\"", enabled: !json && Terminal.stderrIsTerminal)
        let result = try RegionCalibrator.scan(
            MediaSource(parsing: recording), keyword: keyword, interval: every, maxFrames: maxFrames,
            progress: { bar.update(min(1, $0)) })
        bar.finish()
        guard let region = result.region else {
            Terminal.error(
                "\"\(keyword)\" was not read in any of the \(result.framesScanned) frames read "
                    + "(every \(String(format1: every)) s of \(clock(result.mediaSeconds))). Check the words against "
                    + "a frame (`cgame ocr`), or read more frames with --every 0.5.")
            throw ExitCode(1)
        }
        var made =
            base
            ?? GameProfile(
                name: name ?? "", region: region, events: [GameProfile.EventRule(type: event, keywords: [keyword])])
        made.name = name ?? made.name
        made.region = region
        if base != nil, !made.events.contains(where: { $0.keywords.contains(keyword) }) {
            Terminal.error(
                "note: \(made.name)'s rules do not list \"\(keyword)\"; the region is where it appears, "
                    + "the events are still the profile's")
        }
        try made.validate(operation: "calibrate")
        let path = output ?? ProfileLibrary.userDirectory + "/" + Self.fileName(made.name)
        guard force || !FileManager.default.fileExists(atPath: path) else {
            Terminal.error("\(path) exists; use --force to replace it, or --output to write elsewhere")
            throw ExitCode(1)
        }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do { try Data(made.json().utf8).write(to: URL(fileURLWithPath: path)) } catch {
            throw MediaError(.writeFailed, operation: "save profile", message: "cannot write \(path)")
        }
        if json {
            try printJSON(Report(profile: made.name, path: path, calibration: result))
            return
        }
        let r = region
        print(
            "\(made.name): region x \(r.x) y \(r.y) width \(r.width) height \(r.height) "
                + "(\(result.alignment ?? "left")-aligned text, from \(result.sightings.count) sightings in "
                + "\(result.framesScanned) frames)")
        for sighting in result.sightings.prefix(5) { print("  \(clock(sighting.time))  \(sighting.text)") }
        if !result.outliers.isEmpty {
            print("  left out, far from the others: " + result.outliers.prefix(3).map(\.text).joined(separator: "; "))
        }
        print("saved \(path); check it with: cgame detect \(recording) --profile \"\(made.name)\"")
    }

    /// `My OpenArena` → `my-openarena.json`.
    static func fileName(_ name: String) -> String {
        (ProfileLibrary.slug(name) ?? "profile") + ".json"
    }

    struct Report: Encodable {
        var profile: String
        var path: String
        var calibration: RegionCalibrator.Result
    }
}
