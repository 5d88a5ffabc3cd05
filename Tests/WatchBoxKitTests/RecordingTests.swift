import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import Synchronization
import Testing
import WatchBoxKit

/// Continuous recording against GStreamer's RTSP server: wall-clock segments, playback from any
/// time, retention, and what a `kill -9` leaves behind.
@Suite(.serialized) struct RecordingTests {
    @Test func playbackStartsAtTheKeyframeBeforeTheAskedTimeAcrossSegments() throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        defer { server.stop() }
        let manager = StreamManager()
        let id = UUID()
        let directory = try temporaryDirectory()
        let finished = Mutex<[RecordedSegment]>([])
        let recording = StreamRecording(
            manager: manager, cameraID: id, directory: directory, segmentSeconds: 2,
            onSegment: { segment in finished.withLock { $0.append(segment) } })
        manager.start(id, url: server.url())
        let deadline = Date().addingTimeInterval(20)
        while finished.withLock({ $0.count }) < 3, Date() < deadline { usleep(100_000) }
        manager.stopAll()
        try recording.finish()
        #expect(recording.failure == nil)

        let archive = RecordingArchive(directory: directory)
        let segments = archive.segments()
        #expect(segments.count >= 3, "\(segments)")
        // One after another, no holes: each starts where the one before ended (a keyframe).
        for (previous, next) in zip(segments, segments.dropFirst()) {
            #expect(abs(next.start.timeIntervalSince(previous.end)) < 0.3, "\(previous) → \(next)")
        }
        // A span that starts inside the second segment and ends inside the last.
        let from = segments[1].start.addingTimeInterval(0.5)
        let last = segments[segments.count - 1]
        let to = min(last.start.addingTimeInterval(0.5), last.end)
        let output = directory + "/span.mp4"
        let span = try archive.export(from: from, to: to, into: output)
        let keyframeLead = from.timeIntervalSince(span.start)
        #expect(keyframeLead >= -0.05 && keyframeLead <= 1.1, "started \(keyframeLead) s before the asked time")
        let probe = try FFprobeReport.read(output)
        #expect(probe.videoFrames.first?.isKeyframe == true)
        let duration = probe.formatDuration ?? 0
        let expected = to.timeIntervalSince(span.start)
        #expect(abs(duration - expected) < 0.25, "span \(duration) s, asked \(expected) s")
        // Every frame is there: 30 fps over the span, none lost at the segment joins.
        let frames = probe.videoFrames.count
        #expect(Double(frames) > expected * 30 - 4, "\(frames) frames in \(expected) s")

        #expect(throws: MediaError.self) {
            try archive.export(
                from: Date().addingTimeInterval(3600), to: Date().addingTimeInterval(3660),
                into: directory + "/nothing.mp4")
        }
    }

    @Test func killMinus9LosesAtMostTheOpenGOPAndListsNothingUnplayable() throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        defer { server.stop() }
        let home = try temporaryDirectory()
        let added = try watchbox(["cameras", "add", "Lab", server.url(), "--home", home])
        #expect(added.status == 0, "\(added.stderr)")
        let folder = home + "/rec"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SiblingTool.path("watchbox"))
        process.arguments = ["record", "Lab", "--segment", "60", "-o", folder, "--home", home]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The open segment appears (hidden) at the first keyframe.
        let deadline = Date().addingTimeInterval(20)
        func hidden() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") }
        }
        while hidden().isEmpty, Date() < deadline { usleep(50_000) }
        #expect(!hidden().isEmpty, "no segment was opened")
        let opened = Date()
        usleep(5_000_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let recorded = Date().timeIntervalSince(opened)

        let archive = RecordingArchive(directory: folder)
        #expect(archive.segments().isEmpty, "the killed segment must not be listed before it is repaired")
        let repaired = archive.recover()
        #expect(repaired.count == 1)
        #expect(hidden().isEmpty, "leftovers: \(hidden())")
        let segments = archive.segments()
        #expect(segments.count == 1)
        for segment in segments {
            let probe = try FFprobeReport.read(segment.path)
            let duration = probe.formatDuration ?? 0
            // GOP is 1 s at this server: everything but the last second (and the connection's start).
            #expect(duration >= recorded - 1.6, "kept \(duration) s of \(recorded) s")
            #expect(abs(segment.duration - duration) < 0.2, "named \(segment.duration) s, plays \(duration) s")
            #expect(probe.videoFrames.count >= Int(duration * 30) - 3)
        }
    }

    @Test func retentionDeletesByAgeThenOldestFirstBySize() throws {
        let directory = try temporaryDirectory()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // Six one-minute segments ending 10, 9, … 5 minutes ago, 1 000 bytes each.
        for minutes in 5...10 {
            let end = now.addingTimeInterval(-Double(minutes) * 60)
            let start = end.addingTimeInterval(-60)
            let name = "\(Int64(start.timeIntervalSince1970 * 1000))-\(Int64(end.timeIntervalSince1970 * 1000)).mp4"
            try Data(count: 1000).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        let archive = RecordingArchive(directory: directory)
        #expect(archive.segments().count == 6)
        let aged = archive.enforce(RetentionPolicy(maximumAge: 8.5 * 60), now: now)
        #expect(aged.count == 2)
        #expect(archive.segments().count == 4)
        let sized = archive.enforce(RetentionPolicy(maximumBytes: 2500), now: now)
        #expect(sized.count == 2)
        let left = archive.segments()
        #expect(left.count == 2)
        // The newest are kept.
        #expect(left.last.map { now.timeIntervalSince($0.end) } == 300)
    }
}

/// Each way a camera can fail reads differently, in words, against GStreamer's RTSP server.
@Suite(.serialized) struct FailureWordsTests {
    /// The reason the stream reports for `url`, after its first failed attempt.
    func reason(_ url: String) -> String {
        let recorder = Recorder()
        let manager = StreamManager(
            options: .init(backoff: [30], authenticationRetry: 30, noDataTimeout: 3), onState: recorder.onState)
        let id = UUID()
        manager.start(id, url: url)
        defer { manager.stopAll() }
        _ = recorder.wait(id, seconds: 10) {
            switch $0 {
            case .reconnecting, .failed, .loginRefused: return true
            default: return false
            }
        }
        return recorder.states.withLock { states in
            states.compactMap { entry -> String? in
                switch entry.1 {
                case .reconnecting(_, _, let reason): return reason
                case .failed(let reason): return reason
                case .loginRefused: return "login refused"
                default: return nil
                }
            }.first ?? ""
        }
    }

    @Test func refusedWrongPathAndWrongPasswordAreThreeDifferentSentences() throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let wrongPath = reason(server.authorizedURL.replacingOccurrences(of: "/stream", with: "/nothing-here"))
        let wrongPassword = reason(server.url(user: server.user, password: "wrong"))
        // A port nothing listens on.
        let closed = reason("rtsp://127.0.0.1:9/stream")
        #expect(wrongPath.contains("no stream at this path"), "\(wrongPath)")
        #expect(wrongPassword.hasPrefix("login refused"), "\(wrongPassword)")
        #expect(closed.contains("connection refused"), "\(closed)")
        #expect(Set([wrongPath, wrongPassword, closed]).count == 3)
    }
}
