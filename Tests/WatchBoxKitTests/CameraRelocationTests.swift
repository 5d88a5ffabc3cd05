import CameraCommon
import Foundation
import Testing

@testable import WatchBoxKit

@Suite("Following a camera to a new address")
struct CameraRelocationTests {
    @Test("endpoint references compare as devices vary them")
    func endpointsCompareLoosely() {
        let forms = [
            "urn:uuid:1B2C3D4E-0000-1111-2222-333344445555", " uuid:1b2c3d4e-0000-1111-2222-333344445555 ",
            "1B2C3D4E-0000-1111-2222-333344445555",
        ]
        #expect(Set(forms.map(CameraRelocation.normalEndpoint)).count == 1)
        #expect(CameraRelocation.normalEndpoint("urn:uuid:a") != CameraRelocation.normalEndpoint("urn:uuid:b"))
    }

    @Test("a move changes the host only, and only of a URL that names the old address")
    func movedURLs() {
        let camera = Camera(name: "Gate", rtspURL: "rtsp://10.0.0.5:8554/video_main?channel=1", username: "admin")
        let moved = CameraRelocation.moved(camera, to: "10.0.0.9")
        #expect(moved?.rtspURL == "rtsp://10.0.0.9:8554/video_main?channel=1")
        #expect(moved?.ipAddress == "10.0.0.9")
        #expect(moved?.username == "admin")
        // Named by a host name: DNS follows the camera, nothing to change.
        #expect(CameraRelocation.moved(Camera(name: "Gate", rtspURL: "rtsp://gate.lan/s"), to: "10.0.0.9") == nil)
        // A profile on another device is not moved with it.
        #expect(CameraRelocation.moved("rtsp://10.0.0.6/sub", from: "10.0.0.5", to: "10.0.0.9") == nil)
        #expect(CameraRelocation.moved(camera, to: "10.0.0.5") == nil)
    }

    @Test("followed only where no password can go astray")
    func decisions() {
        var camera = Camera(name: "Gate", rtspURL: "rtsp://10.0.0.5/s", username: "admin")
        camera.serialNumber = "SN1"
        let decide = { (serial: Result<String?, ONVIFError>?, same: Bool, password: Bool) in
            CameraRelocation.decide(
                camera, hasPassword: password, newAddress: "10.0.0.9", sameNetwork: same, serialThere: serial)
        }
        #expect(decide(.success("SN1"), true, true) == .follow)
        guard case .stay(let other) = decide(.success("SN2"), true, true) else {
            Issue.record("followed another serial number")
            return
        }
        #expect(other.contains("serial number SN2, not SN1"))
        guard case .stay(let outside) = decide(.success("SN1"), false, true) else {
            Issue.record("followed into another network")
            return
        }
        #expect(outside.contains("outside its network"))
        guard case .stay(let silent) = decide(.failure(.notAuthorized(reason: "wrong password")), true, true) else {
            Issue.record("followed a device that could not confirm")
            return
        }
        #expect(silent.contains("could not confirm"))
        // Without a serial number: only when there is no password to give away.
        camera.serialNumber = nil
        #expect(decide(nil, true, false) == .follow)
        guard case .stay(let unproven) = decide(nil, true, true) else {
            Issue.record("sent a password to an unproven device")
            return
        }
        #expect(unproven.contains("add it again from discovery"))
    }
}
