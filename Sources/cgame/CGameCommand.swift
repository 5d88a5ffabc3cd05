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

@main
enum Entry {
    static func main() async {
        limitOpenMPThreads()
        await CGameCommand.main()
    }

    /// Debian's Tesseract runs its LSTM on several OpenMP threads per line, which makes small crops
    /// about 3× slower here; OpenMP reads `OMP_THREAD_LIMIT` only when it loads, before any of our
    /// code runs, so the command sets it and starts itself again (once).
    static func limitOpenMPThreads() {
        guard getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        let arguments = CommandLine.unsafeArgv
        execv("/proc/self/exe", arguments)
        // If re-executing fails we carry on, only slower.
    }
}

struct CGameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cgame",
        abstract: "Automatic gameplay highlights: read a game's on-screen text, cut clips around kills, build reels.",
        discussion: """
            Inputs are anything FFmpeg reads: a recorded file, a stream from OBS (rtmp://, srt://, udp://),
            an RTSP camera, or the screen (x11grab::0.0).

              cgame run match.mp4 --profile fortnite          clips into the pending folder
              cgame run srt://127.0.0.1:9000?mode=listener    live from OBS (Stream → Custom → srt://HOST:9000)
              cgame run x11grab::0.0 --profile valorant       the X11 screen
              cgame detect match.mp4 --profile apex --json    events only
              cgame clips                                     what was saved
              cgame compile --all -o reel.mp4 --title "Friday night"

            Files live in $CGAME_HOME (default ~/.local/share/cgame): settings.json, profiles/, pending/, clips/.
            """,
        subcommands: [
            RunCommand.self, DetectCommand.self, ClipsCommand.self, CompileCommand.self, ProfilesCommand.self,
            SettingsCommand.self, OCRCommand.self, SyncCommand.self,
        ]
    )
}

/// The clip store shared by `run`, `clips` and `compile`.
struct ClipStoreOption: ParsableArguments {
    @Option(help: "Where clips go (default: $CGAME_HOME).")
    var store: String?

    func open() throws -> PendingClipStore { try PendingClipStore(root: store ?? CGamePaths.home) }
}

/// Options shared by `run` and `detect`.
struct SourceOptions: ParsableArguments {
    @Argument(help: "A file, a stream URL (rtmp://, srt://, udp://, rtsp://) or x11grab::DISPLAY.")
    var input: String

    @Option(help: "Game profile: a name (see `cgame profiles list`) or a .json file. Default: from settings.")
    var profile: String?

    @Option(help: "Frames read per second of video.")
    var rate: Double = 10

    @Option(help: "Recognition threads (each loads its own Tesseract).")
    var workers: Int = 2

    @Option(help: "For live inputs: never drop frames, even when recognition falls behind.")
    var noDrop = false

    func validate() throws {
        guard rate > 0, rate <= 60 else { throw ValidationError("--rate must be between 0 and 60 frames per second") }
        guard (1...16).contains(workers) else { throw ValidationError("--workers must be 1…16") }
    }

    var source: MediaSource { MediaSource(parsing: input) }

    func loadProfile(settings: UserSettings) throws -> GameProfile {
        try ProfileLibrary.profile(named: profile ?? settings.gameProfileName)
    }

