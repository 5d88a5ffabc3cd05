import CameraCommon
import CameraIO
import CameraTestPeers
import CameraTesting
import Foundation
import Synchronization
import Testing
import WatchBoxKit

/// Records what a manager reports, for assertions.
final class Recorder: Sendable {
    let states = Mutex<[(UUID, StreamState, Date)]>([])
    let health = Mutex<[HealthEvent]>([])
    let samples = Mutex<[UUID: Int]>([:])

    /// A state callback that records into ``states``.
    var onState: @Sendable (UUID, StreamState) -> Void {
        { id, state in self.states.withLock { $0.append((id, state, Date())) } }
    }

    /// Waits until `id` reaches a state matching `predicate` at or after `since`; returns when it did.
    func wait(_ id: UUID, since: Date = .distantPast, seconds: Double, _ predicate: (StreamState) -> Bool) -> Date? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let hit = states.withLock({ $0.first { $0.0 == id && predicate($0.1) && $0.2 >= since }?.2 }) {
                return hit
            }
            usleep(20_000)
        }
        return nil
    }
}

@Suite(.serialized) struct StreamManagerTests {
    @Test func reconnectsAfterTheServerRestartsAndPlaysAgainWithinThreeSeconds() throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        let recorder = Recorder()
        let manager = StreamManager(
            onState: recorder.onState)
        defer { manager.stopAll() }
        let id = UUID()
        let started = Date()
        manager.subscribe(id) { id, _ in recorder.samples.withLock { $0[id, default: 0] += 1 } }
        manager.start(id, url: server.url())
        let playing = try #require(recorder.wait(id, seconds: 10) { $0 == .playing })
        print("time to first frame: \(Int(playing.timeIntervalSince(started) * 1000)) ms")
        usleep(500_000)
        #expect(recorder.samples.withLock { $0[id] ?? 0 } > 5)

        server.stop()
        let dropped = recorder.wait(id, seconds: 10) {
            if case .reconnecting = $0 { return true }
            return false
        }
        #expect(dropped != nil, "\(recorder.states.withLock { $0.map(\.1) })")
        let beforeRestart = Date()
        try server.start()
        let restarted = Date()
        // Only a "playing" after the restart counts (the first one is still in the log).
        let again = recorder.wait(id, since: beforeRestart, seconds: 10) { $0 == .playing }
        let seconds = again.map { $0.timeIntervalSince(restarted) } ?? .infinity
        #expect(seconds < 3, "playing again after \(seconds) s: \(recorder.states.withLock { $0.map(\.1) })")
        let statistics = try #require(manager.statistics(id))
        #expect(statistics.reconnects >= 1)
        server.stop()
    }

    @Test func aStaticPictureIsReportedFrozenAndAMovingOneIsNot() throws {
        let frozen = RTSPTestServer(auth: .none, pattern: "solid-color")
        let moving = RTSPTestServer(auth: .none, pattern: "ball")
        try frozen.start()
        try moving.start()
        defer {
            frozen.stop()
            moving.stop()
        }
        let recorder = Recorder()
        let manager = StreamManager(onHealth: { event in recorder.health.withLock { $0.append(event) } })
        defer { manager.stopAll() }
        let still = UUID()
        let ball = UUID()
        manager.start(still, url: frozen.url())
        manager.start(ball, url: moving.url())
        let deadline = Date().addingTimeInterval(12)
        while Date() < deadline, !recorder.health.withLock({ $0.contains { $0.cameraID == still } }) { usleep(100_000) }
        let events = recorder.health.withLock { $0 }
        #expect(events.contains { $0.cameraID == still && $0.kind == .frozen }, "\(events)")
        #expect(!events.contains { $0.cameraID == ball && $0.kind == .frozen })
    }

    @Test func barsWithASmallMovingPatchAreNotFrozen() throws {
        // SMPTE bars and a ball moving in one corner: about 1 % of
        // the picture moves. The old mean-difference test called this frozen.
        let bars = RTSPTestServer(auth: .none, pattern: "smpte-patch", width: 640, height: 360)
        let still = RTSPTestServer(auth: .none, pattern: "solid-color", width: 640, height: 360)
        try bars.start()
        try still.start()
        defer {
            bars.stop()
            still.stop()
        }
        let recorder = Recorder()
        let manager = StreamManager(onHealth: { event in recorder.health.withLock { $0.append(event) } })
        defer { manager.stopAll() }
        let moving = UUID()
        let frozen = UUID()
        manager.start(moving, url: bars.url())
        manager.start(frozen, url: still.url())
        // The frozen one is reported within 5 s of playing; by then the bars have had as long.
        let deadline = Date().addingTimeInterval(12)
        while Date() < deadline, !recorder.health.withLock({ $0.contains { $0.cameraID == frozen } }) {
            usleep(100_000)
        }
        usleep(1_000_000)
        let events = recorder.health.withLock { $0 }
        #expect(events.contains { $0.cameraID == frozen && $0.kind == .frozen }, "\(events)")
        #expect(!events.contains { $0.cameraID == moving && $0.kind == .frozen }, "\(events)")
        #expect(manager.state(moving) == .playing)
    }

    @Test func everySubscriberGetsEverySampleAndTheCapPausesInvisibleStreams() throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        defer { server.stop() }
        let recorder = Recorder()
        let manager = StreamManager(
            options: .init(maximumStreams: 1),
            onState: recorder.onState)
        defer { manager.stopAll() }
        let background = UUID()
        let front = UUID()
        let counts = Mutex<[Int]>([0, 0])
        let sameBytes = Atomic<Bool>(true)
        let lastSeen = Mutex<[UInt8]?>(nil)
        manager.subscribe(background) { _, sample in
            counts.withLock { $0[0] += 1 }
            lastSeen.withLock { $0 = sample.data }
        }
        manager.subscribe(background) { _, sample in
            counts.withLock { $0[1] += 1 }
            if lastSeen.withLock({ $0 }) != sample.data { sameBytes.store(false, ordering: .relaxed) }
        }
        manager.start(background, url: server.url(), visible: false)
        #expect(recorder.wait(background, seconds: 10) { $0 == .playing } != nil)
        usleep(1_000_000)
        let (first, second) = counts.withLock { ($0[0], $0[1]) }
        #expect(first > 10 && abs(first - second) <= 1)
        let allSame = sameBytes.load(ordering: .relaxed)
        #expect(allSame)
        // A visible camera at the cap pauses the invisible one.
        manager.start(front, url: server.url(), visible: true)
        #expect(recorder.wait(front, seconds: 10) { $0 == .playing } != nil)
        #expect(manager.state(background) == .idle)
        // Another invisible one at the cap is refused, not queued silently.
        let third = UUID()
        manager.start(third, url: server.url(), visible: false)
        #expect(recorder.wait(third, seconds: 2) { if case .failed = $0 { true } else { false } } != nil)
    }

    @Test func aRefusedLoginIsNotRetriedQuickly() throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let recorder = Recorder()
        let manager = StreamManager(
            options: .init(authenticationRetry: 60),
            onState: recorder.onState)
        defer { manager.stopAll() }
        let id = UUID()
        manager.start(id, url: server.url(user: server.user, password: "wrong"))
        let failed = recorder.wait(id, seconds: 10) { if case .loginRefused = $0 { true } else { false } }
        #expect(failed != nil, "\(recorder.states.withLock { $0.map(\.1) })")
        usleep(2_000_000)
        // Still waiting: no second attempt within the 60 s pause.
        let connects = recorder.states.withLock { $0.filter { $0.1 == .connecting }.count }
        #expect(connects == 1)
        guard case .loginRefused(let delay) = manager.state(id) else {
            Issue.record("after a refused login the camera is \(manager.state(id)), not 'login refused'")
            return
        }
        #expect(delay == 60)
        #expect(manager.state(id).description == "failed: login refused; retrying in 60 s")
    }
}

