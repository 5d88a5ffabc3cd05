import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import Testing
import WatchBoxKit

/// The RTSP prober against GStreamer's RTSP server on loopback.
@Suite(.serialized) struct ProbeTests {
    @Test func digestWithTheRightAndWrongPasswordAndNoPassword() async throws {
        let server = RTSPTestServer(auth: .digest, width: 640, height: 360)
        try server.start()
        defer { server.stop() }
        let prober = RTSPProber()
        let good = await prober.probe(server.url(), username: server.user, password: server.password)
        #expect(good.reachable)
        #expect(good.authentication == .accepted(.digest), "\(good.error ?? "")")
        #expect(good.videoCodec == "h264")
        #expect(good.width == 640 && good.height == 360)
        #expect(good.isPlayable)
        #expect(good.methods.contains("DESCRIBE"))
        #expect(!good.url.contains(server.password))

        let none = await prober.probe(server.url())
        #expect(none.authentication == .required([.digest]))
        #expect(!none.isPlayable)

        let wrong = await prober.probe(server.url(), username: server.user, password: "wrong-password")
        #expect(wrong.authentication == .rejected(.digest))
        let encoded = String(decoding: try JSONEncoder().encode(wrong), as: UTF8.self)
        #expect(!encoded.contains("wrong-password"))
    }

    @Test func basicOnlyAndOpenServersAndH265() async throws {
        let basic = RTSPTestServer(auth: .basic)
        try basic.start()
        defer { basic.stop() }
        let prober = RTSPProber()
        let result = await prober.probe(basic.url(user: basic.user, password: basic.password))
        #expect(result.authentication == .accepted(.basic), "\(result.error ?? "")")
        #expect(!result.url.contains(basic.password))

        let open = RTSPTestServer(auth: .none, codec: .h265)
        try open.start()
        defer { open.stop() }
        let hevc = await prober.probe(open.url())
        #expect(hevc.authentication == RTSPProbeResult.Authentication.none)
        #expect(hevc.videoCodec == "hevc")
    }

    @Test func closedPortsAndRepeatedFailuresAreReportedNotRetried() async throws {
        let prober = RTSPProber(timeout: .seconds(2))
        // A loopback port nobody listens on.
        let closed = await prober.probe("rtsp://127.0.0.1:9/none")
        #expect(!closed.reachable)
        #expect(closed.error != nil)

        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        for _ in 0..<RTSPProber.maximumFailures {
            let attempt = await prober.probe(server.url(), username: server.user, password: "nope")
            #expect(attempt.authentication == .rejected(.digest))
        }
        // Now even the right password is not tried: the camera would lock us out.
        let locked = await prober.probe(server.url(), username: server.user, password: server.password)
        #expect(!locked.reachable)
        #expect(locked.error?.contains("refused logins") == true)
    }

    @Test func fuzzedResponsesNeverCrashTheParser() async throws {
        // A TCP peer on loopback answering garbage: the prober reports an error, never crashes.
        var generator = SeededGenerator(seed: 9)
        let replies: [[UInt8]] =
            (0..<12).map { index in
                var text = Array(
                    "RTSP/1.0 200 OK\r\nCSeq: 1\r\nContent-Length: 5\r\nPublic: OPTIONS, DESCRIBE\r\n\r\nhello".utf8)
                for _ in 0..<(index + 1) {
                    text[Int.random(in: 0..<text.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                return text
            } + [
                Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8),
                Array("RTSP/1.0 200 OK\r\nContent-Length: 99999999\r\n\r\n".utf8), [],
            ]
        for (index, reply) in replies.enumerated() {
            let peer = try LoopbackPeer(reply: reply)
            let started = ContinuousClock.now
            let result = await RTSPProber(timeout: .seconds(1)).probe("rtsp://127.0.0.1:\(peer.port)/x")
            peer.close()
            // Every answer is either an RTSP service or an error in words, within the timeout.
            #expect(result.reachable || result.error?.isEmpty == false, "reply \(index): \(result)")
            #expect(ContinuousClock.now - started < .seconds(3), "reply \(index) took \(ContinuousClock.now - started)")
            // An HTTP server, a promised body that never comes, and silence are not RTSP cameras.
            if index >= replies.count - 3 { #expect(!result.reachable, "reply \(index): \(result)") }
        }
    }
}

/// A one-shot TCP server on 127.0.0.1 that answers every connection with fixed bytes.
final class LoopbackPeer: @unchecked Sendable {
    let socketDescriptor: Int32
    let port: Int
    private let thread: Thread

    init(reply: [UInt8]) throws {
        let (descriptor, port) = try LoopbackPort.listening(backlog: 4)
        socketDescriptor = descriptor
        self.port = port
        thread = Thread {
            while true {
                let client = accept(descriptor, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &buffer, buffer.count)
                _ = reply.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                usleep(50_000)
                Glibc.close(client)
            }
        }
        thread.start()
    }

    func close() {
        shutdown(socketDescriptor, Int32(SHUT_RDWR))
        Glibc.close(socketDescriptor)
    }
}
