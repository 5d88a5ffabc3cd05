import Synchronization

/// A value a layer shares between its update and render phases, behind a lock.
public final class LayerState<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ value: Value) { storage = Mutex(value) }

    public var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}
