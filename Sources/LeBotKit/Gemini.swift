import CameraCommon
import FoundationEssentials
import NIOHTTP1
import NetworkSupport

/// The spec's `ShotAnalysisResponse {outcome, tip}`.
public struct ShotAnalysisResponse: Sendable, Codable, Equatable {
    public var outcome: ShotOutcome
    public var tip: String?

    public init(outcome: ShotOutcome, tip: String?) {
        self.outcome = outcome
        self.tip = tip
    }

    enum CodingKeys: String, CodingKey { case outcome, tip }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .outcome)
        guard let outcome = ShotOutcome(loose: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .outcome, in: container,
                debugDescription: "outcome \(text.debugDescription) is not make or miss")
        }
        self.outcome = outcome
        tip = try container.decodeIfPresent(String.self, forKey: .tip)
    }

    /// Reads the model's answer: JSON, JSON in a ```json code fence, or JSON inside prose.
    ///
    /// - Throws: ``GeminiError`` `invalidResponse` quoting the start of the text.
    public static func parse(modelText text: String) throws(GeminiError) -> ShotAnalysisResponse {
        // Try every {...} span from each opening brace to its matching close, outermost first.
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            if characters[index] == "{" {
                var depth = 0
                var inString = false
                var escaped = false
                var end: Int?
                for position in index..<characters.count {
                    let character = characters[position]
                    if inString {
                        if escaped {
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            inString = false
                        }
                        continue
                    }
                    if character == "\"" {
                        inString = true
                    } else if character == "{" {
                        depth += 1
                    } else if character == "}" {
                        depth -= 1
                        if depth == 0 {
                            end = position
                            break
                        }
                    }
                }
                if let end,
                    let decoded = try? JSONDecoder().decode(
                        ShotAnalysisResponse.self, from: Data(String(characters[index...end]).utf8))
                {
                    return decoded
                }
            }
            index += 1
        }
        throw .invalidResponse(
            "no {\"outcome\", \"tip\"} JSON in the model's answer: \(String(text.prefix(80)).debugDescription)")
    }
}

/// Why an analysis failed, with the spec's status codes where HTTP gave one.
public enum GeminiError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400: the request was refused as malformed (missing image, bad field).
    case badRequest(String)
    /// 401/403: the key or token was refused or expired.
    case unauthorized(String)
    /// 429: too many requests; try later.
    case rateLimited(String)
    /// 500: the service failed.
    case serverError(String)
    /// 503 (or 502/504): the model is unreachable or overloaded.
    case unavailable(String)
    /// The answer could not be read.
    case invalidResponse(String)
    /// Connecting or reading failed, or the connection dropped mid-answer.
    case network(String)
    /// No answer in time.
    case timedOut
    /// The Live server is closing the session (`goAway`); reconnect.
    case goingAway

    static func from(status: Int, body: [UInt8]) -> GeminiError {
        // Google's error shape: {"error": {"code", "message", "status"}}; our proxy sends {"error": "..."}.
        var message = "HTTP \(status)"
        if let object = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            message = object.message ?? message
        }
        switch status {
        case 400: return .badRequest(message)
        case 401, 403: return .unauthorized(message)
        case 429: return .rateLimited(message)
        case 502, 503, 504: return .unavailable(message)
        default: return .serverError(message)
        }
    }

    struct ErrorBody: Decodable {
        var message: String?
        enum CodingKeys: String, CodingKey { case error }
        struct Detail: Decodable {
            var message: String?
            var status: String?
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let detail = try? container.decode(Detail.self, forKey: .error) {
                message = [detail.status, detail.message].compactMap { $0 }.joined(separator: ": ")
            } else {
                message = try? container.decode(String.self, forKey: .error)
            }
        }
    }

    public var description: String {
        switch self {
        case .badRequest(let m): "bad request (400): \(m)"
        case .unauthorized(let m): "not authorised (401): \(m)"
        case .rateLimited(let m): "rate limited (429): \(m)"
        case .serverError(let m): "server error (500): \(m)"
        case .unavailable(let m): "unavailable (503): \(m)"
        case .invalidResponse(let m): "unreadable answer: \(m)"
        case .network(let m): "network: \(m)"
        case .timedOut: "no answer in time"
        case .goingAway: "the Live session is closing"
        }
    }
}

/// What LeBot asks about one shot: the prompt and a few JPEG frames (release, apex, rim).
public struct ShotAnalysisRequest: Sendable {
    public var prompt: String
    public var images: [[UInt8]]

