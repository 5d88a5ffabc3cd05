import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Helpers for routes

/// The server's JSON: compact, keys sorted, dates as RFC 3339 text (``JSONFile/encoder(pretty:)``).
let jsonEncoder = JSONFile.encoder(pretty: false)

func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    var fields = headers
    fields[.contentType] = "application/json; charset=utf-8"
    return Response(
        status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: try jsonEncoder.encode(value))))
}

/// Decodes a JSON body; errors say which field was wrong.
///
/// A body must say it is JSON (`Content-Type: application/json`): a form on another site can post
/// `text/plain` without asking the browser first, but not `application/json`.
func decode<T: Decodable>(_ type: T.Type, from request: Request, context: AppContext) async throws -> T {
    let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingWhitespace().lowercased()
    guard mediaType == "application/json" else {
        throw APIError(.unsupportedMediaType, "send the body as JSON with Content-Type: application/json")
    }
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: context.maxUploadSize)
    } catch {
        throw APIError(.contentTooLarge, "the body is larger than \(context.maxUploadSize) bytes")
    }
    do {
        return try JSONFile.decoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
        throw APIError(.badRequest, "invalid JSON body: \(MediaError.describe(error))")
    }
}

/// Ids in paths (clips, cameras, reels): letters, digits, `-` and `_`, at most 64. Anything else,
/// `..` and `/` included, is refused before it comes near a file name or a query.
func pathID(_ context: AppContext, _ name: String = "id") throws -> String {
    guard let id = context.parameters.get(name), isValidID(id) else {
        throw APIError(.badRequest, "\(name): use 1–64 letters, digits, '-' or '_'")
    }
    return id
}

func isValidID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= 64
        && id.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95
        }
}
