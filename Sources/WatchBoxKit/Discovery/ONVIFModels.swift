import CameraCommon
import Crypto
import FoundationEssentials
import NIOHTTP1
import Networking

/// What went wrong talking to an ONVIF device. Messages never contain the password.
public enum ONVIFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device refused the credentials (SOAP `ter:NotAuthorized`, or HTTP 401 after answering
    /// its challenge). `reason` is the device's own words.
    case notAuthorized(reason: String)
    /// A SOAP fault: code (`env:Sender`), subcode (`ter:InvalidArgVal`) and reason.
    case fault(code: String, subcode: String?, reason: String)
    /// An HTTP status that carried no SOAP fault.
    case http(status: Int)
    /// The answer was not the SOAP we asked for; the detail names what was missing.
    case invalidResponse(String)
    /// Connecting or reading failed (refused, timed out, closed).
    case transport(kind: String, message: String)

    public var description: String {
        switch self {
        case .notAuthorized(let reason): "the device refused the credentials: \(reason)"
        case .fault(let code, let subcode, let reason):
            "the device answered with a SOAP fault \(subcode ?? code): \(reason)"
        case .http(let status): "the device answered HTTP \(status)"
        case .invalidResponse(let detail): "the device's answer is not valid ONVIF: \(detail)"
        case .transport(_, let message): message
        }
    }
}

/// An ONVIF profile of the media service: one encoder configuration the camera can stream.
public struct ONVIFProfile: Sendable, Codable, Equatable {
    public var token: String
    public var name: String
    /// `H264`, `H265`, `JPEG`, … as the device says.
    public var encoding: String?
    public var width: Int?
    public var height: Int?
    public var frameRate: Double?
    public var bitrateKbps: Int?
}

/// `GetDeviceInformation`.
public struct ONVIFDeviceInformation: Sendable, Codable, Equatable {
    public var manufacturer: String?
    public var model: String?
    public var firmwareVersion: String?
    public var serialNumber: String?
    public var hardwareID: String?
}

/// Service addresses from `GetCapabilities`.
public struct ONVIFCapabilities: Sendable, Codable, Equatable {
    public var deviceService: String?
    public var mediaService: String?
    public var eventsService: String?
    public var ptzService: String?
}
