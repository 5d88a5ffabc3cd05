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

/// Per request: who is calling (after authentication) and the JSON body limit.
struct AppContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    var userID: String?
    var sessionID: String?
    var jsonLimit = 8 << 20
    /// The peer's address, and the client's as far as it can be believed (a trusted proxy's
    /// `X-Forwarded-For`), for per-address limits on sign-in.
    let remoteAddress: String
    var clientAddress: String
    /// Whether the client reached us over HTTPS (a trusted proxy said so).
    var isHTTPS = false

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = remoteAddress
    }

    var maxUploadSize: Int { jsonLimit }

    /// The caller's user id; routes marked `.user` only run after it was set.
    func user() throws -> String {
        guard let userID else { throw APIError(.unauthorized, AuthError.missing.description) }
        return userID
    }
}
