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
    /// The caller's address, for per-address limits on sign-in.
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    var maxUploadSize: Int { jsonLimit }

    /// The caller's user id; routes marked `.user` only run after it was set.
    func user() throws -> String {
        guard let userID else { throw APIError(.unauthorized, AuthError.missing.description) }
        return userID
    }
}
