import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real game as a test peer: an OpenArena (Debian's `openarena`, a Quake III-engine shooter) bot
/// match on its own Xvfb display, the screen following one bot, and every frag taken from the
/// game's own log with the time it happened (`openarena_match.py`). `scripts/install-deps.sh`
/// installs the game and Xvfb. The game renders in software: about one core at 1280×720.
public final class OpenArenaMatch: @unchecked Sendable {
    // @unchecked: `process` and `input` are set by start() and cleared by stop(), both from the owning
    // test; `frags` is behind its Mutex.

    /// One kill from the game's log.
    public struct Frag: Sendable, Codable, Equatable {
        public var attacker: String
        public var victim: String
        /// The game's means of death, e.g. `MOD_ROCKET`.
        public var means: String
        /// This machine's clock when the game wrote the line (seconds since 1970).
        public var wallclock: Double

        public init(attacker: String, victim: String, means: String, wallclock: Double) {
            self.attacker = attacker
            self.victim = victim
            self.means = means
            self.wallclock = wallclock
        }

        /// A frag the player made: not a suicide, not the world's (lava, falling).
        public func isFrag(by player: String) -> Bool { attacker == player && victim != player }
    }

    public let display: Int
    public let width: Int
    public let height: Int
    public let map: String
    public let followed: String
    public let bots: [String]
    /// Where the game keeps its configuration and log.
    public let home: String
    /// When the screen began to follow the bot (this machine's clock).
    public private(set) var readyAt: Double?
    private var process: Process?
    private var input: Pipe?
    private let frags = Mutex<[Frag]>([])
    private let errors = Mutex<String>("")

    public static let gamePath = "/usr/games/openarena"

    /// - Parameter display: an X display number nothing else uses (the test's own).
    public init(
        display: Int, width: Int = 1280, height: Int = 720, map: String = "oa_dm4", followed: String = "Sarge",
        bots: [String] = ["Sarge", "Grism", "Angelyss", "Kyonshi", "Major", "Gargoyle", "Sorceress"]
    ) {
        self.display = display
        self.width = width
        self.height = height
        self.map = map
        self.followed = followed
        self.bots = bots
        self.home = NSTemporaryDirectory() + "openarena-" + UUID().uuidString.lowercased()
    }

    deinit { stop() }

    /// The X display, as FFmpeg's x11grab names it (`:N`).
    public var displayName: String { ":\(display)" }

    /// Starts the match and returns once the screen follows the bot (typically 10–20 s).
    ///
    /// - Throws: ``TestPeerError`` when the game or Xvfb is not installed, or the match does not start.
    public func start() throws {
        guard process == nil else { return }
        for (path, package) in [(Self.gamePath, "openarena"), ("/usr/bin/Xvfb", "xvfb")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw TestPeerError("\(path) is missing: run scripts/install-deps.sh (Debian package \(package))")
        }
        guard let script = Bundle.module.path(forResource: "openarena_match", ofType: "py") else {
            throw TestPeerError("openarena_match.py is missing from the CameraTestPeers bundle")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            script, "--display", String(display), "--width", String(width), "--height", String(height), "--map", map,
            // The followed bot plays at the top skill and the others at the lowest, so it frags
            // often (multi-frags within a few minutes).
            "--follow", followed, "--bots", bots.map { $0 + ($0 == followed ? ":5" : ":1") }.joined(separator: ","),
            "--home", home,
        ]
        let output = Pipe()
        let errorOutput = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        // The script stops when this pipe closes, so a crashed test leaves no game running.
        process.standardInput = input
        try process.run()
        self.process = process
        self.input = input
        errorOutput.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.errors.withLock { $0 += text }
        }
        let ready = Ready()
        output.fileHandleForReading.readabilityHandler = { [weak self, ready] handle in
            let chunk = handle.availableData
            let lines: [Data] = ready.pending.withLock { buffer in
                buffer.append(chunk)
                var lines: [Data] = []
                while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(buffer[buffer.startIndex..<end])
                    buffer.removeSubrange(buffer.startIndex...end)
                }
                return lines
            }
            for line in lines {
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                    let wallclock = object["wallclock"] as? Double
                else { continue }
                if object["ready"] != nil { ready.at.withLock { $0 = wallclock } }
                if let kill = object["kill"] as? [String: Any], let attacker = kill["attacker"] as? String,
                    let victim = kill["victim"] as? String
                {
                    let frag = Frag(
                        attacker: attacker, victim: victim, means: kill["means"] as? String ?? "", wallclock: wallclock)
                    self?.frags.withLock { $0.append(frag) }
                }
            }
        }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, process.isRunning, ready.at.withLock({ $0 }) == nil { usleep(100_000) }
        guard let at = ready.at.withLock({ $0 }) else {
            let said = errors.withLock { $0 }
            stop()
            throw TestPeerError("the OpenArena match did not start: \(said.suffix(600))")
        }
        readyAt = at
    }

    /// Every kill logged since the screen began to follow the bot.
    public var kills: [Frag] { frags.withLock { $0 } }

    /// The followed bot's frags (what its screen announces with "You fragged NAME").
    public var followedFrags: [Frag] { kills.filter { $0.isFrag(by: followed) } }

    /// Whether the game is still running.
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Stops the game and its display (the script's own clean-up), SIGKILL after 15 s.
    public func stop() {
        guard let process else { return }
        self.process = nil
        // The script takes the game, its display and the recorder down first.
        TestPeer.stop(process, grace: 15)
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        try? input?.fileHandleForWriting.close()
        input = nil
        try? FileManager.default.removeItem(atPath: home)
    }
}

