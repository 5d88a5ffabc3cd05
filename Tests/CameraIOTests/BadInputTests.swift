import CameraCommon
import CameraIO
import CameraTesting
import Testing

@Suite("Bad input")
struct BadInputTests {
    func expectError(_ source: MediaSource, kind: MediaError.Kind, mentioning words: [String]) {
        #expect {
            try MediaReader(source)
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            let text = error.description
            return error.kind == kind && words.allSatisfy { text.contains($0) }
        }
    }

    @Test("an empty file")
    func emptyFile() throws {
        let folder = try WorkingDirectory.temporary()
        try writeFile(folder.file("empty.mp4"), [])
        expectError(.file(folder.file("empty.mp4")), kind: .invalidData, mentioning: ["empty.mp4", "empty"])
    }

    @Test("random bytes named .mp4")
    func randomBytes() throws {
        let folder = try WorkingDirectory.temporary()
        var random = SeededGenerator(seed: 7)
        try writeFile(folder.file("noise.mp4"), (0..<50_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        expectError(.file(folder.file("noise.mp4")), kind: .invalidData, mentioning: ["noise.mp4", "Invalid data"])
    }

    @Test("a missing path and a folder")
    func missingPath() throws {
        expectError(.file("/no/such/video.mp4"), kind: .notFound, mentioning: ["/no/such/video.mp4", "no such file"])
        let folder = try WorkingDirectory.temporary()
        expectError(.file(folder.path), kind: .invalidArgument, mentioning: ["directory"])
    }

    @Test("an unsupported scheme and an unknown device format")
    func unsupportedScheme() {
        expectError(.url("gopher://127.0.0.1/video"), kind: .unsupported, mentioning: ["gopher://"])
        expectError(.url("nosuch://example/video"), kind: .unsupported, mentioning: ["nosuch://"])
        expectError(.device(format: "no-such-grabber", name: "x"), kind: .unsupported, mentioning: ["no-such-grabber"])
    }

    @Test("a truncated MP4 either fails to open with a clear error or reads what is there")
    func truncated() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2)
        let bytes = try readFile(video.path)
        // Cut inside the header (faststart puts moov first) and inside the media data.
        for fraction in [0.001, 0.01, 0.5, 0.9] {
            let path = folder.file("cut-\(fraction).mp4")
            try writeFile(path, Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
            // (Written as a Result: a do/catch with typed throws here crashes the 6.3 compiler.)
            let outcome = Result { () throws(MediaError) -> Int in
                let reader = try MediaReader(.file(path))
                var samples = 0
                while try reader.nextSample() != nil { samples += 1 }
                return samples
            }
            switch outcome {
            case .success(let samples):
                #expect(samples < video.frameCount)
            case .failure(let error):
                #expect(error.kind == .invalidData || error.kind == .other, "\(error)")
                #expect(error.description.contains(path))
            }
        }
    }

    @Test("200 byte-flipped variants of an MP4 read and decode to the end without crashing")
    func fuzzFlippedBytes() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, width: 160, height: 120, seconds: 1, gopSize: 10, audio: true)
        let original = try readFile(video.path)
        var random = SeededGenerator(seed: 2026)
        var opened = 0
        var failures: [MediaError] = []
        for variant in 0..<200 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...24, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] ^= UInt8.random(in: 1...255, using: &random)
            }
            let path = folder.file("fuzz-\(variant).mp4")
            try writeFile(path, bytes)
            let outcome = Result { () throws(MediaError) in
                let reader = try MediaReader(.file(path))
                let decoder = try? VideoDecoder(reader: reader, format: .gray8)
                while let sample = try reader.nextSample() {
                    _ = try? decoder?.decode(sample)
                }
                _ = try? decoder?.flush()
            }
            switch outcome {
            case .success: opened += 1
            case .failure(let error): failures.append(error)
            }
        }
        #expect(opened > 100, "most single-byte damage still opens (\(opened))")
        // Damage is reported as damage, in words: never as a missing file, a timeout or a bare code.
        let kinds: Set<String> = ["invalidData", "unsupported", "codec", "other"]
        for error in failures {
            #expect(kinds.contains(error.kind.description), "\(error)")
            #expect(error.message.count > 8 && !error.message.hasPrefix("-"), "\(error)")
        }
    }
}
