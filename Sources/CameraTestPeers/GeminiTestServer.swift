import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// A local stand-in for Google's Gemini API, following its public wire format, so the LeBot
/// clients run their real code over real sockets (this machine cannot reach Google):
///
/// - `POST /v1beta/models/{model}:generateContent` with `x-goog-api-key` (or `?key=`): the
///   `{contents, generationConfig, systemInstruction}` request (camelCase or snake_case top-level
///   keys) answered with `{candidates: [{content: {parts: [{text}]}}]}`; errors as
///   `{error: {code, message, status}}`.
/// - WebSocket `/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=`
///   and `…v1alpha…BidiGenerateContentConstrained?access_token=`: `setup` → `setupComplete`, each
///   `clientContent` → `serverContent.modelTurn` chunks then `turnComplete`; bad credentials close
///   with 1008 as Google does; optional `goAway`.
/// - Our proxy's two routes, for LeBot's client tests until the server exists:
///   `POST /api/ephemeral-token` and `POST /api/analyze-shot` (Bearer session token).
public final class GeminiTestServer: Sendable {
    public enum Behavior: Sendable, Equatable {
        /// Answer normally with ``modelText``.
        case answer
        /// REST and proxy calls fail with this status (and Google's error body).
        case status(Int)
        /// Live: answer, then send `goAway` and close.
        case goAwayAfterAnswer
        /// Live: send a frame that is not JSON.
        case malformed
    }

    public let apiKey: String
    public let sessionToken: String
    private let state: Mutex<State>
    private let task = Mutex<Task<Void, Never>?>(nil)

    struct State {
        var modelText: String
        var behavior: Behavior = .answer
        var port = 0
        var tokens: [String: Date] = [:]
        var restCalls = 0
        var liveSetups = 0
        var liveTurns = 0
        var proxyCalls = 0
        var tokenRequests = 0
        var lastRequestKeys: [String] = []
        var lastPrompt = ""
    }

    public init(
        apiKey: String = "test-api-key", sessionToken: String = "session-token",
        modelText: String = "```json\n{\"outcome\": \"make\", \"tip\": \"Great arc, keep it.\"}\n```"
    ) {
        self.apiKey = apiKey
        self.sessionToken = sessionToken
        state = Mutex(State(modelText: modelText))
    }

    public var port: Int { state.withLock { $0.port } }
    public var restBase: String { "http://127.0.0.1:\(port)" }
    public var liveBase: String { "ws://127.0.0.1:\(port)" }
    public var restCalls: Int { state.withLock { $0.restCalls } }
    public var liveSetups: Int { state.withLock { $0.liveSetups } }
    public var liveTurns: Int { state.withLock { $0.liveTurns } }
    public var proxyCalls: Int { state.withLock { $0.proxyCalls } }
    /// Calls to `v1alpha/auth_tokens` that got a token.
    public var tokenRequests: Int { state.withLock { $0.tokenRequests } }
    /// Top-level keys of the last REST request body.
    public var lastRequestKeys: [String] { state.withLock { $0.lastRequestKeys } }
    /// The text parts of the last generateContent request, joined.
    public var lastPrompt: String { state.withLock { $0.lastPrompt } }

    public func set(_ behavior: Behavior) { state.withLock { $0.behavior = behavior } }
    public func set(modelText: String) { state.withLock { $0.modelText = modelText } }

    /// Issues a Live token that expires `seconds` from now (what the proxy would get from Google).
    public func issueToken(expiresIn seconds: Double = 600) -> (token: String, expiresAt: Date) {
        let token = "ephemeral-\(UUID().uuidString.lowercased())"
        let expiry = Date().addingTimeInterval(seconds)
        state.withLock { $0.tokens[token] = expiry }
        return (token, expiry)
    }

