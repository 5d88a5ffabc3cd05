import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// A value bound into or read out of SQL. Dates are stored as seconds since 1970 (`real`), booleans
/// as 0/1 (`integer`), lists as JSON text: types both SQLite and PostgreSQL hold the same way.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }
    var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    var int: Int? {
        switch self {
        case .integer(let value): Int(value)
        case .real(let value): Int(value)
        default: nil
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    init(_ value: Date?) { self = value.map { .real($0.timeIntervalSince1970) } ?? .null }
}

/// One result row by column name.
struct SQLRow: Sendable {
    var values: [String: SQLValue]
    subscript(_ column: String) -> SQLValue { values[column] ?? .null }
    func string(_ column: String) -> String { self[column].string ?? "" }
    func date(_ column: String) -> Date? { self[column].double.map { Date(timeIntervalSince1970: $0) } }
}

/// What the server's store needs from a database: statements with `?` placeholders. SQLite (GRDB)
/// and PostgreSQL (postgres-nio) implement it, so both run the same schema, migrations and queries.
protocol SQLDatabase: Sendable {
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
struct DatabaseFailure: Error, CustomStringConvertible {
    var description: String
    /// A UNIQUE constraint refused the row.
    var isConflict: Bool
}
