import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit
import Synchronization

@main
struct LeBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lebot",
        abstract: "LeBot James, a basketball coach: counts shots, calls makes and misses, gives tips.",
        discussion: """
            Tell it where the rim is with --rim x,y,width,height: a box around the rim as fractions of the
            frame (0-1, from the top left). Pause a video on a frame and read it off, or use `lebot rim`.

              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02
              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02 --json > shots.json
              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02 --chart chart.svg
              lebot live rtsp://192.168.1.30/stream --rim 0.85,0.42,0.08,0.02    counts and speaks tips
              lebot live cam.mp4 --rim … --proxy http://localhost:8080 --session-token $TOKEN   with Gemini
              lebot tips validate my_tips.json
            """,
        subcommands: [AnalyzeCommand.self, LiveCommand.self, TipsCommand.self]
    )
}

struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze", abstract: "Find every shot in a workout video: time, make or miss, entry angle.",
        discussion: """
            Prints each shot as it is decided and a summary. With --chart, draws release points coloured by
            outcome (SVG, or PNG when the name ends in .png). Exit status 0 even when no shot is found.
            """)

    @Argument(help: "A video file.") var video: String
    @Option(help: "The rim box: x,y,width,height as fractions of the frame (origin top left).") var rim: String
    @Option(help: "Write a shot chart here (.svg or .png).") var chart: String?
    @Option(help: "Write an annotated video here (.mp4): rim, ball path, count, outcome.") var annotate: String?
    @Option(help: "Decoder threads (0: automatic).") var threads: Int = 0
    @Flag(help: "Print as JSON.") var json = false

    func run() async throws {
        let calibration: RimCalibration
        do {
            calibration = try RimCalibration(parsing: rim)
        } catch {
            throw ValidationError(error.message)
        }
        let analyzer = WorkoutAnalyzer(rim: calibration, threads: threads)
        let bar = Terminal.ProgressBar("analysing", enabled: !json && Terminal.stderrIsTerminal)
        let quiet = json
        var table = TextTable(headers: ["#", "release", "outcome", "entry angle", "apex above rim", "why"])
        let analysis: WorkoutAnalysis
        var annotator: ShotAnnotator?
        do {
            analysis = try analyzer.analyze(
                video, progress: { bar.update($0) },
                onShot: { shot in
                    if !quiet { Terminal.status(Self.line(shot)) }
                    table.rows.append(Self.row(shot))
                    annotator?.add(shot)
                },
                frameHandler: annotate.map { path in
                    { frame, time, observations in
                        if annotator == nil {
                            let rate = (try? MediaReader(.file(video)))?.videoStream?.frameRate
                            let fps =
                                rate.map { Int((Double($0.numerator) / Double(max(1, $0.denominator))).rounded()) }
                                ?? 30
                            annotator = try? ShotAnnotator(
                                path: path, width: frame.width, height: frame.height, frameRate: max(1, fps),
                                rim: calibration)
                        }
                        try? annotator?.write(frame, time: time, observations: observations)
                    }
                })
            try annotator?.finish()
        } catch {
            bar.finish()
            throw ValidationError(error.description)
        }
        bar.finish()
        if let annotate, annotator?.frames != analysis.frames {
            throw ValidationError("could not write every frame of \(annotate)")
        }
        if let chart {
            try ShotChart(analysis: analysis).write(to: chart)
        }
        if json {
            try printJSON(analysis)
            return
        }
        if !table.rows.isEmpty { print(table.rendered) }
        let percentage = analysis.fieldGoalPercentage.map { " (\(Int(($0 * 100).rounded())) %)" } ?? ""
        print(
            "\(analysis.attempts) attempt\(analysis.attempts == 1 ? "" : "s"): \(analysis.makes) made, \(analysis.misses) missed\(percentage)\(analysis.indeterminate > 0 ? ", \(analysis.indeterminate) unclear" : "") in \(clock(analysis.duration)) of video (analysed in \(String(format1: analysis.processingSeconds)) s)."
        )
        if analysis.attempts == 0 {
            print("No shots found. Check --rim: it should box the rim itself, e.g. 0.85,0.42,0.08,0.02.")
        }
        if let chart { print("Shot chart: \(chart)") }
        if let annotate { print("Annotated video: \(annotate)") }
    }

    static func line(_ shot: ShotEvent) -> String {
        "shot \(shot.number) at \(clock(shot.releaseTime)): \(shot.outcome.rawValue.lowercased()) — \(shot.reason)"
    }

    static func row(_ shot: ShotEvent) -> [String] {
        [
            String(shot.number), clock(shot.releaseTime), shot.outcome.rawValue,
            shot.entryAngle.map { "\(Int($0.rounded()))°" } ?? "-",
            "\(Int((shot.apexHeight * 100).rounded())) % of frame", shot.reason,
        ]
    }
}

