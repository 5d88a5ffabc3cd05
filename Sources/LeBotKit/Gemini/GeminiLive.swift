import CameraCommon
import FoundationEssentials
import Logging
import NIOCore
import NIOWebSocket
import Networking
import Synchronization
import WSClient

/// The spec's GeminiLiveClient: one WebSocket session to the Live API (`BidiGenerateContent`),
/// set up once (model, generationConfig, systemInstruction) and then asked one `clientContent`
/// turn per shot; the answer is the model turn's text up to `turnComplete`.
///
/// It always talks to Gemini's own endpoint (``GeminiConfiguration/liveBase``), never to our proxy:
/// with an API key (development) the v1beta endpoint (`?key=`); with ephemeral tokens from our
/// proxy the v1alpha `BidiGenerateContentConstrained` endpoint (`?access_token=`), one new token per
/// session. A `goAway` from the server, or a dropped connection, closes the session; the next
/// question (or a retry of this one) opens a new one.
public actor GeminiLiveClient: ShotAnalyzing {
    public enum Credential: Sendable {
        /// A Gemini API key (development; the v1beta endpoint).
        case apiKey(String)
        /// Tokens from our proxy, a new one per session.
        case ephemeral(SessionAuthService)
        /// One ephemeral token already in hand: it opens one session.
        case accessToken(String)
    }

    public let configuration: GeminiConfiguration
    private let credential: Credential
    private var session: LiveSession?
    private var opening: Task<Result<LiveSession, GeminiError>, Never>?
    /// Sessions opened so far (a reconnect opens another).
    public private(set) var sessionsOpened = 0

    public init(credential: Credential, configuration: GeminiConfiguration = .init()) {
        self.credential = credential
        self.configuration = configuration
    }

    public func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        let message = Self.encode(ClientMessage(clientContent: .init(turns: [request.content], turnComplete: true)))
        var lastError = GeminiError.network("no session")
        // Two tries on sessions where this question was the first asked. Shots decided close together
        // share a session and queue on it; when it ends (a goAway after an earlier answer, a dropped
        // connection) before their turn, that was not their try. Six sessions at most, whatever happens.
        var tries = 0
        var sessions = 0
        while tries < 2, sessions < 6 {
            sessions += 1
            let current: LiveSession
            do {
                current = try await openSession()
            } catch {
                tries += 1
                lastError = error
                switch (error, credential) {
                case (.unauthorized, .ephemeral):
                    // A refused token: the next try gets a new one.
                    continue
                case (.unauthorized, _), (.badRequest, _): throw error
                default: continue
                }
            }
            let (position, result) = await current.ask(message, timeout: configuration.timeout)
            switch result {
            case .success(let text):
                if current.isClosed, session === current { session = nil }
                return try ShotAnalysisResponse.parse(modelText: text)
            case .failure(let error):
                if session === current { session = nil }
                current.close()
                lastError = error
                switch error {
                case .goingAway, .network:
                    if position == 0 { tries += 1 }
                    continue
                default: throw error
                }
            }
        }
        throw lastError
    }

    /// Closes the session, if one is open.
    public func close() {
        session?.close()
        session = nil
    }

    /// The open session, or the one being opened: shots decided close together share one.
    private func openSession() async throws(GeminiError) -> LiveSession {
        if let session, !session.isClosed { return session }
        if let opening { return try await opening.value.get() }
        let task = Task { () -> Result<LiveSession, GeminiError> in await self.connectResult() }
        opening = task
        let result = await task.value
        opening = nil
        if case .success(let opened) = result {
            sessionsOpened += 1
            session = opened
        }
        return try result.get()
    }

    private func connectResult() async -> Result<LiveSession, GeminiError> {
        do {
            return .success(try await connect())
        } catch {
            return .failure(error)
        }
    }

    private func connect() async throws(GeminiError) -> LiveSession {
        let url: String
        switch credential {
        case .apiKey(let key):
            url =
                "\(configuration.liveBase)/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=\(key)"
        case .ephemeral(let auth):
            url = Self.constrainedURL(configuration.liveBase, token: try await auth.token().token)
        case .accessToken(let token):
            url = Self.constrainedURL(configuration.liveBase, token: token)
        }
        let setup = Self.encode(
            ClientMessage(
                setup: .init(
                    model: "models/\(configuration.model)",
                    generationConfig: .init(
                        responseModalities: ["TEXT"], temperature: configuration.temperature,
                        maxOutputTokens: configuration.maxOutputTokens),
                    systemInstruction: Content(role: nil, parts: [Part(text: configuration.systemInstruction)]))))
        return try await LiveSession.open(url: url, setup: setup, timeout: configuration.timeout)
    }

    static func constrainedURL(_ base: String, token: String) -> String {
        // Token names are `auth_tokens/…`; anything outside the unreserved characters is escaped.
        let escaped = token.utf8.map { byte -> String in
            let character = Character(Unicode.Scalar(byte))
            return character.isASCII && (character.isLetter || character.isNumber || "-._~/".contains(character))
                ? String(character) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
        return
            "\(base)/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained?access_token=\(escaped)"
    }

    struct ClientMessage: Encodable {
        struct Setup: Encodable {
            var model: String
            var generationConfig: GenerationConfig
            var systemInstruction: Content
        }
        struct ClientContent: Encodable {
            var turns: [Content]
            var turnComplete: Bool
        }
        var setup: Setup?
        var clientContent: ClientContent?
    }

    static func encode(_ message: ClientMessage) -> String {
        (try? String(decoding: JSONEncoder().encode(message), as: UTF8.self)) ?? "{}"
    }
}

