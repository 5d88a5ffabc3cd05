import CameraCommon
import Foundation
import WatchBoxKit

/// WatchBoxKit's ``CameraRepository`` on the server's database (SQLite or PostgreSQL), for one
/// user: every statement carries the user's id, so a user's repository can neither read nor change
/// another user's cameras. Passwords are not here: they live in the credential store.
struct ServerCameraRepository: CameraRepository {
    let database: any SQLDatabase
    let userID: String

    static func camera(_ row: SQLRow) -> Camera? {
        guard let id = UUID(uuidString: row.string("id")) else { return nil }
        return Camera(
            id: id, name: row.string("name"), rtspURL: row.string("rtsp_url"), username: row["username"].string,
            ipAddress: row.string("ip_address"), port: Int16(clamping: row["port"].int ?? 554),
            manufacturer: row["manufacturer"].string, model: row["model"].string,
            isActive: row["is_active"].int == 1, gridPosition: Int16(clamping: row["grid_position"].int ?? 0),
            dateAdded: row.date("date_added") ?? Date(), lastConnected: row.date("last_connected"),
            endpoint: row["onvif_endpoint"].string, serialNumber: row["serial_number"].string)
    }

    static func key(_ id: UUID) -> SQLValue { .text(id.uuidString.lowercased()) }

    func cameras() async throws -> [Camera] {
        try await database.read(
            "SELECT * FROM cameras WHERE user_id = ? ORDER BY grid_position, date_added", [.text(userID)]
        ).compactMap(Self.camera)
    }

    func camera(id: UUID) async throws -> Camera? {
        try await database.read(
            "SELECT * FROM cameras WHERE user_id = ? AND id = ?", [.text(userID), Self.key(id)]
        ).first.flatMap(Self.camera)
    }

    /// Stores the camera with the grid position it carries (the route puts a new camera last unless
    /// the client chose a place). A second camera with the same URL is a `DatabaseFailure` conflict.
    @discardableResult
    func add(_ camera: Camera) async throws -> Camera {
        try await database.write(
            """
            INSERT INTO cameras (id, user_id, name, rtsp_url, username, ip_address, port, manufacturer, model,
                is_active, grid_position, date_added, last_connected, onvif_endpoint, serial_number)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                Self.key(camera.id), .text(userID), .text(camera.name), .text(camera.rtspURL),
                SQLValue(camera.username), .text(camera.ipAddress), SQLValue(Int(camera.port)),
                SQLValue(camera.manufacturer), SQLValue(camera.model), SQLValue(camera.isActive),
                SQLValue(Int(camera.gridPosition)), SQLValue(camera.dateAdded), SQLValue(camera.lastConnected),
                SQLValue(camera.endpoint), SQLValue(camera.serialNumber),
            ])
        return camera
    }

    func update(_ camera: Camera) async throws {
        let changed = try await database.write(
            """
            UPDATE cameras SET name = ?, rtsp_url = ?, username = ?, ip_address = ?, port = ?, manufacturer = ?,
                model = ?, is_active = ?, grid_position = ?, last_connected = ?, onvif_endpoint = ?, serial_number = ?
            WHERE user_id = ? AND id = ? RETURNING id
            """,
            [
                .text(camera.name), .text(camera.rtspURL), SQLValue(camera.username), .text(camera.ipAddress),
                SQLValue(Int(camera.port)), SQLValue(camera.manufacturer), SQLValue(camera.model),
                SQLValue(camera.isActive), SQLValue(Int(camera.gridPosition)), SQLValue(camera.lastConnected),
                SQLValue(camera.endpoint), SQLValue(camera.serialNumber), .text(userID), Self.key(camera.id),
            ])
        guard !changed.isEmpty else {
            throw MediaError(.notFound, operation: "update camera \(camera.name)", message: "no such camera")
        }
    }

    /// Points the camera and its stream profiles at `address` (it moved), in one transaction.
    func relocate(_ camera: Camera, profiles: [StreamProfile]) async throws {
        var statements: [(String, [SQLValue])] = [
            (
                "UPDATE cameras SET rtsp_url = ?, ip_address = ? WHERE user_id = ? AND id = ?",
                [.text(camera.rtspURL), .text(camera.ipAddress), .text(userID), Self.key(camera.id)]
            )
        ]
        for profile in profiles {
            statements.append(
                (
                    "UPDATE stream_profiles SET rtsp_url = ? WHERE user_id = ? AND id = ?",
                    [.text(profile.rtspURL), .text(userID), Self.key(profile.id)]
                ))
        }
        try await database.transaction(statements)
    }

    func remove(id: UUID) async throws {
        try await database.transaction([
            ("DELETE FROM stream_profiles WHERE user_id = ? AND camera_id = ?", [.text(userID), Self.key(id)]),
            ("DELETE FROM cameras WHERE user_id = ? AND id = ?", [.text(userID), Self.key(id)]),
        ])
    }

    func reorder(_ ids: [UUID]) async throws {
        let current = try await cameras().map(\.id)
        if let unknown = ids.first(where: { !current.contains($0) }) {
            throw MediaError(.notFound, operation: "reorder cameras", message: "no camera \(unknown)")
        }
        let ordered = ids + current.filter { !ids.contains($0) }
        try await database.transaction(
            ordered.enumerated().map { position, id in
                (
                    "UPDATE cameras SET grid_position = ? WHERE user_id = ? AND id = ?",
                    [SQLValue(position), .text(userID), Self.key(id)]
                )
            })
    }

    func profiles(cameraID: UUID) async throws -> [StreamProfile] {
        try await database.read(
            "SELECT * FROM stream_profiles WHERE user_id = ? AND camera_id = ? ORDER BY name",
            [.text(userID), Self.key(cameraID)]
        ).compactMap(Self.profile)
    }

    /// Every camera's stream profiles in one query (the grid names each camera's small one).
    func profilesByCamera() async throws -> [UUID: [StreamProfile]] {
        try await Dictionary(
            grouping: database.read("SELECT * FROM stream_profiles WHERE user_id = ? ORDER BY name", [.text(userID)])
                .compactMap(Self.profile),
            by: \.cameraID)
    }

    static func profile(_ row: SQLRow) -> StreamProfile? {
        guard let id = UUID(uuidString: row.string("id")), let cameraID = UUID(uuidString: row.string("camera_id"))
        else { return nil }
        return StreamProfile(
            id: id, cameraID: cameraID, name: row.string("name"), rtspURL: row.string("rtsp_url"),
            resolution: row.string("resolution"), fps: Int16(clamping: row["fps"].int ?? 0),
            isDefault: row["is_default"].int == 1)
    }

    func addProfile(_ profile: StreamProfile) async throws {
        guard try await camera(id: profile.cameraID) != nil else {
            throw MediaError(.notFound, operation: "add stream profile", message: "no camera \(profile.cameraID)")
        }
        var statements: [(String, [SQLValue])] = []
        if profile.isDefault {
            statements.append(
                (
                    "UPDATE stream_profiles SET is_default = 0 WHERE user_id = ? AND camera_id = ?",
                    [.text(userID), Self.key(profile.cameraID)]
                ))
        }
        statements.append(
            (
                """
                INSERT INTO stream_profiles (id, camera_id, user_id, name, rtsp_url, resolution, fps, is_default)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Self.key(profile.id), Self.key(profile.cameraID), .text(userID), .text(profile.name),
                    .text(profile.rtspURL), .text(profile.resolution), SQLValue(Int(profile.fps)),
                    SQLValue(profile.isDefault),
                ]
            ))
        try await database.transaction(statements)
    }
}
