import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 network in CIDR form.
public struct IPv4Network: Sendable, Equatable {
    public var address: UInt32
    public var prefix: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.parse(String(parts[0])) else { return nil }
        let prefix = parts.count == 2 ? Int(parts[1]) : 32
        guard let prefix, (0...32).contains(prefix) else { return nil }
        self.address = address & Self.mask(prefix)
        self.prefix = prefix
    }

    static func mask(_ prefix: Int) -> UInt32 { prefix == 0 ? 0 : UInt32.max << UInt32(32 - prefix) }

    public static func parse(_ text: String) -> UInt32? { AddressRange.address(Substring(text)) }

    public func contains(_ address: UInt32) -> Bool { address & Self.mask(prefix) == self.address }

    /// Whether every address of `other` is inside this network.
    public func contains(_ other: IPv4Network) -> Bool { other.prefix >= prefix && contains(other.address) }

    /// Whether any address from `first` to `last` is inside this network.
    public func overlaps(first: UInt32, last: UInt32) -> Bool {
        let end = address | ~Self.mask(prefix)
        return first <= end && last >= address
    }
}
