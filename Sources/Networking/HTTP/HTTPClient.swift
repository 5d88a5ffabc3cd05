import CameraCommon
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTP response read whole (SOAP answers are small).
public struct HTTPClientResponse: Sendable {
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// One HTTP/1.1 request on its own connection, with a deadline and a body limit: ONVIF's SOAP
/// calls to cameras (plain HTTP, often sloppy) and Gemini's REST API (HTTPS, system trust store).
/// Chunked and close-delimited bodies are handled by NIO's HTTP/1 decoder.
public enum HTTPClient {
    public static func send(
        _ method: HTTPMethod, url: HTTPURL, headers: [(String, String)], body: [UInt8], timeout: Duration,
        limit: Int = 1 << 20
    ) async throws(MediaError) -> HTTPClientResponse {
        let operation = "\(method.rawValue) \(url)"
        let result: Result<HTTPClientResponse, any Error>
        do {
            result = .success(
                try await withDeadline(timeout, operation: operation) {
                    try await exchange(
                        method, url: url, headers: headers, body: body, limit: limit, timeout: timeout,
                        operation: operation)
                })
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let response): return response
        case .failure(let error as MediaError): throw error
        case .failure(let error as ChannelError) where error == .connectTimeout(.init(timeout)):
            throw MediaError(.timedOut, operation: operation, message: "no connection within \(timeout)")
        case .failure(let error):
            throw MediaError(.network, operation: operation, message: "\(error)")
        }
    }

    private static func exchange(
        _ method: HTTPMethod, url: HTTPURL, headers: [(String, String)], body: [UInt8], limit: Int,
        timeout: Duration, operation: String
    ) async throws -> HTTPClientResponse {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.init(timeout))
            .connect(host: url.host, port: url.effectivePort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if url.scheme == "https" {
                        let context = try NIOSSLContext(configuration: .makeClientConfiguration())
                        let tls = try NIOSSLClientHandler(
                            context: context, serverHostname: url.host.contains(":") ? nil : url.host)
                        try channel.pipeline.syncOperations.addHandler(tls)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: url.path)
            let hostHeader = URLParts.bracketedHost(url.host)
            head.headers.add(name: "Host", value: url.port.map { "\(hostHeader):\($0)" } ?? hostHeader)
            head.headers.add(name: "Content-Length", value: String(body.count))
            head.headers.add(name: "Connection", value: "close")
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            // One write: a server that has the whole body may answer and close at once, and a
            // separate last write (`.end`, no bytes for a sized body) then failed with "I/O on
            // closed channel", losing the answer already received (seen under load in CI). An
            // answer that arrived before a write failed is still read.
            var writeFailure: (any Error)?
            do {
                try await outbound.write(contentsOf: [
                    .head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil),
                ])
            } catch {
                writeFailure = error
            }
            var response: HTTPClientResponse?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    response = HTTPClientResponse(
                        status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [])
                case .body(let chunk):
                    guard (response?.body.count ?? 0) + chunk.readableBytes <= limit else {
                        throw MediaError(
                            .invalidData, operation: operation, message: "answer larger than \(limit) bytes")
                    }
                    response?.body += chunk.readableBytesView
                case .end:
                    if let response { return response }
                }
            }
            if let writeFailure { throw writeFailure }
            throw MediaError(
                .network, operation: operation, message: "the device closed the connection without answering")
        }
    }
}

/// Runs `body`, throwing ``MediaError`` `timedOut` when it takes longer than `timeout`.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, operation: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw MediaError(.timedOut, operation: operation, message: "no answer within \(timeout)")
        }
        return value
    }
}
