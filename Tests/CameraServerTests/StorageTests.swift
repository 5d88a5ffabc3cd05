import CGameKit
import CameraTesting
import Foundation
import Testing
import WatchBoxKit

@testable import CameraServer

/// The storage layer on both databases, the same assertions each: what one backend stores, the
/// other must read back the same way, or the server behaves differently depending on DATABASE_URL.
@Suite("Storage", .serialized)
struct StorageTests {
    /// A store on a new, empty database of `backend`, and a second store opened on the same database.
    func stores(_ backend: Backend) async throws -> (ServerStore, ServerStore) {
        func open() throws -> any SQLDatabase {
            switch backend {
            case .sqlite:
                return try SQLiteDatabase(path: folder + "/store.sqlite")
            case .postgresql:
                return try PostgreSQLDatabase(url: url ?? "")
            }
        }
        let folder = try temporaryDirectory()
        let url = try backend.databaseURL()
        let first = try await ServerStore(database: try open())
        // Opening again runs the migrations again: nothing may be applied twice.
        let second = try await ServerStore(database: try open())
        return (first, second)
    }

    @Test("migrations apply once; users, conflicts, sessions and rotation behave alike", arguments: Backend.allCases)
    func usersAndSessions(backend: Backend) async throws {
        let (store, again) = try await stores(backend)
        defer { Task { await store.database.close() } }
        defer { Task { await again.database.close() } }
        let applied = try await again.database.read("SELECT COUNT(*) AS n FROM schema_migrations", [])
        #expect(applied.first?["n"].int == Migrations.steps.count)
        #expect(Migrations.steps.count == 17)

        let alice = try await store.createUser(email: "alice@example.com", passwordHash: "hash-a")
        // Written through one connection, read through the other.
        #expect(try await again.user(email: "alice@example.com")?.user == alice)
        #expect(try await again.user(email: "alice@example.com")?.passwordHash == "hash-a")
        // The same e-mail again: a conflict, and the message never repeats the e-mail.
        do {
            _ = try await again.createUser(email: "alice@example.com", passwordHash: "other")
            Issue.record("a second account with the same e-mail was stored")
        } catch let failure as DatabaseFailure {
            #expect(failure.isConflict)
            #expect(!failure.description.contains("alice@example.com"))
        }
        // Apple: link, then find by subject; a second account cannot take the same subject.
        try await store.linkApple(userID: alice.id, subject: "apple-001")
        #expect(try await again.user(appleSubject: "apple-001") == alice)
        await #expect(throws: DatabaseFailure.self) {
            _ = try await store.createUser(email: "bob@example.com", passwordHash: nil, appleSubject: "apple-001")
        }