/// What the script's output says while it starts: when the screen began to follow the bot, and a
/// partial line.
private final class Ready: Sendable {
    let at = Mutex<Double?>(nil)
    let pending = Mutex(Data())
}

/// Scores what a highlight detector reported against the frags in a game's log.
public enum FragScore {
    /// A reported event: its time in seconds on the same clock as the frags', and the text read.
    public struct Report: Sendable {
        public var time: Double
        public var text: String
        public init(time: Double, text: String) {
            self.time = time
            self.text = text
        }
    }

    public struct Result: Sendable, CustomStringConvertible {
        public var frags: Int
        public var reported: Int
        public var found: Int
        /// Reported events that name the frag's victim.
        public var named: Int
        /// Worst |reported − logged| among found frags, seconds.
        public var worstError: Double
        /// Each found frag's logged time with the time of the report paired with it.
        public var pairs: [(frag: Double, report: Double)]
        /// Frags nothing was reported for, and reports that match no frag (for the failure message).
        public var missed: [String]
        public var extra: [String]

        public var precision: Double { reported == 0 ? 1 : Double(found) / Double(reported) }
        public var recall: Double { frags == 0 ? 1 : Double(found) / Double(frags) }
        public var description: String {
            "\(found)/\(frags) frags found, \(reported) reported (precision "
                + String(format: "%.2f", precision) + ", recall " + String(format: "%.2f", recall)
                + ", \(named) named the victim, worst time error " + String(format: "%.2f", worstError) + " s)"
                + (missed.isEmpty ? "" : "; missed: " + missed.joined(separator: ", "))
                + (extra.isEmpty ? "" : "; extra: " + extra.joined(separator: ", "))
        }
    }

    /// Pairs reports with frags one to one, in time order: a report counts for a frag when it comes
    /// between `early` seconds before and `late` seconds after the logged time. The game logs a frag
    /// when its server decides it and shows it a snapshot and a rendered frame later: rendering in
    /// software at ~7 frames a second, 0.5–1.25 s later on the recordings, where the screen's
    /// timestamps are exact (frames inspected by hand: the print appears 0.6 s after the log).
    public static func score(
        frags: [(time: Double, victim: String)], reports: [Report], early: Double = 0.3, late: Double = 1.5
    ) -> Result {
        var used = Set<Int>()
        var found = 0
        var named = 0
        var worst = 0.0
        var missed: [String] = []
        var pairs: [(frag: Double, report: Double)] = []
        for frag in frags.sorted(by: { $0.time < $1.time }) {
            let candidates = reports.indices.filter { index in
                !used.contains(index) && reports[index].time >= frag.time - early
                    && reports[index].time <= frag.time + late
            }
            // Prefer the report that names the victim, then the closest in time.
            let best = candidates.min { a, b in
                let nameA = reports[a].text.lowercased().contains(frag.victim.lowercased())
                let nameB = reports[b].text.lowercased().contains(frag.victim.lowercased())
                if nameA != nameB { return nameA }
                return abs(reports[a].time - frag.time) < abs(reports[b].time - frag.time)
            }
            guard let best else {
                missed.append(String(format: "%@ at %.1f s", frag.victim, frag.time))
                continue
            }
            used.insert(best)
            pairs.append((frag.time, reports[best].time))
            found += 1
            if reports[best].text.lowercased().contains(frag.victim.lowercased()) { named += 1 }
            worst = max(worst, abs(reports[best].time - frag.time))
        }
        let extra = reports.indices.filter { !used.contains($0) }.map {
            String(format: "\"%@\" at %.1f s", reports[$0].text, reports[$0].time)
        }
        return Result(
            frags: frags.count, reported: reports.count, found: found, named: named, worstError: worst, pairs: pairs,
            missed: missed, extra: extra)
    }

    /// What the screen can show: frags logged within `within` seconds of each other (one rocket,
    /// two victims) make one centre print, naming the last; they count as one announcement.
    public static func announcements(_ frags: [(time: Double, victim: String)], within: Double = 0.3) -> [(
        time: Double, victim: String
    )] {
        var result: [(time: Double, victim: String)] = []
        for frag in frags.sorted(by: { $0.time < $1.time }) {
            if let last = result.last, frag.time - last.time <= within {
                result[result.count - 1].victim = frag.victim
            } else {
                result.append(frag)
            }
        }
        return result
    }
}
