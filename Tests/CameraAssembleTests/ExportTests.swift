import CameraAssemble
import CameraCommon
import CameraIO
import CameraTesting
import Testing

@Suite("Timeline export")
struct ExportTests {
    /// 4 s, 30 fps, a keyframe every 15 frames (0.5 s), 440 Hz AAC.
    func source(_ folder: WorkingDirectory, _ name: String = "a.mp4", lavfi: String = "testsrc2") throws
        -> GeneratedVideo
    {
        try TestMedia.lavfi(in: folder.path, name: name, seconds: 4, gopSize: 15, audio: true, source: lavfi)
    }

    @Test("a cut-only timeline on keyframes is stream-copied: every frame, audio in sync")
    func streamCopy() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try source(folder)
        let project = Project(
            timeline: Timeline(clips: [clip("a", 0, 1, source: video.path), clip("b", 2, 3, source: video.path)]))
        let output = folder.file("cut.mp4")
        let result = try TimelineExporter.export(project, to: output)
        #expect(result.mode == .streamCopy)
        let probe = try FFprobeReport.read(output)
        #expect(probe.videoFrames.count == 60)
        #expect(abs((probe.formatDuration ?? 0) - 2) < 0.05)
        let lastVideo = try #require(probe.videoFrames.last?.pts)
        let lastAudio = try #require(probe.audioFrames.last?.pts)
        let tolerance: Double = 1.0 / 30 + 1024.0 / 48_000  // one video frame plus one AAC frame
        let gap: Double = abs(lastAudio - lastVideo)
        #expect(gap < tolerance, "audio ends with the video")
        #expect(abs(probe.audioFrames[0].pts) < 1.0 / 30)
    }

    @Test("a cut between keyframes or a mirror needs pixels, so export re-encodes and says why")
    func fallsBackToReencode() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try source(folder)
        let offKey = Project(timeline: Timeline(clips: [clip("a", 0.7, 1.7, source: video.path)]))
        let result = try TimelineExporter.export(offKey, to: folder.file("off.mp4"))
        #expect(result.mode == .reencode && (result.reason ?? "").contains("keyframe"))
        #expect(try FFprobeReport.read(folder.file("off.mp4")).videoFrames.count == 30)
        #expect { try TimelineExporter.export(offKey, to: folder.file("x.mp4"), mode: .copy) } throws: {
            "\($0)".contains("not on a keyframe")
        }
    }

    @Test("rotation alone is a display matrix on a stream copy")
    func rotationMatrix() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try source(folder)
        var rotated = clip("a", 0, 1, source: video.path)
        rotated.rotation = 90
        let output = folder.file("turned.mp4")
        let result = try TimelineExporter.export(Project(timeline: Timeline(clips: [rotated])), to: output)
        #expect(result.mode == .streamCopy)
        #expect(try MediaReader(.file(output)).videoStream?.rotation == 90)
    }

    @Test("a crossfade mixes both pictures and both sounds, and keeps audio in sync")
    func crossfade() throws {
        let folder = try WorkingDirectory.temporary()
        let red = try TestMedia.lavfi(
            in: folder.path, name: "red.mp4", seconds: 2, gopSize: 15, audio: true, source: "color=c=red")
        let blue = try TestMedia.lavfi(
            in: folder.path, name: "blue.mp4", seconds: 2, gopSize: 15, audio: true, source: "color=c=blue")
        var first = clip("red", 0, 2, source: red.path)
        first.transitionToNext = Transition(kind: .crossfade, duration: seconds(1))
        let project = Project(timeline: Timeline(clips: [first, clip("blue", 0, 2, source: blue.path)]))
        let output = folder.file("fade.mp4")
        let result = try TimelineExporter.export(project, to: output)
        #expect(result.mode == .reencode && result.hasAudio)
        let probe = try FFprobeReport.read(output)
        #expect(probe.videoFrames.count == 90, "3 s at 30 fps")
        let audioEnd = (probe.audioFrames.last?.pts ?? 0) + 1024.0 / 48_000
        #expect(abs(audioEnd - 3) < 0.05, "audio lasts as long as the video (\(audioEnd) s)")
        // Half-way through the fade (t = 1.5 s) red and blue are mixed about equally.
        let raw = try Subprocess.runBinary(
            "ffmpeg",
            ["-v", "error", "-ss", "1.5", "-i", output, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let middle = (120 * 320 + 160) * 3
        #expect(abs(Int(raw[middle]) - Int(raw[middle + 2])) < 40, "R \(raw[middle]) vs B \(raw[middle + 2])")
        #expect(raw[middle] > 80 && raw[middle + 2] > 80)
    }

    @Test("a mirrored clip comes out mirrored")
    func mirror() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, width: 160, height: 120, frameCount: 30, gopSize: 15)
        var mirrored = clip("m", 0, 1, source: video.path)
        mirrored.mirrored = true
        let output = folder.file("mirror.mp4")
        _ = try TimelineExporter.export(Project(timeline: Timeline(clips: [mirrored])), to: output)
        let raw = try Subprocess.runBinary(
            "ffmpeg", ["-v", "error", "-i", output, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let reference = SyntheticPattern.frame(index: 0, width: 160, height: 120)
        // The gradient runs right-to-left now: output x=5 matches source x=154.
        let row = 10
        #expect(abs(Int(raw[(row * 160 + 5) * 3]) - Int(reference.rgba(x: 154, y: row).r)) < 12)
        #expect(abs(Int(raw[(row * 160 + 154) * 3]) - Int(reference.rgba(x: 5, y: row).r)) < 12)
    }
}