/// One message from the Live server; camelCase or snake_case keys.
struct LiveServerMessage: Decodable {
    var setupComplete = false
    var text = ""
    var turnComplete = false
    var goAway = false

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct ServerContent: Decodable {
        var text = ""
        var turnComplete = false
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let turn =
                try container.decodeIfPresent(Content.self, forKey: Key("modelTurn"))
                ?? container.decodeIfPresent(Content.self, forKey: Key("model_turn"))
            text = turn?.parts.compactMap(\.text).joined() ?? ""
            turnComplete =
                try container.decodeIfPresent(Bool.self, forKey: Key("turnComplete"))
                ?? container.decodeIfPresent(Bool.self, forKey: Key("turn_complete")) ?? false
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        setupComplete = container.contains(Key("setupComplete")) || container.contains(Key("setup_complete"))
        goAway = container.contains(Key("goAway")) || container.contains(Key("go_away"))
        if let content =
            try container.decodeIfPresent(ServerContent.self, forKey: Key("serverContent"))
            ?? container.decodeIfPresent(ServerContent.self, forKey: Key("server_content"))
        {
            text = content.text
            turnComplete = content.turnComplete
        }
    }

    static func result(_ message: WebSocketMessage) -> Result<LiveServerMessage, GeminiError> {
        do {
            return .success(try parse(message))
        } catch {
            return .failure(error)
        }
    }

    /// Text or binary frames (the Live API sends JSON in binary frames).
    static func parse(_ message: WebSocketMessage) throws(GeminiError) -> LiveServerMessage {
        let bytes: Data
        switch message {
        case .text(let text): bytes = Data(text.utf8)
        case .binary(let buffer): bytes = Data(buffer.readableBytesView)
        }
        do {
            return try JSONDecoder().decode(LiveServerMessage.self, from: bytes)
        } catch {
            throw .invalidResponse(
                "a Live message is not JSON: \(String(decoding: bytes.prefix(60), as: UTF8.self).debugDescription)")
        }
    }
}

/// A running WebSocket session: a task owns the connection and serves questions in order.
final class LiveSession: Sendable {
    struct Pending: Sendable {
        var message: String
        var reply: @Sendable (Result<String, GeminiError>) -> Void
    }

    private let requests: AsyncStream<Pending>.Continuation
    private let state = Mutex<(closed: Bool, task: Task<Void, Never>?, asked: Int)>((false, nil, 0))

