import CameraCommon
import CameraIO
import FoundationEssentials
import GRDB

/// Stores cameras and their stream profiles (the spec's CameraRepository). Two implementations:
/// ``SQLiteCameraRepository`` (the `watchbox` command's own database) and the CameraCore server's
/// (one per signed-in user, on SQLite or PostgreSQL). Both keep passwords out: those live in a
/// ``CredentialStore``.
public protocol CameraRepository: Sendable {
    /// Every camera in grid order.
    func cameras() async throws -> [Camera]
    func camera(id: UUID) async throws -> Camera?
    /// Adds a camera and returns it as stored (the repository may assign its grid position).
    /// - Throws: when a camera with the same address and path exists (``MediaError``
    ///   `invalidArgument` from SQLite, a conflict from the server's store).
    @discardableResult func add(_ camera: Camera) async throws -> Camera
    func update(_ camera: Camera) async throws
    /// Removes a camera and its stream profiles.
    func remove(id: UUID) async throws
    /// Puts the cameras in this order (ids not listed keep their relative order after them).
    func reorder(_ ids: [UUID]) async throws
    func profiles(cameraID: UUID) async throws -> [StreamProfile]
    /// Adds a stream profile; a default profile replaces the camera's previous default.
    func addProfile(_ profile: StreamProfile) async throws
}

/// The repository in SQLite through GRDB, with migrations. The password is not a column.
public final class SQLiteCameraRepository: CameraRepository {
    public let path: String
    private let queue: DatabaseQueue

    /// Opens (and creates or migrates) the database at `path`.
    ///
    /// - Throws: ``MediaError`` `writeFailed` when the file cannot be opened, `invalidData` when it
    ///   is not a WatchBox database.
    public init(path: String) throws(MediaError) {
        self.path = path
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(queue)
        } catch {
            throw MediaError(.invalidData, operation: "open camera database \(path)", message: "\(error)")
        }
    }

    /// The user's database: `$WATCHBOX_HOME/cameras.sqlite` (default `~/.local/share/watchbox`).
    public static var defaultPath: String { WatchBoxPaths.home + "/cameras.sqlite" }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: cameras and stream profiles") { db in
            try db.create(table: "camera") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("rtspURL", .text).notNull()
                table.column("username", .text)
                table.column("ipAddress", .text).notNull()
                table.column("port", .integer).notNull().defaults(to: 554)
                table.column("streamPath", .text).notNull()
                table.column("manufacturer", .text)
                table.column("model", .text)
                table.column("isActive", .boolean).notNull().defaults(to: true)
                table.column("gridPosition", .integer).notNull()
                table.column("dateAdded", .datetime).notNull()
                table.column("lastConnected", .datetime)
                table.column("thumbnailData", .blob)
                table.uniqueKey(["ipAddress", "port", "streamPath"])
            }
            try db.create(table: "streamProfile") { table in
                table.primaryKey("id", .text)
                table.column("cameraID", .text).notNull().indexed()
                    .references("camera", onDelete: .cascade)
                table.column("name", .text).notNull()
                table.column("rtspURL", .text).notNull()
                table.column("resolution", .text).notNull()
                table.column("fps", .integer).notNull()
                table.column("isDefault", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v2: ONVIF identity, to follow a camera that moves") { db in
            try db.alter(table: "camera") { table in
                table.add(column: "endpoint", .text)
                table.add(column: "serialNumber", .text)
            }
        }
        return migrator
    }

    public func cameras() throws(MediaError) -> [Camera] {
        try read("list cameras") { db in
            try CameraRow.order(Column("gridPosition"), Column("dateAdded")).fetchAll(db).map(\.camera)
        }
    }

    public func camera(id: UUID) throws(MediaError) -> Camera? {
        try read("find camera") { db in try CameraRow.fetchOne(db, key: id.uuidString)?.camera }
    }

    @discardableResult
    public func add(_ camera: Camera) throws(MediaError) -> Camera {
        try write("add camera \(camera.name)") { db in
            var stored = camera
            let last = try Int16.fetchOne(db, sql: "SELECT MAX(gridPosition) FROM camera") ?? -1
            stored.gridPosition = last + 1
            if let existing = try CameraRow.filter(
                Column("ipAddress") == stored.ipAddress && Column("port") == Int(stored.port)
                    && Column("streamPath") == stored.streamPath
            ).fetchOne(db) {
                throw MediaError(
                    .invalidArgument, operation: "add camera \(camera.name)",
                    message: "\(existing.name) already uses \(stored.rtspURL)")
            }
            try CameraRow(stored).insert(db)
            return stored
        }
    }

    public func update(_ camera: Camera) throws(MediaError) {
        try write("update camera \(camera.name)") { db in
            guard try CameraRow.exists(db, key: camera.id.uuidString) else {
                throw MediaError(.notFound, operation: "update camera \(camera.name)", message: "no such camera")
            }
            try CameraRow(camera).update(db)
        }
    }

    public func remove(id: UUID) throws(MediaError) {
        try write("remove camera") { db in
            guard try CameraRow.deleteOne(db, key: id.uuidString) else {
                throw MediaError(.notFound, operation: "remove camera", message: "no camera \(id)")
            }
        }
    }

    public func reorder(_ ids: [UUID]) throws(MediaError) {
        try write("reorder cameras") { db in
            let current = try CameraRow.order(Column("gridPosition"), Column("dateAdded")).fetchAll(db)
            let known = Set(current.map(\.id))
            if let unknown = ids.first(where: { !known.contains($0.uuidString) }) {
                throw MediaError(.notFound, operation: "reorder cameras", message: "no camera \(unknown)")
            }
            let ordered =
                ids.map(\.uuidString) + current.map(\.id).filter { id in !ids.contains { $0.uuidString == id } }
            for (position, id) in ordered.enumerated() {
                try db.execute(sql: "UPDATE camera SET gridPosition = ? WHERE id = ?", arguments: [position, id])
            }
        }
    }

    public func profiles(cameraID: UUID) throws(MediaError) -> [StreamProfile] {
        try read("list stream profiles") { db in
            try ProfileRow.filter(Column("cameraID") == cameraID.uuidString).order(Column("name")).fetchAll(db)
                .map(\.profile)
        }
    }

    public func addProfile(_ profile: StreamProfile) throws(MediaError) {
        try write("add stream profile \(profile.name)") { db in
            guard try CameraRow.exists(db, key: profile.cameraID.uuidString) else {
                throw MediaError(.notFound, operation: "add stream profile", message: "no camera \(profile.cameraID)")
            }
            if profile.isDefault {
                try db.execute(
                    sql: "UPDATE streamProfile SET isDefault = 0 WHERE cameraID = ?",
                    arguments: [profile.cameraID.uuidString])
            }
            try ProfileRow(profile).insert(db)
        }
    }

    private func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(MediaError) -> T {
        try access(operation, failure: .other) { try queue.read(body) }
    }

    private func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(MediaError) -> T {
        try access(operation, failure: .writeFailed) { try queue.write(body) }
    }

    /// Runs a database access; our own errors pass through, SQLite's become `failure`.
    private func access<T>(_ operation: String, failure: MediaError.Kind, _ body: () throws -> T) throws(MediaError)
        -> T
    {
        do {
            return try body()
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(failure, operation: operation, message: "\(error)")
        }
    }
}

