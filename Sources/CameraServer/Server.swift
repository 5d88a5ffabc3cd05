import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Per request: who is calling (after authentication) and the JSON body limit.
public struct AppContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public var userID: String?
    public var sessionID: String?
    var jsonLimit = 8 << 20
    /// The caller's address, for per-address limits on sign-in.
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { jsonLimit }

    /// The caller's user id; routes marked `.user` only run after it was set.
    func user() throws -> String {
        guard let userID else { throw APIError(.unauthorized, AuthError.missing.description) }
        return userID
    }
}

/// An error answer: `{"error": "message"}` with a status. Messages name what was wrong and never
/// echo credentials.
public struct APIError: HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var message: String
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        let body = (try? JSONEncoder().encode(["error": message])) ?? Data("{}".utf8)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Maps the errors routes meet to statuses.
    static func from(_ error: any Error) -> any Error {
        switch error {
        case is APIError, is HTTPError: return error
        case let error as AuthError:
            switch error {
            case .emailTaken: return APIError(.conflict, error.description)
            case .appleUnavailable: return APIError(.serviceUnavailable, error.description)
            default: return APIError(.unauthorized, error.description)
            }
        case let error as MediaError:
            let status: HTTPResponse.Status =
                switch error.kind {
                case .invalidArgument, .invalidData, .unsupported: .badRequest
                case .notFound: .notFound
                case .timedOut: .gatewayTimeout
                case .authenticationFailed: .badGateway
                default: .internalServerError
                }
            return APIError(status, error.description)
        case let error as DatabaseFailure where error.isConflict:
            return APIError(.conflict, "that already exists")
        default:
            return APIError(.internalServerError, "internal error")
        }
    }
}

/// Who may call a route.
public enum Access: String, Sendable {
    /// Anyone (sign-in, health).
    case anyone
    /// A signed-in user; the route reads and writes only that user's records.
    case user
}

/// One route of the API. The list of them (``CameraServer/routes``) registers the router, checks
/// the OpenAPI file, and drives the authorisation test, so none of the three can drift.
public struct Route: Sendable {
    public var method: HTTPRequest.Method
    /// Hummingbird's form: `/api/clips/:id`.
    public var path: String
    public var access: Access
    public var summary: String
    /// Whether the route is a WebSocket upgrade.
    public var webSocket = false
    var handler: @Sendable (Request, AppContext) async throws -> Response

    /// The OpenAPI form: `/api/clips/{id}`.
    public var openAPIPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }.joined(separator: "/")
    }
}

