import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// SQLite through GRDB: a WAL pool, so readers never wait for the writer.
final class SQLiteDatabase: SQLDatabase {
    let pool: DatabasePool
    let name = "SQLite"

    init(path: String) throws {
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

    func read(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await pool.read { db in try Self.rows(db, sql, arguments) } } catch {
            throw Self.mapped(error)
        }
    }

    func write(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await pool.write { db in try Self.rows(db, sql, arguments) } } catch {
            throw Self.mapped(error)
        }
    }

    func transaction(_ statements: [(String, [SQLValue])]) async throws {
        do {
            try await pool.write { db in
                for (sql, arguments) in statements { _ = try Self.rows(db, sql, arguments) }
            }
        } catch { throw Self.mapped(error) }
    }

    func close() async { try? pool.close() }
}
