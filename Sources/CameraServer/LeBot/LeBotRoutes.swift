import CameraAssemble
import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird
import LeBotKit
import NIOHTTP1
import Networking

#if canImport(Glibc)
    import Glibc
#endif

/// The spec's backend: ephemeral Live tokens and the analyzeShot proxy, with the API key kept on
/// the server; plus workout analysis for the web UI.
struct LeBotService: Sendable {
    let configuration: ServerConfiguration
    let files: ClipFiles
    let tokenLimiter: RateLimiter
    let analyzeLimiter: RateLimiter

    let workers: MediaWorkers
    /// Analyses in progress, by "user/analysis id": how far (0…1) and whether the user cancelled.
    let analyses = ProgressTable()
    let cancelled = ProgressTable()
    /// How far the browser copy of an analysed video is (0…1), by the same key, while it is made.
    let copies = ProgressTable()
    /// Gemini calls a day for all users together, on top of each user's per-minute limits.
    let budget: DailyBudget

    init(configuration: ServerConfiguration, files: ClipFiles, workers: MediaWorkers) {
        self.configuration = configuration
        self.workers = workers
        budget = DailyBudget(limit: configuration.geminiDailyBudget)
        self.files = files
        tokenLimiter = RateLimiter(perMinute: configuration.ephemeralTokensPerMinute)
        analyzeLimiter = RateLimiter(perMinute: configuration.analyzeShotsPerMinute)
    }

    /// What a client needs to use the token: it opens one session (`uses`), only until
    /// `newSessionExpiresAt`; that session lasts until `expiresAt`.
    struct EphemeralToken: Codable {
        var token: String
        var expiresAt: Date
        var newSessionExpiresAt: Date
        var uses: Int
    }

    /// Gemini's `auth_tokens` answer: the token is its `name`.
    struct AuthTokenAnswer: Decodable {
        var name: String
    }

    struct WorkoutResult: Codable {
        var id: String
        var analysis: WorkoutAnalysis
        var tips: [String]
        var chartURL: String
        /// The uploaded video, kept so a shot can be replayed (nil for workouts analysed before).
        var videoURL: String?
        var createdAt: Date?
        var rim: String?
    }

    /// One line of the workout history.
    struct WorkoutSummary: Codable {
        var id: String
        var createdAt: Date?
        var shots: Int
        var made: Int
    }

    var apiKey: String {
        get throws {
            guard let key = configuration.geminiAPIKey, !key.isEmpty else {
                throw APIError(.serviceUnavailable, "the AI service is not configured on this server")
            }
            return key
        }
    }