    /// Starts listening on a free loopback port.
    public func start() async throws {
        let router = Router()
        router.post("/v1beta/models/:action") { request, _ -> Response in
            try await self.generateContent(request)
        }
        // Google's token provisioning (v1alpha auth_tokens): API key in, `{name}` out; the name is the
        // token the Live endpoint then accepts as `access_token`.
        router.post("/v1alpha/auth_tokens") { request, _ -> Response in
            let key =
                request.headers[HTTPField.Name("x-goog-api-key")!]
                ?? request.uri.queryParameters["key"].map(String.init)
            guard key == self.apiKey else { return Self.error(401, "UNAUTHENTICATED", "API key not valid") }
            if case .status(let code) = self.state.withLock({ $0.behavior }) {
                return Self.error(code, "UNAVAILABLE", "forced")
            }
            let body = try await request.body.collect(upTo: 1 << 20)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            guard let uses = object?["uses"] as? Int, uses >= 1, let expireTime = object?["expireTime"] as? String,
                let expiry = ISO8601DateFormatter().date(from: expireTime)
            else { return Self.error(400, "INVALID_ARGUMENT", "uses and expireTime are required") }
            let name = "auth_tokens/\(UUID().uuidString.lowercased())"
            self.state.withLock {
                $0.tokens[name] = expiry
                $0.tokenRequests += 1
            }
            return Self.json(200, ["name": name, "uses": uses, "expireTime": expireTime])
        }
        router.post("/api/ephemeral-token") { request, _ -> Response in
            guard self.bearerOK(request) else {
                return Self.error(401, "UNAUTHENTICATED", "missing or bad session token")
            }
            if case .status(let code) = self.state.withLock({ $0.behavior }) {
                return Self.error(code, "UNAVAILABLE", "forced")
            }
            let (token, expiry) = self.issueToken()
            return Self.json(200, ["token": token, "expiresAt": ISO8601DateFormatter().string(from: expiry)])
        }
        router.post("/api/analyze-shot") { request, _ -> Response in
            guard self.bearerOK(request) else {
                return Self.error(401, "UNAUTHENTICATED", "missing or bad session token")
            }
            self.state.withLock { $0.proxyCalls += 1 }
            if case .status(let code) = self.state.withLock({ $0.behavior }) {
                return Self.error(code, "UNAVAILABLE", "forced")
            }
            let body = try await request.body.collect(upTo: 8 << 20)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            guard let image = object?["image"] as? String, !image.isEmpty, Data(base64Encoded: image) != nil else {
                return Self.error(400, "INVALID_ARGUMENT", "missing image data")
            }
            return Self.json(200, ["outcome": "MISS", "tip": "Bend your knees more to get power from your legs."])
        }
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.ws("/ws/:endpoint") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, context in
            try await self.live(inbound, outbound, request: context.request)
        }
        let ready = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: sockets, configuration: .init(ws: .init(maxFrameSize: 1 << 24))),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in ready.continuation.yield(channel.localAddress?.port ?? 0) })
        let running = Task { _ = try? await app.runService() }
        task.withLock { $0 = running }
        var iterator = ready.stream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            throw TestPeerError("the Gemini test server did not start")
        }
        state.withLock { $0.port = port }
    }

    public func stop() {
        task.withLock { $0?.cancel() }
    }

    deinit { task.withLock { $0?.cancel() } }

    private func bearerOK(_ request: Request) -> Bool {
        request.headers[.authorization] == "Bearer \(sessionToken)"
    }

    private func generateContent(_ request: Request) async throws -> Response {
        state.withLock { $0.restCalls += 1 }
        let key =
            request.headers[HTTPField.Name("x-goog-api-key")!] ?? request.uri.queryParameters["key"].map(String.init)
        guard key == apiKey else { return Self.error(403, "PERMISSION_DENIED", "API key not valid") }
        if case .status(let code) = state.withLock({ $0.behavior }) {
            return Self.error(
                code, code == 503 ? "UNAVAILABLE" : code == 400 ? "INVALID_ARGUMENT" : "INTERNAL", "forced \(code)")
        }
        guard request.uri.path.hasSuffix(":generateContent") else {
            return Self.error(404, "NOT_FOUND", "unknown method")
        }
        let body = try await request.body.collect(upTo: 20 << 20)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        else {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
        }
        state.withLock { $0.lastRequestKeys = object.keys.sorted() }
        guard let contents = object["contents"] as? [[String: Any]],
            let parts = contents.first?["parts"] as? [[String: Any]],
            !parts.isEmpty
        else {
            return Self.error(400, "INVALID_ARGUMENT", "contents is not specified")
        }
        let prompt = parts.compactMap { $0["text"] as? String }.joined(separator: "\n")
        state.withLock { $0.lastPrompt = prompt }
        for key in object.keys
        where ![
            "contents", "generationConfig", "generation_config", "systemInstruction", "system_instruction",
            "safetySettings", "safety_settings",
        ].contains(key) {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(key)\"")
        }
        let text = state.withLock { $0.modelText }
        return Self.json(
            200,
            [
                "candidates": [
                    ["content": ["role": "model", "parts": [["text": text]]], "finishReason": "STOP", "index": 0]
                ],
                "usageMetadata": ["promptTokenCount": 258, "candidatesTokenCount": 20, "totalTokenCount": 278],
            ])
    }

    private func live(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request)
        async throws
    {
        let path = request.uri.path
        let query = request.uri.queryParameters
        let authorized: Bool
        if path.hasSuffix("v1beta.GenerativeService.BidiGenerateContent") {
            authorized = query["key"].map(String.init) == apiKey
        } else if path.hasSuffix("v1alpha.GenerativeService.BidiGenerateContentConstrained") {
            let token = query["access_token"].map(String.init) ?? ""
            authorized = state.withLock { ($0.tokens[token] ?? .distantPast) > Date() }
        } else {
            authorized = false
        }
        guard authorized else {
            try await outbound.close(.policyViolation, reason: "API key not valid. Please pass a valid API key.")
            return
        }
        var setUp = false
        for try await message in inbound.messages(maxSize: 20 << 20) {
            let data: Data
            switch message {
            case .text(let text): data = Data(text.utf8)
            case .binary(let buffer): data = Data(buffer.readableBytesView)
            }
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                try await outbound.close(.unacceptableData, reason: "Invalid JSON payload")
                return
            }
            if object["setup"] != nil {
                setUp = true
                state.withLock { $0.liveSetups += 1 }
                try await outbound.write(.binary(ByteBuffer(string: #"{"setupComplete": {}}"#)))
                continue
            }
            guard setUp, (object["clientContent"] ?? object["client_content"]) is [String: Any] else {
                try await outbound.close(.policyViolation, reason: "setup must be the first message")
                return
            }
            let (behavior, text) = state.withLock { state -> (Behavior, String) in
                state.liveTurns += 1
                return (state.behavior, state.modelText)
            }
            if behavior == .malformed {
                try await outbound.write(.text("this is not json"))
                continue
            }
            // The answer in two chunks, as the Live API streams it, then turnComplete.
            let middle = text.index(text.startIndex, offsetBy: text.count / 2)
            for chunk in [String(text[..<middle]), String(text[middle...])] {
                let frame = try JSONSerialization.data(withJSONObject: [
                    "serverContent": ["modelTurn": ["role": "model", "parts": [["text": chunk]]]]
                ])
                try await outbound.write(.binary(ByteBuffer(bytes: frame)))
            }
            try await outbound.write(.binary(ByteBuffer(string: #"{"serverContent": {"turnComplete": true}}"#)))
            if behavior == .goAwayAfterAnswer {
                try await outbound.write(.binary(ByteBuffer(string: #"{"goAway": {"timeLeft": "0s"}}"#)))
                try await outbound.close(.goingAway, reason: "session over")
                return
            }
        }
    }

    static func json(_ status: Int, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ code: Int, _ status: String, _ message: String) -> Response {
        json(code, ["error": ["code": code, "message": message, "status": status]])
    }
}
