import CameraTesting
import Testing

@testable import CameraCommon

@Suite("MediaTime")
struct MediaTimeTests {
    static let timescales: [Int32] = [
        1, 2, 24, 25, 30, 48_000, 44_100, 90_000, 1_000, 1_000_000, 30_000, 15_360, 12_800,
    ]

    @Test("adding then subtracting returns the same instant, for any timescales")
    func addSubtractRoundTrip() {
        var random = SeededGenerator(seed: 1)
        for _ in 0..<5_000 {
            let a = MediaTime(
                value: Int64.random(in: -1_000_000_000...1_000_000_000, using: &random),
                timescale: Self.timescales.randomElement(using: &random)!)
            let b = MediaTime(
                value: Int64.random(in: -1_000_000_000...1_000_000_000, using: &random),
                timescale: Self.timescales.randomElement(using: &random)!)
            let lcmFits =
                MediaTime.commonTimescale(a.timescale, b.timescale) % a.timescale == 0
                && MediaTime.commonTimescale(a.timescale, b.timescale) % b.timescale == 0
            guard lcmFits else { continue }
            #expect((a + b) - b == a, "\(a) + \(b) - \(b)")
            #expect(a + b == b + a)
        }
    }

    @Test("summing frame durations has no drift, unlike Double")
    func noDriftOverLongRecordings() {
        let frame = MediaTime(value: 1001, timescale: 30_000)  // one NTSC frame
        var total = MediaTime.zero
        var floating = 0.0
        for _ in 0..<(30_000 * 60) {  // ~16.7 hours of frames
            total += frame
            floating += frame.seconds
        }
        #expect(total == MediaTime(value: 1001 * 60, timescale: 1))
        #expect(floating != 1001.0 * 60, "Double accumulates error; the test shows why MediaTime exists")
    }

    @Test("converting to a finer multiple timescale and back is lossless")
    func conversionRoundTrip() {
        var random = SeededGenerator(seed: 2)
        for _ in 0..<5_000 {
            let scale = Self.timescales.randomElement(using: &random)!
            let factor = Int32.random(in: 1...50, using: &random)
            let time = MediaTime(value: Int64.random(in: -10_000_000...10_000_000, using: &random), timescale: scale)
            let finer = time.converted(to: scale * factor)
            #expect(finer == time)
            #expect(finer.converted(to: scale).value == time.value)
            #expect(time.isExactlyRepresentable(in: scale * factor))
        }
    }

    @Test("rounding to a coarser timescale picks the nearest tick")
    func coarseConversionRounds() {
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 10).value == 3)  // 0.333 → 0.3
        #expect(MediaTime(value: 2, timescale: 3).converted(to: 10).value == 7)  // 0.667 → 0.7
        #expect(MediaTime(value: -2, timescale: 3).converted(to: 10).value == -7)
        #expect(MediaTime(value: 1, timescale: 2).converted(to: 1).value == 1)  // ties away from zero
    }

    @Test("ordering agrees with exact rational comparison")
    func ordering() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<5_000 {
            let a = MediaTime(
                value: Int64.random(in: -1_000_000...1_000_000, using: &random),
                timescale: Self.timescales.randomElement(using: &random)!)
            let b = MediaTime(
                value: Int64.random(in: -1_000_000...1_000_000, using: &random),
                timescale: Self.timescales.randomElement(using: &random)!)
            let exact = Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
            #expect((a < b) == exact)
            #expect((a == b) == (a.hashValue == b.hashValue) || a != b)
        }
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 15, timescale: 30))
        #expect(Set([MediaTime(value: 1, timescale: 2), MediaTime(value: 15, timescale: 30)]).count == 1)
    }

    @Test("timescales whose LCM overflows fall back to the finer one")
    func lcmOverflow() {
        let a = MediaTime(value: 1, timescale: 1_000_003)
        let b = MediaTime(value: 1, timescale: 999_983)
        let sum = a + b
        #expect(sum.timescale == 1_000_003)
        #expect(abs(sum.seconds - (a.seconds + b.seconds)) < 1e-6)
    }

    @Test(
        "parses the times people type",
        arguments: [
            ("12", MediaTime(value: 12, timescale: 1)),
            ("12.5", MediaTime(value: 25, timescale: 2)),
            ("0.1", MediaTime(value: 1, timescale: 10)),
            ("90s", MediaTime(value: 90, timescale: 1)),
            ("500ms", MediaTime(value: 1, timescale: 2)),
            ("1:05", MediaTime(value: 65, timescale: 1)),
            ("0:01:05.250", MediaTime(value: 261, timescale: 4)),
            ("1:00:00", MediaTime(value: 3600, timescale: 1)),
            ("-2.5", MediaTime(value: -5, timescale: 2)),
            (" 3 ", MediaTime(value: 3, timescale: 1)),
        ])
    func parsing(text: String, expected: MediaTime) throws {
        #expect(try MediaTime(parsing: text) == expected)
    }

    @Test(
        "rejects text that is not a time, naming it",
        arguments: ["", "abc", "1:2:3:4", "1:75", "1.2.3", "12x", ".", "1e3", "٣"])
    func parsingErrors(text: String) {
        #expect {
            try MediaTime(parsing: text)
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.kind == .invalidArgument && error.description.contains("\"\(text)\"")
        }
    }
}

@Suite("TimeRange")
struct TimeRangeTests {
    func t(_ seconds: Int64) -> MediaTime { MediaTime(value: seconds, timescale: 1) }

    @Test func containsIsHalfOpen() {
        let range = TimeRange(start: t(2), end: t(5))
        #expect(range.contains(t(2)))
        #expect(!range.contains(t(5)))
        #expect(range.duration == t(3))
    }

    @Test func intersectionAndClamp() {
        let range = TimeRange(start: t(2), end: t(8))
        #expect(range.intersection(TimeRange(start: t(6), end: t(10))) == TimeRange(start: t(6), end: t(8)))
        #expect(range.intersection(TimeRange(start: t(8), end: t(10))) == nil)
        #expect(TimeRange(start: t(0), end: t(20)).clamped(to: range) == range)
        #expect(TimeRange(start: t(10), end: t(20)).clamped(to: range).isEmpty)
    }

    @Test func reversedEndBecomesEmpty() {
        #expect(TimeRange(start: t(5), end: t(2)).isEmpty)
    }
}

@Suite("URL redaction")
struct URLRedactionTests {
    @Test(
        arguments: [
            ("rtsp://admin:hunter2@10.0.0.5:554/live", "rtsp://admin:***@10.0.0.5:554/live"),
            ("rtsp://cam.local/live", "rtsp://cam.local/live"),
            ("rtsp://admin@cam/live", "rtsp://admin@cam/live"),
            ("open rtsp://a:b@c/d failed, retry rtsp://e:f@g", "open rtsp://a:***@c/d failed, retry rtsp://e:***@g"),
            ("rtsp://u:p%40ss@cam/x?token=1", "rtsp://u:***@cam/x?token=1"),
            ("no url here", "no url here"),
        ])
    func redacts(input: String, expected: String) {
        #expect(URLRedaction.redact(input) == expected)
    }

    @Test func errorsNeverCarryPasswords() {
        let error = MediaError(
            .network, operation: "open rtsp://admin:s3cret@cam/live", message: "failed for rtsp://admin:s3cret@cam")
        #expect(!error.description.contains("s3cret"))
    }
}
