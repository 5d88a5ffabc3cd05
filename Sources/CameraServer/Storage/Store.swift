import CGameKit
import Foundation
import WatchBoxKit

/// An account (the spec's users record: email and createdAt).
struct User: Sendable, Codable, Equatable {
    var id: String
    var email: String
    var createdAt: Date
    /// Whether the account proved it receives mail at `email` (Apple accounts: Apple did).
    var emailVerified = false
}

/// A clip document (the spec's clips collection) as the API shows it.
struct Clip: Sendable, Codable, Equatable {
    var id: String
    var game: String
    var name: String
    var events: [String]
    var timestamp: Date
    var duration: Double
    /// `clips/{userID}/{clipID}.mp4`, as in the spec's Storage layout.
    var storagePath: String
    var thumbnailURL: String?
    /// Bytes of the uploaded video; nil until the upload completed.
    var size: Int?
    var uploadedAt: Date?
}

struct Reel: Sendable, Codable, Equatable {
    var id: String
    var clipIDs: [String]
    /// `compiling`, `ready` or `failed`.
    var status: String
    var message: String?
    var createdAt: Date
    var title: String?
    /// While compiling: 0…1 (from the exporter, in memory; nil after a restart).
    var progress: Double?
}

/// Every query the server makes, written once for both databases. Every method that touches a
/// user's records takes the user's id and puts it in the WHERE clause: ownership is part of the
/// query, not a check a route could forget.
final class ServerStore: Sendable {
    let database: any SQLDatabase

    init(database: any SQLDatabase) async throws {
        self.database = database
        try await Migrations.migrate(database)
    }

    // MARK: Users

