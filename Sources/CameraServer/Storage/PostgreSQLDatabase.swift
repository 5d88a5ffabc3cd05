import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// PostgreSQL through postgres-nio's connection pool. `?` placeholders become `$1`, `$2`, ….
final class PostgreSQLDatabase: SQLDatabase {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    let name = "PostgreSQL"

    /// Connects to `postgres://user:password@host:port/database` (TLS is not used: loopback or a
    /// private network; put a TLS proxy in front otherwise).
    init(url: String) throws {
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

    func read(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        do { return try await Self.rows(client.query(Self.query(sql, arguments))) } catch { throw Self.mapped(error) }
    }

    func write(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try await read(sql, arguments)
    }

    func transaction(_ statements: [(String, [SQLValue])]) async throws {
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

    func close() async { runner.cancel() }
}
