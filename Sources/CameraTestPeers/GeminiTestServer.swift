import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// A local stand-in for Google's Gemini API, following its public wire format strictly enough that
/// a client bug fails a test (this machine cannot reach Google):
///
/// - `POST /v1beta/models/{model}:generateContent` with `x-goog-api-key` (or `?key=`): the
///   `{contents, generationConfig, systemInstruction}` request answered with
///   `{candidates: [{content: {parts: [{text}]}}], usageMetadata}`; errors as
///   `{error: {code, message, status, details}}` — a bad key is 400 `INVALID_ARGUMENT` with reason
///   `API_KEY_INVALID`, as Google answers it; unknown fields are 400.
/// - `POST /v1alpha/auth_tokens` (ephemeral-token provisioning): `uses`, `expireTime`,
///   `newSessionExpireTime` (default one minute) → `{name}`; the name is the Live `access_token`.
/// - WebSocket `/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=`
///   and `…v1alpha…BidiGenerateContentConstrained?access_token=`: a token opens at most `uses`
///   sessions and only before its `newSessionExpireTime`; a session ends at its `expireTime`. Bad
///   credentials close with 1008, a message that is not the documented shape (`setup` first, with a
///   `models/…` model and known `generationConfig` fields; `clientContent.turns` of `Content` with
///   `text` or base64 `inlineData` parts) with 1007 and the field named. Each turn is answered in
///   `serverContent.modelTurn` chunks, then `turnComplete` with `usageMetadata`; optional `goAway`
///   after or in the middle of an answer.
///
/// Nothing here serves our own proxy's routes: clients that need `/api/ephemeral-token` or
/// `/api/analyze-shot` are tested against the real CameraCore server pointed at this one.
public final class GeminiTestServer: Sendable {
    public enum Behavior: Sendable, Equatable {
        /// Answer normally with ``modelText``.
        case answer
        /// REST and token calls fail with this status (and Google's error body).
        case status(Int)
        /// Live: answer, then send `goAway` and close.
        case goAwayAfterAnswer
        /// Live: send half the answer, then `goAway`, then close without `turnComplete`.
        case goAwayMidAnswer
        /// Live: send a frame that is not JSON.
        case malformed
    }

    /// An ephemeral token as Google's provisioning service keeps it.
    struct Grant {
        var usesLeft: Int
        var newSessionExpiry: Date
        var expiry: Date
    }

    public let apiKey: String
    private let state: Mutex<State>
    private let task = Mutex<Task<Void, Never>?>(nil)

    struct State {
        var modelText: String
        var behavior: Behavior = .answer
        var port = 0
        var tokens: [String: Grant] = [:]
        var restCalls = 0
        var liveSetups = 0
        var liveTurns = 0
        var tokenRequests = 0
        var lastRequestKeys: [String] = []
        var requests: [(prompt: String, images: [[UInt8]])] = []
        var refusals: [String] = []
    }

    public init(
        apiKey: String = "test-api-key",
        modelText: String = "```json\n{\"outcome\": \"make\", \"tip\": \"Great arc, keep it.\"}\n```"
    ) {
        self.apiKey = apiKey
        state = Mutex(State(modelText: modelText))
    }

    public var port: Int { state.withLock { $0.port } }
    public var restBase: String { "http://127.0.0.1:\(port)" }
    public var liveBase: String { "ws://127.0.0.1:\(port)" }
    public var restCalls: Int { state.withLock { $0.restCalls } }
    public var liveSetups: Int { state.withLock { $0.liveSetups } }
    public var liveTurns: Int { state.withLock { $0.liveTurns } }
    /// Calls to `v1alpha/auth_tokens` that got a token.
    public var tokenRequests: Int { state.withLock { $0.tokenRequests } }
    /// Top-level keys of the last REST request body.
    public var lastRequestKeys: [String] { state.withLock { $0.lastRequestKeys } }
    /// The text parts of the last request (REST or Live), joined.
    public var lastPrompt: String { state.withLock { $0.requests.last?.prompt ?? "" } }
    /// The decoded `inlineData` images of the last request (REST or Live), in order.
    public var lastImages: [[UInt8]] { state.withLock { $0.requests.last?.images ?? [] } }
    /// The text and images of every request (REST or Live) in the order they arrived. Requests sent
    /// at once (one per shot, each on its own connection) may arrive in any order.
    public var requests: [(prompt: String, images: [[UInt8]])] { state.withLock { $0.requests } }
    /// Why Live connections or messages were refused, oldest first (the close reasons sent).
    public var refusals: [String] { state.withLock { $0.refusals } }