        // Sessions: rotation needs the current secret; a used one fails; revoked sessions are listed.
        let expiry = Date().addingTimeInterval(3600)
        try await store.createSession(id: "s1", userID: alice.id, refreshHash: "h1", expiresAt: expiry)
        #expect(
            try await again.rotateSession(
                id: "s1", oldHash: "wrong", newHash: "h2", expiresAt: expiry, startedAfter: .distantPast) == nil)
        #expect(
            try await again.rotateSession(
                id: "s1", oldHash: "h1", newHash: "h2", expiresAt: expiry, startedAfter: .distantPast) == alice.id)
        #expect(
            try await store.rotateSession(
                id: "s1", oldHash: "h1", newHash: "h3", expiresAt: expiry, startedAfter: .distantPast) == nil)
        try await store.createSession(
            id: "old", userID: alice.id, refreshHash: "h", expiresAt: Date().addingTimeInterval(-1))
        #expect(
            try await store.rotateSession(
                id: "old", oldHash: "h", newHash: "x", expiresAt: expiry, startedAfter: .distantPast) == nil)
        // The secret rotated away is recognised as a replay (the caller then revokes the session).
        #expect(try await store.isReplayedSecret(id: "s1", hash: "h1"))
        #expect(try await !store.isReplayedSecret(id: "s1", hash: "h2"))
        // A session older than the absolute lifetime does not rotate.
        #expect(
            try await store.rotateSession(
                id: "s1", oldHash: "h2", newHash: "h5", expiresAt: expiry, startedAfter: Date().addingTimeInterval(60))
                == nil)
        try await store.revokeSession(id: "s1")
        #expect(try await again.revokedSessionIDs(since: Date().addingTimeInterval(-60)) == ["s1"])
        #expect(
            try await store.rotateSession(
                id: "s1", oldHash: "h2", newHash: "h4", expiresAt: expiry, startedAfter: .distantPast) == nil)
    }

    @Test(
        "clips: per-user ids, idempotent saves, text, big sizes and paging read back alike", arguments: Backend.allCases
    )
    func clips(backend: Backend) async throws {
        let (store, again) = try await stores(backend)
        defer { Task { await store.database.close() } }
        defer { Task { await again.database.close() } }
        let a = try await store.createUser(email: "a@example.com", passwordHash: nil)
        let b = try await store.createUser(email: "b@example.com", passwordHash: nil)
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let input = ClipInput(
            game: "Überspiel ☠︎", name: nil, events: ["Kill", "Élimination", "Kill"], timestamp: start, duration: 12.25)

        // The same id for two users: two clips. Saving again is an update, not a second row.
        let saved = try await store.saveClip(userID: a.id, id: "c1", input: input)
        _ = try await store.saveClip(userID: a.id, id: "c1", input: input)
        _ = try await store.saveClip(userID: b.id, id: "c1", input: input)
        #expect(try await again.clips(userID: a.id) == [saved])
        // Named as `cgame` names it (two kills and something else: a double kill), not "3× Kill".
        #expect(saved.name == "Double Kill")
        #expect(saved.events == input.events)
        #expect(saved.game == input.game)
        #expect(saved.duration == 12.25)
        #expect(saved.storagePath == "clips/\(a.id)/c1.mp4")
        #expect(try await again.clip(userID: b.id, id: "c1")?.storagePath == "clips/\(b.id)/c1.mp4")

        // Sizes past 32 bits (a long 4K clip) and thumbnails; the file fields survive a metadata re-save.
        try await store.markUploaded(userID: a.id, id: "c1", size: 5_000_000_000)
        try await store.setThumbnail(userID: a.id, id: "c1", url: "/api/clips/c1/thumbnail")
        var renamed = input
        renamed.name = "Renamed"
        _ = try await store.saveClip(userID: a.id, id: "c1", input: renamed)
        let updated = try await again.clip(userID: a.id, id: "c1")
        #expect(updated?.name == "Renamed")
        #expect(updated?.size == 5_000_000_000)
        #expect(updated?.thumbnailURL == "/api/clips/c1/thumbnail")
        #expect(updated?.uploadedAt != nil)
        #expect(try await again.clip(userID: b.id, id: "c1")?.size == nil)

        // Newest first; `before` pages back; B's delete touches only B's clip.
        for index in 2...5 {
            var later = input
            later.timestamp = start.addingTimeInterval(Double(index) * 60)
            _ = try await store.saveClip(userID: a.id, id: "c\(index)", input: later)
        }
        let firstPage = try await again.clips(userID: a.id, limit: 2)
        #expect(firstPage.map(\.id) == ["c5", "c4"])
        let nextPage = try await again.clips(userID: a.id, limit: 10, before: firstPage.last?.timestamp)
        #expect(nextPage.map(\.id) == ["c3", "c2", "c1"])
        #expect(try await again.deleteClip(userID: b.id, id: "c2") == false)
        #expect(try await again.deleteClip(userID: b.id, id: "c1") == true)
        #expect(try await store.clip(userID: a.id, id: "c1") != nil)
    }

    @Test("settings: defaults until saved, then the saved values; an upsert per user", arguments: Backend.allCases)
    func settings(backend: Backend) async throws {
        let (store, again) = try await stores(backend)
        defer { Task { await store.database.close() } }
        defer { Task { await again.database.close() } }
        let user = try await store.createUser(email: "s@example.com", passwordHash: nil)
        #expect(try await again.settings(userID: user.id) == UserSettings())
        var settings = UserSettings()
        settings.gameProfileName = "Valorant"
        settings.preRollDuration = 7.5
        try await store.saveSettings(settings, userID: user.id)
        settings.postRollDuration = 1.5
        try await store.saveSettings(settings, userID: user.id)
        #expect(try await again.settings(userID: user.id) == settings)
        let rows = try await again.database.read("SELECT COUNT(*) AS n FROM user_settings", [])
        #expect(rows.first?["n"].int == 1)
    }

    @Test(
        "cameras: WatchBoxKit's repository on the server's database, one user's at a time",
        arguments: Backend.allCases)
    func cameraRepository(backend: Backend) async throws {
        let (store, again) = try await stores(backend)
        defer { Task { await store.database.close() } }
        defer { Task { await again.database.close() } }
        let a = try await store.createUser(email: "cam-a@example.com", passwordHash: nil)
        let b = try await store.createUser(email: "cam-b@example.com", passwordHash: nil)
        let mine: any CameraRepository = ServerCameraRepository(database: store.database, userID: a.id)
        let read: any CameraRepository = ServerCameraRepository(database: again.database, userID: a.id)
        let theirs: any CameraRepository = ServerCameraRepository(database: again.database, userID: b.id)

        let porch = Camera(name: "Porch", rtspURL: "rtsp://admin:secret@192.168.1.20:8554/live", gridPosition: 0)
        let yard = Camera(name: "Yard", rtspURL: "rtsp://192.168.1.21/live", gridPosition: 1)
        try await mine.add(porch)
        try await mine.add(yard)
        // The same URL twice is a conflict (the route answers 409 with it).
        await #expect(throws: DatabaseFailure.self) {
            try await mine.add(Camera(name: "Again", rtspURL: "rtsp://192.168.1.21/live"))
        }
        #expect(try await read.cameras().map(\.name) == ["Porch", "Yard"])
        let stored = try #require(try await read.camera(id: porch.id))
        #expect(stored.rtspURL == "rtsp://192.168.1.20:8554/live" && stored.username == "admin")
        #expect(stored.ipAddress == "192.168.1.20" && stored.port == 8554)
        // Nothing of the password reached the database.
        let everything = try await again.database.read("SELECT * FROM cameras", [])
        #expect(!everything.flatMap { Array($0.values.values) }.contains { $0.string?.contains("secret") == true })

        var renamed = stored
        renamed.name = "Front door"
        renamed.lastConnected = Date(timeIntervalSince1970: 1_800_000_000)
        try await mine.update(renamed)
        #expect(try await read.camera(id: porch.id)?.name == "Front door")
        #expect(try await read.camera(id: porch.id)?.lastConnected == renamed.lastConnected)
        try await mine.reorder([yard.id])
        #expect(try await read.cameras().map(\.name) == ["Yard", "Front door"])

        try await mine.addProfile(
            StreamProfile(
                cameraID: porch.id, name: "main", rtspURL: "rtsp://192.168.1.20:8554/main", resolution: "1920x1080",
                fps: 25, isDefault: true))
        try await mine.addProfile(
            StreamProfile(
                cameraID: porch.id, name: "sub", rtspURL: "rtsp://192.168.1.20:8554/sub", resolution: "640x360",
                fps: 15, isDefault: true))
        let profiles = try await read.profiles(cameraID: porch.id)
        #expect(profiles.map(\.name) == ["main", "sub"])
        #expect(profiles.map(\.isDefault) == [false, true], "a new default replaces the old one")

        // Another user sees none of it and can change none of it.
        #expect(try await theirs.cameras().isEmpty)
        #expect(try await theirs.camera(id: porch.id) == nil)
        #expect(try await theirs.profiles(cameraID: porch.id).isEmpty)
        await #expect(throws: (any Error).self) { try await theirs.update(renamed) }
        await #expect(throws: (any Error).self) {
            try await theirs.addProfile(
                StreamProfile(cameraID: porch.id, name: "x", rtspURL: "rtsp://x/y", resolution: "1x1", fps: 1))
        }
        try await theirs.remove(id: porch.id)
        #expect(try await read.camera(id: porch.id) != nil)

        // Removing takes the profiles along.
        try await mine.remove(id: porch.id)
        #expect(try await read.camera(id: porch.id) == nil)
        #expect(try await read.profiles(cameraID: porch.id).isEmpty)
        #expect(try await read.cameras().map(\.name) == ["Yard"])
    }
}
