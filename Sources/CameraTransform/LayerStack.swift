import CameraCommon
import Dispatch
import Synchronization

/// An ordered stack of ``TransformLayer``s: render runs every frame, bottom (lowest z-index) to top;
/// update runs at ``updateInterval`` of media time.
///
/// Thread safety: layers can be added, removed, hidden and reordered from any thread while frames
/// render; each render pass works on a snapshot of the stack taken when it starts.
public final class LayerStack: Sendable {
    /// How the update phase is scheduled.
    public enum UpdateMode: Sendable {
        /// Updates run on the stack's own queue; a render never waits for one, and an update that
        /// is still running when the next is due is skipped (live capture).
        case background
        /// Updates run inline before the render that makes them due (file export, tests): the same
        /// input always gives the same output.
        case inline
    }

    /// A handle to a layer in the stack.
    public struct Entry: Sendable {
        public let id: Int
        public let layer: any TransformLayer
        public var zIndex: Int
        public var isHidden: Bool
    }

    private struct State {
        var entries: [Entry] = []  // sorted by (zIndex, id): stable for equal z-indexes
        var nextID = 0
        var lastUpdate: MediaTime?
        var updateRunning = false
        var features = FeatureDictionary()
        var updateCount = 0
        var renderCount = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "cameracore.layerstack.update")
    /// Media time between update passes (default 0.1 s: 10 Hz).
    public let updateInterval: MediaTime
    public let updateMode: UpdateMode
    public let orientation: Orientation

    public init(
        updateInterval: MediaTime = MediaTime(value: 1, timescale: 10), updateMode: UpdateMode = .background,
        orientation: Orientation = .landscapeLeft
    ) {
        self.updateInterval = updateInterval
        self.updateMode = updateMode
        self.orientation = orientation
    }

    /// Adds a layer; equal z-indexes keep insertion order. Returns its id.
    @discardableResult
    public func add(_ layer: any TransformLayer, zIndex: Int = 0, hidden: Bool = false) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let position = state.entries.firstIndex { $0.zIndex > zIndex } ?? state.entries.endIndex
            state.entries.insert(Entry(id: id, layer: layer, zIndex: zIndex, isHidden: hidden), at: position)
            return id
        }
    }

    /// Removes a layer by id; false when it is not in the stack.
    @discardableResult
    public func remove(_ id: Int) -> Bool {
        state.withLock { state in
            let before = state.entries.count
            state.entries.removeAll { $0.id == id }
            return state.entries.count != before
        }
    }

    /// Moves a layer to a new z-index (it goes after layers already at that index).
    public func setZIndex(_ zIndex: Int, for id: Int) {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
            var entry = state.entries.remove(at: index)
            entry.zIndex = zIndex
            // Re-inserting behind its equals keeps "last moved is on top" among ties.
            let position = state.entries.firstIndex { $0.zIndex > zIndex } ?? state.entries.endIndex
            state.entries.insert(entry, at: position)
        }
    }

    public func setHidden(_ hidden: Bool, for id: Int) {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
            state.entries[index].isHidden = hidden
        }
    }

    /// The layers bottom to top.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// Replaces the features handed to the next update passes.
    public func setFeatures(_ features: FeatureDictionary) {
        state.withLock { $0.features = features }
    }

    /// Update and render passes run so far (for monitoring and tests).
    public var passCounts: (updates: Int, renders: Int) { state.withLock { ($0.updateCount, $0.renderCount) } }

    /// Renders `frame` through every visible layer, bottom to top, running an update pass first
    /// when one is due at the frame's time. The frame is consumed: when the caller hands over its
    /// only reference, layers change the pixels in place without copying them.
    public func render(_ frame: consuming VideoFrame, time: MediaTime? = nil) -> VideoFrame {
        let pts = frame.pts
        let time = time ?? pts ?? .zero
        let size = (frame.width, frame.height)
        let (snapshot, updateDue) = state.withLock { state -> ([Entry], Bool) in
            state.renderCount += 1
            let due = state.lastUpdate.map { time - $0 >= updateInterval || time < $0 } ?? true
            if due && !state.updateRunning { state.lastUpdate = time }
            return (state.entries, due && !state.updateRunning)
        }
        if updateDue { runUpdate(at: time, size: size) }

        let context = RenderContext(renderSize: size, orientation: orientation, time: time)
        var current = consume frame
        var finished: [Int] = []
        for entry in snapshot where !entry.isHidden {
            // In place where the layer supports it: no copy of the frame per layer.
            _ = entry.layer.renderInPlace(&current, context: context)
            if entry.layer.wantsRemoval { finished.append(entry.id) }
        }
        if !finished.isEmpty {
            state.withLock { $0.entries.removeAll { finished.contains($0.id) } }
        }
        current.pts = pts
        return current
    }

    private func runUpdate(at time: MediaTime, size: (width: Int, height: Int)) {
        let (entries, features) = state.withLock { state -> ([Entry], FeatureDictionary) in
            state.updateRunning = true
            return (state.entries, state.features)
        }
        let context = UpdateContext(renderSize: size, orientation: orientation, time: time, features: features)
        let work: @Sendable () -> Void = { [self] in
            for entry in entries where !entry.isHidden { entry.layer.update(context) }
            self.state.withLock {
                $0.updateRunning = false
                $0.updateCount += 1
            }
        }
        switch updateMode {
        case .inline: work()
        case .background: queue.async(execute: work)
        }
    }
}
