import CameraCommon
import CameraIO
import FoundationEssentials
import Synchronization

/// What a live viewer receives, in order: a header (whenever the stream (re)starts), then
/// fragments, with state changes in between. No transport types: the server turns these into
/// WebSocket messages, a test reads them directly.
public enum LiveMessage: Sendable, Equatable {
    /// The stream's fragmented-MP4 init segment and what a player needs to set up Media Source
    /// Extensions. A new header means: reset the player.
    case header(LiveHeader)
    /// One `moof`+`mdat` fragment, starting at a keyframe.
    case fragment([UInt8])
    /// The camera's stream changed state (connecting, playing, reconnecting, failed).
    case state(StreamState)
}

/// The start of a live stream.
public struct LiveHeader: Sendable, Equatable {
    /// The MSE codec string, e.g. `avc1.64001f` (see ``MSECodec``).
    public var codec: String
    public var width: Int
    public var height: Int
    /// `ftyp` + `moov`.
    public var initSegment: [UInt8]
}

/// One camera's live view: one upstream (through the ``StreamManager``), one fragmented-MP4 muxer,
/// and every viewer fed the same fragments. The muxer copies packets (no decoding); each fragment
/// starts at a keyframe, so a viewer joining late starts cleanly at the next fragment.
final class LiveHub: Sendable {
    struct State: ~Copyable {
        var writer: MediaWriter?
        var header: LiveHeader?
        var viewers: [Int: AsyncStream<LiveMessage>.Continuation] = [:]
        var nextViewer = 0
        var subscription: Int?
        var videoIndex: Int?
        var fragments = 0
    }

    let cameraID: UUID
    let manager: StreamManager
    private let state = Mutex(State())

    init(cameraID: UUID, manager: StreamManager) {
        self.cameraID = cameraID
        self.manager = manager
    }

    var viewerCount: Int { state.withLock { $0.viewers.count } }
    var fragmentCount: Int { state.withLock { $0.fragments } }

    /// Adds a viewer (the first one subscribes and starts the upstream). A viewer that cannot keep
    /// up loses the oldest messages beyond `buffer`.
    func join(url: String, buffer: Int) -> (AsyncStream<LiveMessage>, Int) {
        let (stream, continuation) = AsyncStream<LiveMessage>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let (id, subscribe) = state.withLock { state -> (Int, Bool) in
            let id = state.nextViewer
            state.nextViewer += 1
            state.viewers[id] = continuation
            if let header = state.header { continuation.yield(.header(header)) }
            return (id, state.subscription == nil)
        }
        if subscribe {
            let token = manager.subscribe(cameraID) { [weak self] _, sample in self?.receive(sample) }
            state.withLock { $0.subscription = token }
            manager.start(cameraID, url: url, visible: true)
        }
        continuation.yield(.state(manager.state(cameraID)))
        return (stream, id)
    }

    /// Returns true when that was the last viewer.
    func leave(_ id: Int) -> Bool {
        state.withLock { state in
            state.viewers.removeValue(forKey: id)?.finish()
            return state.viewers.isEmpty
        }
    }

    func close() {
        let token = state.withLock { state -> Int? in
            for viewer in state.viewers.values { viewer.finish() }
            state.viewers = [:]
            state.writer = nil
            defer { state.subscription = nil }
            return state.subscription
        }
        if let token { manager.unsubscribe(cameraID, token: token) }
    }

    /// A reconnect may bring different parameters and restarted timestamps: start a new muxer, and
    /// tell viewers (they reset their player on the next header).
    func stateChanged(_ streamState: StreamState) {
        state.withLock { state in
            if case .playing = streamState {
            } else {
                state.writer = nil
                state.header = nil
            }
            for viewer in state.viewers.values { viewer.yield(.state(streamState)) }
        }
    }

    private func receive(_ sample: MediaSample) {
        guard sample.mediaType == .video else { return }
        state.withLock { state in
            if state.writer == nil {
                guard sample.isKeyframe, let streams = manager.streamInfo(cameraID),
                    let video = streams.first(where: { $0.mediaType == .video })
                else { return }
                guard let writer = try? MediaWriter(destination: .memory, container: .fragmentedMP4, streams: [video]),
                    let initSegment = writer.initSegment
                else { return }
                state.writer = writer
                state.videoIndex = video.index
                let header = LiveHeader(
                    codec: MSECodec.string(initSegment: initSegment, codecName: video.codec),
                    width: video.width ?? 0, height: video.height ?? 0, initSegment: initSegment)
                state.header = header
                for viewer in state.viewers.values { viewer.yield(.header(header)) }
            }
            guard let writer = state.writer, sample.streamIndex == state.videoIndex else { return }
            do { try writer.write(sample) } catch { return }
            for fragment in writer.takeFragments() {
                state.fragments += 1
                for viewer in state.viewers.values { viewer.yield(.fragment(fragment)) }
            }
        }
    }
}