struct TipsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tips", abstract: "Check or show coaching tips files (coaching_tips.json).",
        subcommands: [Validate.self, Show.self])

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check a tips file: the four lists (tips, encouragement, makes, misses), no blank or overlong tips.")
        @Argument(help: "A coaching_tips.json file.") var file: String
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            let tips: CoachingTips
            do {
                tips = try CoachingTips.load(file)
            } catch {
                throw ValidationError(error.description)
            }
            if json {
                try printJSON(tips)
            } else {
                print(
                    "\(file): \(tips.count) tips (\(tips.tips.count) tips, \(tips.encouragement.count) encouragement, \(tips.makes.count) makes, \(tips.misses.count) misses). OK."
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the tips that ship with LeBot, as a starting point for your own file.")

        func run() async throws {
            try printJSON(CoachingTips.standard)
        }
    }
}

struct LiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "Run a training session on a camera or stream: live counters and spoken tips.",
        discussion: """
            Each shot is counted as it is decided and gets a tip: from Gemini through the CameraCore server
            (--proxy with a session token: Live over WebSocket first, then REST), or from the local tips when
            there is no server or it cannot be reached. Tips are spoken with espeak-ng unless --quiet.
            A file works too (it is read as fast as it decodes). Ctrl-C ends the session with a summary.
            """)

    @Argument(help: "rtsp://…, another stream URL, or a video file.") var source: String
    @Option(help: "The rim box: x,y,width,height as fractions of the frame.") var rim: String
    @Option(help: "CameraCore server for AI tips, e.g. http://localhost:8080.") var proxy: String?
    @Option(help: "Session token for --proxy (default: $LEBOT_SESSION_TOKEN).") var sessionToken: String?
    @Option(help: "Coaching tips file (default: the built-in tips).") var tips: String?
    @Flag(help: "Do not speak.") var quiet = false
    @Flag(help: "Print one JSON object per shot (and a summary at the end).") var json = false

    struct ShotLine: Codable {
        var shot: ShotEvent
        var tip: String?
        var tipSource: String
        /// Why a coach further down the chain answered.
        var problems: [String]
        var stats: TrainingSession.Stats

        init(_ shot: ShotEvent, _ answer: FallbackShotAnalyzer.Answer, stats: TrainingSession.Stats) {
            var compact = shot
            compact.trajectory = nil
            self.shot = compact
            tip = answer.response.tip
            tipSource = answer.source.map { ["gemini-live", "proxy"][$0] } ?? "local"
            problems = answer.errors.map(\.description)
            self.stats = stats
        }
    }

    func run() async throws {
        let calibration: RimCalibration
        let coachingTips: CoachingTips
        do {
            calibration = try RimCalibration(parsing: rim)
            coachingTips = try tips.map { path throws(MediaError) in try CoachingTips.load(path) } ?? .standard
        } catch {
            throw ValidationError(error.description)
        }
        let token = sessionToken ?? ProcessInfo.processInfo.environment["LEBOT_SESSION_TOKEN"]
        var chain: [any ShotAnalyzing] = []
        if let proxy {
            guard let token else { throw ValidationError("--proxy needs --session-token or $LEBOT_SESSION_TOKEN") }
            let auth = SessionAuthService(base: proxy, sessionToken: token)
            let liveBase = proxy.replacing("https://", with: "wss://").replacing("http://", with: "ws://")
            chain.append(
                GeminiLiveClient(
                    credential: .ephemeral(auth),
                    configuration: GeminiConfiguration(liveBase: liveBase, timeout: .seconds(8))))
            chain.append(ProxyShotClient(base: proxy, sessionToken: token))
        }
        let coach = Coach(
            chain: FallbackShotAnalyzer(chain: chain),
            tips: CoachingTipsManager(tips: coachingTips, seed: UInt64(Date.now.timeIntervalSince1970)))
        let speaker: (any SpeechSynthesizer)? = quiet ? nil : EspeakSynthesizer()
        let isURL = source.contains("://")
        let mediaSource: MediaSource = isURL ? .url(source) : .file(source)
        let session = TrainingSession()
        try? session.start()
        var selector = SmartFrameSelector()
        let printJSONLines = json
        let analyzer = WorkoutAnalyzer(rim: calibration)
        let summary: WorkoutAnalysis
        do {
            summary = try analyzer.analyze(
                source: mediaSource,
                onShot: { shot in
                    try? session.shotDetected(shot)
                    let images = (try? selector.jpegs(for: shot)) ?? []
                    coach.ask(shot: shot, images: images, streak: session.stats.streak)
                },
                frameHandler: { frame, time, _ in
                    selector.add(frame, at: time)
                    session.tick(time)
                    for (shot, answer) in coach.takeAnswers() {
                        try? session.analysisFinished(answer.response, at: time)
                        let line = ShotLine(shot, answer, stats: session.stats)
                        if printJSONLines {
                            printJSONLine(line)
                        } else {
                            print(
                                "shot \(shot.number) at \(clock(shot.releaseTime)): \(shot.outcome.rawValue.lowercased())  —  \(session.stats.makes)/\(session.stats.attempts)  \(answer.response.tip ?? "")"
                            )
                        }
                        if let speaker, let tip = answer.response.tip {
                            try? speaker.speak(tip, style: .forOutcome(shot.outcome))
                        }
                    }
                })
        } catch {
            throw ValidationError(error.description)
        }
        // Answers that arrive after the last frame.
        for (shot, answer) in await coach.drain() {
            try? session.analysisFinished(answer.response, at: summary.duration)
            if printJSONLines { printJSONLine(ShotLine(shot, answer, stats: session.stats)) }
        }
        let stats = session.stats
        if json {
            printJSONLine(stats)
        } else {
            print(
                "Session: \(stats.makes) of \(stats.attempts) made, best streak \(stats.bestStreak), \(clock(summary.duration)) of video."
            )
        }
    }
}

