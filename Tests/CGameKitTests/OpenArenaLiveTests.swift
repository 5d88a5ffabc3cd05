import CGameKit
import CameraTestPeers
import CameraTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// CGame against a real game: an OpenArena bot match (Xvfb, software rendering), the screen
/// following one bot, `cgame run x11grab::DISPLAY --profile openarena` watching it live, and the
/// frags scored against the game's own log. Runs in `make test`'s one-at-a-time stage: the game
/// takes about one of the machine's two cores.
@Suite("OpenArena, live", .serialized)
struct OpenArenaLiveTests {
    /// A display number no X server uses.
    static func freeDisplay() throws -> Int {
        for display in 90..<140 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") {
            return display
        }
        throw TestPeerError("no free X display between :90 and :139")
    }

    /// A media time as JSON gives it: seconds, or a value over a timescale.
    static func seconds(_ json: Any?) -> Double? {
        if let seconds = json as? Double { return seconds }
        guard let object = json as? [String: Any], let value = object["value"] as? Double,
            let timescale = object["timescale"] as? Double, timescale > 0
        else { return nil }
        return value / timescale
    }

    @Test(
        "cgame run on a live OpenArena match finds the followed bot's frags in the game's log, and a multi-frag is one clip with its multi-kill name",
        .timeLimit(.minutes(8)))
    func liveMatch() throws {
        let match = OpenArenaMatch(display: try Self.freeDisplay(), map: "oa_dm4", followed: "Sarge")
        try match.start()
        defer { match.stop() }
        let home = try temporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cgameBinary)
        process.arguments = [
            "run", "x11grab:\(match.displayName)", "--profile", "openarena", "--store", home + "/store", "--json",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["CGAME_HOME": home]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collected = CollectedOutput(output: output, errors: errors)
        try process.run()
        let started = Date()
        // Watch for at least 100 s, and until the bot has made a multi-frag (the reason a highlight
        // app exists) with its cooldown passed, for at most 240 s.
        let cooldown = 5.0
        while Date().timeIntervalSince(started) < 240, process.isRunning {
            sleep(2)
            let elapsed = Date().timeIntervalSince(started)
            let times = match.followedFrags.map(\.wallclock).sorted()
            let now = Date().timeIntervalSince1970
            let multiFrag = zip(times, times.dropFirst()).contains { $1 - $0 <= 3.5 && now - $1 > cooldown + 3 }
            if elapsed >= 100, multiFrag { break }
        }
        let stoppedAt = Date().timeIntervalSince1970
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let (stdout, stderr) = collected.finish()
        #expect(process.terminationStatus == 0, "cgame run: \(stderr.suffix(800))")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "cgame run printed: \(stdout)")
        let zero = try #require(summary["wallClockStart"] as? Double)
        let events = (summary["events"] as? [[String: Any]]) ?? []
        let clips = (summary["clips"] as? [[String: Any]]) ?? []
        let statistics = (summary["statistics"] as? [String: Any]) ?? [:]
        // Frags in the capture, away from its edges (a print half-shown when capture began or ended).
        // Frags at the same instant (one rocket) show one centre print: one announcement.
        let frags = FragScore.announcements(
            match.followedFrags.filter { $0.wallclock > zero + 1 && $0.wallclock < stoppedAt - 2 }
                .map { (time: $0.wallclock - zero, victim: $0.victim) })
        let reports = events.compactMap { event -> FragScore.Report? in
            guard let time = Self.seconds(event["time"]), let text = event["text"] as? String,
                time > 0.5, time < stoppedAt - zero - 1.5
            else { return nil }
            return FragScore.Report(time: time, text: text)
        }
        // The game, rendering in software next to cgame, shows a frag 0.5–1.8 s after logging it.
        let score = FragScore.score(frags: frags, reports: reports, late: 2.5)
        let analysed = statistics["analyzed"] as? Int ?? 0
        let dropped = statistics["dropped"] as? Int ?? 0
        print(
            "OpenArena live (\(String(format: "%.0f", stoppedAt - zero)) s, \(analysed) frames read, \(dropped) dropped): \(score)"
        )
        #expect(frags.count >= 4, "the bot made only \(frags.count) frags in \(Int(stoppedAt - zero)) s")
        // Measured on this machine: recall 0.52–0.89 in the 18 runs of stops 72–73 before the
        // profile said how long a print shows (most misses were a victim fragged again within the
        // 4 s debounce, its new print taken for the old one, and frags about a second apart); with
        // it 0.79–1.00 over 4 runs, precision 0.90–1.00. The floors sit below the worst run seen:
        // this test guards that live capture finds most frags; accuracy is measured on the
        // recorded corpus (BENCHMARKS.md). A floor inside the range (0.75, until stop 25) failed a
        // CI run at recall 0.74.
        #expect(score.recall >= 0.6, "\(score)")
        #expect(score.precision >= 0.85, "\(score)")

        // Every clip is named for its number of kills (one vocabulary: Double, Triple, Quad Kill…).
        let clipEvents = clips.map { clip in
            ((clip["eventOffsets"] as? [Double]) ?? []).map { (clip["sourceStart"] as? Double ?? 0) + $0 }
        }
        for (clip, times) in zip(clips, clipEvents) {
            #expect(
                clip["name"] as? String == HighlightName.name(Array(repeating: "Kill", count: times.count)),
                "clip \(clip["name"] ?? "") holds \(times.count) events")
        }
        // A real multi-frag is one clip: two frags logged at most 3.5 s apart whose events came
        // within the 5-s cooldown have their events in the same clip — unless the clip had reached
        // its 60-s limit. The cooldown runs on what the screen showed: the game, rendering in
        // software next to cgame, shows one frag 0.5 s after logging it and the next 2 s after (a
        // CI run saw frags logged 3.1 s apart shown 5.2 s apart), and two prints that far apart on
        // screen are two highlights by the spec's rule. Such a pair is reported, not counted.
        func clip(holding time: Double) -> Int? {
            clipEvents.firstIndex { times in times.contains { abs($0 - time) < 0.01 } }
        }
        var multiFrags = 0
        var shownApart: [String] = []
        for (earlier, later) in zip(score.pairs, score.pairs.dropFirst()) where later.frag - earlier.frag <= 3.5 {
            guard let first = clip(holding: earlier.report) else {
                Issue.record("the frag logged at \(earlier.frag) s (event at \(earlier.report) s) is in no clip")
                continue
            }
            let span = (clipEvents[first].max() ?? 0) - (clipEvents[first].min() ?? 0)
            if span > 40 { continue }
            if later.report - earlier.report > cooldown {
                shownApart.append(
                    String(
                        format: "logged %.2f and %.2f s, shown %.2f and %.2f s", earlier.frag, later.frag,
                        earlier.report, later.report))
                continue
            }
            multiFrags += 1
            #expect(
                clip(holding: later.report) == first,
                "frags logged at \(earlier.frag) and \(later.frag) s (events at \(earlier.report) and \(later.report) s) made separate clips: \(clips.map { "\($0["name"] ?? "") \($0["sourceStart"] ?? "")–\($0["sourceEnd"] ?? "")" })"
            )
        }
        if !shownApart.isEmpty {
            print("OpenArena live: multi-frags the game showed more than the cooldown apart: \(shownApart)")
        }
        #expect(multiFrags > 0, "no multi-frag seen in \(Int(stoppedAt - zero)) s of play: \(score)")
    }
}

/// Drains a child's stdout and stderr as they come (a full pipe would stall it).
final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let output: Pipe
    private let errors: Pipe

    init(output: Pipe, errors: Pipe) {
        self.output = output
        self.errors = errors
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.out.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.err.append(data) }
        }
    }

    func finish() -> (String, String) {
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let restErrors = errors.fileHandleForReading.readDataToEndOfFile()
        return lock.withLock {
            (String(decoding: out + rest, as: UTF8.self), String(decoding: err + restErrors, as: UTF8.self))
        }
    }
}
