import CameraCommon
import FoundationEssentials

/// What a discovered camera says about itself once logged in over ONVIF: identity (maker, model,
/// firmware), every stream profile and its RTSP URL. `watchbox discover --user` and the server's
/// discovery both answer with this.
public struct ONVIFDeviceDescription: Sendable, Codable, Equatable {
    /// One stream profile and the RTSP URL to play it (nil when the camera would not give one).
    public struct Profile: Sendable, Codable, Equatable {
        public var profile: ONVIFProfile
        public var streamURL: String?
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
                profiles.append(
                    Profile(profile: profile, streamURL: try? await client.streamURI(profile: profile.token)))
            }
            description.information = information
            description.profiles = profiles
        } catch {
            description.error = error.description
        }
        return description
    }
}
