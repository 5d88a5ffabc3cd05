import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

/// The body of `POST /api/analyze-shot` (the spec's analyzeShot): base64 JPEG or PNG frames, the
/// first also as `image` for clients that send one. The answer is a ``ShotAnalysisResponse``.
/// ``ProxyShotClient`` sends it; the CameraCore server decodes it.
public struct ProxyShotRequest: Sendable, Codable, Equatable {
    public var image: String?
    public var images: [String]?
    /// What the detector saw; the server writes the prompt from these.
    public var facts: ShotFacts?
    /// Refused by the server (400): clients do not write prompts.
    public var prompt: String?

    public init(image: String?, images: [String]?, facts: ShotFacts? = nil) {
        self.image = image
        self.images = images
        self.facts = facts
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

    public func analyze(_ request: ShotAnalysisRequest) async throws(GeminiError) -> ShotAnalysisResponse {
        let images = request.images.map { Data($0).base64EncodedString() }
        let body = ProxyShotRequest(image: images.first, images: images, facts: request.facts)
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
    let response: HTTPClientResponse
    do {
        response = try await HTTPClient.send(
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

/// Gets ephemeral Live tokens from our proxy (the spec's SessionAuthService).
///
/// Gemini's tokens open one session (`uses`: 1) and only within a short start window
/// (`newSessionExpireTime`, a minute), though a session they opened lasts until `expiresAt`. So
/// none is kept: every connect or reconnect asks for a new one just before it opens the session.
public actor SessionAuthService {
    public struct Token: Sendable, Codable, Equatable {
        public var token: String
        /// When a session opened with this token ends.
        public var expiresAt: Date
        /// The last moment the token can open a session (servers that do not say: `expiresAt`).
        public var newSessionExpiresAt: Date?
        /// Sessions the token can open (servers that do not say: 1).
        public var uses: Int?

        public init(token: String, expiresAt: Date, newSessionExpiresAt: Date? = nil, uses: Int? = nil) {
            self.token = token
            self.expiresAt = expiresAt
            self.newSessionExpiresAt = newSessionExpiresAt
            self.uses = uses
        }
    }

    public let base: String
    private let sessionToken: String
    /// Tokens fetched from the proxy so far.
    public private(set) var fetched = 0

    public init(base: String, sessionToken: String) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.sessionToken = sessionToken
    }

    struct Empty: Encodable {}

    /// A new token, for one new session.
    public func token() async throws(GeminiError) -> Token {
        try await fetch()
    }

    private func fetch() async throws(GeminiError) -> Token {
        let body = try await postJSON(
            "\(base)/api/ephemeral-token", body: Empty(), headers: [("Authorization", "Bearer \(sessionToken)")],
            timeout: .seconds(10))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let token = try? decoder.decode(Token.self, from: Data(body)) else {
            throw .invalidResponse("the proxy's token answer is not {token, expiresAt}")
        }
        fetched += 1
        return token
    }
}