/// The CameraCore server: accounts, CGame sync, the LeBot proxy, the WatchBox API with live view,
/// and the web UI.
public final class CameraServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: ServerStore
    let auth: Authenticator
    let files: ClipFiles
    let cameras: CameraService
    let lebot: LeBotService
    let signInLimiter: RateLimiter
    let logger: Logger
    private let running = Mutex<(task: Task<Void, any Error>, port: Int)?>(nil)

    /// Opens the data directory and the database (migrating it) and prepares every service.
    ///
    /// - Throws: ``MediaError`` naming what is wrong with the configuration or the data directory.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "cameracore-server")) async throws {
        try configuration.validate()
        self.configuration = configuration
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
        auth = try await Authenticator(
            store: store, secret: try Authenticator.secret(configuration: configuration), configuration: configuration)
        files = try ClipFiles(root: configuration.dataDirectory)
        cameras = try CameraService(store: store, configuration: configuration)
        lebot = LeBotService(configuration: configuration, files: files)
        signInLimiter = RateLimiter(perMinute: configuration.signInsPerMinute)
        if let email = configuration.demoEmail, let password = configuration.demoPassword,
            try await store.user(email: email) == nil
        {
            _ = try await auth.signUp(email: email, password: password)
        }
    }

    /// Every route of the API.
    public var routes: [Route] {
        authRoutes + clipRoutes + lebot.routes(server: self) + cameras.routes(server: self) + [
            Route(method: .get, path: "/api/health", access: .anyone, summary: "Liveness and version") { _, _ in
                try json(["status": "ok", "database": self.store.database.name])
            }
        ]
    }

    /// The router: API routes behind authentication, then the web UI's files.
    func router() -> Router<AppContext> {
        let router = Router(context: AppContext.self)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: JSONLimit(limit: configuration.maxJSONBytes))
        if let folder = Bundle.module.path(forResource: "Public", ofType: nil) {
            router.add(middleware: FileMiddleware(folder, searchForIndexHtml: true))
        }
        for route in routes {
            let guarded = authenticated(route)
            if route.webSocket {
                // The upgrade is refused (401/404) before it happens; the handler checks again
                // because the upgraded connection starts from the unauthenticated context.
                router.ws(
                    RouterPath(route.path),
                    shouldUpgrade: { request, context in
                        do {
                            _ = try await self.liveTarget(request, context, route: route)
                        } catch {
                            throw APIError.from(error)
                        }
                        return .upgrade([:])
                    },
                    onUpgrade: { inbound, outbound, context in
                        let (id, url) = try await self.liveTarget(context.request, context.requestContext, route: route)
                        try await self.cameras.liveView(inbound: inbound, outbound: outbound, cameraID: id, url: url)
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
            let safe = [HTTPRequest.Method.get, .head].contains(request.method) || route.webSocket
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

    /// The caller's camera named in a live-view path, and its stream URL (with credentials).
    func liveTarget(_ request: Request, _ context: AppContext, route: Route) async throws -> (UUID, String) {
        var context = context
        try await authenticate(request, &context, route: route)
        let (row, id) = try await cameras.owned(context)
        return (id, try cameras.streamURL(row, id: id))
    }

    /// Builds the Hummingbird application (HTTP/1.1 with WebSocket upgrades).
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = router()
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(
                    http1: .init(additionalChannelHandlers: [ExpectContinueHandler()]), ws: .init(maxFrameSize: 1 << 20)
                )
            ),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
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

    func shutdown() async {
        cameras.stopAll()
        await store.database.close()
    }
}

/// Headers every answer carries: no MIME sniffing, no framing by other sites, and a content policy
/// that lets the page load only its own scripts and media (MSE uses blob: URLs).
struct SecurityHeaders: RouterMiddleware {
    typealias Context = AppContext
    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; connect-src 'self'"
        return response
    }
}

struct JSONLimit: RouterMiddleware {
    typealias Context = AppContext
    let limit: Int
    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        var context = context
        context.jsonLimit = limit
        return try await next(request, context)
    }
}

// MARK: - Helpers for routes

let jsonEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    // The same text as `.iso8601` (`2026-11-20T18:30:00Z`), written by hand: Foundation's
    // ISO8601DateFormatter costs microseconds a date on Linux, which showed in the clip list.
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(internetTime(date))
    }
    encoder.outputFormatting = [.sortedKeys]
    return encoder
}()

/// RFC 3339 UTC with whole seconds (fractions dropped, as `.iso8601` does).
func internetTime(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var text: [UInt8] = []
    text.reserveCapacity(20)
    func digits(_ value: Int32, _ count: Int) {
        var divisor: Int32 = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            text.append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
    digits(parts.tm_year + 1900, 4)
    text.append(45)
    digits(parts.tm_mon + 1, 2)
    text.append(45)
    digits(parts.tm_mday, 2)
    text.append(84)
    digits(parts.tm_hour, 2)
    text.append(58)
    digits(parts.tm_min, 2)
    text.append(58)
    digits(parts.tm_sec, 2)
    text.append(90)
    return String(decoding: text, as: UTF8.self)
}

func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    var fields = headers
    fields[.contentType] = "application/json; charset=utf-8"
    return Response(
        status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: try jsonEncoder.encode(value))))
}

/// Decodes a JSON body; errors say which field was wrong.
func decode<T: Decodable>(_ type: T.Type, from request: Request, context: AppContext) async throws -> T {
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: context.maxUploadSize)
    } catch {
        throw APIError(.contentTooLarge, "the body is larger than \(context.maxUploadSize) bytes")
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
        return try decoder.decode(T.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
        throw APIError(.badRequest, "invalid JSON body: \(ServerConfiguration.describe(error))")
    }
}

/// Ids in paths (clips, cameras, reels): letters, digits, `-` and `_`, at most 64. Anything else,
/// `..` and `/` included, is refused before it comes near a file name or a query.
func pathID(_ context: AppContext, _ name: String = "id") throws -> String {
    guard let id = context.parameters.get(name), isValidID(id) else {
        throw APIError(.badRequest, "\(name): use 1–64 letters, digits, '-' or '_'")
    }
    return id
}

func isValidID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= 64
        && id.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95
        }
}
