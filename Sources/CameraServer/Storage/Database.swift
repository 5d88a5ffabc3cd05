import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// A value bound into or read out of SQL. Dates are stored as seconds since 1970 (`real`), booleans
/// as 0/1 (`integer`), lists as JSON text: types both SQLite and PostgreSQL hold the same way.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }
    public var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    public var int: Int? {
        switch self {
        case .integer(let value): Int(value)
        case .real(let value): Int(value)
        default: nil
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    init(_ value: Date?) { self = value.map { .real($0.timeIntervalSince1970) } ?? .null }
}

/// One result row by column name.
public struct SQLRow: Sendable {
    var values: [String: SQLValue]
    public subscript(_ column: String) -> SQLValue { values[column] ?? .null }
    public func string(_ column: String) -> String { self[column].string ?? "" }
    public func date(_ column: String) -> Date? { self[column].double.map { Date(timeIntervalSince1970: $0) } }
}

/// What the server's store needs from a database: statements with `?` placeholders. SQLite (GRDB)
/// and PostgreSQL (postgres-nio) implement it, so both run the same schema, migrations and queries.
public protocol SQLDatabase: Sendable {
    /// A statement that only reads (may run concurrently with others).
    func read(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
    /// A statement that writes (serialised; `RETURNING` rows come back).
    @discardableResult
    func write(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
    /// Statements run in one transaction.
    func transaction(_ statements: [(String, [SQLValue])]) async throws
    var name: String { get }
    func close() async
}

/// A database failure with the statement's purpose; never carries bound values (they may be hashes
/// or e-mail addresses).
public struct DatabaseFailure: Error, CustomStringConvertible {
    public var description: String
    /// A UNIQUE constraint refused the row.
    public var isConflict: Bool
}

/// SQLite through GRDB: a WAL pool, so readers never wait for the writer.
public final class SQLiteDatabase: SQLDatabase {
    let pool: DatabasePool
    public let name = "SQLite"

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = 8
        pool = try DatabasePool(path: path, configuration: configuration)
    }

    private static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(
            values.map { value -> (any DatabaseValueConvertible)? in
                switch value {
                case .null: nil
                case .integer(let number): number
                case .real(let number): number
                case .text(let text): text
                }
            })
    }

    private static func rows(_ db: Database, _ sql: String, _ values: [SQLValue]) throws -> [SQLRow] {
        try Row.fetchAll(db, sql: sql, arguments: arguments(values)).map { row in
            var values: [String: SQLValue] = [:]
            for (column, value) in row {
                switch value.storage {
                case .null: values[column] = .null
                case .int64(let number): values[column] = .integer(number)
                case .double(let number): values[column] = .real(number)
                case .string(let text): values[column] = .text(text)
                case .blob(let data): values[column] = .text(String(decoding: data, as: UTF8.self))
                }
            }
            return SQLRow(values: values)
        }
    }

    private static func mapped(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        return DatabaseFailure(
            description: "SQLite: \(error.message ?? "error \(error.resultCode)")",
            isConflict: error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
                || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
    }

    public func read(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await pool.read { db in try Self.rows(db, sql, arguments) } } catch {
            throw Self.mapped(error)
        }
    }

    public func write(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await pool.write { db in try Self.rows(db, sql, arguments) } } catch {
            throw Self.mapped(error)
        }
    }

    public func transaction(_ statements: [(String, [SQLValue])]) async throws {
        do {
            try await pool.write { db in
                for (sql, arguments) in statements { _ = try Self.rows(db, sql, arguments) }
            }
        } catch { throw Self.mapped(error) }
    }

    public func close() async { try? pool.close() }
}

/// PostgreSQL through postgres-nio's connection pool. `?` placeholders become `$1`, `$2`, ….
public final class PostgreSQLDatabase: SQLDatabase {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    public let name = "PostgreSQL"

    /// Connects to `postgres://user:password@host:port/database` (TLS is not used: loopback or a
    /// private network; put a TLS proxy in front otherwise).
    public init(url: String) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host
        else {
            throw DatabaseFailure(
                description: "DATABASE_URL must look like postgres://user:password@host:5432/database",
                isConflict: false)
        }
        let database = String(parts.path.drop { $0 == "/" })
        let configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: parts.user ?? "postgres", password: parts.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        let client = PostgresClient(configuration: configuration)
        self.client = client
        runner = Task { await client.run() }
    }

    static func numbered(_ sql: String) -> String {
        var result = ""
        var number = 0
        for character in sql {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func query(_ sql: String, _ values: [SQLValue]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number, context: .default)
            case .real(let number): binds.append(number, context: .default)
            case .text(let text): binds.append(text, context: .default)
            }
        }
        return PostgresQuery(unsafeSQL: numbered(sql), binds: binds)
    }

    private static func rows(_ sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var result: [SQLRow] = []
        for try await row in sequence {
            var values: [String: SQLValue] = [:]
            for cell in row {
                guard cell.bytes != nil else {
                    values[cell.columnName] = .null
                    continue
                }
                switch cell.dataType {
                case .int2, .int4, .int8: values[cell.columnName] = .integer(try cell.decode(Int64.self))
                case .float4, .float8, .numeric: values[cell.columnName] = .real(try cell.decode(Double.self))
                default: values[cell.columnName] = .text(try cell.decode(String.self))
                }
            }
            result.append(SQLRow(values: values))
        }
        return result
    }

    private static func mapped(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        let code = error.serverInfo?[.sqlState]
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        return DatabaseFailure(description: "PostgreSQL: \(message)", isConflict: code == "23505")
    }

    public func read(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await Self.rows(client.query(Self.query(sql, arguments))) } catch { throw Self.mapped(error) }
    }

    public func write(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try await read(sql, arguments)
    }

    public func transaction(_ statements: [(String, [SQLValue])]) async throws {
        do {
            try await client.withConnection { connection in
                _ = try await connection.query("BEGIN", logger: Logger(label: "sql"))
                do {
                    for (sql, arguments) in statements {
                        _ = try await Self.rows(
                            connection.query(Self.query(sql, arguments), logger: Logger(label: "sql")))
                    }
                    _ = try await connection.query("COMMIT", logger: Logger(label: "sql"))
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: Logger(label: "sql"))
                    throw error
                }
            }
        } catch { throw Self.mapped(error) }
    }

    public func close() async { runner.cancel() }
}

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
