import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// A range of IPv4 addresses: `192.168.1.0/24`, `192.168.1.10-192.168.1.50`, `192.168.1.10-50`
/// or one address.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    public let first: UInt32
    public let count: Int
    /// The range as the user wrote it.
    public let text: String

    /// Ranges bigger than this (a /16) are refused unless forced: scanning them takes long and
    /// looks like an attack to whoever runs the network.
    public static let largestUnforced = 65536

    /// - Throws: ``MediaError`` `invalidArgument` naming what is wrong with `text`.
    public init(_ text: String, force: Bool = false) throws(MediaError) {
        let operation = "read address range \(text.debugDescription)"
        let trimmed = text.trimmingWhitespace()
        self.text = trimmed
        if let slash = trimmed.firstIndex(of: "/") {
            guard let base = Self.address(trimmed[..<slash]) else {
                throw MediaError(.invalidArgument, operation: operation, message: "not an IPv4 address before /")
            }
            guard let bits = Int(trimmed[trimmed.index(after: slash)...]), (0...32).contains(bits) else {
                throw MediaError(.invalidArgument, operation: operation, message: "the prefix length must be 0 to 32")
            }
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            let size = 1 << (32 - bits)
            // Leave out the network and broadcast addresses of ordinary subnets.
            if bits <= 30 {
                first = (base & mask) + 1
                count = size - 2
            } else {
                first = base & mask
                count = size
            }
        } else if let dash = trimmed.firstIndex(of: "-") {
            guard let start = Self.address(trimmed[..<dash]) else {
                throw MediaError(.invalidArgument, operation: operation, message: "not an IPv4 address before -")
            }
            let endText = trimmed[trimmed.index(after: dash)...].trimmingWhitespace()
            var end: UInt32
            if let full = Self.address(Substring(endText)) {
                end = full
            } else if let last = UInt8(endText) {
                end = (start & 0xFFFF_FF00) | UInt32(last)
            } else {
                throw MediaError(
                    .invalidArgument, operation: operation,
                    message: "the end must be an address or a last number (0-255)")
            }
            guard end >= start else {
                throw MediaError(.invalidArgument, operation: operation, message: "the range ends before it starts")
            }
            first = start
            count = Int(end - start) + 1
        } else if let single = Self.address(Substring(trimmed)) {
            first = single
            count = 1
        } else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "expected an IPv4 address, a CIDR block like 192.168.1.0/24 or a range like 192.168.1.10-50")
        }
        guard force || count <= Self.largestUnforced else {
            throw MediaError(
                .invalidArgument, operation: operation,
                message:
                    "\(count) addresses is more than a /16 (\(Self.largestUnforced)); narrow it, or force it if you mean it"
            )
        }
    }

    /// Every address, in order.
    public var addresses: [String] {
        (0..<count).map { Self.text(first &+ UInt32($0)) }
    }

    public var description: String { text }

    public func contains(_ address: String) -> Bool {
        guard let value = Self.address(Substring(address)) else { return false }
        return value >= first && UInt64(value) < UInt64(first) + UInt64(count)
    }

    /// A dotted-quad IPv4 address as a number, or nil.
    public static func address(_ text: Substring) -> UInt32? {
        let parts = text.trimmingWhitespace().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    public static func text(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 255).\(value >> 8 & 255).\(value & 255)"
    }
}
