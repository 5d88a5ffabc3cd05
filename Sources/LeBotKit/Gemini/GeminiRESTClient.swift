import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

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
