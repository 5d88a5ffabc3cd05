import CameraCommon
import Crypto
import Foundation
import Testing
import WatchBoxKit

@Suite struct StoreTests {
    @Test func camerasAreAddedListedUpdatedReorderedAndRemovedWithTheirProfiles() throws {
        let directory = try temporaryDirectory()
        let repository = try SQLiteCameraRepository(path: directory + "/cameras.sqlite")
        let door = try repository.add(Camera(name: "Door", rtspURL: "rtsp://10.0.0.5/live"))
        let yard = try repository.add(Camera(name: "Yard", rtspURL: "rtsp://10.0.0.6:8554/main"))
        let shed = try repository.add(Camera(name: "Shed", rtspURL: "rtsp://10.0.0.7/live"))
        #expect(try repository.cameras().map(\.name) == ["Door", "Yard", "Shed"])
        #expect(try repository.cameras().map(\.gridPosition) == [0, 1, 2])
        // Same host, port and path is the same camera, whatever it is called.
        let duplicate = Result { () throws(MediaError) in
            try repository.add(Camera(name: "Door again", rtspURL: "rtsp://admin:x@10.0.0.5:554/live"))
        }
        guard case .failure(let error) = duplicate else {
            Issue.record("a duplicate camera was added")
            return
        }
        #expect(error.kind == .invalidArgument && error.message.contains("Door"))
        #expect(!error.description.contains("admin:x"))

        var renamed = yard
        renamed.name = "Back Yard"
        renamed.manufacturer = "Axis"
        try repository.update(renamed)
        #expect(try repository.camera(id: yard.id)?.name == "Back Yard")
        #expect(try repository.camera(id: yard.id)?.manufacturer == "Axis")

        try repository.reorder([shed.id, door.id])
        #expect(try repository.cameras().map(\.name) == ["Shed", "Door", "Back Yard"])

        try repository.addProfile(
            StreamProfile(
                cameraID: door.id, name: "Main", rtspURL: "rtsp://10.0.0.5/live", resolution: "1920x1080", fps: 25,
                isDefault: true))
        try repository.addProfile(
            StreamProfile(
                cameraID: door.id, name: "Sub", rtspURL: "rtsp://10.0.0.5/sub", resolution: "640x360", fps: 15,
                isDefault: true))
        let profiles = try repository.profiles(cameraID: door.id)
        #expect(profiles.map(\.name) == ["Main", "Sub"])
        #expect(profiles.filter(\.isDefault).map(\.name) == ["Sub"])  // one default at a time

        try repository.remove(id: door.id)
        #expect(try repository.cameras().map(\.name) == ["Shed", "Back Yard"])
        #expect(try repository.profiles(cameraID: door.id).isEmpty)  // cascaded
        // Reopening (migrations already applied) reads the same data.
        let reopened = try SQLiteCameraRepository(path: directory + "/cameras.sqlite")
        #expect(try reopened.cameras().map(\.name) == ["Shed", "Back Yard"])
        let missing = Result { () throws(MediaError) in try reopened.remove(id: UUID()) }
        guard case .failure(let notFound) = missing else {
            Issue.record("removing an unknown camera succeeded")
            return
        }
        #expect(notFound.kind == .notFound)
    }

    @Test func passwordsNeverReachTheDatabaseFileAndAreSealedAtRest() throws {
        let directory = try temporaryDirectory()
        let password = "Tr0ub4dor&3-unique-\(UUID().uuidString.prefix(8))"
        let repository = try SQLiteCameraRepository(path: directory + "/cameras.sqlite")
        let credentials = try FileCredentialStore(directory: directory + "/credentials")
        let camera = try repository.add(
            Camera(name: "Gate", rtspURL: "rtsp://viewer:\(password)@10.0.0.9/stream"))
        try credentials.setPassword(password, for: camera.id)
        #expect(try credentials.password(for: camera.id) == password)
        // The password's bytes are in neither the database (and its WAL) nor the sealed file.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("cameras") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            #expect(bytes.range(of: Data(password.utf8)) == nil, "\(name) holds the password")
        }
        let sealed = try Data(contentsOf: URL(fileURLWithPath: credentials.sealedPath(for: camera.id)))
        #expect(sealed.range(of: Data(password.utf8)) == nil)
        // The key file is private.
        let attributes = try FileManager.default.attributesOfItem(atPath: credentials.keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A second store on the same folder reads it back; removal forgets it.
        let again = try FileCredentialStore(directory: directory + "/credentials")
        #expect(try again.password(for: camera.id) == password)
        try again.removePassword(for: camera.id)
        #expect(try credentials.password(for: camera.id) == nil)
    }

    @Test func aReadableKeyOrAWrongKeyIsRefusedWithoutRevealingAnything() throws {
        let directory = try temporaryDirectory()
        let store = try FileCredentialStore(directory: directory)
        let id = UUID()
        try store.setPassword("hunter2-secret", for: id)
        chmod(store.keyPath, 0o644)
        let readable = Result { () throws(MediaError) in try FileCredentialStore(directory: directory) }
        guard case .failure(let error) = readable else {
            Issue.record("a world-readable key was accepted")
            return
        }
        #expect(error.message.contains("chmod 600"))
        chmod(store.keyPath, 0o600)
        // Replace the key: the sealed file no longer opens, and the error says so without contents.
        try FileManager.default.removeItem(atPath: store.keyPath)
        let other = try FileCredentialStore(directory: directory)
        let wrong = Result { () throws(MediaError) in try other.password(for: id) }
        guard case .failure(let sealedError) = wrong else {
            Issue.record("the sealed file opened with another key")
            return
        }
        #expect(sealedError.kind == .invalidData)
        #expect(!sealedError.description.contains("hunter2"))
    }

    @Test func eachPasswordIsSealedForItsOwnCameraAndOldTablesAreSplit() throws {
        let directory = try temporaryDirectory()
        let store = try FileCredentialStore(directory: directory)
        let (gate, porch) = (UUID(), UUID())
        try store.setPassword("gate-secret", for: gate)
        try store.setPassword("porch-secret", for: porch)
        #expect(try store.camerasWithPasswords() == [gate, porch])
        // A sealed file copied over another camera's does not open as that camera's password.
        try FileManager.default.removeItem(atPath: store.sealedPath(for: porch))
        try FileManager.default.copyItem(atPath: store.sealedPath(for: gate), toPath: store.sealedPath(for: porch))
        let fresh = try FileCredentialStore(directory: directory)
        #expect(try fresh.password(for: gate) == "gate-secret")
        #expect(throws: MediaError.self) { try fresh.password(for: porch) }

        // The single table of earlier versions is split into per-camera files on open.
        let old = try temporaryDirectory()
        let keyStore = try FileCredentialStore(directory: old)
        let key = SymmetricKey(data: try Data(contentsOf: URL(fileURLWithPath: keyStore.keyPath)))
        let table = try JSONEncoder().encode([gate.uuidString: "old-gate"])
        try #require(try AES.GCM.seal(table, using: key).combined).write(
            to: URL(fileURLWithPath: old + "/credentials.sealed"))
        let migrated = try FileCredentialStore(directory: old)
        #expect(try migrated.password(for: gate) == "old-gate")
        #expect(!FileManager.default.fileExists(atPath: old + "/credentials.sealed"))
        #expect(FileManager.default.fileExists(atPath: migrated.sealedPath(for: gate)))
    }
}