/// Asks the coach in the background so decoding never waits for the network; answers are picked
/// up on the decoding thread, at media time, by the next frame.
final class Coach: Sendable {
    private let chain: FallbackShotAnalyzer
    private let state:
        Mutex<(tips: CoachingTipsManager, answers: [(ShotEvent, FallbackShotAnalyzer.Answer)], pending: Int)>

    init(chain: FallbackShotAnalyzer, tips: CoachingTipsManager) {
        self.chain = chain
        state = Mutex((tips, [], 0))
    }

    func ask(shot: ShotEvent, images: [[UInt8]], streak: Int) {
        state.withLock { $0.pending += 1 }
        let request = ShotAnalysisRequest(prompt: ShotAnalysisRequest.prompt(for: shot), images: images)
        Task {
            var tips = state.withLock { $0.tips }
            let answer = await chain.analyze(request, shot: shot, tips: &tips, streak: streak)
            state.withLock {
                $0.tips = tips
                $0.answers.append((shot, answer))
                $0.pending -= 1
            }
        }
    }

    func takeAnswers() -> [(ShotEvent, FallbackShotAnalyzer.Answer)] {
        state.withLock { state in
            defer { state.answers = [] }
            return state.answers
        }
    }

    /// Waits for outstanding answers (at most 10 s) and returns them.
    func drain() async -> [(ShotEvent, FallbackShotAnalyzer.Answer)] {
        let deadline = ContinuousClock.now + .seconds(10)
        while state.withLock({ $0.pending }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return takeAnswers()
    }
}

/// One JSON object per line (pretty JSON folded), for `--json` streams that scripts read line by line.
func printJSONLine<T: Encodable>(_ value: T) {
    if let text = try? JSON.encode(value) { print(text.replacing("\n", with: "")) }
}
