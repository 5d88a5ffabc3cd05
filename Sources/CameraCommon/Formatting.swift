/// Small text and time helpers every module and command line uses.

extension String {
    /// A number with one decimal, e.g. `12.5` (`?` for infinity or NaN).
    public init(format1 value: Double) {
        guard value.isFinite else {
            self = "?"
            return
        }
        let tenths = Int((value * 10).rounded())
        self = "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// A number with three decimals, e.g. `0.705` (`?` for infinity or NaN).
    public init(format3 value: Double) {
        guard value.isFinite else {
            self = "?"
            return
        }
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(abs(thousandths) % 1000)
        self =
            "\(thousandths < 0 ? "-" : "")\(abs(thousandths) / 1000)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
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