    func routes(server: CameraCoreServer) -> [Route] {
        [
            Route(
                method: .post, path: "/api/ephemeral-token", access: .user,
                summary:
                    "A single-use Gemini Live token: {token, uses: 1, newSessionExpiresAt (open a session within a minute), expiresAt} (rate-limited)"
            ) { _, context in
                try tokenLimiter.check(try context.user(), refusal: "rate limit reached")
                _ = try apiKey
                try budget.spend()
                return try json(try await ephemeralToken())
            },
            Route(
                method: .post, path: "/api/analyze-shot", access: .user,
                summary: "The spec's analyzeShot: frames in, {outcome, tip} out"
            ) { request, context in
                try analyzeLimiter.check(try context.user(), refusal: "rate limit reached")
                let body = try await decode(ProxyShotRequest.self, from: request, context: context)
                let images = try Self.images(body)
                _ = try apiKey
                try budget.spend()
                return try json(try await analyzeShot(images: images, facts: body.facts ?? ShotFacts()))
            },
            Route(
                method: .post, path: "/api/lebot/workouts", access: .user,
                summary:
                    "Upload a workout video and get shots, chart and tips; the rim is found (422 when no hoop is clear) unless ?rim=x,y,w,h (its box) or ?rim=x,y (a point on it: the ring there is fitted). ?upload=ID analyses the video sent to first-frame instead (no body). A video not every browser plays (H.265) is kept as an H.264 copy for the replay"
            ) { request, context in
                try await analyzeWorkout(request, userID: try context.user())
            },
            Route(
                method: .post, path: "/api/lebot/rim-fit", access: .user,
                summary:
                    "Fit the rim's ring at ?rim=x,y in a still of the video (PNG or JPEG, up to 8 MB) before it is uploaded: {point, rim, fitted, coverage, evidence}"
            ) { request, context in
                try await fitRim(request, userID: try context.user())
            },
            Route(
                method: .post, path: "/api/lebot/first-frame", access: .user,
                summary:
                    "The first frame of a workout video, upright as the analysis reads it, for a browser that cannot show the video (H.265): {picture (a JPEG data URL), width, height, upload}; the video is kept for an hour (one per account) to be analysed by ?upload=ID"
            ) { request, context in
                try await firstFrame(request, userID: try context.user())
            },
            Route(method: .get, path: "/api/lebot/workouts/:id", access: .user, summary: "A workout's analysis") {
                _, context in
                let path = files.workouts(userID: try context.user()) + "/\(try pathID(context)).json"
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw APIError(.notFound, "no such workout")
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                    body: .init(byteBuffer: .init(bytes: data)))
            },
            Route(
                method: .get, path: "/api/lebot/analyses/:id", access: .user,
                summary:
                    "How far the analysis sent with X-Analysis-ID: {id} is: {progress (0–1), copying (0–1, while the browser copy is made)}"
            ) { _, context in
                let key = "\(try context.user())/\(try pathID(context))"
                guard let fraction = analyses.get(key) else { throw APIError(.notFound, "no analysis in progress") }
                return try json(["progress": fraction, "copying": copies.get(key)].compactMapValues { $0 })
            },
            Route(
                method: .delete, path: "/api/lebot/analyses/:id", access: .user,
                summary: "Cancel the analysis sent with X-Analysis-ID: {id}"
            ) { _, context in
                let key = "\(try context.user())/\(try pathID(context))"
                guard analyses.get(key) != nil else { throw APIError(.notFound, "no analysis in progress") }
                cancelled.set(key, 1)
                return Response(status: .noContent)
            },
            Route(
                method: .get, path: "/api/lebot/workouts", access: .user, summary: "The user's workouts, newest first"
            ) { _, context in
                let folder = files.workouts(userID: try context.user())
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
                    $0.hasSuffix(".json")
                }
                let summaries = names.compactMap { name -> WorkoutSummary? in
                    guard
                        let result = try? JSONFile.read(
                            WorkoutResult.self, from: folder + "/" + name, operation: "read")
                    else { return nil }
                    return WorkoutSummary(
                        id: result.id, createdAt: result.createdAt, shots: result.analysis.shots.count,
                        made: result.analysis.shots.filter { $0.outcome == .make }.count)
                }
                return try json(summaries.sorted { ($0.createdAt ?? .distantPast) > ($1.createdAt ?? .distantPast) })
            },
            Route(
                method: .get, path: "/api/lebot/workouts/:id/video", access: .user,
                summary: "The workout's video (Range supported)"
            ) { request, context in
                try await files.serve(
                    files.workouts(userID: try context.user()) + "/\(try pathID(context)).mp4",
                    contentType: "video/mp4", request: request, context: context)
            },
            Route(
                method: .post, path: "/api/lebot/workouts/:id/playable", access: .user,
                summary:
                    "Replace a workout's video by a copy every browser plays (H.264), for workouts saved before copies were made: {copied}, false when it plays already; X-Analysis-ID names it for the progress route (copying) and to cancel"
            ) { request, context in
                try await makePlayable(request, userID: try context.user(), id: try pathID(context))
            },
            Route(
                method: .delete, path: "/api/lebot/workouts/:id", access: .user,
                summary: "Delete a workout, its video and chart"
            ) { _, context in
                let base = files.workouts(userID: try context.user()) + "/\(try pathID(context))"
                guard FileManager.default.fileExists(atPath: base + ".json") else {
                    throw APIError(.notFound, "no such workout")
                }
                for suffix in [".json", ".svg", ".mp4"] { unlink(base + suffix) }
                return Response(status: .noContent)
            },
            Route(
                method: .get, path: "/api/lebot/workouts/:id/chart", access: .user,
                summary: "A workout's shot chart (SVG)"
            ) { request, context in
                try await files.serve(
                    files.workouts(userID: try context.user()) + "/\(try pathID(context)).svg",
                    contentType: "image/svg+xml", request: request, context: context)
            },
        ]
    }

    /// Asks Gemini's provisioning service for a token that works once, for a new session within a
    /// minute, and for at most 30 minutes.
    func ephemeralToken() async throws -> EphemeralToken {
        let key = try apiKey
        let now = Date()
        let expiry = now.addingTimeInterval(1800)
        let startBy = now.addingTimeInterval(60)
        let formatter = ISO8601DateFormatter()
        let body: [String: Any] = [
            "uses": 1, "expireTime": formatter.string(from: expiry),
            "newSessionExpireTime": formatter.string(from: startBy),
            "bidiGenerateContentSetup": [
                "model": "models/\(configuration.geminiModel)",
                "generationConfig": ["responseModalities": ["TEXT"]],
            ],
        ]
        let base =
            configuration.geminiBaseURL.hasSuffix("/")
            ? String(configuration.geminiBaseURL.dropLast()) : configuration.geminiBaseURL
        guard let url = HTTPURL(base + "/v1alpha/auth_tokens") else {
            throw APIError(.internalServerError, "geminiBaseURL is not a URL")
        }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.send(
                .POST, url: url, headers: [("Content-Type", "application/json"), ("x-goog-api-key", key)],
                body: Array(try JSONSerialization.data(withJSONObject: body)), timeout: .seconds(10))
        } catch {
            throw APIError(.serviceUnavailable, "the Gemini API is unreachable")
        }
        guard response.status == 200,
            let answer = try? JSONDecoder().decode(AuthTokenAnswer.self, from: Data(response.body))
        else {
            throw APIError(.serviceUnavailable, "the Gemini API refused the token request (HTTP \(response.status))")
        }
        return EphemeralToken(token: answer.name, expiresAt: expiry, newSessionExpiresAt: startBy, uses: 1)
    }

    /// The request's frames, checked: 400 for no or bad image, a prompt of the client's own, or
    /// facts no detector produces.
    static func images(_ body: ProxyShotRequest) throws -> [[UInt8]] {
        guard body.prompt == nil else {
            throw APIError(.badRequest, "prompt: the server writes the prompt; send the frames and the shot's facts")
        }
        guard body.facts?.isPlausible ?? true else {
            throw APIError(.badRequest, "facts: outcome is make or miss, entryAngle 0–90 degrees")
        }
        let encoded = (body.images ?? []).isEmpty ? [body.image].compactMap { $0 } : body.images ?? []
        guard !encoded.isEmpty, encoded.count <= 8 else {
            throw APIError(.badRequest, "image: send 1 to 8 base64 JPEG or PNG frames")
        }
        var images: [[UInt8]] = []
        for (index, text) in encoded.enumerated() {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), data.count > 4 else {
                throw APIError(.badRequest, "image \(index + 1): not base64")
            }
            let bytes = Array(data)
            let isJPEG = bytes[0] == 0xFF && bytes[1] == 0xD8
            let isPNG = bytes[0] == 0x89 && bytes[1] == 0x50 && bytes[2] == 0x4E && bytes[3] == 0x47
            guard isJPEG || isPNG else { throw APIError(.badRequest, "image \(index + 1): not a JPEG or PNG") }
            images.append(bytes)
        }
        return images
    }

    /// Calls Gemini REST with the server's key and its fixed prompt, and returns the parsed answer.
    /// 503: Gemini unreachable or failing; 500: anything else.
    func analyzeShot(images: [[UInt8]], facts: ShotFacts) async throws -> ShotAnalysisResponse {
        let prompt = facts.prompt
        let client = GeminiRESTClient(
            apiKey: try apiKey,
            configuration: GeminiConfiguration(
                restBase: configuration.geminiBaseURL, model: configuration.geminiModel, timeout: .seconds(20)))
        do {
            return try await client.analyze(ShotAnalysisRequest(prompt: prompt, images: images))
        } catch {
            switch error {
            case .badRequest, .invalidResponse:
                throw APIError(.serviceUnavailable, "the Gemini API returned an error")
            default:
                throw APIError(.serviceUnavailable, "the Gemini API is unreachable or failing")
            }
        }
    }

    /// Largest still accepted for a rim fit: a 1920×1080 PNG is 2–4 MB.
    static let maxRimFitBytes = 8 * 1024 * 1024

    /// The ring fitted at the point given, in a still the page took of the video's first frame:
    /// shown before the video is sent, so a tap that missed the ring is seen and moved at once.
    func fitRim(_ request: Request, userID: String) async throws -> Response {
        guard case .point(let point)? = try Self.rimGiven(request) else {
            throw APIError(.badRequest, "rim: give the point tapped on the rim, ?rim=x,y as fractions of the picture")
        }
        let fit = try await readUpload(
            request, userID: userID, limit: Self.maxRimFitBytes,
            accept: { ClipFiles.isVideo($0, options: .uploadedVideoOrPicture) },
            refusal: "the upload is not a PNG or JPEG picture (nor an MP4, QuickTime or WebM video)",
            what: "the picture",
            read: { path throws(MediaError) in
                try RimFinder().fit(near: point, in: path, readerOptions: .uploadedVideoOrPicture)
            })
        return try json(fit)
    }

    /// The first frame of a video the page cannot show (its browser has no H.265 decoder), to mark
    /// the rim on. The video is kept as the user's one sent video (``sentVideo(_:userID:)``), so
    /// the analysis does not need it sent again.
    func firstFrame(_ request: Request, userID: String) async throws -> Response {
        try checkRoomForWorkout(user: userID)
        let id = UUID().uuidString.lowercased()
        let still = try await readUpload(
            request, userID: userID, to: sentVideo(id, userID: userID), keep: true,
            limit: configuration.maxWorkoutBytes, accept: { ClipFiles.isVideo($0) },
            refusal: "the upload is not an MP4, QuickTime or WebM video", what: "the video",
            read: { path throws(MediaError) in try RimFinder().firstFrameJPEG(of: path) })
        // One sent video per account: this one replaces the last (or another tab's).
        forgetSentVideos(userID: userID, except: id)
        return try json(
            FirstFrame(
                picture: "data:image/jpeg;base64," + Data(still.jpeg).base64EncodedString(), width: still.width,
                height: still.height, upload: id))
    }

    /// Receives the request's body into a hidden file in the user's workouts folder (at most
    /// `limit` bytes, refused with `refusal` unless `accept` passes it) and reads it with `read` on
    /// the user's share of the media pool. A file `read` cannot read is a 400 naming `what`. The
    /// file is deleted whatever happens, unless `keep`: then it stays at `path` when it was read.
    func readUpload<T: Sendable>(
        _ request: Request, userID: String, to path: String? = nil, keep: Bool = false, limit: Int,
        accept: @escaping @Sendable (String) -> Bool, refusal: String, what: String,
        read: @escaping @Sendable (String) throws(MediaError) -> T
    ) async throws -> T {
        let upload = path ?? files.workouts(userID: userID) + "/.read-\(UUID().uuidString.lowercased())"
        var kept = false
        defer { if !kept { unlink(upload) } }
        _ = try await files.receive(
            request.body, to: upload, limit: limit,
            accept: { path in try await self.workers.run(user: userID) { accept(path) } }, refusal: refusal)
        do {
            let value = try await workers.run(user: userID) { () throws(MediaError) -> T in try read(upload) }
            kept = keep
            return value
        } catch let error as MediaError {
            throw APIError(.badRequest, "\(what) could not be read: \(error.message)")
        }
    }

    /// What became of a video that was to be copied for the replay.
    enum BrowserCopyOutcome: Sendable {
        /// Every browser plays it as it is.
        case notNeeded
        case copied
        /// No copy could be made; the video is as it was. Why, in words.
        case failed(String)
    }

    /// Replaces `video` by a copy every browser plays (``BrowserCopy``) when it needs one. A copy
    /// that fails leaves the original (the analysis stands; some browsers cannot replay it); one
    /// stopped by `shouldStop` is a `cancelled` error.
    static func replaceWithBrowserCopy(
        _ video: String, progress: @escaping (Double) -> Void, shouldStop: @escaping () -> Bool
    ) throws(MediaError) -> BrowserCopyOutcome {
        guard (try? BrowserCopy.reason(for: video)) != nil else { return .notNeeded }
        // Named for this copy alone: two requests copying one video do not write one file.
        let copy =
            AtomicFile.folder(of: video) + "/.copy-\(UUID().uuidString.lowercased())-"
            + (video as NSString).lastPathComponent
        do {
            try BrowserCopy.make(of: video, to: copy, progress: progress, shouldStop: shouldStop)
        } catch {
            if error.kind == .cancelled { throw error }
            return .failed(
                error.kind == .codec || error.kind == .invalidData
                    ? "its pictures could not be decoded (the file may be damaged)"
                    : "the server could not write it (\(error.message))")
        }
        guard rename(copy, video) == 0 else {
            unlink(copy)
            return .failed("the server could not put it in the video's place")
        }
        return .copied
    }

    /// A video job the client named with X-Analysis-ID, to ask how far it is and to cancel it: its
    /// rows ("user/id") in the progress tables, removed by ``end()``. Without the header it does
    /// nothing and is never stopped.
    struct NamedJob: Sendable {
        let key: String?
        let analyses: ProgressTable
        let cancelled: ProgressTable
        let copies: ProgressTable

        func analysing(_ fraction: Double) { if let key { analyses.set(key, fraction) } }
        func copying(_ fraction: Double) { if let key { copies.set(key, fraction) } }
        /// Whether the user cancelled it.
        func shouldStop() -> Bool { key.map { cancelled.get($0) != nil } ?? false }
        func end() {
            guard let key else { return }
            for table in [analyses, cancelled, copies] { table.set(key, nil) }
        }
    }

    func namedJob(_ request: Request, userID: String) -> NamedJob {
        NamedJob(
            key: request.headers[HTTPField.Name("X-Analysis-ID")!].flatMap { isValidID($0) ? "\(userID)/\($0)" : nil },
            analyses: analyses, cancelled: cancelled, copies: copies)
    }

    /// `POST /api/lebot/workouts/:id/playable`: a workout saved before its video was copied for
    /// the replay (H.265 from an iPhone, which Chromium and Firefox on Linux cannot show) gets the
    /// copy now, on the user's share of the media pool. The progress route and cancel work as for
    /// an analysis, under the request's X-Analysis-ID.
    func makePlayable(_ request: Request, userID: String, id: String) async throws -> Response {
        let base = files.workouts(userID: userID) + "/\(id)"
        let video = base + ".mp4"
        guard FileManager.default.fileExists(atPath: base + ".json") else {
            throw APIError(.notFound, "no such workout")
        }
        guard FileManager.default.fileExists(atPath: video) else {
            throw APIError(.notFound, "this workout has no video (trained live: the camera's video is not kept)")
        }
        guard (try? BrowserCopy.reason(for: video)) != nil else { return try json(["copied": false]) }
        let job = namedJob(request, userID: userID)
        job.analysing(1)
        job.copying(0)
        defer { job.end() }
        let outcome: BrowserCopyOutcome
        do {
            outcome = try await workers.run(user: userID) { () throws(MediaError) -> BrowserCopyOutcome in
                try Self.replaceWithBrowserCopy(video, progress: job.copying, shouldStop: job.shouldStop)
            }
        } catch let error as MediaError where error.kind == .cancelled {
            throw APIError(.conflict, "the copy was cancelled; the workout's video is as it was")
        }
        // Deleted while it was copied: the copy goes too.
        guard FileManager.default.fileExists(atPath: base + ".json") else {
            unlink(video)
            throw APIError(.notFound, "no such workout")
        }
        switch outcome {
        case .notNeeded: return try json(["copied": false])
        case .copied: return try json(["copied": true])
        case .failed(let why):
            throw APIError(
                .unprocessableContent,
                "a copy this browser can play could not be made of this video: \(why); the video is kept as it was")
        }
    }

    struct FirstFrame: Encodable {
        var picture: String
        var width: Int
        var height: Int
        /// The video's id for `POST /api/lebot/workouts?upload=ID`.
        var upload: String
    }

    /// How long a video sent for its first frame is kept for the analysis.
    static let sentVideoLifetime: TimeInterval = 3600
    static let sentVideoPrefix = ".sent-"

    /// Where the video sent for its first frame with `id` is kept: hidden in the user's workouts
    /// folder, so the account's deletion removes it too.
    func sentVideo(_ id: String, userID: String) -> String {
        files.workouts(userID: userID) + "/\(Self.sentVideoPrefix)\(id).mp4"
    }

    /// Deletes the user's sent videos older than `age` seconds, or all but the one named `except`.
    func forgetSentVideos(userID: String, olderThan age: TimeInterval = 0, except id: String? = nil) {
        let folder = files.workouts(userID: userID)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasPrefix(Self.sentVideoPrefix) {
            let path = folder + "/" + name
            guard path != id.map({ sentVideo($0, userID: userID) }) else { continue }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if Date().timeIntervalSince(modified ?? .distantPast) >= age { unlink(path) }
        }
    }

    /// The video named by `?upload=ID` (sent earlier for its first frame), linked at `video`; false
    /// when the request names none. 400 for an id that cannot be one, 404 when it is gone.
    func takeSentVideo(_ request: Request, userID: String, to video: String) throws -> Bool {
        guard let given = request.uri.queryParameters.get("upload") else { return false }
        let id = String(given)
        guard isValidID(id) else { throw APIError(.badRequest, "upload: not an id that first-frame gave") }
        forgetSentVideos(userID: userID, olderThan: Self.sentVideoLifetime)
        let sent = sentVideo(id, userID: userID)
        guard FileManager.default.fileExists(atPath: sent) else {
            throw APIError(
                .notFound,
                "the video sent earlier is no longer on the server (it is kept for an hour, and only the latest one); send it again"
            )
        }
        // A second name for the same file: the sent video stays for another analysis (another rim).
        guard link(sent, video) == 0 else {
            throw APIError(.internalServerError, "the video sent earlier could not be used; send it again")
        }
        return true
    }

    func analyzeWorkout(_ request: Request, userID: String) async throws -> Response {
        // Without ?rim= the rim is found in the video.
        let given = try Self.rimGiven(request)
        try checkRoomForWorkout(user: userID)
        let id = UUID().uuidString.lowercased()
        let folder = files.workouts(userID: userID)
        let video = folder + "/\(id).mp4"
        if try !takeSentVideo(request, userID: userID, to: video) {
            _ = try await files.receive(
                request.body, to: video, limit: configuration.maxWorkoutBytes,
                accept: { path in try await self.workers.run(user: userID) { ClipFiles.isVideo(path) } },
                refusal: "the upload is not an MP4, QuickTime or WebM video")
        }
        // The client names the analysis (X-Analysis-ID) to ask how far it is, or to cancel it.
        let job = namedJob(request, userID: userID)
        job.analysing(0)
        defer { job.end() }
        let analysis: WorkoutAnalysis
        do {
            analysis = try await workers.run(user: userID) { () throws(MediaError) -> WorkoutAnalysis in
                // The rim given, the ring fitted at the point given, or found: in the same read.
                var analyzer = WorkoutAnalyzer(rim: given?.box, threads: 1)
                analyzer.rimPoint = given?.point
                return try analyzer.analyze(video, progress: job.analysing, shouldStop: job.shouldStop)
            }
            // The replay: a video not every browser plays is kept as a copy that they do.
            _ = try await workers.run(user: userID) { () throws(MediaError) -> BrowserCopyOutcome in
                try Self.replaceWithBrowserCopy(video, progress: job.copying, shouldStop: job.shouldStop)
            }
        } catch let error as APIError {
            unlink(video)
            throw error
        } catch let error as MediaError where error.kind == .cancelled {
            unlink(video)
            throw APIError(.conflict, "the analysis was cancelled; nothing was saved")
        } catch let error as MediaError where error.operation == RimFinder.operation {
            unlink(video)
            throw APIError(
                .unprocessableContent,
                "\(error.message): tap the rim in the picture (or give ?rim=x,y for a point on it, ?rim=x,y,w,h for its box)"
            )
        } catch {
            unlink(video)
            throw APIError(.badRequest, "the upload could not be analysed: \(error)")
        }
        var coach = CoachingTipsManager()
        var streak = 0
        let tips = analysis.shots.map { shot -> String in
            streak = shot.outcome.streak(after: streak)
            return coach.tip(for: CoachingContext(shot, streak: streak))
        }
        var stored = analysis
        stored.source = "upload"
        let result = WorkoutResult(
            id: id, analysis: stored, tips: tips, chartURL: "/api/lebot/workouts/\(id)/chart",
            videoURL: "/api/lebot/workouts/\(id)/video", createdAt: Date(), rim: stored.rim.argument)
        try ShotChart(analysis: stored).write(to: folder + "/\(id).svg")
        try JSONFile.write(result, to: folder + "/\(id).json", operation: "save workout")
        return try json(result, status: .created)
    }
}
