import CameraCommon
import CameraIO
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The live coaching loop (the spec's training screen without the screen): reads a stream or file,
/// counts each shot as it is decided, asks the coach in the background — Gemini Live, then REST
/// through our server, then the local tips — and speaks the answer.
///
/// Decoding never waits for the network: answers are picked up at media time by the next frame,
/// so a file is analysed as fast as it decodes and a stream in real time.
public final class LiveCoachingSession {
    /// One decided shot with its tip, as `lebot live --json` prints it.
    public struct ShotReport: Codable, Sendable {
        public var shot: ShotEvent
        public var tip: String?
        /// `gemini-live`, `gemini-rest`, `proxy` or `local`.
        public var tipSource: String
        /// Why a coach further down the chain answered.
        public var problems: [String]
        public var stats: TrainingSession.Stats
        /// Seconds from the shot being decided to its tip being ready.
        public var answerSeconds: Double

        init(
            _ shot: ShotEvent, _ answer: FallbackShotAnalyzer.Answer, sources: [String], stats: TrainingSession.Stats
        ) {
            answerSeconds = answer.seconds
            var compact = shot
            compact.trajectory = nil
            self.shot = compact
            tip = answer.response.tip
            tipSource = answer.source.map { sources[$0] } ?? "local"
            problems = answer.errors.map(\.description)
            self.stats = stats
        }
    }

    /// What a finished session reports.
    public struct Summary: Sendable {
        public var stats: TrainingSession.Stats
        /// Seconds of media read.
        public var duration: Double
        /// Every shot, the rim used and how it was found.
        public var analysis: WorkoutAnalysis
        /// The tips, one per shot in order.
        public var tips: [String]
    }

    private let rim: RimGiven?
    private let coach: BackgroundCoach
    private let speaker: (any SpeechSynthesizer)?
    private let sources: [String]

    /// - Parameters:
    ///   - chain: the remote coaches to ask in order (see ``remoteChain(proxy:sessionToken:)``);
    ///     empty for local tips only.
    ///   - speaker: speaks each tip; nil for a silent session.
    /// - Parameter rim: the rim's box; a point on it, for the ring there to be fitted on the first
    ///   frames; nil to find it in the first seconds of the source.
    public init(
        rim: RimGiven?, tips: CoachingTips, chain: [any ShotAnalyzing], speaker: (any SpeechSynthesizer)?,
        seed: UInt64 = UInt64(Date.now.timeIntervalSince1970)
    ) {
        self.rim = rim
        self.speaker = speaker
        sources = chain.map(\.sourceName)
        coach = BackgroundCoach(
            chain: FallbackShotAnalyzer(chain: chain), tips: CoachingTipsManager(tips: tips, seed: seed))
    }

    /// The remote coaches behind our server: Gemini Live at Gemini's own endpoint (`liveBase`)
    /// with ephemeral tokens from the server, then REST through the server.
    public static func remoteChain(
        proxy: String, sessionToken: String, liveBase: String = GeminiConfiguration().liveBase
    ) -> [any ShotAnalyzing] {
        let auth = SessionAuthService(base: proxy, sessionToken: sessionToken)
        return [
            GeminiLiveClient(
                credential: .ephemeral(auth),
                configuration: GeminiConfiguration(liveBase: liveBase, timeout: .seconds(8))),
            ProxyShotClient(base: proxy, sessionToken: sessionToken),
        ]
    }

    /// Gemini directly with an API key (development only: the key is on this machine): Live, then
    /// REST.
    public static func directChain(apiKey: String, configuration: GeminiConfiguration) -> [any ShotAnalyzing] {
        var live = configuration
        live.timeout = .seconds(8)
        return [
            GeminiLiveClient(credential: .apiKey(apiKey), configuration: live),
            GeminiRESTClient(apiKey: apiKey, configuration: configuration),
        ]
    }

    /// Runs until the source ends (or fails). `onShot` is called once per decided shot, with its tip,
    /// on the decoding thread; answers that arrive after the last frame are waited for (10 s at most).
    ///
    /// - Throws: ``MediaError`` when the source cannot be opened or read.
    ///
    /// It blocks the calling thread until the source ends: run it on a thread of its own.
    public func run(
        source: MediaSource, readerOptions: ReaderOptions? = nil, onRim: (RimFinder.Result) -> Void = { _ in },
        onFit: (RimFinder.Fit) -> Void = { _ in }, onCue: (BallCue) -> Void = { _ in },
        onShot: @escaping (ShotReport) -> Void
    ) throws(MediaError) -> Summary {
        let session = TrainingSession()
        try? session.start()
        var selector = SmartFrameSelector()
        let coach = self.coach
        let speaker = self.speaker
        let sources = self.sources
        var tips: [Int: String] = [:]
        let report = { (shot: ShotEvent, answer: FallbackShotAnalyzer.Answer) in
            let shotReport = ShotReport(shot, answer, sources: sources, stats: session.stats)
            tips[shot.number] = shotReport.tip ?? ""
            onShot(shotReport)
        }
        var analyzer = WorkoutAnalyzer(rim: rim?.box)
        analyzer.rimPoint = rim?.point
        analyzer.readerOptions = readerOptions
        let analysis = try analyzer.analyze(
            source: source,
            onShot: { shot in
                try? session.shotDetected(shot)
                let images = (try? selector.jpegs(for: shot)) ?? []
                coach.ask(shot: shot, images: images, streak: session.stats.streak)
            }, onRim: onRim, onFit: onFit, onCue: onCue,
            frameHandler: { frame, time, _ in
                selector.add(frame, at: time)
                session.tick(time)
                for (shot, answer) in coach.takeAnswers() {
                    try? session.analysisFinished(answer.response, for: shot, at: time)
                    report(shot, answer)
                    if let speaker, let tip = answer.response.tip {
                        // The numbers first (short), then the coach's tip.
                        let numbers = shot.numbersInWords.map { "\($0). " } ?? ""
                        try? speaker.speak(numbers + tip, style: .forOutcome(shot.outcome))
                    }
                }
            })
        for (shot, answer) in coach.drain() {
            try? session.analysisFinished(answer.response, for: shot, at: analysis.duration)
            report(shot, answer)
        }
        return Summary(
            stats: session.stats, duration: analysis.duration, analysis: analysis,
            tips: analysis.shots.map { tips[$0.number] ?? "" })
    }
}

/// Asks the coach in the background so decoding never waits for the network; answers are picked
/// up on the decoding thread, at media time, by the next frame.
final class BackgroundCoach: Sendable {
    private let chain: FallbackShotAnalyzer
    struct State {
        var tips: CoachingTipsManager
        var answers: [(ShotEvent, FallbackShotAnalyzer.Answer)] = []
        /// Shots asked about and not answered yet, by number, with the streak they were asked with.
        var pending: [Int: (shot: ShotEvent, streak: Int)] = [:]
    }
    private let state: Mutex<State>

    init(chain: FallbackShotAnalyzer, tips: CoachingTipsManager) {
        self.chain = chain
        state = Mutex(State(tips: tips))
    }

    func ask(shot: ShotEvent, images: [[UInt8]], streak: Int) {
        state.withLock { $0.pending[shot.number] = (shot, streak) }
        let request = ShotAnalysisRequest(shot: shot, images: images)
        Task {
            var tips = state.withLock { $0.tips }
            let answer = await chain.analyze(request, shot: shot, tips: &tips, streak: streak)
            state.withLock {
                // Answered already (locally, when the session ended first): keep that one.
                guard $0.pending.removeValue(forKey: shot.number) != nil else { return }
                $0.tips = tips
                $0.answers.append((shot, answer))
            }
        }
    }

    func takeAnswers() -> [(ShotEvent, FallbackShotAnalyzer.Answer)] {
        state.withLock { state in
            defer { state.answers = [] }
            return state.answers
        }
    }

    /// Waits for outstanding answers (at most `seconds`) and returns them; shots still unanswered
    /// then get a local tip, so every shot is reported.
    func drain(seconds: Double = 10) -> [(ShotEvent, FallbackShotAnalyzer.Answer)] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !state.withLock({ $0.pending.isEmpty }), ContinuousClock.now < deadline {
            usleep(20_000)
        }
        return state.withLock { state in
            for (_, waiting) in state.pending.sorted(by: { $0.key < $1.key }) {
                let shot = waiting.shot
                let tip = state.tips.tip(for: CoachingContext(shot, streak: waiting.streak))
                state.answers.append(
                    (
                        shot,
                        FallbackShotAnalyzer.Answer(
                            response: ShotAnalysisResponse(outcome: shot.outcome, tip: tip), source: nil,
                            errors: [.timedOut], seconds: seconds)
                    ))
            }
            state.pending = [:]
            defer { state.answers = [] }
            return state.answers.sorted { $0.0.number < $1.0.number }
        }
    }
}
