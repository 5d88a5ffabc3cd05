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

/// Headers every answer carries: no MIME sniffing, no framing by other sites, and a content policy
/// that lets the page load only its own scripts and media (MSE uses blob: URLs).
struct SecurityHeaders: RouterMiddleware {
    typealias Context = AppContext
    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; connect-src 'self'"
        return response
    }
}

struct JSONLimit: RouterMiddleware {
    typealias Context = AppContext
    let limit: Int
    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        var context = context
        context.jsonLimit = limit
        return try await next(request, context)
    }
}
