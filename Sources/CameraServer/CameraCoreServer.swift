import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Networking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The CameraCore server: accounts, CGame sync, the LeBot proxy, the WatchBox API with live view,
/// and the web UI.
public final class CameraCoreServer: Sendable {
    public let configuration: ServerConfiguration
    let store: ServerStore
    let auth: Authenticator
    let files: ClipFiles
    let cameras: CameraService
    let lebot: LeBotService
    let signInLimiter: RateLimiter
    /// Confirmation mail sent again: per account, twice a minute and five times a day at most
    /// (whoever signs up with someone else's address cannot flood it).
    let resendLimiter = RateLimiter(perMinute: 2)
    let resendDailyLimiter = RateLimiter(limit: 5, per: .seconds(86400))
    let workers: MediaWorkers
    let logger: Logger
    /// Where account mail goes (a Maildir in the data directory).
    let mail: MailDrop
    /// Reels being compiled: how far each is (0…1).
    let reelProgress = ProgressTable()
    /// Captures from the browser running now.
    let captures: CaptureTable
    let liveTrainings: CaptureTable
    private let running = Mutex<(task: Task<Void, any Error>, port: Int)?>(nil)
    /// Removes leftovers from users' folders every `leftoverSweepSeconds` while serving.
    private let sweeping = Mutex<Task<Void, Never>?>(nil)

