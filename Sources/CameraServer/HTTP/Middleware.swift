import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Networking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Headers every answer carries, errors included: no MIME sniffing, no framing by other sites, no
/// referrer, and a content policy that lets the page load only its own scripts, styles and media
/// (MSE uses blob: URLs), with no plugins, no `<base>` and forms posting only here.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = AppContext

    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // An error becomes its answer here, so the headers go on it too. Server faults are
            // logged with the request id the client sees; URLs in them lose their credentials.
            let mapped = APIError.from(error)
            guard let answer = mapped as? any HTTPResponseError else { throw error }
            if answer.status.code >= 500 {
                context.logger.error(
                    "\(request.method) \(request.uri.path) failed: \(URLRedaction.redactingURLs(in: String(describing: error)))"
                )
            }
            response = try answer.response(from: request, context: context)
        }
        Self.apply(to: &response.headers)
        return response
    }

    static func apply(to headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
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

/// Believes `X-Forwarded-Proto` and `X-Forwarded-For` only from configured proxies: the client's
/// address is the last one the proxy appended, HTTPS is what the proxy says. From anyone else
/// the headers are ignored, so a client cannot pick its own address to dodge sign-in limits.
struct ForwardedHeaders: RouterMiddleware {
    typealias Context = AppContext
    let proxies: [IPv4Network]

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response)
        async throws -> Response
    {
        guard let peer = IPv4Network.parse(context.remoteAddress), proxies.contains(where: { $0.contains(peer) })
        else { return try await next(request, context) }
        var context = context
        if let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").last {
            let address = forwarded.trimmingWhitespace()
            if IPv4Network.parse(address) != nil || address.contains(":") { context.clientAddress = address }
        }
        context.isHTTPS = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        return try await next(request, context)
    }
}
