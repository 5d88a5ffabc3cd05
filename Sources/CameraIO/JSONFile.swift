import CameraCommon
import FoundationEssentials

/// Users' JSON files (projects, effect stacks, game profiles, settings, clip entries): read with
/// errors that name the file and the field, written atomically as pretty, sorted JSON.
public enum JSONFile {
    /// Pretty, key-sorted JSON with unescaped slashes and ISO 8601 dates, stable across runs so
    /// files diff cleanly.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
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