    public init(prompt: String, images: [[UInt8]]) {
        self.prompt = prompt
        self.images = images
    }

    /// The prompt LeBot sends, with what the detector saw.
    public static func prompt(for shot: ShotEvent) -> String {
        var text =
            "Analyze this basketball shot. The frames show the release, the top of the arc and the ball at the rim. The on-device detector says: \(shot.outcome.rawValue)"
        if let angle = shot.entryAngle { text += ", entry angle \(Int(angle.rounded())) degrees" }
        text += ". Reply only with JSON: {\"outcome\": \"make\" or \"miss\", \"tip\": one short coaching tip}."
        return text
    }
}

/// Anything that can analyse a shot: Gemini Live, Gemini REST, our proxy, local tips.
public protocol ShotAnalyzing: Sendable {
    func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse
}

/// Where Gemini and our proxy are; every URL is configurable so tests point at local servers.
public struct GeminiConfiguration: Sendable {
    public var restBase: String
    public var liveBase: String
    public var model: String
    public var temperature: Double
    public var maxOutputTokens: Int
    public var systemInstruction: String
    public var timeout: Duration

    public init(
        restBase: String = "https://generativelanguage.googleapis.com",
        liveBase: String = "wss://generativelanguage.googleapis.com", model: String = "gemini-2.0-flash",
        temperature: Double = 0.7, maxOutputTokens: Int = 200,
        systemInstruction: String =
            "You are LeBot James, an AI basketball coach. Judge the shot and give one short, encouraging tip.",
        timeout: Duration = .seconds(20)
    ) {
        self.restBase = restBase.hasSuffix("/") ? String(restBase.dropLast()) : restBase
        self.liveBase = liveBase.hasSuffix("/") ? String(liveBase.dropLast()) : liveBase
        self.model = model
        self.temperature = temperature
        self.maxOutputTokens = maxOutputTokens
        self.systemInstruction = systemInstruction
        self.timeout = timeout
    }
}

// MARK: - Wire format (generateContent and the Live API share Content and Part)

struct Part: Codable, Sendable {
    struct InlineData: Codable, Sendable {
        var mimeType: String
        var data: String
    }
    var text: String?
    var inlineData: InlineData?
}

struct Content: Codable, Sendable {
    var role: String?
    var parts: [Part]
}

struct GenerationConfig: Codable, Sendable {
    var responseModalities: [String]?
    var temperature: Double?
    var maxOutputTokens: Int?
}

extension ShotAnalysisRequest {
    var content: Content {
        Content(
            role: "user",
            parts: [Part(text: prompt)]
                + images.map {
                    Part(inlineData: .init(mimeType: "image/jpeg", data: Data($0).base64EncodedString()))
                })
    }
}

/// `models/{model}:generateContent` over HTTPS (the spec's fallback client).
public struct GeminiRESTClient: ShotAnalyzing {
    public let configuration: GeminiConfiguration
    private let apiKey: String

    public init(apiKey: String, configuration: GeminiConfiguration = .init()) {
        self.apiKey = apiKey
        self.configuration = configuration
    }

    struct Request: Encodable {
        var contents: [Content]
        var generationConfig: GenerationConfig
        var systemInstruction: Content
    }

    struct Response: Decodable {
        struct Candidate: Decodable { var content: Content? }
        var candidates: [Candidate]?
    }

    public func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        let body = Request(
            contents: [request.content],
            generationConfig: .init(
                responseModalities: nil, temperature: configuration.temperature,
                maxOutputTokens: configuration.maxOutputTokens),
            systemInstruction: Content(role: nil, parts: [Part(text: configuration.systemInstruction)]))
        let url = "\(configuration.restBase)/v1beta/models/\(configuration.model):generateContent"
        let response = try await postJSON(
            url, body: body, headers: [("x-goog-api-key", apiKey)], timeout: configuration.timeout)
        let decoded: Response
        do {
            decoded = try JSONDecoder().decode(Response.self, from: Data(response))
        } catch {
            throw .invalidResponse("generateContent answer is not the documented shape")
        }
        let text = decoded.candidates?.first?.content?.parts.compactMap(\.text).joined() ?? ""
        return try ShotAnalysisResponse.parse(modelText: text)
    }
}

/// The spec's analyzeShot through our server (`POST /api/analyze-shot`): the server holds the
/// Gemini key; we send a session token.
public struct ProxyShotClient: ShotAnalyzing {
    public let base: String
    public let sessionToken: String
    public let timeout: Duration

