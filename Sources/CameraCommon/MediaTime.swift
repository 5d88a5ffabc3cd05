/// A point in media time as an exact rational number `value / timescale` seconds — the role CMTime
/// plays on Apple's platforms and AVRational-based timestamps play in FFmpeg.
///
/// Arithmetic between times of different timescales is exact: the result uses the least common
/// multiple of the two timescales while that fits in `Int32`, and only beyond that rounds to the
/// finer of the two. Comparisons are always exact (128-bit cross multiplication).
public struct MediaTime: Sendable, Hashable, Comparable, Codable {
    /// The numerator: a count of `1/timescale` second ticks.
    public var value: Int64
    /// Ticks per second; always positive.
    public var timescale: Int32

    /// Creates a time of `value / timescale` seconds. A non-positive timescale is a programming
    /// error and traps.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// The nearest time to `seconds` on the given timescale (default: microseconds).
    public init(seconds: Double, timescale: Int32 = 1_000_000) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = Int64((seconds * Double(timescale)).rounded())
        self.timescale = timescale
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    /// Seconds as a floating-point number, for display and for maths that tolerates rounding.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// This time expressed on another timescale, rounded to the nearest tick (ties away from zero).
    public func converted(to newTimescale: Int32) -> MediaTime {
        precondition(newTimescale > 0, "MediaTime timescale must be positive")
        if newTimescale == timescale { return self }
        let scaled = Int128(value) * Int128(newTimescale)
        let denominator = Int128(timescale)
        var quotient = scaled / denominator
        let remainder = scaled % denominator
        if remainder.magnitude * 2 >= denominator.magnitude {
            quotient += scaled < 0 ? -1 : 1
        }
        return MediaTime(value: Int64(clamping: quotient), timescale: newTimescale)
    }

    /// Whether converting to `newTimescale` loses nothing.
    public func isExactlyRepresentable(in newTimescale: Int32) -> Bool {
        (Int128(value) * Int128(newTimescale)) % Int128(timescale) == 0
    }

    /// The same time on the smallest timescale that represents it exactly.
    public var reduced: MediaTime {
        let divisor = gcd(value.magnitude, UInt64(timescale))
        guard divisor > 1 else { return self }
        return MediaTime(value: value / Int64(divisor), timescale: Int32(UInt64(timescale) / divisor))
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Equal when they denote the same instant: 1/2 == 15/30.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        let canonical = reduced
        hasher.combine(canonical.value)
        hasher.combine(canonical.timescale)
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let scale = commonTimescale(lhs.timescale, rhs.timescale)
        return MediaTime(
            value: lhs.converted(to: scale).value + rhs.converted(to: scale).value, timescale: scale)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let scale = commonTimescale(lhs.timescale, rhs.timescale)
        return MediaTime(
            value: lhs.converted(to: scale).value - rhs.converted(to: scale).value, timescale: scale)
    }

    public static prefix func - (time: MediaTime) -> MediaTime {
        MediaTime(value: -time.value, timescale: time.timescale)
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Multiplies by an integer count, exactly.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        MediaTime(value: lhs.value * rhs, timescale: lhs.timescale)
    }

    /// The exact timescale for adding the two, or the finer one if their LCM overflows Int32.
    static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b { return a }
        let divisor = gcd(UInt64(a), UInt64(b))
        let lcm = UInt64(a) / divisor * UInt64(b)
        return lcm <= UInt64(Int32.max) ? Int32(lcm) : max(a, b)
    }
}

extension MediaTime: CustomStringConvertible {
    /// `12.345s (12345/1000)`: seconds for people, the exact ratio for debugging.
    public var description: String {
        "\(MediaTime.format(seconds: seconds))s (\(value)/\(timescale))"
    }

    /// Formats seconds with up to three decimals and no trailing zeros, e.g. `2.5`.
    static func format(seconds: Double) -> String {
        let millis = (seconds * 1000).rounded()
        let whole = Int64(millis / 1000)
        let fraction = Int64(abs(millis)) % 1000
        let sign = millis < 0 && whole == 0 ? "-" : ""
        if fraction == 0 { return "\(sign)\(whole)" }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}

func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x == 0 ? 1 : x
}