    public func set(_ behavior: Behavior) { state.withLock { $0.behavior = behavior } }
    public func set(modelText: String) { state.withLock { $0.modelText = modelText } }

    /// Issues a Live token directly (what our server would get from `auth_tokens`).
    public func issueToken(uses: Int = 1, newSessionWithin: Double = 60, expiresIn seconds: Double = 1800)
        -> String
    {
        let token = "auth_tokens/\(UUID().uuidString.lowercased())"
        let now = Date()
        state.withLock {
            $0.tokens[token] = Grant(
                usesLeft: uses, newSessionExpiry: now.addingTimeInterval(newSessionWithin),
                expiry: now.addingTimeInterval(seconds))
        }
        return token
    }

    /// Starts listening on a free loopback port.
    public func start() async throws {
        let router = Router()
        router.post("/v1beta/models/:action") { request, _ -> Response in
            try await self.generateContent(request)
        }
        router.post("/v1alpha/auth_tokens") { request, _ -> Response in
            try await self.authToken(request)
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

    private func key(_ request: Request) -> String? {
        request.headers[HTTPField.Name("x-goog-api-key")!] ?? request.uri.queryParameters["key"].map(String.init)
    }

    /// Google's answer to a missing or wrong API key.
    static let badKey = error(
        400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", reason: "API_KEY_INVALID")

    private func authToken(_ request: Request) async throws -> Response {
        guard key(request) == apiKey else { return Self.badKey }
        if case .status(let code) = state.withLock({ $0.behavior }) {
            return Self.error(code, Self.statusName(code), "forced \(code)")
        }
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        else { return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.") }
        let known: Set = [
            "uses", "expireTime", "newSessionExpireTime", "bidiGenerateContentSetup", "fieldMask", "name",
        ]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(unknown)\"")
        }
        let now = Date()
        let formatter = ISO8601DateFormatter()
        let uses = (object["uses"] as? Int) ?? 1
        let expiry = (object["expireTime"] as? String).flatMap(formatter.date(from:)) ?? now.addingTimeInterval(1800)
        let newSession =
            (object["newSessionExpireTime"] as? String).flatMap(formatter.date(from:)) ?? now.addingTimeInterval(60)
        guard uses >= 1, expiry > now, newSession > now, newSession <= expiry,
            expiry <= now.addingTimeInterval(20 * 3600)
        else {
            return Self.error(
                400, "INVALID_ARGUMENT",
                "uses must be ≥ 1; expireTime and newSessionExpireTime in the future, the first within 20 hours")
        }
        if let setup = object["bidiGenerateContentSetup"], let problem = Self.checkSetup(setup) {
            return Self.error(400, "INVALID_ARGUMENT", "bidiGenerateContentSetup: \(problem)")
        }
        let name = "auth_tokens/\(UUID().uuidString.lowercased())"
        state.withLock {
            $0.tokens[name] = Grant(usesLeft: uses, newSessionExpiry: newSession, expiry: expiry)
            $0.tokenRequests += 1
        }
        return Self.json(
            200,
            [
                "name": name, "uses": uses, "expireTime": formatter.string(from: expiry),
                "newSessionExpireTime": formatter.string(from: newSession),
            ])
    }

    private func generateContent(_ request: Request) async throws -> Response {
        state.withLock { $0.restCalls += 1 }
        guard key(request) == apiKey else { return Self.badKey }
        if case .status(let code) = state.withLock({ $0.behavior }) {
            return Self.error(code, Self.statusName(code), "forced \(code)")
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
        let known: Set = [
            "contents", "generationConfig", "generation_config", "systemInstruction", "system_instruction",
            "safetySettings", "safety_settings",
        ]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(unknown)\"")
        }
        guard let contents = object["contents"] as? [Any], !contents.isEmpty else {
            return Self.error(400, "INVALID_ARGUMENT", "contents is not specified")
        }
        for (index, content) in contents.enumerated() {
            if let problem = Self.checkContent(content, at: "contents[\(index)]") {
                return Self.error(400, "INVALID_ARGUMENT", problem)
            }
        }
        if let config = object["generationConfig"], let problem = Self.checkGenerationConfig(config) {
            return Self.error(400, "INVALID_ARGUMENT", problem)
        }
        record(contents)
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

    /// Keeps the text and images of a request's contents for tests to look at.
    private func record(_ contents: [Any]) {
        let parts = contents.compactMap { ($0 as? [String: Any])?["parts"] as? [[String: Any]] }.joined()
        let prompt = parts.compactMap { $0["text"] as? String }.joined(separator: "\n")
        let images = parts.compactMap { part -> [UInt8]? in
            guard let inline = part["inlineData"] as? [String: Any], let data = inline["data"] as? String else {
                return nil
            }
            return Data(base64Encoded: data).map { Array($0) }
        }
        state.withLock { $0.requests.append((prompt, images)) }
    }

    /// Checks the credential of a Live connection and spends one use of a token.
    private func admit(_ request: Request) -> (ok: Bool, reason: String, expiry: Date) {
        let path = request.uri.path
        let query = request.uri.queryParameters
        if path.hasSuffix("v1beta.GenerativeService.BidiGenerateContent") {
            let ok = query["key"].map(String.init) == apiKey
            return (ok, "API key not valid. Please pass a valid API key.", .distantFuture)
        }
        guard path.hasSuffix("v1alpha.GenerativeService.BidiGenerateContentConstrained") else {
            return (false, "unknown endpoint \(path)", .distantFuture)
        }
        let token = query["access_token"].map(String.init) ?? ""
        let now = Date()
        return state.withLock { state in
            guard var grant = state.tokens[token] else { return (false, "Unknown or invalid auth token.", now) }
            guard grant.expiry > now else { return (false, "Auth token has expired.", now) }
            guard grant.newSessionExpiry > now else {
                return (false, "Auth token can no longer start new sessions (newSessionExpireTime passed).", now)
            }
            guard grant.usesLeft > 0 else { return (false, "Auth token has no uses left.", now) }
            grant.usesLeft -= 1
            state.tokens[token] = grant
            return (true, "", grant.expiry)
        }
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, _ code: WebSocketErrorCode, _ reason: String)
        async throws
    {
        state.withLock { $0.refusals.append(reason) }
        try await outbound.close(code, reason: reason)
    }

    private func live(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request)
        async throws
    {
        let admission = admit(request)
        var messages = inbound.messages(maxSize: 20 << 20).makeAsyncIterator()
        guard admission.ok else {
            // Refused when the setup arrives (a close racing the client's first write would leave
            // the refusal's reason to chance).
            _ = try await messages.next()
            try await refuse(outbound, .policyViolation, admission.reason)
            return
        }
        var setUp = false
        while let message = try await messages.next() {
            let data: Data
            switch message {
            case .text(let text): data = Data(text.utf8)
            case .binary(let buffer): data = Data(buffer.readableBytesView)
            }
            if Date() >= admission.expiry {
                try await refuse(outbound, .policyViolation, "Auth token has expired.")
                return
            }
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                try await refuse(outbound, .dataInconsistentWithMessage, "Invalid JSON payload received.")
                return
            }
            let kinds = ["setup", "clientContent", "realtimeInput", "toolResponse"]
            if let unknown = object.keys.sorted().first(where: { !kinds.contains($0) }) {
                try await refuse(
                    outbound, .dataInconsistentWithMessage,
                    "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
                return
            }
            guard object.count == 1 else {
                try await refuse(outbound, .dataInconsistentWithMessage, "a message carries exactly one of \(kinds)")
                return
            }
            if let setup = object["setup"] {
                if let problem = setUp ? "setup was already sent" : Self.checkSetup(setup) {
                    try await refuse(outbound, .dataInconsistentWithMessage, "setup: \(problem)")
                    return
                }
                setUp = true
                state.withLock { $0.liveSetups += 1 }
                try await outbound.write(.binary(ByteBuffer(string: #"{"setupComplete": {}}"#)))
                continue
            }
            guard setUp else {
                try await refuse(outbound, .dataInconsistentWithMessage, "setup must be the first message")
                return
            }
            guard let content = object["clientContent"] else { continue }
            if let problem = Self.checkClientContent(content) {
                try await refuse(outbound, .dataInconsistentWithMessage, "clientContent: \(problem)")
                return
            }
            record((content as? [String: Any])?["turns"] as? [Any] ?? [])
            let (behavior, text) = state.withLock { state -> (Behavior, String) in
                state.liveTurns += 1
                return (state.behavior, state.modelText)
            }
            if behavior == .malformed {
                try await outbound.write(.text("this is not json"))
                continue
            }
            // The answer in two chunks, as the Live API streams it, then turnComplete with usage.
            let middle = text.index(text.startIndex, offsetBy: text.count / 2)
            for (index, chunk) in [String(text[..<middle]), String(text[middle...])].enumerated() {
                if index == 1, behavior == .goAwayMidAnswer {
                    try await outbound.write(.binary(ByteBuffer(string: #"{"goAway": {"timeLeft": "0s"}}"#)))
                    try await outbound.close(.goingAway, reason: "session over")
                    return
                }
                let frame = try JSONSerialization.data(withJSONObject: [
                    "serverContent": ["modelTurn": ["role": "model", "parts": [["text": chunk]]]]
                ])
                try await outbound.write(.binary(ByteBuffer(bytes: frame)))
            }
            try await outbound.write(
                .binary(
                    ByteBuffer(
                        string:
                            #"{"serverContent": {"turnComplete": true}, "usageMetadata": {"promptTokenCount": 1290, "responseTokenCount": 24, "totalTokenCount": 1314}}"#
                    )))
            if behavior == .goAwayAfterAnswer {
                try await outbound.write(.binary(ByteBuffer(string: #"{"goAway": {"timeLeft": "0s"}}"#)))
                try await outbound.close(.goingAway, reason: "session over")
                return
            }
        }
    }

    // MARK: - The documented shapes

    static func unknownField(_ object: [String: Any], _ known: Set<String>, at path: String) -> String? {
        object.keys.sorted().first(where: { !known.contains($0) }).map {
            "Invalid JSON payload received. Unknown name \"\($0)\" at '\(path)': Cannot find field."
        }
    }

    /// `BidiGenerateContentSetup`.
    static func checkSetup(_ value: Any) -> String? {
        guard let setup = value as? [String: Any] else { return "setup is not an object" }
        let known: Set = [
            "model", "generationConfig", "systemInstruction", "tools", "realtimeInputConfig", "sessionResumption",
            "contextWindowCompression", "inputAudioTranscription", "outputAudioTranscription", "proactivity",
        ]
        if let problem = unknownField(setup, known, at: "setup") { return problem }
        guard let model = setup["model"] as? String, model.hasPrefix("models/"), model.count > 7 else {
            return "model is required, as models/{model}"
        }
        if let config = setup["generationConfig"], let problem = checkGenerationConfig(config) { return problem }
        if let instruction = setup["systemInstruction"],
            let problem = checkContent(instruction, at: "systemInstruction")
        {
            return problem
        }
        return nil
    }

    static func checkGenerationConfig(_ value: Any) -> String? {
        guard let config = value as? [String: Any] else { return "generationConfig is not an object" }
        let known: Set = [
            "candidateCount", "maxOutputTokens", "temperature", "topP", "topK", "presencePenalty",
            "frequencyPenalty", "responseModalities", "speechConfig", "mediaResolution", "seed",
            "stopSequences", "responseMimeType", "responseSchema", "thinkingConfig",
        ]
        if let problem = unknownField(config, known, at: "generationConfig") { return problem }
        if let modalities = config["responseModalities"] {
            guard let list = modalities as? [String], !list.isEmpty,
                list.allSatisfy({ ["TEXT", "AUDIO", "IMAGE"].contains($0) })
            else { return "generationConfig.responseModalities: TEXT, AUDIO or IMAGE" }
        }
        if let temperature = config["temperature"] {
            guard let number = temperature as? Double, (0...2).contains(number) else {
                return "generationConfig.temperature must be between 0 and 2"
            }
        }
        if let tokens = config["maxOutputTokens"] {
            guard let number = tokens as? Int, number > 0 else {
                return "generationConfig.maxOutputTokens must be a positive integer"
            }
        }
        return nil
    }

    /// `Content`: `{role?, parts: [Part]}`, each part exactly one of text or base64 inlineData.
    static func checkContent(_ value: Any, at path: String) -> String? {
        guard let content = value as? [String: Any] else { return "\(path) is not a Content object" }
        if let problem = unknownField(content, ["role", "parts"], at: path) { return problem }
        if let role = content["role"] {
            guard let name = role as? String, ["user", "model"].contains(name) else {
                return "\(path).role must be user or model"
            }
        }
        guard let parts = content["parts"] as? [Any], !parts.isEmpty else {
            return "\(path).parts must not be empty"
        }
        for (index, value) in parts.enumerated() {
            let here = "\(path).parts[\(index)]"
            guard let part = value as? [String: Any] else { return "\(here) is not a Part object" }
            if let problem = unknownField(part, ["text", "inlineData", "fileData", "thought"], at: here) {
                return problem
            }
            let data = part.keys.filter { ["text", "inlineData", "fileData"].contains($0) }
            guard data.count == 1 else { return "\(here) needs exactly one of text, inlineData, fileData" }
            if let text = part["text"], !(text is String) { return "\(here).text is not a string" }
            if let inline = part["inlineData"] {
                guard let blob = inline as? [String: Any], let mime = blob["mimeType"] as? String,
                    mime.contains("/"), let data = blob["data"] as? String, Data(base64Encoded: data) != nil
                else { return "\(here).inlineData needs mimeType and base64 data" }
                if let problem = unknownField(blob, ["mimeType", "data"], at: "\(here).inlineData") {
                    return problem
                }
            }
        }
        return nil
    }

    /// `BidiGenerateContentClientContent`: `{turns: [Content], turnComplete?}`.
    static func checkClientContent(_ value: Any) -> String? {
        guard let content = value as? [String: Any] else { return "not an object" }
        if let problem = unknownField(content, ["turns", "turnComplete"], at: "clientContent") { return problem }
        if let complete = content["turnComplete"], !(complete is Bool) { return "turnComplete is not a boolean" }
        guard let turns = content["turns"] as? [Any], !turns.isEmpty else { return "turns must not be empty" }
        for (index, turn) in turns.enumerated() {
            if let problem = checkContent(turn, at: "turns[\(index)]") { return problem }
        }
        return nil
    }

    static func statusName(_ code: Int) -> String {
        switch code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        case 504: "DEADLINE_EXCEEDED"
        default: "INTERNAL"
        }
    }

    static func json(_ status: Int, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ code: Int, _ status: String, _ message: String, reason: String? = nil) -> Response {
        var error: [String: Any] = ["code": code, "message": message, "status": status]
        if let reason {
            error["details"] = [
                [
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
                    "domain": "googleapis.com",
                ]
            ]
        }
        return json(code, ["error": error])
    }
}
