import Testing

@testable import CameraCommon

@Suite("Formatting")
struct FormattingTests {
    @Test(
        "numbers print with the decimals asked for, rounded, signed, padded",
        arguments: [
            (12.46, 1, "12.5"), (-0.36, 1, "-0.4"), (0.705, 3, "0.705"), (-1.0004, 3, "-1.000"),
            (0.0042, 5, "0.00420"), (2.5, 0, "3"), (0.000_001, 2, "0.00"), (1e300, 3, "?"),
            (.nan, 1, "?"), (-.infinity, 5, "?"),
        ])
    func decimals(value: Double, decimals: Int, expected: String) {
        #expect(String(value, decimals: decimals) == expected)
    }

    @Test("format1 and format3 are one and three decimals")
    func shorthands() {
        #expect(String(format1: 3.14159) == "3.1")
        #expect(String(format3: 3.14159) == "3.142")
        #expect(String(format3: -0.0009) == "-0.001")
    }
}
