import CameraCommon
import CameraIO
import CameraTestPeers
import CameraTesting
import Foundation
import Testing

/// Reading from a real RTSP server (GStreamer's) on a loopback port.
@Suite("RTSP", .serialized)
struct RTSPTests {
    /// Reads samples until `seconds` of video media time have arrived.
    func readVideo(from reader: MediaReader, seconds: Double) async throws -> [MediaSample] {
        var video: [MediaSample] = []
        var first: MediaTime?
        for try await sample in reader.samples() where sample.mediaType == .video {
            video.append(sample)
            // The first packets of an RTSP session can lack timestamps until RTCP syncs.
            guard let time = sample.presentationTime else { continue }
            first = first ?? time
            if let first, (time - first).seconds >= seconds { break }
        }
        return video
    }

    @Test("3 s of H.264 with the right Digest credentials", arguments: [ReaderOptions.Transport.tcp, .udp])
    func digestRead(transport: ReaderOptions.Transport) async throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let reader = try MediaReader(
            .url(server.authorizedURL), options: ReaderOptions(rtspTransport: transport, timeout: .seconds(5)))
        #expect(reader.videoStream?.codec == "h264")
        #expect(reader.videoStream?.width == 320 && reader.videoStream?.height == 240)
        let started = now()
        let video = try await readVideo(from: reader, seconds: 3)
        #expect(video.count >= 85, "about 90 frames in 3 s at 30 fps, got \(video.count)")
        #expect(video.contains { $0.isKeyframe })
        #expect(
            now() - started < 12, "a live source keeps arriving (3 s of media; generous bound for a loaded CI machine)")
        // The samples decode.
        let decoder = try VideoDecoder(stream: reader.videoStream!, format: .gray8)
        var frames = 0
        for sample in video.drop(while: { !$0.isKeyframe }) { frames += try decoder.decode(sample).count }
        #expect(frames > 60)
    }

    @Test("Basic credentials work against a Basic-only server")
    func basicRead() async throws {
        let server = RTSPTestServer(auth: .basic)
        try server.start()
        defer { server.stop() }
        let reader = try MediaReader(.url(server.authorizedURL), options: ReaderOptions(timeout: .seconds(5)))
        let video = try await readVideo(from: reader, seconds: 1)
        #expect(video.count >= 25)
    }

    @Test("wrong credentials give a typed authentication error that hides the password")
    func wrongCredentials() throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let url = server.url(user: "viewer", password: "not-the-password")
        let started = now()
        #expect {
            try MediaReader(.url(url), options: ReaderOptions(timeout: .seconds(5)))
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.kind == .authenticationFailed && !error.description.contains("not-the-password")
                && error.description.contains("viewer:***@")
        }
        #expect(now() - started < 5)
    }

    @Test("stopping the server mid-read ends the read with a typed error within the timeout")
    func serverStopsMidRead() async throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        let reader = try MediaReader(.url(server.authorizedURL), options: ReaderOptions(timeout: .seconds(2)))
        _ = try await readVideo(from: reader, seconds: 0.5)
        server.stop()
        let stopped = now()
        await #expect {
            for try await _ in reader.samples() {}
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.kind == .network || error.kind == .timedOut
        }
        #expect(now() - stopped < 2 + 4, "the 2 s timeout, plus slack for a loaded machine")
    }

    @Test("a server that stops answering times out; cancelling the task aborts a blocked read")
    func frozenServer() async throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        defer { server.stop() }
        let pid = try #require(server.processIdentifier)

        // Timeout: freeze the server (SIGSTOP) while a read waits on it.
        let reader = try MediaReader(.url(server.authorizedURL), options: ReaderOptions(timeout: .seconds(1)))
        _ = try await readVideo(from: reader, seconds: 0.3)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let frozeAt = now()
        await #expect {
            for try await _ in reader.samples() {}
        } throws: { ($0 as? MediaError)?.kind == .timedOut }
        let waited = now() - frozeAt
        #expect(waited >= 0.5 && waited < 5, "gave up after \(waited) s (timeout 1 s)")
        kill(pid, SIGCONT)

        // Cancellation: a long timeout, but the task is cancelled.
        let patient = try MediaReader(.url(server.authorizedURL), options: ReaderOptions(timeout: .seconds(60)))
        _ = try await readVideo(from: patient, seconds: 0.3)
        kill(pid, SIGSTOP)
        let task = Task {
            for try await _ in patient.samples() {}
        }
        try await Task.sleep(for: .milliseconds(300))
        let cancelledAt = now()
        task.cancel()
        let result = await task.result
        #expect(now() - cancelledAt < 4, "cancellation aborts the read long before the 60 s timeout")
        if case .failure(let error) = result {
            #expect((error as? MediaError)?.kind == .cancelled)
        } else {
            Issue.record("the read should end with a cancellation error")
        }
        kill(pid, SIGCONT)
    }
}
