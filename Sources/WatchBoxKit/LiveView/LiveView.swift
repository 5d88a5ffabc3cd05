import CameraCommon
import FoundationEssentials
import Synchronization

/// Live view for any number of cameras and viewers: every viewer of a camera shares one upstream
/// connection and one fragmented-MP4 muxer (go2rtc's model: fMP4 into Media Source Extensions).
///
/// The first viewer of a camera starts its stream; when the last one leaves, the stream keeps
/// running for ``linger`` so a page reload does not reconnect to the camera.
public final class LiveView: Sendable {
    /// A viewer's place; pass it back to ``leave(_:)``.
    public struct Ticket: Sendable {
        public let cameraID: UUID
        let viewer: Int
    }

    public let manager: StreamManager
    public let linger: Duration
    /// Messages a viewer may fall behind by before the oldest are dropped.
    public let viewerBuffer: Int
    private let hubs = Mutex<[UUID: LiveHub]>([:])
    /// Whether a camera's stream must keep running without viewers (it is being recorded).
    private let keepsStreaming: @Sendable (UUID) -> Bool

    public init(
        manager: StreamManager, linger: Duration = .seconds(10), viewerBuffer: Int = 64,
        keepsStreaming: @escaping @Sendable (UUID) -> Bool = { _ in false }
    ) {
        self.manager = manager
        self.linger = linger
        self.viewerBuffer = viewerBuffer
        self.keepsStreaming = keepsStreaming
    }

    /// Joins (or starts) the camera's live view. `url` carries the credentials for FFmpeg; it is
    /// only used when this viewer starts the upstream.
    public func join(cameraID: UUID, url: String) -> (messages: AsyncStream<LiveMessage>, ticket: Ticket) {
        let hub = hubs.withLock { table in
            if let hub = table[cameraID] { return hub }
            let hub = LiveHub(cameraID: cameraID, manager: manager)
            table[cameraID] = hub
            return hub
        }
        let (messages, viewer) = hub.join(url: url, buffer: viewerBuffer)
        return (messages, Ticket(cameraID: cameraID, viewer: viewer))
    }

    /// Leaves; the last viewer's leaving stops the upstream after ``linger`` unless someone joined
    /// (or something else, such as a recording, keeps it running).
    public func leave(_ ticket: Ticket) {
        guard let hub = hubs.withLock({ $0[ticket.cameraID] }), hub.leave(ticket.viewer) else { return }
        let linger = self.linger
        Task {
            try? await Task.sleep(for: linger)
            let removed = self.hubs.withLock { table -> Bool in
                guard table[ticket.cameraID] === hub, hub.viewerCount == 0 else { return false }
                table[ticket.cameraID] = nil
                return true
            }
            if removed {
                hub.close()
                if !self.keepsStreaming(ticket.cameraID) { self.manager.stop(ticket.cameraID) }
            }
        }
    }

    /// Forward the stream manager's state changes here.
    public func stateChanged(_ cameraID: UUID, _ state: StreamState) {
        hubs.withLock { $0[cameraID] }?.stateChanged(state)
    }

    /// Ends every viewer of a camera (it was changed or removed) and stops its stream; viewers get
    /// the new stream when they reconnect.
    public func close(_ cameraID: UUID) {
        let hub = hubs.withLock { $0.removeValue(forKey: cameraID) }
        hub?.close()
        manager.stop(cameraID)
    }

    public func viewerCount(_ cameraID: UUID) -> Int {
        hubs.withLock { $0[cameraID] }?.viewerCount ?? 0
    }

    /// Fragments sent for the camera since its live view started.
    public func fragmentCount(_ cameraID: UUID) -> Int {
        hubs.withLock { $0[cameraID] }?.fragmentCount ?? 0
    }
}