    public init(base: String, sessionToken: String, timeout: Duration = .seconds(20)) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.sessionToken = sessionToken
        self.timeout = timeout
    }

    struct Request: Encodable {
        var image: String
        var images: [String]
        var prompt: String
    }

    public func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        let images = request.images.map { Data($0).base64EncodedString() }
        let body = Request(image: images.first ?? "", images: images, prompt: request.prompt)
        let response = try await postJSON(
            "\(base)/api/analyze-shot", body: body, headers: [("Authorization", "Bearer \(sessionToken)")],
            timeout: timeout)
        do {
            return try JSONDecoder().decode(ShotAnalysisResponse.self, from: Data(response))
        } catch {
            throw .invalidResponse("the proxy's answer is not {outcome, tip}")
        }
    }
}

/// POSTs JSON and returns the body of a 2xx answer; other statuses become ``GeminiError``.
func postJSON<Body: Encodable>(
    _ url: String, body: Body, headers: [(String, String)], timeout: Duration
) async throws(GeminiError) -> [UInt8] {
    guard let parsed = HTTPURL(url) else {
        throw .badRequest("not an http(s) URL: \(URLRedaction.redactingURLs(in: url))")
    }
    let bytes: [UInt8]
    do {
        bytes = Array(try JSONEncoder().encode(body))
    } catch {
        throw .badRequest("could not encode the request")
    }
    let response: HTTPExchangeResponse
    do {
        response = try await HTTPExchange.send(
            .POST, url: parsed, headers: [("Content-Type", "application/json")] + headers, body: bytes,
            timeout: timeout,
            limit: 4 << 20)
    } catch {
        if error.kind == .timedOut { throw .timedOut }
        throw .network(error.description)
    }
    guard (200..<300).contains(response.status) else {
        throw GeminiError.from(status: response.status, body: response.body)
    }
    return response.body
}

/// Gets ephemeral Live tokens from our proxy and refreshes them before they expire (the spec's
/// SessionAuthService).
public actor SessionAuthService {
    public struct Token: Sendable, Codable, Equatable {
        public var token: String
        public var expiresAt: Date
    }

    public let base: String
    private let sessionToken: String
    private var cached: Token?
    /// Refresh when less than this is left.
    public let refreshMargin: Double
    public private(set) var fetched = 0

    public init(base: String, sessionToken: String, refreshMargin: Double = 60) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.sessionToken = sessionToken
        self.refreshMargin = refreshMargin
    }

    struct Empty: Encodable {}

    public func token() async throws(GeminiError) -> Token {
        if let cached, cached.expiresAt.timeIntervalSinceNow > refreshMargin { return cached }
        let body = try await postJSON(
            "\(base)/api/ephemeral-token", body: Empty(), headers: [("Authorization", "Bearer \(sessionToken)")],
            timeout: .seconds(10))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let token = try? decoder.decode(Token.self, from: Data(body)) else {
            throw .invalidResponse("the proxy's token answer is not {token, expiresAt}")
        }
        cached = token
        fetched += 1
        return token
    }

    /// Forget the cached token (the Live server refused it).
    public func invalidate() { cached = nil }
}

/// Tries analysers in order — Gemini Live, REST through the proxy — and falls back to a local tip
/// when all fail (offline). The outcome then is the detector's own.
public struct FallbackShotAnalyzer: Sendable {
    public var chain: [any ShotAnalyzing]

    public init(chain: [any ShotAnalyzing]) {
        self.chain = chain
    }

    public struct Answer: Sendable {
        public var response: ShotAnalysisResponse
        /// Which link answered: 0 for the first; nil for the local tips.
        public var source: Int?
        public var errors: [GeminiError]
    }

    public func analyze(
        _ request: ShotAnalysisRequest, shot: ShotEvent, tips: inout CoachingTipsManager, streak: Int
    ) async -> Answer {
        var errors: [GeminiError] = []
        for (index, analyzer) in chain.enumerated() {
            do {
                return Answer(response: try await analyzer.analyze(request), source: index, errors: errors)
            } catch {
                errors.append(error)
            }
        }
        let tip = tips.tip(
            for: CoachingContext(
                outcome: shot.outcome, streak: streak, entryAngle: shot.entryAngle, reason: shot.reason))
        return Answer(response: ShotAnalysisResponse(outcome: shot.outcome, tip: tip), source: nil, errors: errors)
    }
}