@Suite(.serialized) struct SnapshotAndRecordingTests {
    @Test func aSnapshotIsAJPEGOfTheCurrentPicture() throws {
        let server = RTSPTestServer(auth: .digest, width: 640, height: 360)
        try server.start()
        defer { server.stop() }
        let jpeg = try Snapshot.jpeg(url: server.url(user: server.user, password: server.password), width: 320)
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        let directory = try temporaryDirectory()
        try Data(jpeg).write(to: URL(fileURLWithPath: directory + "/snap.jpg"))
        let frame = try ImageDecoder.load(directory + "/snap.jpg")
        #expect(frame.width == 320 && frame.height == 180)
        let refused = Result { () throws(MediaError) in
            try Snapshot.jpeg(url: server.url(user: server.user, password: "no"))
        }
        guard case .failure(let error) = refused else {
            Issue.record("a snapshot with the wrong password worked")
            return
        }
        #expect(error.kind == .authenticationFailed)
        #expect(!error.description.contains(":no@"))
    }

    @Test func aSnapshotOfARunningStreamComesFromThatStream() async throws {
        let server = RTSPTestServer(auth: .digest, width: 640, height: 360)
        try server.start()
        defer { server.stop() }
        let recorder = Recorder()
        let manager = StreamManager(onState: recorder.onState)
        defer { manager.stopAll() }
        let id = UUID()
        // Not streaming: nothing to take a picture from, and no connection of its own is opened.
        await #expect(throws: MediaError.self) {
            _ = try await Snapshot.jpeg(from: manager, cameraID: id, timeout: .milliseconds(500))
        }
        manager.start(id, url: server.url(user: server.user, password: server.password))
        #expect(recorder.wait(id, seconds: 10) { $0 == .playing } != nil)
        let jpeg = try await Snapshot.jpeg(from: manager, cameraID: id, timeout: .seconds(5), width: 320)
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        let directory = try temporaryDirectory()
        try Data(jpeg).write(to: URL(fileURLWithPath: directory + "/snap.jpg"))
        let frame = try ImageDecoder.load(directory + "/snap.jpg")
        #expect(frame.width == 320 && frame.height == 180)
    }

    @Test func recordingCutsKeyframeAlignedSegments() throws {
        let server = RTSPTestServer(auth: .none)
        try server.start()
        defer { server.stop() }
        let recorder = Recorder()
        let manager = StreamManager(
            onState: recorder.onState)
        let id = UUID()
        let directory = try temporaryDirectory()
        // The same subscriber `watchbox record` uses: no writer wired by hand.
        let recording = StreamRecording(manager: manager, cameraID: id, directory: directory, segmentSeconds: 2)
        manager.start(id, url: server.url())
        #expect(recorder.wait(id, seconds: 10) { $0 == .playing } != nil)
        usleep(5_500_000)
        manager.stopAll()
        let files = try recording.finish()
        #expect(recording.failure == nil)
        #expect(files.count >= 2, "\(files)")
        for (index, file) in files.enumerated() {
            let probe = try FFprobeReport.read(file.path)
            #expect(probe.videoFrames.first?.isKeyframe == true)
            let duration = probe.formatDuration ?? 0
            // Full segments run 2 s up to the next keyframe (every 1 s here); the last is cut short.
            if index < files.count - 1 {
                #expect(duration > 1.9 && duration < 3.1, "\(file): \(duration) s")
            } else {
                #expect(duration > 0, "\(file): \(duration) s")
            }
        }
    }
}
