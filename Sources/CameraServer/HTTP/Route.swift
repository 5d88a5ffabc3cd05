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

/// Who may call a route.
enum Access: String, Sendable {
    /// Anyone (sign-in, health).
    case anyone
    /// A signed-in user; the route reads and writes only that user's records.
    case user
}

/// One route of the API. The list of them (``CameraCoreServer/routes``) registers the router, checks
/// the OpenAPI file, and drives the authorisation test, so none of the three can drift.
struct Route: Sendable {
    var method: HTTPRequest.Method
    /// Hummingbird's form: `/api/clips/:id`.
    var path: String
    var access: Access
    var summary: String
    var handler: @Sendable (Request, AppContext) async throws -> Response
    /// For a WebSocket route: checks the caller's request (throws to refuse the upgrade) and returns
    /// what serves the connection. It runs before the upgrade and again when the connection starts,
    /// since the upgraded connection begins from an unauthenticated context.
    var webSocket: (@Sendable (Request, AppContext) async throws -> WebSocketSession)?

    typealias WebSocketSession = @Sendable (WebSocketInboundStream, WebSocketOutboundWriter) async throws -> Void

    init(
        method: HTTPRequest.Method, path: String, access: Access, summary: String,
        handler: @escaping @Sendable (Request, AppContext) async throws -> Response
    ) {
        self.method = method
        self.path = path
        self.access = access
        self.summary = summary
        self.handler = handler
    }

    /// A signed-in user's WebSocket upgrade (GET).
    init(
        webSocket path: String, summary: String,
        accept: @escaping @Sendable (Request, AppContext) async throws -> WebSocketSession
    ) {
        self.init(method: .get, path: path, access: .user, summary: summary) { _, _ in
            throw APIError(.upgradeRequired, "this route is a WebSocket")
        }
        webSocket = accept
    }

    var isWebSocket: Bool { webSocket != nil }

    /// The OpenAPI form: `/api/clips/{id}`.
    var openAPIPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }.joined(separator: "/")
    }
}
