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
public struct AppContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public var userID: String?
    public var sessionID: String?
    var jsonLimit = 8 << 20
    /// The caller's address, for per-address limits on sign-in.
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { jsonLimit }

    /// The caller's user id; routes marked `.user` only run after it was set.
    func user() throws -> String {
        guard let userID else { throw APIError(.unauthorized, AuthError.missing.description) }
        return userID
    }
}
