import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// The schema, as numbered steps applied once each, in order, on either database.
enum Migrations {
    static let steps: [String] = [
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT,
            apple_subject TEXT UNIQUE,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            refresh_hash TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            revoked_at DOUBLE PRECISION
        )
        """,
        """
        CREATE TABLE user_settings (
            user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            game_profile_name TEXT NOT NULL,
            video_quality TEXT NOT NULL,
            pre_roll_duration DOUBLE PRECISION NOT NULL,
            post_roll_duration DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE clips (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            events TEXT NOT NULL,
            timestamp DOUBLE PRECISION NOT NULL,
            duration DOUBLE PRECISION NOT NULL,
            storage_path TEXT NOT NULL,
            thumbnail_url TEXT,
            size BIGINT,
            uploaded_at DOUBLE PRECISION,
            created_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (user_id, id)
        )
        """,
        "CREATE INDEX clips_by_time ON clips (user_id, timestamp)",
        """
        CREATE TABLE cameras (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            rtsp_url TEXT NOT NULL,
            username TEXT,
            ip_address TEXT NOT NULL,
            port BIGINT NOT NULL,
            manufacturer TEXT,
            model TEXT,
            is_active BIGINT NOT NULL,
            grid_position BIGINT NOT NULL,
            date_added DOUBLE PRECISION NOT NULL,
            last_connected DOUBLE PRECISION,
            UNIQUE (user_id, rtsp_url)
        )
        """,
        """
        CREATE TABLE reels (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            clip_ids TEXT NOT NULL,
            status TEXT NOT NULL,
            message TEXT,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
        // WatchBoxKit's StreamProfile, for the server's CameraRepository.
        """
        CREATE TABLE stream_profiles (
            id TEXT PRIMARY KEY,
            camera_id TEXT NOT NULL REFERENCES cameras(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            rtsp_url TEXT NOT NULL,
            resolution TEXT NOT NULL,
            fps BIGINT NOT NULL,
            is_default BIGINT NOT NULL
        )
        """,
        // 9–11: refresh-token reuse detection, e-mail verification.
        "ALTER TABLE sessions ADD COLUMN previous_refresh_hash TEXT",
        "ALTER TABLE users ADD COLUMN email_verified_at DOUBLE PRECISION",
        "ALTER TABLE users ADD COLUMN verify_hash TEXT",
        // 12: a reel's title, so the reel list can name it.
        "ALTER TABLE reels ADD COLUMN title TEXT",
        // 13–14: continuous recording (opt-in per camera) and the health events its timeline marks.
        """
        CREATE TABLE recordings (
            camera_id TEXT PRIMARY KEY REFERENCES cameras(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            enabled_at DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE camera_events (
            id TEXT PRIMARY KEY,
            camera_id TEXT NOT NULL REFERENCES cameras(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL
        )
        """,
        // 15–16: a discovered camera's WS-Discovery endpoint reference and ONVIF serial number, so a
        // Hello from a new address can move it (see CameraRelocation).
        "ALTER TABLE cameras ADD COLUMN onvif_endpoint TEXT",
        "ALTER TABLE cameras ADD COLUMN serial_number TEXT",
        // 17: games a user taught CGame in the web app (a profile made from a screenshot): the
        // profile as JSON, keyed by a slug of its name.
        """
        CREATE TABLE game_profiles (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            profile TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (user_id, id)
        )
        """,
    ]

    /// Brings `database` up to the newest step. Each step and its bookkeeping row commit together.
    static func migrate(_ database: any SQLDatabase) async throws {
        try await database.write(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
            [])
        let applied = Set(
            try await database.read("SELECT version FROM schema_migrations", []).compactMap { $0["version"].int })
        for (index, step) in steps.enumerated() where !applied.contains(index + 1) {
            try await database.transaction([
                (step, []),
                (
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [SQLValue(index + 1), SQLValue(Date())]
                ),
            ])
        }
    }
}
