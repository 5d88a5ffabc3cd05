/// A key for a value in the ``FeatureDictionary``, declared by whoever produces the value:
///
/// ```swift
/// extension FeatureKey where Value == [NormalizedRect] {
///     static let faces = FeatureKey("faces")
/// }
/// ```
/// Third-party layers declare their own keys the same way; the name keeps keys apart at run time.
public struct FeatureKey<Value: Sendable>: Hashable, Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// Values the update phase hands every layer: typed by their ``FeatureKey``.
public struct FeatureDictionary: Sendable {
    private var storage: [String: any Sendable] = [:]

    public init() {}

    public subscript<Value>(key: FeatureKey<Value>) -> Value? {
        get { storage[key.name] as? Value }
        set { storage[key.name] = newValue }
    }

    /// Names of the features present, for debugging.
    public var names: [String] { storage.keys.sorted() }
}

extension FeatureKey where Value == Double {
    /// Audio level of the current moment, 0 (silence) … 1 (full scale), from an audio producer.
    public static let audioLevel = FeatureKey("audioLevel")
}
