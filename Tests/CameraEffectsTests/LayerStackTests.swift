import CameraCommon
import CameraEffects
import CameraTransform
import Synchronization
import Testing

/// Paints the whole frame one colour and records its calls.
final class PaintLayer: InPlaceTransformLayer {
    let value: UInt8
    let updates = Mutex<[MediaTime]>([])
    let removeAfterRender: Bool
    private let rendered = Mutex(false)

    init(_ value: UInt8, removeAfterRender: Bool = false) {
        self.value = value
        self.removeAfterRender = removeAfterRender
    }

    func update(_ context: UpdateContext) { updates.withLock { $0.append(context.time) } }

    func apply(to frame: inout VideoFrame, context: RenderContext) -> Bool {
        rendered.withLock { $0 = true }
        for index in frame.planes[0].bytes.indices { frame.planes[0].bytes[index] = value }
        return true
    }

    var wantsRemoval: Bool { removeAfterRender && rendered.withLock { $0 } }
}

/// Always skips itself (returns nil).
final class FailingLayer: TransformLayer {
    func render(_ frame: VideoFrame, context: RenderContext) -> VideoFrame? { nil }
}

extension FeatureKey where Value == Int {
    static let faceCount = FeatureKey("test.faceCount")
}

final class FeatureReader: TransformLayer {
    let seen = Mutex<[Int?]>([])
    func update(_ context: UpdateContext) { seen.withLock { $0.append(context.features[.faceCount]) } }
    func render(_ frame: VideoFrame, context: RenderContext) -> VideoFrame? { frame }
}

@Suite("Layer stack")
struct LayerStackTests {
    let frame = VideoFrame(format: .gray8, width: 8, height: 8, fill: [0])

    @Test("higher z-index renders on top; ties keep insertion order; reordering moves a layer")
    func zOrder() {
        let stack = LayerStack(updateMode: .inline)
        let a = stack.add(PaintLayer(10), zIndex: 1)
        stack.add(PaintLayer(20), zIndex: 0)
        stack.add(PaintLayer(30), zIndex: 1)
        #expect(stack.render(frame).planes[0].bytes[0] == 30, "last of the top z-index wins")
        stack.setZIndex(5, for: a)
        #expect(stack.render(frame).planes[0].bytes[0] == 10)
        stack.setHidden(true, for: a)
        #expect(stack.render(frame).planes[0].bytes[0] == 30, "hidden layers are skipped")
        #expect(stack.remove(a) && !stack.remove(a))
    }

    @Test("a layer returning nil is skipped and the input passes through")
    func skippedLayer() {
        let stack = LayerStack(updateMode: .inline)
        stack.add(PaintLayer(7), zIndex: 0)
        stack.add(FailingLayer(), zIndex: 1)
        #expect(stack.render(frame).planes[0].bytes[0] == 7)
    }

    @Test("update runs at 10 Hz while render runs every frame, with the features")
    func updateRate() {
        let stack = LayerStack(updateInterval: MediaTime(value: 1, timescale: 10), updateMode: .inline)
        let layer = PaintLayer(1)
        let reader = FeatureReader()
        stack.add(layer)
        stack.add(reader)
        var features = FeatureDictionary()
        features[.faceCount] = 2
        stack.setFeatures(features)
        for index in 0..<60 {  // 2 s at 30 fps
            _ = stack.render(frame, time: MediaTime(value: Int64(index), timescale: 30))
        }
        #expect(stack.passCounts.renders == 60)
        #expect(layer.updates.withLock { $0.count } == 20)
        #expect(reader.seen.withLock { $0.allSatisfy { $0 == 2 } })
    }

    @Test("a background update never blocks render")
    func backgroundUpdate() async throws {
        final class SlowUpdate: TransformLayer {
            func update(_ context: UpdateContext) { usleep(300_000) }
            func render(_ frame: VideoFrame, context: RenderContext) -> VideoFrame? { frame }
        }
        let stack = LayerStack(updateMode: .background)
        stack.add(SlowUpdate())
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for index in 0..<30 { _ = stack.render(frame, time: MediaTime(value: Int64(index), timescale: 30)) }
        }
        #expect(elapsed < .milliseconds(200), "30 renders took \(elapsed) while a 300 ms update ran")
    }

    @Test("a layer that asks to be removed is gone after its pass")
    func selfRemoval() {
        let stack = LayerStack(updateMode: .inline)
        stack.add(PaintLayer(9, removeAfterRender: true))
        #expect(stack.render(frame).planes[0].bytes[0] == 9)
        #expect(stack.entries.isEmpty)
    }

    @Test("layers can be added and removed from other threads while frames render")
    func concurrentChanges() async {
        let stack = LayerStack(updateMode: .background)
        let big = VideoFrame(format: .gray8, width: 16, height: 16, fill: [0])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<200 { _ = stack.render(big, time: MediaTime(value: Int64(index), timescale: 30)) }
            }
            group.addTask {
                for index in 0..<200 {
                    let id = stack.add(PaintLayer(UInt8(index % 256)), zIndex: index % 3)
                    if index % 2 == 0 { stack.remove(id) }
                }
            }
        }
        #expect(stack.entries.count == 100)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