    private init(requests: AsyncStream<Pending>.Continuation) {
        self.requests = requests
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func close() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            return state.task
        }
        requests.finish()
        task?.cancel()
    }

    /// Sends one turn and waits for the complete answer. `position` is how many turns were asked on
    /// this session before this one (0: the first).
    func ask(_ message: String, timeout: Duration) async -> (position: Int, result: Result<String, GeminiError>) {
        let position = state.withLock { state -> Int in
            defer { state.asked += 1 }
            return state.asked
        }
        guard !isClosed else { return (position, .failure(.network("the session is closed"))) }
        let result: Result<String, GeminiError> = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            requests.yield(Pending(message: message, reply: { once.resume($0) }))
            Task {
                try? await Task.sleep(for: timeout)
                once.resume(.failure(.timedOut))
            }
        }
        return (position, result)
    }

    /// Connects, sends `setup` and waits for `setupComplete`.
    static func open(url: String, setup: String, timeout: Duration) async throws(GeminiError) -> LiveSession {
        let (stream, continuation) = AsyncStream.makeStream(of: Pending.self)
        let session = LiveSession(requests: continuation)
        let ready: Result<Void, GeminiError> = await withCheckedContinuation { readyContinuation in
            let signal = Once(readyContinuation)
            let task = Task {
                var logger = Logger(label: "lebot.gemini-live")
                logger.logLevel = .critical
                let outcome: Result<Void, GeminiError>
                do {
                    // Large frames (inline JPEGs); a short close handshake when the server hangs up.
                    let settings = WebSocketClientConfiguration(maxFrameSize: 1 << 22, closeTimeout: .seconds(1))
                    let close = try await WebSocketClient.connect(url: url, configuration: settings, logger: logger) {
                        inbound, outbound, _ in
                        // A server that refuses the credential may close before the setup is
                        // written; its close frame (returned by connect) says why.
                        do {
                            try await outbound.write(.text(setup))
                        } catch {
                            return
                        }
                        var messages = inbound.messages(maxSize: 8 << 20).makeAsyncIterator()
                        // Closed before setupComplete: the close frame (read below) says why.
                        guard let first = try await messages.next() else { return }
                        let parsed = try LiveServerMessage.parse(first)
                        guard parsed.setupComplete else {
                            signal.resume(.failure(.invalidResponse("the first Live message was not setupComplete")))
                            return
                        }
                        signal.resume(.success(()))
                        for await pending in stream {
                            try await outbound.write(.text(pending.message))
                            var text = ""
                            var complete = false
                            var goingAway = false
                            while !complete, let message = try await messages.next() {
                                let parsed: LiveServerMessage
                                switch LiveServerMessage.result(message) {
                                case .success(let value): parsed = value
                                case .failure(let error):
                                    pending.reply(.failure(error))
                                    return
                                }
                                text += parsed.text
                                complete = parsed.turnComplete
                                goingAway = goingAway || parsed.goAway
                            }
                            if complete {
                                pending.reply(.success(text))
                            } else {
                                pending.reply(
                                    .failure(goingAway ? .goingAway : .network("the connection closed mid-answer")))
                                return
                            }
                            // The server said it will close soon: end this session cleanly.
                            if goingAway { return }
                        }
                    }
                    if let close, close.closeCode == .policyViolation {
                        // The Live API refuses bad keys and tokens by closing with 1008.
                        outcome = .failure(.unauthorized(close.reason ?? "policy violation"))
                    } else if let close, close.closeCode == .dataInconsistentWithMessage {
                        // 1007: a message that is not the documented shape; retrying will not help.
                        outcome = .failure(.badRequest(close.reason ?? "invalid payload"))
                    } else {
                        let reason =
                            close.map { "\($0.closeCode)\($0.reason.map { ": \($0)" } ?? "")" } ?? "no close frame"
                        outcome = .failure(.network("the Live session ended (\(reason))"))
                    }
                } catch let error as GeminiError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(.network(redactingSecrets("\(error)")))
                }
                signal.resume(outcome)
                session.state.withLock { $0.closed = true }
                continuation.finish()
                // Anyone still waiting gets the reason.
                for await pending in stream {
                    if case .failure(let error) = outcome { pending.reply(.failure(error)) }
                }
            }
            session.state.withLock { $0.task = task }
            Task {
                try? await Task.sleep(for: timeout)
                signal.resume(.failure(.timedOut))
            }
        }
        if case .failure(let error) = ready {
            session.close()
            throw error
        }
        return session
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// Resumes a continuation once; later calls are ignored (timeouts race answers).
final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: T) {
        let taken = continuation.withLock { stored -> CheckedContinuation<T, Never>? in
            defer { stored = nil }
            return stored
        }
        taken?.resume(returning: value)
    }
}

/// Hides API keys and tokens that a URL in an error message may carry.
func redactingSecrets(_ text: String) -> String {
    URLRedaction.redactingURLs(in: text).replacing(#/(key|access_token|token)=[^&\s"']+/#) { match in
        "\(match.output.1)=REDACTED"
    }
}
