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

/// An error answer: `{"error": "message"}` with a status. Messages name what was wrong and never
/// echo credentials.
struct APIError: HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    var description: String { "\(status.code) \(message)" }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        // The id names this request in the server's log, where the details are.
        fields[HTTPField.Name("X-Request-ID")!] = context.id
        let body = (try? JSONEncoder().encode(["error": message, "requestId": context.id])) ?? Data("{}".utf8)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Maps the errors routes meet to statuses.
    static func from(_ error: any Error) -> any Error {
        switch error {
        case is APIError, is HTTPError: return error
        case let error as AuthError:
            switch error {
            case .emailTaken, .unverifiedEmail: return APIError(.conflict, error.description)
            case .appleUnavailable: return APIError(.serviceUnavailable, error.description)
            default: return APIError(.unauthorized, error.description)
            }
        case let error as MediaError:
            let status: HTTPResponse.Status =
                switch error.kind {
                case .invalidArgument, .invalidData, .unsupported: .badRequest
                case .notFound: .notFound
                case .notAllowed: .forbidden
                case .timedOut: .gatewayTimeout
                case .authenticationFailed: .badGateway
                default: .internalServerError
                }
            return APIError(status, error.description)
        case let error as DatabaseFailure where error.isConflict:
            return APIError(.conflict, "that already exists")
        default:
            return APIError(.internalServerError, "internal error")
        }
    }
}
