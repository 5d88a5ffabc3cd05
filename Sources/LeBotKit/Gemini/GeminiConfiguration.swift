import CameraCommon
import FoundationEssentials
import NIOHTTP1
import Networking

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
