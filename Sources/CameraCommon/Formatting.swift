/// Small text and time helpers every module and command line uses.

extension String {
    /// A number with one decimal, e.g. `12.5` (`?` for infinity or NaN).
    public init(format1 value: Double) { self.init(value, decimals: 1) }

    /// A number with three decimals, e.g. `0.705` (`?` for infinity or NaN).
    public init(format3 value: Double) { self.init(value, decimals: 3) }

    /// A number with `decimals` decimals (0-9), e.g. `0.00420` for 0.0042 with 5 (`?` for infinity
    /// or NaN).
    public init(_ value: Double, decimals: Int) {
        let decimals = Swift.min(Swift.max(decimals, 0), 9)
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        guard value.isFinite, abs(value) * Double(scale) < Double(Int.max / 2) else {
            self = "?"
            return
        }
        let units = Int((value * Double(scale)).rounded())
        let whole = "\(units < 0 ? "-" : "")\(abs(units) / scale)"
        guard decimals > 0 else {
            self = whole
            return
        }
        let fraction = String(abs(units) % scale)
        self = whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace (spaces, tabs, line ends).
    public func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