    func createUser(
        email: String, passwordHash: String?, appleSubject: String? = nil, verifyHash: String? = nil
    ) async throws -> User {
        let user = User(
            id: UUID().uuidString.lowercased(), email: email, createdAt: Self.now(), emailVerified: appleSubject != nil)
        try await database.write(
            """
            INSERT INTO users (id, email, password_hash, apple_subject, created_at, email_verified_at, verify_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(user.id), .text(email), SQLValue(passwordHash), SQLValue(appleSubject), SQLValue(user.createdAt),
                appleSubject == nil ? .null : SQLValue(user.createdAt), SQLValue(verifyHash),
            ])
        return user
    }

    /// Replaces the pending verification secret of `userID` (when its address is not confirmed
    /// yet) with the one hashing to `hash`; the address it goes to, or nil when already confirmed.
    func renewVerification(userID: String, hash: String) async throws -> String? {
        let rows = try await database.write(
            "UPDATE users SET verify_hash = ? WHERE id = ? AND email_verified_at IS NULL RETURNING email",
            [.text(hash), .text(userID)])
        return rows.first?.string("email")
    }

    /// Marks the account whose pending verification secret hashes to `hash` as verified.
    func verifyEmail(hash: String) async throws -> User? {
        let rows = try await database.write(
            "UPDATE users SET email_verified_at = ?, verify_hash = NULL WHERE verify_hash = ? RETURNING id",
            [SQLValue(Date()), .text(hash)])
        guard let id = rows.first?.string("id") else { return nil }
        return try await user(id: id)
    }

    func user(email: String) async throws -> (user: User, passwordHash: String?)? {
        try await database.read("SELECT * FROM users WHERE email = ?", [.text(email)]).first.map {
            (Self.user($0), $0["password_hash"].string)
        }
    }

    func user(appleSubject: String) async throws -> User? {
        try await database.read("SELECT * FROM users WHERE apple_subject = ?", [.text(appleSubject)]).first.map(
            Self.user)
    }

    func user(id: String) async throws -> User? {
        try await database.read("SELECT * FROM users WHERE id = ?", [.text(id)]).first.map(Self.user)
    }

    func linkApple(userID: String, subject: String) async throws {
        try await database.write(
            "UPDATE users SET apple_subject = ? WHERE id = ?", [.text(subject), .text(userID)])
    }

    static func user(_ row: SQLRow) -> User {
        User(
            id: row.string("id"), email: row.string("email"), createdAt: row.date("created_at") ?? Date(),
            emailVerified: row.date("email_verified_at") != nil)
    }

    /// Whole seconds, so what is stored reads back equal.
    static func now() -> Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }

    // MARK: Sessions

    func createSession(id: String, userID: String, refreshHash: String, expiresAt: Date) async throws {
        try await database.write(
            "INSERT INTO sessions (id, user_id, refresh_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [.text(id), .text(userID), .text(refreshHash), SQLValue(Date()), SQLValue(expiresAt)])
    }

    /// Replaces the refresh secret of a live session whose current secret is `oldHash` and that
    /// began after `startedAfter` (the absolute lifetime); nil when the session is revoked, expired
    /// or the secret was already used (rotation).
    func rotateSession(
        id: String, oldHash: String, newHash: String, expiresAt: Date, startedAfter: Date
    ) async throws -> String? {
        let rows = try await database.write(
            """
            UPDATE sessions SET previous_refresh_hash = refresh_hash, refresh_hash = ?, expires_at = ?
            WHERE id = ? AND refresh_hash = ? AND revoked_at IS NULL AND expires_at > ? AND created_at > ?
            RETURNING user_id
            """,
            [.text(newHash), SQLValue(expiresAt), .text(id), .text(oldHash), SQLValue(Date()), SQLValue(startedAfter)])
        return rows.first?.string("user_id")
    }

    /// Whether `hash` is the secret a live session had before its last rotation: a refresh token
    /// used twice, so one of the two users of it is not the owner.
    func isReplayedSecret(id: String, hash: String) async throws -> Bool {
        !(try await database.read(
            "SELECT id FROM sessions WHERE id = ? AND previous_refresh_hash = ? AND revoked_at IS NULL",
            [.text(id), .text(hash)]
        ).isEmpty)
    }

    func revokeSession(id: String) async throws {
        try await database.write(
            "UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [SQLValue(Date()), .text(id)])
    }

    /// Ends every live session of the user except `keep`; returns the ended sessions' ids.
    func revokeSessions(userID: String, except keep: String? = nil) async throws -> [String] {
        try await database.write(
            "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ? RETURNING id",
            [SQLValue(Date()), .text(userID), .text(keep ?? "")]
        ).map { $0.string("id") }
    }

    func setPasswordHash(userID: String, hash: String) async throws {
        try await database.write("UPDATE users SET password_hash = ? WHERE id = ?", [.text(hash), .text(userID)])
    }

    /// Removes the account and every row that belongs to it, children first (one transaction).
    func deleteUser(userID: String) async throws {
        try await database.transaction(
            [
                "DELETE FROM game_profiles WHERE user_id = ?",
                "DELETE FROM stream_profiles WHERE user_id = ?", "DELETE FROM cameras WHERE user_id = ?",
                "DELETE FROM reels WHERE user_id = ?", "DELETE FROM clips WHERE user_id = ?",
                "DELETE FROM user_settings WHERE user_id = ?", "DELETE FROM sessions WHERE user_id = ?",
                "DELETE FROM users WHERE id = ?",
            ].map { ($0, [.text(userID)]) })
    }

    /// Sessions revoked that could still have live access tokens (for the in-memory deny list).
    func revokedSessionIDs(since: Date) async throws -> [String] {
        try await database.read(
            "SELECT id FROM sessions WHERE revoked_at IS NOT NULL AND revoked_at > ?", [SQLValue(since)]
        ).map { $0.string("id") }
    }

    // MARK: Settings

    func settings(userID: String) async throws -> UserSettings {
        guard let row = try await database.read("SELECT * FROM user_settings WHERE user_id = ?", [.text(userID)]).first
        else { return UserSettings() }
        return UserSettings(
            gameProfileName: row.string("game_profile_name"), videoQuality: row.string("video_quality"),
            preRollDuration: row["pre_roll_duration"].double ?? 5,
            postRollDuration: row["post_roll_duration"].double ?? 3)
    }

    func saveSettings(_ settings: UserSettings, userID: String) async throws {
        try await database.write(
            """
            INSERT INTO user_settings (user_id, game_profile_name, video_quality, pre_roll_duration, post_roll_duration, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET game_profile_name = excluded.game_profile_name,
                video_quality = excluded.video_quality, pre_roll_duration = excluded.pre_roll_duration,
                post_roll_duration = excluded.post_roll_duration, updated_at = excluded.updated_at
            """,
            [
                .text(userID), .text(settings.gameProfileName), .text(settings.videoQuality),
                .real(settings.preRollDuration), .real(settings.postRollDuration), SQLValue(Date()),
            ])
    }

    // MARK: Games taught in the web app

    /// The user's own game profiles, by name.
    func gameProfiles(userID: String) async throws -> [(id: String, profile: GameProfile)] {
        try await database.read(
            "SELECT id, profile FROM game_profiles WHERE user_id = ? ORDER BY name", [.text(userID)]
        )
        .compactMap { row in
            guard let profile = try? JSONDecoder().decode(GameProfile.self, from: Data(row.string("profile").utf8))
            else { return nil }
            return (row.string("id"), profile)
        }
    }

    /// Saves (or replaces) the user's profile with this id.
    func saveGameProfile(_ profile: GameProfile, id: String, userID: String) async throws {
        let text = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        try await database.write(
            """
            INSERT INTO game_profiles (user_id, id, name, profile, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, id) DO UPDATE SET name = excluded.name, profile = excluded.profile
            """,
            [.text(userID), .text(id), .text(profile.name), .text(text), SQLValue(Date())])
    }

    /// Whether there was such a profile to delete.
    func deleteGameProfile(id: String, userID: String) async throws -> Bool {
        !(try await database.write(
            "DELETE FROM game_profiles WHERE user_id = ? AND id = ? RETURNING id", [.text(userID), .text(id)]
        ).isEmpty)
    }

    // MARK: Clips

    static func clip(_ row: SQLRow) -> Clip {
        // JSONSerialization: a JSONDecoder per row was a visible share of the clip list's time.
        let events = (try? JSONSerialization.jsonObject(with: Data(row.string("events").utf8))) as? [String] ?? []
        return Clip(
            id: row.string("id"), game: row.string("game"), name: row.string("name"), events: events,
            timestamp: row.date("timestamp") ?? Date(), duration: row["duration"].double ?? 0,
            storagePath: row.string("storage_path"), thumbnailURL: row["thumbnail_url"].string, size: row["size"].int,
            uploadedAt: row.date("uploaded_at"))
    }

    func clips(userID: String, limit: Int = 200, before: Date? = nil) async throws -> [Clip] {
        try await database.read(
            "SELECT * FROM clips WHERE user_id = ? AND timestamp < ? ORDER BY timestamp DESC, id LIMIT ?",
            [.text(userID), SQLValue(before ?? Date.distantFuture), SQLValue(limit)]
        ).map(Self.clip)
    }

    func clip(userID: String, id: String) async throws -> Clip? {
        try await database.read("SELECT * FROM clips WHERE user_id = ? AND id = ?", [.text(userID), .text(id)]).first
            .map(Self.clip)
    }

    /// Creates or updates a clip's metadata (a retried save is the same row). The file fields are
    /// left alone on update.
    func saveClip(userID: String, id: String, input: ClipInput) async throws -> Clip {
        let events = String(decoding: try JSONEncoder().encode(input.events), as: UTF8.self)
        let name = input.name ?? Self.defaultName(input.events)
        let rows = try await database.write(
            """
            INSERT INTO clips (user_id, id, game, name, events, timestamp, duration, storage_path, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, id) DO UPDATE SET game = excluded.game, name = excluded.name,
                events = excluded.events, timestamp = excluded.timestamp, duration = excluded.duration
            RETURNING *
            """,
            [
                .text(userID), .text(id), .text(input.game), .text(name), .text(events),
                .real(input.timestamp.timeIntervalSince1970.rounded()), .real(input.duration),
                .text("clips/\(userID)/\(id).mp4"), SQLValue(Date()),
            ])
        return Self.clip(rows[0])
    }

    /// The name `cgame` gives the same events (one vocabulary: "Triple Kill", never "3× Kill").
    static func defaultName(_ events: [String]) -> String { HighlightName.name(events) }

    /// What an account keeps: clips, bytes of uploaded clips, reels (for the per-account limits).
    func usage(userID: String) async throws -> (clips: Int, bytes: Int, reels: Int) {
        let clips = try await database.read(
            "SELECT COUNT(*) AS n, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes FROM clips WHERE user_id = ?",
            [.text(userID)]
        ).first
        let reels = try await database.read("SELECT COUNT(*) AS n FROM reels WHERE user_id = ?", [.text(userID)])
            .first
        return (clips?["n"].int ?? 0, clips?["bytes"].int ?? 0, reels?["n"].int ?? 0)
    }

    func markUploaded(userID: String, id: String, size: Int) async throws {
        try await database.write(
            "UPDATE clips SET size = ?, uploaded_at = ? WHERE user_id = ? AND id = ?",
            [SQLValue(size), SQLValue(Self.now()), .text(userID), .text(id)])
    }

    func setThumbnail(userID: String, id: String, url: String) async throws {
        try await database.write(
            "UPDATE clips SET thumbnail_url = ? WHERE user_id = ? AND id = ?", [.text(url), .text(userID), .text(id)])
    }

    @discardableResult
    func deleteClip(userID: String, id: String) async throws -> Bool {
        !(try await database.write(
            "DELETE FROM clips WHERE user_id = ? AND id = ? RETURNING id", [.text(userID), .text(id)]
        ).isEmpty)
    }

    // MARK: Reels

    static func reel(_ row: SQLRow) -> Reel {
        Reel(
            id: row.string("id"),
            clipIDs: (try? JSONDecoder().decode([String].self, from: Data(row.string("clip_ids").utf8))) ?? [],
            status: row.string("status"), message: row["message"].string, createdAt: row.date("created_at") ?? Date(),
            title: row["title"].string)
    }

    func createReel(userID: String, clipIDs: [String], title: String?) async throws -> Reel {
        let reel = Reel(
            id: UUID().uuidString.lowercased(), clipIDs: clipIDs, status: "compiling", message: nil,
            createdAt: Self.now(), title: title, progress: 0)
        try await database.write(
            "INSERT INTO reels (id, user_id, clip_ids, status, created_at, title) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(reel.id), .text(userID),
                .text(String(decoding: try JSONEncoder().encode(clipIDs), as: UTF8.self)),
                .text(reel.status), SQLValue(reel.createdAt), SQLValue(title),
            ])
        return reel
    }

    func reels(userID: String) async throws -> [Reel] {
        try await database.read(
            "SELECT * FROM reels WHERE user_id = ? ORDER BY created_at DESC, id LIMIT 200", [.text(userID)]
        ).map(Self.reel)
    }

    func deleteReel(userID: String, id: String) async throws -> Bool {
        !(try await database.write(
            "DELETE FROM reels WHERE user_id = ? AND id = ? RETURNING id", [.text(userID), .text(id)]
        ).isEmpty)
    }

    func reel(userID: String, id: String) async throws -> Reel? {
        try await database.read("SELECT * FROM reels WHERE user_id = ? AND id = ?", [.text(userID), .text(id)]).first
            .map(Self.reel)
    }

    func finishReel(id: String, status: String, message: String?) async throws {
        try await database.write(
            "UPDATE reels SET status = ?, message = ? WHERE id = ?", [.text(status), SQLValue(message), .text(id)])
    }
}
