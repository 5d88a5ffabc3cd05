import CameraCommon
import CameraIO
import CameraTesting
import Testing

@Suite("Probe")
struct ProbeTests {
    @Test("reports duration, frame count, size and keyframe positions of a generated file")
    func probeGeneratedFile() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(
            in: folder.path, width: 320, height: 240, frameRate: 30, seconds: 4, gopSize: 30, audio: true)
        let report = try ProbeReport.probe(.file(video.path))
        let stream = try #require(report.streams.first { $0.type == .video })
        #expect(stream.codec == "h264")
        #expect(stream.width == 320 && stream.height == 240)
        #expect(stream.sampleCount == video.frameCount)
        #expect(abs((stream.duration ?? 0) - video.duration) < 0.001)
        #expect(abs((stream.frameRate ?? 0) - 30) < 0.001)
        #expect(stream.keyframeTimes == video.keyframeTimes)
        #expect(stream.keyframeInterval?.minFrames == 30 && stream.keyframeInterval?.maxFrames == 30)
        let audio = try #require(report.streams.first { $0.type == .audio })
        #expect(audio.codec == "aac" && audio.sampleRate == 48_000)
        #expect(abs((report.duration ?? 0) - video.duration) < 0.1)
    }

    @Test("an irregular GOP is reported as a range")
    func irregularGOP() throws {
        let folder = try WorkingDirectory.temporary()
        // Keyframes forced at 0, 0.5 s and 2.5 s of a 3 s video.
        let video = try TestMedia.lavfi(
            in: folder.path, seconds: 3, gopSize: 1000, bFrames: 0,
            extraArguments: ["-force_key_frames", "0,0.5,2.5"])
        let stream = try #require(try ProbeReport.probe(.file(video.path)).streams.first)
        #expect(stream.keyframeTimes == [0, 0.5, 2.5])
        #expect(stream.keyframeInterval?.minFrames == 15 && stream.keyframeInterval?.maxFrames == 60)
    }
}

@Suite("Remux")
struct RemuxTests {
    @Test(
        "a range starts on the keyframe at or before its start, keeps every frame to its end, starts at zero",
        arguments: [(1.7, 3.2), (1.5, 2.0), (0.0, 1.0), (3.6, 4.0)])
    func remuxRange(from: Double, to: Double) throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 4, gopSize: 15, bFrames: 2, audio: true)
        let output = folder.file("cut.mp4")
        let range = TimeRange(start: MediaTime(seconds: from), end: MediaTime(seconds: to))
        let result = try Remuxer.copy(from: .file(video.path), to: output, range: range)

        let expectedStart = video.keyframeTimes.last { $0 <= from + 1e-9 }!
        #expect(abs(result.sourceStart.seconds - expectedStart) < 1e-6)
        // Every frame from the keyframe up to (not including) `to`, plus at most the frames that
        // decode before `to` but display after it (B-frame reordering, ≤ 2 here).
        let needed = Int(((to - expectedStart) * 30).rounded())
        #expect(
            result.videoFrames >= needed && result.videoFrames <= needed + 2,
            "\(result.videoFrames) frames for \(needed)")

        let probe = try FFprobeReport.read(output)
        #expect(probe.videoFrames.count == result.videoFrames, "ffprobe decodes every frame we wrote")
        #expect(probe.videoFrames.first?.pts == 0)
        #expect(probe.videoFrames.first?.isKeyframe == true)
        let firstAudio = try #require(probe.audioFrames.first)
        #expect(abs(firstAudio.pts) <= 1.0 / 30, "audio starts within one frame of the video")
        #expect(abs((probe.formatDuration ?? 0) - result.duration.seconds) < 0.05)
    }

    @Test("whole-file remux copies every frame and sample")
    func remuxWholeFile() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2, audio: true)
        let result = try Remuxer.copy(from: .file(video.path), to: folder.file("all.mp4"))
        #expect(result.videoFrames == video.frameCount)
        let probe = try FFprobeReport.read(folder.file("all.mp4"))
        #expect(probe.videoFrames.count == video.frameCount)
    }

    @Test("a range past the end is refused and writes nothing")
    func rangePastEnd() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2)
        let output = folder.file("none.mp4")
        #expect {
            try Remuxer.copy(
                from: .file(video.path), to: output,
                range: TimeRange(start: MediaTime(seconds: 5), end: MediaTime(seconds: 6)))
        } throws: { ($0 as? MediaError)?.kind == .invalidArgument }
        #expect(!fileExists(output))
        #expect(try listFolder(folder.path).allSatisfy { !$0.hasPrefix(".") }, "no temporary file left behind")
    }
}
