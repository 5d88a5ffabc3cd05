import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as soon as the request head arrives.
/// curl sends that header with every upload over 1 MB and then waits up to a second for the
/// answer before sending the body; Hummingbird does not answer it, so every clip upload from curl
/// (and from clients that behave the same) lost a second: 95 MB went at 78 MB/s instead of
/// hundreds. The route still checks the session, the size limit and the content as the body streams.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data),
            request.headerFields[.expect]?.lowercased() == "100-continue"
        {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
