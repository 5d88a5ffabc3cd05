import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LeBotKit
import Logging
import NIOCore
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#endif

/// What the server tells the training page (one JSON text message each): `started`, `rim` (found
/// or given), `ball` (the ball is followed by its brightness from now on: it does not look orange),
/// `shot` (each shot as it is decided, with its tip and the running count), `warning`, `error`
/// (the session stops) and `done` (with the saved workout's id).
struct LiveNote: Encodable {
    var type: String
    var message: String?
    var rim: String?
    var confidence: Double?
    var evidence: String?
    /// For a rim fitted at the point given: whether a ring was clear there (false: a box of typical size).
    var fitted: Bool?
    /// How the ball is followed (`ball` and `done`): `colour` or `brightness`.
    var ballCue: String?
    var number: Int?
    var outcome: String?
    var reason: String?
    var tip: String?
    var tipSource: String?
    var entryAngle: Double?
    /// Inches past the rim's centre (negative: short), and Noah's numbers in words.
    var depth: Double?
    var numbers: String?
    var attempts: Int?
    var makes: Int?
    var streak: Int?
    /// Seconds from the shot being decided to its tip being ready.
    var answerSeconds: Double?
    var seconds: Double?
    var workoutID: String?

    var json: String { String(decoding: (try? jsonEncoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}

/// The server's own Gemini call for a live training shot, within the user's per-minute limit and
/// the server's daily budget, with the server's fixed prompt.
struct ServerGeminiCoach: ShotAnalyzing {
    let service: LeBotService
    let user: String
    var sourceName: String { "gemini" }

    func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        do {
            try service.analyzeLimiter.check(user, refusal: "AI tips rate limit reached")
            try service.budget.spend()
        } catch {
            throw .rateLimited("AI tips are used up for now")
        }
        guard let key = service.configuration.geminiAPIKey, !key.isEmpty else {
            throw .unavailable("the AI service is not configured")
        }
        let client = GeminiRESTClient(
            apiKey: key,
            configuration: GeminiConfiguration(
                restBase: service.configuration.geminiBaseURL, model: service.configuration.geminiModel,
                timeout: .seconds(8)))
        return try await client.analyze(ShotAnalysisRequest(prompt: request.facts.prompt, images: request.images))
    }
}

extension CameraCoreServer {
    var liveTrainingRoutes: [Route] {
        [
            Route(
                webSocket: "/api/lebot/live",
                summary:
                    "Live training from the phone's camera: WebM chunks in (binary messages, {\"type\":\"stop\"} ends), the rim, each shot with its tip and the saved workout out (?rim=x,y a point on the rim, fitted on the first frames; ?rim=x,y,w,h its box; default: found)"
            ) { request, context in
                let user = try context.user()
                let rim = try LeBotService.rimGiven(request)
                try self.lebot.checkRoomForWorkout(user: user)
                let session = context.sessionID ?? ""
                return { inbound, outbound in
                    try await self.liveTraining(
                        inbound: inbound, outbound: outbound, user: user, rim: rim,
                        signedOut: { self.auth.isRevoked(session) })
                }
            }
        ]
    }

    /// One live training: the page's camera chunks into a ``WebMPipe`` read by a
    /// ``LiveCoachingSession`` on a thread of its own; the rim and each shot with its tip back to
    /// the page; the workout saved to the history when it ends with at least one shot.
    func liveTraining(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, user: String, rim: RimGiven?,
        signedOut: @escaping @Sendable () -> Bool
    ) async throws {
        func send(_ note: LiveNote) async { try? await outbound.write(.text(note.json)) }
        if let refusal = liveTrainings.admit(user) {
            logger.info("live training for \(user) refused: \(refusal)")
            await send(LiveNote(type: "error", message: refusal))
            return
        }
        let place = liveTrainings.place(of: user)
        defer { place.release() }
        let folder = files.root + "/live/" + UUID().uuidString.lowercased()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pipe: WebMPipe
        do {
            try ClipFiles.folder(folder)
            pipe = try WebMPipe(folder: folder)
        } catch {
            logger.error("live training for \(user) could not start: \(error)")
            await send(
                LiveNote(type: "error", message: "the server could not start a training session; try again later"))
            return
        }
        enum Update: Sendable {
            case rim(RimFinder.Result)
            case fit(RimFinder.Fit)
            case cue(BallCue)
            case shot(LiveCoachingSession.ShotReport)
            case problem(String)
            case finished(Result<LiveCoachingSession.Summary, MediaError>)
        }
        let (updates, sink) = AsyncStream<Update>.makeStream()
        let chain: [any ShotAnalyzing] =
            (configuration.geminiAPIKey ?? "").isEmpty ? [] : [ServerGeminiCoach(service: lebot, user: user)]
        DispatchQueue(label: "lebot.live").async {
            let coaching = LiveCoachingSession(rim: rim, tips: .standard, chain: chain, speaker: nil)
            let result = Result { () throws(MediaError) in
                try coaching.run(
                    source: .file(pipe.path), readerOptions: WebMPipe.readerOptions,
                    onRim: { sink.yield(.rim($0)) }, onFit: { sink.yield(.fit($0)) },
                    onCue: { sink.yield(.cue($0)) }, onShot: { sink.yield(.shot($0)) })
            }
            pipe.readerFinished()
            sink.yield(.finished(result))
            sink.finish()
        }
        await send(LiveNote(type: "started", rim: rim?.box?.argument))
        await withThrowingTaskGroup(of: Void.self) { group in
            feed(
                &group, inbound, into: pipe.write, finish: pipe.finishInput, noun: "training session",
                signedOut: signedOut, problem: { sink.yield(.problem($0)) })
            for await update in updates {
                // Over once read: the account may start another as soon as the page hears so,
                // before this socket's tasks wind down and it is closed.
                if case .finished = update { place.release() }
                switch update {
                case .rim(let found):
                    await send(
                        LiveNote(
                            type: "rim", rim: found.rim.argument, confidence: found.confidence,
                            evidence: found.evidence))
                case .fit(let fit):
                    await send(
                        LiveNote(
                            type: "rim", rim: fit.rim.argument, confidence: fit.fitted ? fit.coverage : 0,
                            evidence: fit.evidence, fitted: fit.fitted))
                case .cue(let cue):
                    await send(
                        LiveNote(
                            type: "ball",
                            message: "the ball does not look orange, so LeBot follows it by its brightness",
                            ballCue: cue.rawValue))
                case .shot(let report):
                    await send(
                        LiveNote(
                            type: "shot", number: report.shot.number, outcome: report.shot.outcome.rawValue,
                            reason: report.shot.reason, tip: report.tip, tipSource: report.tipSource,
                            entryAngle: report.shot.entryAngle, depth: report.shot.depth,
                            numbers: report.shot.numbersInWords, attempts: report.stats.attempts,
                            makes: report.stats.makes, streak: report.stats.streak,
                            answerSeconds: report.answerSeconds))
                case .problem(let message):
                    await send(LiveNote(type: "warning", message: message))
                case .finished(.success(let summary)):
                    var saved: String?
                    if !summary.analysis.shots.isEmpty {
                        do {
                            saved = try lebot.saveLiveWorkout(summary, user: user)
                        } catch {
                            logger.error("live workout for \(user) not saved: \(error)")
                            await send(LiveNote(type: "warning", message: "the workout could not be saved"))
                        }
                    }
                    await send(
                        LiveNote(
                            type: "done", ballCue: summary.analysis.ballCue?.rawValue,
                            attempts: summary.stats.attempts, makes: summary.stats.makes, seconds: summary.duration,
                            workoutID: saved))
                case .finished(.failure(let error)):
                    logger.info("live training for \(user) ended: \(error)")
                    let message =
                        error.operation == RimFinder.operation
                        ? "LeBot could not find the hoop: tap the rim in the picture to start again with it, or point the camera at the rim, net and board and start again"
                        : "the camera stream could not be read as a WebM video (\(error.kind))"
                    await send(LiveNote(type: "error", message: message))
                }
            }
            group.cancelAll()
        }
        place.release()
        try? await outbound.close(.normalClosure, reason: nil)
    }
}

extension LeBotService {
    /// The rim the caller gave as `?rim=x,y,w,h` (a box) or `?rim=x,y` (a point on it, for the
    /// finder to fit the ring at); nil: find it. 400 naming what is wrong.
    static func rimGiven(_ request: Request) throws -> RimGiven? {
        guard let text = request.uri.queryParameters.get("rim") else { return nil }
        do {
            return try RimGiven(parsing: String(text))
        } catch {
            throw APIError(.badRequest, "rim: \(error.message)")
        }
    }

    /// Throws 409 when the account holds as many workouts as it may.
    func checkRoomForWorkout(user: String) throws {
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: files.workouts(userID: user))) ?? []
        guard kept.filter({ $0.hasSuffix(".json") }).count < configuration.maxWorkoutsPerUser else {
            throw APIError(.conflict, "at most \(configuration.maxWorkoutsPerUser) workouts per account")
        }
    }

    /// Saves a finished live training to the history (analysis, tips, chart; no video); its id.
    func saveLiveWorkout(_ summary: LiveCoachingSession.Summary, user: String) throws -> String {
        try checkRoomForWorkout(user: user)
        let id = UUID().uuidString.lowercased()
        let folder = files.workouts(userID: user)
        try ClipFiles.folder(folder)
        var analysis = summary.analysis
        analysis.source = "live"
        let result = WorkoutResult(
            id: id, analysis: analysis, tips: summary.tips, chartURL: "/api/lebot/workouts/\(id)/chart",
            videoURL: nil, createdAt: Date(), rim: analysis.rim.argument)
        try ShotChart(analysis: analysis).write(to: folder + "/\(id).svg")
        try JSONFile.write(result, to: folder + "/\(id).json", operation: "save workout")
        return id
    }
}