    func detectorOptions() -> EventDetector.Options {
        EventDetector.Options(sampleRate: rate, workers: workers, dropWhenBusy: source.isNetwork && !noDrop)
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch a game and save a clip around every highlight.",
        discussion: """
            Clips go to the pending folder as MP4 with a JPEG thumbnail and a JSON entry; `cgame clips` lists
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

    func run() throws {
        let settings = try UserSettings.load()
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
                if !quiet { Terminal.status("\(clock(event.time.seconds))  \(event.type): \(event.text)") }
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
                if !quiet { print("\(clock(event.time.seconds))  \(event.type)  \(event.text)") }
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

struct ClipsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clips", abstract: "List pending and saved clips.",
        discussion: "Pending clips wait to be uploaded by `cgame sync`; `--keep` moves them to the saved folder.")

    @OptionGroup var store: ClipStoreOption
    @Flag(help: "Move every pending clip to the saved folder.")
    var keep = false
    @Flag(help: "Delete unlisted files left in the pending folder by an interrupted export.")
    var clean = false
    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let clipStore = try store.open()
        if clean { Terminal.status("removed \(clipStore.removeOrphans()) leftover files") }
        if keep {
            for clip in clipStore.loadPendingClipMetadata() { _ = try clipStore.keep(clip) }
        }
        let (pending, problems) = clipStore.loadPending()
        let saved = clipStore.loadSavedClips()
        if json {
            try printJSON(Listing(pending: pending, saved: saved, problems: problems))
            return
        }
        print(Table.render(pending: pending, saved: saved))
        for problem in problems { Terminal.error("warning: \(problem)") }
    }

    struct Listing: Encodable {
        var pending: [ClipMetadata]
        var saved: [ClipMetadata]
        var problems: [String]
    }
}

struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile", abstract: "Stitch clips into a highlight reel.",
        discussion: """
              cgame compile a.mp4 b.mp4 c.mp4 -o reel.mp4
              cgame compile --all -o reel.mp4 --title "Best of the week" --length 45
              cgame compile --all -o reel.mp4 --transition none     (hard cuts; stream copy when possible)
            """)

    @Argument(help: "Clip files or clip ids.")
    var clips: [String] = []
    @Flag(help: "Use every saved and pending clip, oldest first.")
    var all = false
    @Option(name: .shortAndLong, help: "The reel (MP4).")
    var output: String
    @Option(help: "crossfade, dipToBlack or none.")
    var transition = "crossfade"
    @Option(help: "Transition length in seconds.")
    var transitionDuration: Double = 0.5
    @Option(help: "Title card text.")
    var title: String?
    @Option(help: "Fit the reel into this many seconds by trimming each clip around its events.")
    var length: Double?
    @OptionGroup var store: ClipStoreOption
    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let clipStore = try store.open()
        let known = clipStore.loadSavedClips() + clipStore.loadPendingClipMetadata()
        var items: [VideoCompiler.Item] = []
        if all {
            items = known.sorted { $0.timestamp < $1.timestamp }.map(Self.item)
        }
        for name in clips {
            if let clip = known.first(where: { $0.id == name || $0.id.hasPrefix(name) && name.count >= 6 }) {
                items.append(Self.item(clip))
            } else if FileManager.default.fileExists(atPath: name) {
                items.append(VideoCompiler.Item(path: name))
            } else {
                throw ValidationError("no clip file or clip id '\(name)'")
            }
        }
        guard !items.isEmpty else { throw ValidationError("give clip files or ids, or --all") }
        let kind: Transition.Kind?
        if transition == "none" {
            kind = nil
        } else if let parsed = Transition.Kind(rawValue: transition) {
            kind = parsed
        } else {
            throw ValidationError("--transition must be crossfade, dipToBlack or none")
        }
        let options = VideoCompiler.Options(
            transition: kind, transitionDuration: transitionDuration, title: title, targetDuration: length)
        let bar = Terminal.ProgressBar("Compiling \(items.count) clips")
        let result = try VideoCompiler.compile(items, to: output, options: options, progress: { bar.update($0) })
        bar.finish()
        if json {
            try printJSON(result)
        } else {
            print("wrote \(output): \(clock(result.duration)), \(result.videoFrames) frames, \(result.mode.rawValue)")
        }
    }

    static func item(_ clip: ClipMetadata) -> VideoCompiler.Item {
        let offsets = clip.eventOffsets
        let focus = offsets.isEmpty ? nil : (offsets.first! + offsets.last!) / 2
        return VideoCompiler.Item(path: clip.localPath, focus: focus)
    }
}

struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles", abstract: "List, show and check game profiles.",
        discussion: """
            Add a game by writing a JSON profile into $CGAME_HOME/profiles/ (start from `cgame profiles show
            fortnite`), then check it with `cgame profiles validate FILE`.
            """,
        subcommands: [List.self, Show.self, Validate.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every profile, shipped and your own.")
        @Flag(help: "Print as JSON.") var json = false
        func run() throws {
            let (profiles, errors) = ProfileLibrary.allProfiles(userDirectory: ProfileLibrary.userDirectory)
            if json {
                try printJSON(profiles)
            } else {
                for profile in profiles {
                    let events = profile.events.map(\.type).joined(separator: ", ")
                    let aliases = profile.aliases.isEmpty ? "" : " (\(profile.aliases.joined(separator: ", ")))"
                    print("\(profile.name)\(aliases): \(events)")
                }
            }
            for error in errors { Terminal.error("warning: \(error)") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a profile as JSON (a template).")
        @Argument(help: "Name, alias or file.") var name: String
        func run() throws { print(try ProfileLibrary.profile(named: name).json()) }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a profile file; errors name the field.")
        @Argument(help: "Profile JSON files.") var files: [String]
        func run() throws {
            var failed = false
            for file in files {
                do {
                    let profile = try ProfileLibrary.load(file)
                    print("\(file): ok (\(profile.name), \(profile.events.count) event rules)")
                } catch {
                    Terminal.error("\(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}

struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show or change your settings.",
        discussion: "  cgame settings --game apex --pre-roll 6 --post-roll 2")

    @Option(help: "Active game profile.") var game: String?
    @Option(help: "Video quality: \(UserSettings.qualities.joined(separator: ", ")).") var quality: String?
    @Option(help: "Seconds before the first event.") var preRoll: Double?
    @Option(help: "Seconds after the last event.") var postRoll: Double?
    @Flag(help: "Print as JSON.") var json = false

    func run() throws {
        var settings = try UserSettings.load()
        let changing = game != nil || quality != nil || preRoll != nil || postRoll != nil
        if let game { settings.gameProfileName = try ProfileLibrary.profile(named: game).name }
        if let quality { settings.videoQuality = quality }
        if let preRoll { settings.preRollDuration = preRoll }
        if let postRoll { settings.postRollDuration = postRoll }
        if changing { try settings.save() }
        if json {
            try printJSON(settings)
        } else {
            print(
                """
                game        \(settings.gameProfileName)
                quality     \(settings.videoQuality)
                pre-roll    \(settings.preRollDuration) s
                post-roll   \(settings.postRollDuration) s
                """)
        }
    }
}

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Upload pending clips to a CameraCore server.",
        discussion: """
            A clip stays pending until the server confirms it has the whole file, so a dropped
            connection only means the next `cgame sync` sends it again (never twice on the server).

              echo "$PASSWORD" | cgame sync --server http://127.0.0.1:8080 --email me@example.com --password-stdin
              CAMERACORE_TOKEN=… cgame sync --server https://cameracore.example.com --json
            """)

    @OptionGroup var store: ClipStoreOption
    @Option(help: "The server's base URL.") var server = "http://127.0.0.1:8080"
    @Option(help: "Account e-mail (with --password-stdin); or set CAMERACORE_TOKEN.") var email: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let clips = try store.open()
        let client: ClipSync
        if let email {
            guard passwordStdin, let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("--email needs the password on standard input (--password-stdin)")
            }
            client = try await ClipSync.signIn(server: server, email: email, password: password)
        } else if let token = ProcessInfo.processInfo.environment["CAMERACORE_TOKEN"], !token.isEmpty {
            client = ClipSync(server: server, accessToken: token)
        } else {
            throw ValidationError("sign in with --email and --password-stdin, or set CAMERACORE_TOKEN")
        }
        let quiet = json
        let report = await client.upload(from: clips) { clip, ok in
            if !quiet { print("\(ok ? "uploaded" : "kept pending") \(clip.name) (\(clip.id))") }
        }
        if json {
            try printJSON(report)
        } else {
            for failure in report.failed { Terminal.error("\(failure.id): \(failure.reason)") }
            print("\(report.uploaded.count) uploaded, \(report.failed.count) still pending")
        }
        if !report.failed.isEmpty { throw ExitCode(1) }
    }
}

struct OCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr", abstract: "Read the text in a screenshot's profile region (to tune a profile).",
        discussion: "  cgame ocr screenshot.png --profile fortnite --save prepared.png")

    @Argument(help: "A PNG or JPEG screenshot.") var image: String
    @Option(help: "Profile whose region and options to use (default: the whole image).") var profile: String?
    @Option(help: "Write the prepared black-on-white crop here, to see what Tesseract sees.") var save: String?
    @Flag(help: "Print as JSON.") var json = false

    func run() throws {
        let frame = try ImageDecoder.load(image, format: .rgba)
        let chosen = try profile.map { try ProfileLibrary.profile(named: $0) }
        let region = chosen?.region ?? NormalizedRect(x: 0, y: 0, width: 1, height: 1)
        let options = chosen?.recognitionOptions ?? RecognitionOptions()
        guard let prepared = try TextPreprocessor.prepare(frame, region: region, options: options) else {
            Terminal.status("nothing text-like in the region (no stroke-like contrast)")
            if json { try printJSON(OCRReport(observations: [], events: [])) }
            return
        }
        if let save { try ImageEncoder.write(prepared, to: save) }
        let observations = try TesseractRecognizer().recognize(prepared, options: options)
        let matches = chosen?.events(in: observations) ?? []
        if json {
            try printJSON(OCRReport(observations: observations, events: matches))
            return
        }
        for observation in observations {
            print("\(Int((observation.confidence * 100).rounded()))%  \(observation.text)")
        }
        for match in matches { print("→ \(match.type): \(match.text)") }
    }

    struct OCRReport: Encodable {
        var observations: [TextObservation]
        var events: [EventMatch]
    }
}
