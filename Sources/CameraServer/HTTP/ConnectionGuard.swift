import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Limits every connection before Hummingbird sees it: a client must finish its first request
/// head within `headSeconds` of connecting (a client trickling header bytes — "slowloris" — held
/// a connection open indefinitely), and a head the HTTP parser refuses as too large or malformed
/// gets `431`/`400` and a close instead of silence (a client waited 622 s for an answer).
/// Connections that go quiet are closed by Hummingbird's idle timeout; slow uploads by
/// ``ClipFiles/receive(_:to:limit:accept:refusal:)``.
struct GuardedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let headTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(FirstHeadDeadline(timeout: headTimeout), position: .first)
        }
        .flatMap { inner.setup(channel: channel, logger: logger) }
        .flatMapThrowing { value in
            // Right after the parser, so its errors are answered before anything else sees them.
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ParserErrorAnswer(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with WebSocket upgrades, behind ``GuardedHTTPChannel``.
    static func guardedHTTP1WebSocket<WSResponderBuilder: HTTPResponderBuilder & _HB_SendableMetatype>(
        webSocketRouter: WSResponderBuilder, configuration: HTTP1WebSocketUpgradeChannel.Configuration,
        headTimeout: TimeAmount
    ) -> HTTPServerBuilder where WSResponderBuilder.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                headTimeout: headTimeout)
        }
    }
}

/// Closes a connection whose first request head (up to the blank line) has not arrived in time,
/// then passes bytes through; it stays at the front of the pipeline so ``ParserErrorAnswer`` can
/// write raw bytes past the HTTP encoder.
final class FirstHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// The last bytes seen, so a blank line split across reads is found.
    private var tail: [UInt8] = []
    private var seenHead = false

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !seenHead else {
            context.fireChannelRead(data)
            return
        }
        let buffer = unwrapInboundIn(data)
        let bytes = tail + buffer.readableBytesView
        if bytes.count >= 4, Self.containsBlankLine(bytes) {
            deadline?.cancel()
            deadline = nil
            seenHead = true
        }
        tail = Array(bytes.suffix(3))
        context.fireChannelRead(data)
    }

    static func containsBlankLine(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// Answers a request the HTTP parser refused — `431` for a head over the size limit, `400` for
/// anything else it cannot parse — and closes the connection. Other data passes untouched, also
/// after a WebSocket upgrade.
final class ParserErrorAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let isOverflow = if case .headerOverflow = parserError { true } else { false }
        let (status, message) =
            isOverflow
            ? ("431 Request Header Fields Too Large", "the request head is too large")
            : ("400 Bad Request", "the request is not valid HTTP/1.1")
        let body = "{\"error\":\"\(message)\"}"
        let answer =
            "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        // Written from the front of the pipeline: the HTTP encoder takes only response parts.
        let channel = context.channel
        guard let front = try? context.pipeline.syncOperations.context(handlerType: FirstHeadDeadline.self) else {
            channel.close(promise: nil)
            return
        }
        front.writeAndFlush(NIOAny(ByteBuffer(string: answer))).whenComplete { _ in channel.close(promise: nil) }
    }
}
