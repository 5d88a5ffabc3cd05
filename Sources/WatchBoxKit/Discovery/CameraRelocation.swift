import CameraCommon
import FoundationEssentials
import Networking

/// Following a camera to a new address. An ONVIF camera announces itself with a WS-Discovery Hello
/// when it joins a network — after a power cut, or when its DHCP lease gives it another address —
/// and the Hello carries its endpoint reference, which WS-Discovery 1.1 (§2.6) requires to stay
/// the same across re-initialisation. A stored camera whose reference matches, heard at another
/// address, has moved.
///
/// A Hello is an unauthenticated multicast anyone on the LAN can send, so a move is followed only
/// when it cannot hand the camera's password to somebody else (see ``decide(_:hasPassword:newAddress:sameNetwork:serialThere:)``).
public enum CameraRelocation {
    /// An endpoint reference as devices vary it: case, `urn:uuid:`, `uuid:` or a bare UUID, spaces.
    public static func normalEndpoint(_ text: String) -> String {
        var value = text.trimmingWhitespace().lowercased()
        for prefix in ["urn:uuid:", "uuid:"] where value.hasPrefix(prefix) {
            value.removeFirst(prefix.count)
            break
        }
        return value
    }

    /// The stream URL `url` at `address`, when its host is the camera's old address (an IP
    /// literal); nil when it names the camera by a host name (DNS follows the camera then) or
    /// another device.
    public static func moved(_ url: String, from old: String, to address: String) -> String? {
        guard let parts = StreamURL(url), parts.host == old, old != address, IPv4Network.parse(parts.host) != nil
        else { return nil }
        return parts.withHost(address).withoutCredentials
    }

    /// `camera` at `address`: its URL and address changed; nil when its URL does not name it by
    /// the address it had.
    public static func moved(_ camera: Camera, to address: String) -> Camera? {
        guard let url = moved(camera.rtspURL, from: camera.ipAddress, to: address) else { return nil }
        var copy = camera
        copy.rtspURL = url
        copy.ipAddress = address
        return copy
    }

    /// Whether a move is followed, and if not, why — in words for the camera's event list.
    public enum Verdict: Sendable, Equatable {
        case follow
        case stay(String)
    }

    /// Decides whether to follow `camera` to `newAddress`:
    /// - only inside the network it was in (`sameNetwork`: a lease changes within one LAN; a Hello
    ///   naming another network is not followed);
    /// - with a serial number stored (added from discovery with its login), only when the device at
    ///   the new address reports the same one (`serialThere`, read with WS-Security's password
    ///   digest, which does not reveal the password);
    /// - without one, only when no password is stored: there is nothing to give away then.
    public static func decide(
        _ camera: Camera, hasPassword: Bool, newAddress: String, sameNetwork: Bool,
        serialThere: Result<String?, ONVIFError>?
    ) -> Verdict {
        let old = camera.ipAddress
        guard sameNetwork else {
            return .stay("a device at \(newAddress) announced itself as this camera; not followed: outside its network")
        }
        if let stored = camera.serialNumber, !stored.isEmpty {
            switch serialThere {
            case .success(let serial?) where serial == stored:
                return .follow
            case .success(let serial?):
                return .stay(
                    "a device at \(newAddress) announced itself as this camera but reports serial number \(serial), not \(stored); not followed"
                )
            case .success(nil):
                return .stay("the device at \(newAddress) reports no serial number; not followed")
            case .failure(let error):
                return .stay(
                    "the camera may have moved from \(old) to \(newAddress), but it could not confirm: \(error)")
            case nil:
                return .stay("the camera may have moved from \(old) to \(newAddress); it names no ONVIF service there")
            }
        }
        if hasPassword {
            return .stay(
                "the camera may have moved from \(old) to \(newAddress); its password is only sent to a device that "
                    + "proves to be this camera: add it again from discovery with its login")
        }
        return .follow
    }
}
