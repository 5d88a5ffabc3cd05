import CameraAssemble
import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import Testing

@Suite("Browser copy")
struct BrowserCopyTests {
    /// `seconds` of H.265 at `width`×`height` and `frameRate`, with sound, as a phone records.
    func hevc(_ folder: WorkingDirectory, width: Int, height: Int, frameRate: Int, seconds: Int) throws
        -> GeneratedVideo
    {
        try TestMedia.lavfi(
            in: folder.path, name: "phone.mp4", width: width, height: height, frameRate: frameRate, seconds: seconds,
            audio: true,
            extraArguments: ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1"])
    }

    @Test(
        "a 1080p60 H.265 video becomes H.264 at 1280×720 and 30 frames a second, as long as the original and with its sound; H.264 needs no copy"
    )
    func phoneVideoBecomesPlayable() throws {
        let folder = try WorkingDirectory.temporary()
        let phone = try hevc(folder, width: 1920, height: 1080, frameRate: 60, seconds: 2)
        #expect(try BrowserCopy.reason(for: phone.path)?.contains("H.265") == true)
        var seen: [Double] = []
        let output = folder.file("copy.mp4")
        try BrowserCopy.make(of: phone.path, to: output, progress: { seen.append($0) })
        let probe = try FFprobeReport.read(output)
        #expect(probe.videoCodec == "h264" && probe.width == 1280 && probe.height == 720)
        #expect(probe.videoFrames.count == 60, "\(probe.videoFrames.count) frames for 2 s at 30 fps")
        #expect(abs((probe.formatDuration ?? 0) - 2) < 0.1, "\(probe.formatDuration ?? 0) s")
        // The sound copied as it was: every packet, at the same times.
        let original = try FFprobeReport.read(phone.path)
        #expect(
            probe.audioFrames.count == original.audioFrames.count
                && zip(probe.audioFrames, original.audioFrames).allSatisfy { abs($0.pts - $1.pts) < 0.001 },
            "\(probe.audioFrames.count) sound packets, not \(original.audioFrames.count)")
        #expect(seen.last == 1 && seen == seen.sorted())
        #expect(try BrowserCopy.reason(for: output) == nil)
    }

    @Test("sound that is not AAC (PCM in a QuickTime file) is re-encoded to AAC, the picture H.264")
    func otherSoundIsReencoded() throws {
        let folder = try WorkingDirectory.temporary()
        let camera = try TestMedia.lavfi(
            in: folder.path, name: "camera.mov", width: 640, height: 360, frameRate: 30, seconds: 1, audio: true,
            extraArguments: ["-c:v", "libx265", "-x265-params", "log-level=error", "-c:a", "pcm_s16le"])
        let output = folder.file("copy.mp4")
        let result = try BrowserCopy.make(of: camera.path, to: output)
        let probe = try FFprobeReport.read(output)
        #expect(result.hasAudio && probe.videoCodec == "h264" && probe.videoFrames.count == 30)
        let audio = try MediaReader(.file(output)).audioStream
        #expect(audio?.codec == "aac", "\(audio?.codec ?? "no sound")")
    }

    @Test("stopped part way, the copy is cancelled and nothing is left")
    func stoppedCopyLeavesNothing() throws {
        let folder = try WorkingDirectory.temporary()
        let phone = try hevc(folder, width: 640, height: 360, frameRate: 30, seconds: 2)
        let output = folder.file("copy.mp4")
        var frames = 0
        #expect {
            try BrowserCopy.make(
                of: phone.path, to: output,
                shouldStop: {
                    frames += 1
                    return frames > 10
                })
        } throws: { ($0 as? MediaError)?.kind == .cancelled }
        #expect(frames == 11)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test(
        "a video that opens but of which no picture decodes (its data lost) is refused in words, and no copy is written"
    )
    func undecodableVideoIsRefused() throws {
        let folder = try WorkingDirectory.temporary()
        let phone = try hevc(folder, width: 640, height: 360, frameRate: 30, seconds: 1)
        try TestMedia.blankMediaData(phone.path)
        #expect(try BrowserCopy.reason(for: phone.path)?.contains("H.265") == true)
        let output = folder.file("copy.mp4")
        #expect {
            try BrowserCopy.make(of: phone.path, to: output)
        } throws: { error in
            // FFmpeg's own words, with what was being done.
            "\(error)" == "decode frame: Invalid data found when processing input"
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("sizes fit 1280×720 the same way round, keep their shape, are even and never grow")
    func sizes() {
        let cases: [((Int, Int), (Int, Int))] = [
            ((1920, 1080), (1280, 720)), ((1080, 1920), (720, 1280)), ((1440, 1080), (960, 720)),
            ((640, 360), (640, 360)), ((3840, 2160), (1280, 720)), ((1000, 1001), (720, 720)),
        ]
        for (source, expected) in cases {
            let fitted = BrowserCopy.fitted(width: source.0, height: source.1)
            #expect(fitted.width == expected.0 && fitted.height == expected.1, "\(source) → \(fitted)")
        }
    }
}