    /// Opens the data directory and the database (migrating it) and prepares every service.
    ///
    /// - Throws: ``MediaError`` naming what is wrong with the configuration or the data directory.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "cameracore-server")) async throws {
        try configuration.validate()
        self.configuration = configuration
        captures = CaptureTable(limit: configuration.capturesAtOnce)
        liveTrainings = CaptureTable(limit: configuration.capturesAtOnce, noun: "live training")
        self.logger = logger
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw MediaError(
                .writeFailed, operation: "open data directory",
                message: "cannot create \(configuration.dataDirectory)")
        }
        let database: any SQLDatabase
        if let url = configuration.databaseURL {
            database = try PostgreSQLDatabase(url: url)
        } else {
            database = try SQLiteDatabase(path: configuration.dataDirectory + "/cameracore.sqlite")
        }
        store = try await ServerStore(database: database)
        let mail = MailDrop(dataDirectory: configuration.dataDirectory, publicURL: configuration.publicURL)
        self.mail = mail
        auth = try await Authenticator(
            store: store, secret: try Authenticator.secret(configuration: configuration), configuration: configuration,
            verificationSent: { email, secret in
                // The log says where the mail is, never what is in it.
                do {
                    let path = try mail.send(mail.verification(to: email, secret: secret))
                    logger.notice("verification mail for \(email): \(path)")
                } catch {
                    logger.error("verification mail for \(email) not written: \(error)")
                }
            })
        files = try ClipFiles(
            root: configuration.dataDirectory, minimumUploadRate: configuration.minUploadBytesPerSecond,
            uploadGrace: .milliseconds(Int(configuration.uploadGraceSeconds * 1000)))
        Self.removeLeftovers(files, logger: logger)
        workers = MediaWorkers(
            threads: configuration.mediaWorkers, queueLimit: configuration.mediaQueue,
            perUser: configuration.mediaJobsPerUser)
        cameras = try CameraService(store: store, configuration: configuration, workers: workers)
        lebot = LeBotService(configuration: configuration, files: files, workers: workers)
        signInLimiter = RateLimiter(perMinute: configuration.signInsPerMinute)
        if let email = configuration.demoEmail, let password = configuration.demoPassword,
            try await store.user(email: email) == nil
        {
            _ = try await auth.signUp(email: email, password: password)
        }
    }

    /// Every route of the API.
    var routes: [Route] {
        authRoutes + clipRoutes + gameProfileRoutes + captureRoutes + liveTrainingRoutes + lebot.routes(server: self)
            + cameras.checkRoutes()
            + cameras.routes(server: self)
            + cameras.discoveryRoutes() + cameras.recordingRoutes(server: self) + cameras.thumbnailRoutes()
            + [
                Route(method: .get, path: "/api/health", access: .anyone, summary: "Liveness and version") { _, _ in
                    try json(["status": "ok", "database": self.store.database.name])
                }
            ]
    }

    /// The router: API routes behind authentication, then the web UI's files.
    func router() -> Router<AppContext> {
        let router = Router(context: AppContext.self)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: ForwardedHeaders(proxies: configuration.trustedProxies.compactMap(IPv4Network.init)))
        router.add(middleware: JSONLimit(limit: configuration.maxJSONBytes))
        if let folder = Bundle.module.path(forResource: "Public", ofType: nil) {
            router.add(middleware: FileMiddleware(folder, searchForIndexHtml: true))
        }
        for route in routes {
            let guarded = authenticated(route)
            if let accept = route.webSocket {
                // The upgrade is refused (401/404) before it happens; the handler checks again
                // because the upgraded connection starts from the unauthenticated context.
                router.ws(
                    RouterPath(route.path),
                    shouldUpgrade: { request, context in
                        do {
                            try Self.checkOrigin(request)
                            var context = context
                            try await self.authenticate(request, &context, route: route)
                            _ = try await accept(request, context)
                        } catch {
                            throw APIError.from(error)
                        }
                        return .upgrade([:])
                    },
                    onUpgrade: { inbound, outbound, upgraded in
                        var context = upgraded.requestContext
                        try await self.authenticate(upgraded.request, &context, route: route)
                        let session = try await accept(upgraded.request, context)
                        try await session(inbound, outbound)
                    })
            } else {
                router.on(RouterPath(route.path), method: route.method, use: guarded)
            }
        }
        return router
    }

    private func authenticated(_ route: Route) -> @Sendable (Request, AppContext) async throws -> Response {
        { request, context in
            var context = context
            do {
                try await self.authenticate(request, &context, route: route)
                return try await route.handler(request, context)
            } catch {
                throw APIError.from(error)
            }
        }
    }

    /// Sets the caller from `Authorization: Bearer` (apps, scripts) or the session cookie (the web
    /// UI). Cookie-authenticated writes must carry `X-CameraCore: 1`, which a cross-site form cannot
    /// send, on top of the cookie's SameSite=Strict.
    func authenticate(_ request: Request, _ context: inout AppContext, route: Route) async throws {
        guard route.access == .user else { return }
        let bearer = request.headers[.authorization].flatMap { header -> String? in
            header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)).trimmingWhitespace() : nil
        }
        let token: String
        if let bearer {
            token = bearer
        } else if let cookie = request.cookies[Self.sessionCookie]?.value {
            let safe = [HTTPRequest.Method.get, .head].contains(request.method) || route.isWebSocket
            guard safe || request.headers[HTTPField.Name("X-CameraCore")!] == "1" else {
                throw APIError(.forbidden, "cookie-authenticated writes need the X-CameraCore: 1 header")
            }
            token = cookie
        } else {
            throw APIError(.unauthorized, AuthError.missing.description)
        }
        do {
            let (userID, sessionID) = try await auth.authenticate(token)
            context.userID = userID
            context.sessionID = sessionID
        } catch {
            throw APIError(
                .unauthorized, error.description, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
    }

    static let sessionCookie = "cc_session"

    /// A browser says which page opens a WebSocket (`Origin`), and cookies go along whatever page
    /// it is: only pages of this server's host may open one. The port is not compared: cookies are
    /// not kept per port either, and some clients leave it out. Clients that send no Origin (apps,
    /// scripts) authenticate with a bearer token instead.
    static func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else { return }
        guard let page = URLParts(origin)?.host.lowercased(),
            let server = URLParts("http://" + (request.head.authority ?? ""))?.host.lowercased(), page == server
        else {
            throw APIError(.forbidden, "live view opens only from this server's own pages")
        }
    }

    /// Builds the Hummingbird application (HTTP/1.1 with WebSocket upgrades).
    func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = router()
        return Application(
            router: router,
            server: .guardedHTTP1WebSocket(
                webSocketRouter: router,
                configuration: .init(
                    http1: .init(
                        additionalChannelHandlers: [ExpectContinueHandler()],
                        idleTimeout: .milliseconds(Int64(configuration.idleSeconds * 1000)),
                        httpDecoderConfiguration: .init(
                            maxHeaderFieldSize: configuration.maxHeadBytes,
                            maxHeaderListSize: configuration.maxHeadBytes,
                            maxHeaderFieldCount: 100)),
                    ws: .init(maxFrameSize: 1 << 20)
                ),
                headTimeout: .milliseconds(Int64(configuration.headSeconds * 1000))
            ),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                self.sweepLeftovers()
                await self.cameras.resumeRecordings()
                self.cameras.followCameras()
                await onRunning(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }

    /// Serves until the task is cancelled.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(onRunning: onRunning).runService()
        await shutdown()
    }

    /// Starts in the background (tests, benchmarks) and returns the port.
    public func start() async throws -> Int {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task {
            try await application { port in continuation.yield(port) }.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw MediaError(.network, operation: "start server", message: "it stopped before listening")
        }
        running.withLock { $0 = (task, port) }
        return port
    }

    public func stop() async {
        let task = running.withLock { state -> Task<Void, any Error>? in
            defer { state = nil }
            return state?.task
        }
        task?.cancel()
        _ = await task?.result
        await shutdown()
    }

    /// Removes what was left unfinished in users' folders (``ClipFiles/removeLeftovers(olderThan:)``)
    /// and logs how many, when any.
    static func removeLeftovers(_ files: ClipFiles, logger: Logger) {
        // No sooner than a video kept for its first frame is due to go.
        let removed = files.removeLeftovers(olderThan: LeBotService.sentVideoLifetime)
        if removed > 0 {
            logger.notice(
                "removed \(removed) unfinished files an hour old (uploads, copies, videos kept for their first frame)")
        }
    }

    /// Sweeps users' folders for leftovers every `leftoverSweepSeconds` (a user who sent a video
    /// for its first frame and never came back leaves it an hour, not until the next start).
    func sweepLeftovers() {
        let (files, logger, every) = (files, logger, configuration.leftoverSweepSeconds)
        let task = Task.detached(priority: .background) {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(every))
                if Task.isCancelled { break }
                Self.removeLeftovers(files, logger: logger)
            }
        }
        sweeping.withLock { old in
            old?.cancel()
            old = task
        }
    }

    func shutdown() async {
        sweeping.withLock { task in
            task?.cancel()
            task = nil
        }
        cameras.stopAll()
        await workers.shutdown()
        await store.database.close()
    }
}

/// How far each piece of background work is (0…1), by id; shared with the tasks doing it.
final class ProgressTable: Sendable {
    private let table = Mutex<[String: Double]>([:])

    func set(_ id: String, _ fraction: Double?) {
        table.withLock { $0[id] = fraction.map { min(max($0, 0), 1) } }
    }

    func get(_ id: String) -> Double? { table.withLock { $0[id] } }
}