/// The `camera` table's row (UUIDs as text, so the file reads plainly in `sqlite3`).
struct CameraRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "camera"
    var id: String
    var name: String
    var rtspURL: String
    var username: String?
    var ipAddress: String
    var port: Int
    var streamPath: String
    var manufacturer: String?
    var model: String?
    var isActive: Bool
    var gridPosition: Int
    var dateAdded: Date
    var lastConnected: Date?
    var thumbnailData: Data?
    var endpoint: String?
    var serialNumber: String?

    init(_ camera: Camera) {
        id = camera.id.uuidString
        name = camera.name
        rtspURL = camera.rtspURL
        username = camera.username
        ipAddress = camera.ipAddress
        port = Int(camera.port)
        streamPath = camera.streamPath
        manufacturer = camera.manufacturer
        model = camera.model
        isActive = camera.isActive
        gridPosition = Int(camera.gridPosition)
        dateAdded = camera.dateAdded
        lastConnected = camera.lastConnected
        thumbnailData = camera.thumbnailData
        endpoint = camera.endpoint
        serialNumber = camera.serialNumber
    }

    var camera: Camera {
        Camera(
            id: UUID(uuidString: id) ?? UUID(), name: name, rtspURL: rtspURL, username: username, ipAddress: ipAddress,
            port: Int16(clamping: port), manufacturer: manufacturer, model: model, isActive: isActive,
            gridPosition: Int16(clamping: gridPosition), dateAdded: dateAdded, lastConnected: lastConnected,
            thumbnailData: thumbnailData, endpoint: endpoint, serialNumber: serialNumber)
    }
}

struct ProfileRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "streamProfile"
    var id: String
    var cameraID: String
    var name: String
    var rtspURL: String
    var resolution: String
    var fps: Int
    var isDefault: Bool

    init(_ profile: StreamProfile) {
        id = profile.id.uuidString
        cameraID = profile.cameraID.uuidString
        name = profile.name
        rtspURL = profile.rtspURL
        resolution = profile.resolution
        fps = Int(profile.fps)
        isDefault = profile.isDefault
    }

    var profile: StreamProfile {
        StreamProfile(
            id: UUID(uuidString: id) ?? UUID(), cameraID: UUID(uuidString: cameraID) ?? UUID(), name: name,
            rtspURL: rtspURL, resolution: resolution, fps: Int16(clamping: fps), isDefault: isDefault)
    }
}

/// Where WatchBox keeps its files: `$WATCHBOX_HOME`, else `$XDG_DATA_HOME/watchbox`, else
/// `~/.local/share/watchbox`.
public enum WatchBoxPaths {
    public static var home: String { DataDirectory.home(app: "watchbox", overrideVariable: "WATCHBOX_HOME") }
}
