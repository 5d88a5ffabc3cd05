import CameraCommon
import FoundationEssentials

/// What a discovered camera says about itself once logged in over ONVIF: identity (maker, model,
/// firmware), every stream profile and its RTSP URL. `watchbox discover --user` and the server's
/// discovery both answer with this.
public struct ONVIFDeviceDescription: Sendable, Codable, Equatable {
    /// One stream profile and the RTSP URL to play it; when the camera would not give one, why.
    public struct Profile: Sendable, Codable, Equatable {
        public var profile: ONVIFProfile
        public var streamURL: String?
        /// Why ``streamURL`` is missing (the camera's fault, a timeout), when it is.
        public var streamError: String?
        /// The camera's own words, when it refused (a SOAP fault's reason), for a person to read.
        public var streamRefusal: String?
    }

    public var device: DiscoveredDevice
    public var information: ONVIFDeviceInformation?
    public var profiles: [Profile]?
    /// Why the ONVIF details are missing, when they are.
    public var error: String?

    /// The discovered device without logging in.
    public init(device: DiscoveredDevice) {
        self.device = device
    }

    /// Logs in to the device (clock first, since WS-Security stamps are checked against the
    /// camera's clock) and reads identity, profiles and stream URLs. Never throws: a failure is
    /// kept in ``error`` next to what discovery found.
    public static func read(
        _ device: DiscoveredDevice, username: String, password: String, timeout: Duration = .seconds(5)
    ) async -> ONVIFDeviceDescription {
        var description = ONVIFDeviceDescription(device: device)
        guard let url = device.serviceURL else {
            description.error = "the camera gave no device service address"
            return description
        }
        do throws(ONVIFError) {
            let client = try ONVIFClient(deviceURL: url, username: username, password: password, timeout: timeout)
            try await client.systemDateAndTime()
            let information = try await client.deviceInformation()
            var profiles: [Profile] = []
            for profile in try await client.profiles() {
                profiles.append(await streamURL(of: profile, from: client))
            }
            description.information = information
            description.profiles = profiles
        } catch {
            description.error = error.description
        }
        return description
    }

    /// The profile's stream URL, asked twice when the first answer fails (a busy camera's web
    /// server drops or delays a request now and then; one profile's URL missing is a camera the
    /// user cannot add).
    static func streamURL(of profile: ONVIFProfile, from client: ONVIFClient) async -> Profile {
        var failure: ONVIFError?
        attempts: for _ in 0..<2 {
            do throws(ONVIFError) {
                return Profile(profile: profile, streamURL: try await client.streamURI(profile: profile.token))
            } catch {
                failure = error
                // Only a lost or late answer is asked again: a refusal or a fault comes back the same.
                guard case .transport = error else { break attempts }
            }
        }
        var refusal: String?
        if case .fault(_, _, let reason) = failure { refusal = reason }
        return Profile(profile: profile, streamURL: nil, streamError: failure?.description, streamRefusal: refusal)
    }
}
