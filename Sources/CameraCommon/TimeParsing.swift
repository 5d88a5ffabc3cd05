extension MediaTime {
    /// Parses a time a person types: `12`, `12.5`, `90s`, `500ms`, `1:02.5`, `00:01:02.500`.
    /// Decimals are kept exact (`0.1` is 1/10, not a binary fraction).
    ///
    /// - Throws: ``MediaError`` of kind `invalidArgument` naming the text when it is not a time.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespace()
        func fail() -> MediaError {
            MediaError(
                .invalidArgument, operation: "parse time \"\(text)\"",
                message: "expected seconds (12.5), a unit (90s, 500ms) or h:mm:ss(.fff)")
        }
        guard !trimmed.isEmpty else { throw fail() }
        var negative = false
        var body = Substring(trimmed)
        if body.hasPrefix("-") {
            negative = true
            body = body.dropFirst()
        }
        var unitScale: Int64 = 1  // divide by 1000 for milliseconds
        if body.hasSuffix("ms") {
            body = body.dropLast(2)
            unitScale = 1000
        } else if body.hasSuffix("s") {
            body = body.dropLast()
        }
        let fields = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), unitScale == 1 || fields.count == 1 else { throw fail() }
        // Whole seconds from the h/m fields, then the exact decimal of the last field.
        var wholeSeconds: Int64 = 0
        for field in fields.dropLast() {
            guard let number = Int64(field), number >= 0, field.allSatisfy(\.isASCII) else { throw fail() }
            wholeSeconds = wholeSeconds * 60 + number
        }
        guard let last = fields.last, let decimal = Self.exactDecimal(last) else { throw fail() }
        if fields.count > 1 && decimal.value >= 60 * Int64(decimal.timescale) { throw fail() }
        var time = MediaTime(value: wholeSeconds * 60, timescale: 1) + decimal
        if fields.count == 1 { time = decimal }
        if unitScale != 1 {
            time = MediaTime(value: time.value, timescale: time.timescale * Int32(unitScale)).reduced
        }
        self = negative ? -time : time
    }

    /// `"12.345"` → 12345/1000; nil for anything but digits with at most one point (≤ 9 decimals).
    private static func exactDecimal(_ text: Substring) -> MediaTime? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let integerPart = parts.first,
            integerPart.allSatisfy({ $0.isASCII && $0.isNumber }),
            !(integerPart.isEmpty && parts.count == 1)
        else { return nil }
        let whole = integerPart.isEmpty ? 0 : Int64(integerPart)
        guard let whole else { return nil }
        guard parts.count == 2 else { return MediaTime(value: whole, timescale: 1) }
        let fraction = parts[1]
        guard fraction.count <= 9, !(fraction.isEmpty && integerPart.isEmpty),
            fraction.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var scale: Int64 = 1
        for _ in fraction { scale *= 10 }
        let fractionValue = fraction.isEmpty ? 0 : Int64(fraction) ?? 0
        return MediaTime(value: whole * scale + fractionValue, timescale: Int32(scale)).reduced
    }
}
