import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Users' JSON files (projects, effect stacks, game profiles, settings, clip entries): read with
/// errors that name the file and the field, written atomically as pretty, sorted JSON.
public enum JSONFile {
    /// The one JSON encoder configuration (files, `--json` output, the server's answers): key-sorted
    /// JSON with unescaped slashes and dates as RFC 3339 UTC text (`2026-11-20T18:30:00Z`), stable
    /// across runs so files diff cleanly; pretty for people, compact for the wire.
    public static func encoder(pretty: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // The same text as `.iso8601`, written by hand: Foundation's ISO8601DateFormatter costs
        // microseconds a date on Linux, which showed in the server's clip list.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(internetTime(date))
        }
        return encoder
    }

    /// RFC 3339 UTC with whole seconds (fractions dropped, as `.iso8601` does).
    public static func internetTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        text.append(45)
        digits(parts.tm_mon + 1, 2)
        text.append(45)
        digits(parts.tm_mday, 2)
        text.append(84)
        digits(parts.tm_hour, 2)
        text.append(58)
        digits(parts.tm_min, 2)
        text.append(58)
        digits(parts.tm_sec, 2)
        text.append(90)
        return String(decoding: text, as: UTF8.self)
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Decodes `bytes`.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` naming the field that is missing or wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: Data, operation: String) throws(MediaError) -> T
    {
        do {
            return try decoder().decode(type, from: bytes)
        } catch let error as DecodingError {
            throw MediaError(decoding: error, operation: operation)
        } catch {
            throw MediaError(.invalidArgument, operation: operation, message: "\(error)")
        }
    }

    /// Reads and decodes the file at `path`.
    ///
    /// - Throws: ``MediaError`` `notFound` when the file cannot be read; `invalidArgument` naming
    ///   the field that is missing or wrong.
    public static func read<T: Decodable>(_ type: T.Type, from path: String, operation: String) throws(MediaError) -> T
    {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw MediaError(.notFound, operation: operation, message: "cannot read the file")
        }
        return try decode(type, from: bytes, operation: operation)
    }

    /// The value as pretty JSON text.
    public static func text<T: Encodable>(_ value: T, operation: String) throws(MediaError) -> [UInt8] {
        do {
            return [UInt8](try encoder().encode(value))
        } catch {
            throw MediaError(.other, operation: operation, message: "\(error)")
        }
    }

    /// Writes `value` to `path` atomically (see ``AtomicFile``).
    public static func write<T: Encodable>(_ value: T, to path: String, durable: Bool = true, operation: String)
        throws(MediaError)
    {
        try AtomicFile.write(text(value, operation: operation), to: path, durable: durable)
    }
}
