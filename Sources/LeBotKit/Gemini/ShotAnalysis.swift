import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

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
        var reasons: [String] = []
        if let object = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            message = object.message ?? message
            reasons = object.reasons
        }
        switch status {
        // Google answers a bad or expired key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
        case 400 where reasons.contains("API_KEY_INVALID") || reasons.contains("API_KEY_EXPIRED"):
            return .unauthorized(message)
        case 400: return .badRequest(message)
        case 401, 403: return .unauthorized(message)
        case 429: return .rateLimited(message)
        case 502, 503, 504: return .unavailable(message)
        default: return .serverError(message)
        }
    }

    struct ErrorBody: Decodable {
        var message: String?
        /// `error.details[].reason` (google.rpc.ErrorInfo), e.g. API_KEY_INVALID.
        var reasons: [String] = []
        enum CodingKeys: String, CodingKey { case error }
        struct Detail: Decodable {
            struct Info: Decodable { var reason: String? }
            var message: String?
            var status: String?
            var details: [Info]?
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let detail = try? container.decode(Detail.self, forKey: .error) {
                reasons = detail.details?.compactMap(\.reason) ?? []
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

/// What LeBot asks about one shot: the prompt, what the detector saw, and a few JPEG frames
/// (release, apex, rim).
public struct ShotAnalysisRequest: Sendable {
    public var prompt: String
    public var images: [[UInt8]]
    /// What the on-device detector saw; our proxy builds its own prompt from these alone.
    public var facts: ShotFacts

    public init(prompt: String, images: [[UInt8]], facts: ShotFacts = ShotFacts()) {
        self.prompt = prompt
        self.images = images
        self.facts = facts
    }

    /// The request LeBot sends about `shot`.
    public init(shot: ShotEvent, images: [[UInt8]]) {
        let facts = ShotFacts(shot)
        self.init(prompt: facts.prompt, images: images, facts: facts)
    }
}

/// What the on-device detector saw about a shot, the only words a client adds to the frames it
/// sends our proxy: the prompt itself is fixed (``prompt``), so nobody can spend the server's
/// Gemini budget on questions of their own.
public struct ShotFacts: Sendable, Codable, Equatable {
    /// `make`, `miss` or nil when unknown.
    public var outcome: String?
    /// Degrees.
    public var entryAngle: Double?

    public init(outcome: String? = nil, entryAngle: Double? = nil) {
        self.outcome = outcome
        self.entryAngle = entryAngle
    }

    /// A detected shot's facts, in the words the proxy takes (`make`/`miss`; an undecided shot has none).
    public init(_ shot: ShotEvent) {
        let outcome: String? =
            switch shot.outcome {
            case .make: "make"
            case .miss: "miss"
            case .indeterminate: nil
            }
        self.init(outcome: outcome, entryAngle: shot.entryAngle)
    }

    /// Whether the values are ones a detector produces (the proxy refuses others).
    public var isPlausible: Bool {
        (outcome.map { ["make", "miss"].contains($0) } ?? true)
            && (entryAngle.map { $0.isFinite && (0...90).contains($0) } ?? true)
    }

    /// The fixed prompt with these facts.
    public var prompt: String {
        var text =
            "Analyze this basketball shot. The frames show the release, the top of the arc and the ball at the rim."
        if let outcome { text += " The on-device detector says: \(outcome)" }
        if let entryAngle {
            text += "\(outcome == nil ? " The" : ",") entry angle is \(Int(entryAngle.rounded())) degrees"
        }
        if outcome != nil || entryAngle != nil { text += "." }
        text += " Reply only with JSON: {\"outcome\": \"make\" or \"miss\", \"tip\": one short coaching tip}."
        return text
    }
}

/// Anything that can analyse a shot: Gemini Live, Gemini REST, our proxy, local tips.
public protocol ShotAnalyzing: Sendable {
    func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse
    /// How reports name this coach (`gemini-live`, `gemini-rest`, `proxy`).
    var sourceName: String { get }
}

extension GeminiLiveClient { public nonisolated var sourceName: String { "gemini-live" } }
extension GeminiRESTClient { public var sourceName: String { "gemini-rest" } }
extension ProxyShotClient { public var sourceName: String { "proxy" } }
