import CameraCommon
import CameraIO
import Foundation

/// Test media made at test time, with the facts a test checks against.
public struct GeneratedVideo: Sendable {
    public var path: String
    public var width: Int
    public var height: Int
    public var frameRate: Int
    public var frameCount: Int
    /// Frames from one keyframe to the next.
    public var gopSize: Int
    public var hasAudio: Bool

    public var duration: Double { Double(frameCount) / Double(frameRate) }
    /// Presentation times of the keyframes, in seconds.
    public var keyframeTimes: [Double] {
        stride(from: 0, to: frameCount, by: gopSize).map { Double($0) / Double(frameRate) }
    }
}

/// Generates videos with known frame counts, keyframe positions and timestamps.
public enum TestMedia {
    /// A `testsrc2` video (moving pattern and a frame counter) encoded by the ffmpeg command line
    /// with libx264, a fixed GOP and optionally a sine-tone AAC track.
    public static func lavfi(
        in directory: String, name: String = "testsrc.mp4", width: Int = 320, height: Int = 240, frameRate: Int = 30,
        seconds: Int = 4, gopSize: Int = 30, bFrames: Int = 2, audio: Bool = false, source: String = "testsrc2",
        extraArguments: [String] = []
    ) throws -> GeneratedVideo {
        let path = "\(directory)/\(name)"
        let frameCount = frameRate * seconds
        var arguments = [
            "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i",
            "\(source)\(source.contains("=") ? ":" : "=")size=\(width)x\(height):rate=\(frameRate):duration=\(seconds)",
        ]
        if audio {
            arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"]
        }
        arguments += [
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "\(gopSize)",
            "-keyint_min", "\(gopSize)", "-sc_threshold", "0", "-bf", "\(bFrames)",
            "-frames:v", "\(frameCount)",
        ]
        if audio { arguments += ["-c:a", "aac", "-b:a", "96k", "-shortest"] }
        arguments += extraArguments
        arguments += [path]
        try Subprocess.run("ffmpeg", arguments)
        return GeneratedVideo(
            path: path, width: width, height: height, frameRate: frameRate, frameCount: frameCount, gopSize: gopSize,
            hasAudio: audio)
    }

    /// A video whose frames are ``SyntheticPattern`` pictures, encoded in-process with
    /// ``VideoEncoder`` and written with ``MediaWriter`` (no ffmpeg command line involved).
    public static func synthetic(
        in directory: String, name: String = "synthetic.mp4", width: Int = 320, height: Int = 240, frameRate: Int = 30,
        frameCount: Int = 60, gopSize: Int = 15, crf: Int = 18
    ) throws -> GeneratedVideo {
        let path = "\(directory)/\(name)"
        let encoder = try VideoEncoder(
            settings: .init(
                width: width, height: height, frameRate: Rational(Int32(frameRate), 1), crf: crf, gopSize: gopSize,
                preset: "veryfast"))
        let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
        for index in 0..<frameCount {
            var frame = SyntheticPattern.frame(index: index, width: width, height: height)
            frame.pts = MediaTime(value: Int64(index), timescale: Int32(frameRate))
            for sample in try encoder.encode(frame) { try writer.write(sample) }
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        return GeneratedVideo(
            path: path, width: width, height: height, frameRate: frameRate, frameCount: frameCount, gopSize: gopSize,
            hasAudio: false)
    }
}

extension TestMedia {
    /// The video at `path` as a phone stores it when it was held turned: each frame turned
    /// `degrees` counter-clockwise, with a display matrix that turns it back `degrees` clockwise
    /// (a portrait recording is 90; a landscape one held the other way up, 180). Players and
    /// ffmpeg show the same picture as `path`'s; a reader that ignores the matrix sees it turned.
    /// Re-encoded in-process (x264 veryfast, crf 18, the source's frame rate), video only.
    public static func storedTurned(_ path: String, to output: String, degrees: Int) throws -> String {
        let reader = try MediaReader(.file(path))
        guard let video = reader.videoStream, let width = video.width, let height = video.height else {
            throw MediaError(.invalidArgument, operation: "turn \(path)", message: "the file has no video stream")
        }
        let decoder = try VideoDecoder(reader: reader, format: .yuv420p)
        let (storedWidth, storedHeight) = degrees % 180 == 90 ? (height, width) : (width, height)
        let encoder = try VideoEncoder(
            settings: .init(
                width: storedWidth, height: storedHeight, frameRate: video.frameRate ?? Rational(30, 1), crf: 18,
                gopSize: 60, preset: "veryfast"))
        var stream = encoder.stream
        stream.rotation = ((degrees % 360) + 360) % 360
        let writer = try MediaWriter(destination: .file(output), streams: [stream])
        func write(_ frames: [VideoFrame]) throws {
            for frame in frames {
                for sample in try encoder.encode(frame.rotated(clockwise: 360 - stream.rotation)) {
                    try writer.write(sample)
                }
            }
        }
        while let sample = try reader.nextSample() { try write(try decoder.decode(sample)) }
        try write(try decoder.flush())
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        return output
    }
}

extension TestMedia {
    /// Overwrites the media data of the MP4 or QuickTime file at `path` (its `mdat` box) with
    /// zeros, leaving its index (`moov`) whole: a file that opens and says what it holds, of which
    /// no picture decodes (as a disk or transfer fault leaves one).
    public static func blankMediaData(_ path: String) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 0
        var blanked = false
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            var header = 8
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
                header = 16
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= header else { break }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "mdat" {
                for index in offset + header..<min(offset + size, bytes.count) { bytes[index] = 0 }
                blanked = true
            }
            offset += size
        }
        guard blanked else {
            throw MediaError(.invalidArgument, operation: "blank \(path)", message: "no mdat box in the file")
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// A deterministic RGBA picture per frame index: smooth gradients plus a moving square, so a lossy
/// codec keeps it recognisable and a test can compare pixels after a round trip.
public enum SyntheticPattern {
    public static func frame(index: Int, width: Int, height: Int) -> VideoFrame {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        let squareSize = max(8, min(width, height) / 6)
        let squareX = (index * 4) % max(1, width - squareSize)
        let squareY = height / 3
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let inSquare = x >= squareX && x < squareX + squareSize && y >= squareY && y < squareY + squareSize
                bytes[offset] = inSquare ? 240 : UInt8((x * 255) / max(1, width - 1))
                bytes[offset + 1] = inSquare ? 240 : UInt8((y * 255) / max(1, height - 1))
                bytes[offset + 2] = inSquare ? 32 : UInt8((index * 8) % 256)
            }
        }
        return VideoFrame(
            format: .rgba, width: width, height: height,
            planes: [Plane(width: width, height: height, bytesPerRow: width * 4, bytes: bytes)])
    }

    /// Peak signal-to-noise ratio of the RGB channels of two RGBA frames, in dB (infinity when equal).
    public static func psnr(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.format == .rgba && b.format == .rgba && a.width == b.width && a.height == b.height)
        var squaredError = 0.0
        for y in 0..<a.height {
            let rowA = y * a.planes[0].bytesPerRow
            let rowB = y * b.planes[0].bytesPerRow
            for x in 0..<(a.width * 4) where x % 4 != 3 {
                let difference = Double(a.planes[0].bytes[rowA + x]) - Double(b.planes[0].bytes[rowB + x])
                squaredError += difference * difference
            }
        }
        let meanSquaredError = squaredError / Double(a.width * a.height * 3)
        return meanSquaredError == 0 ? .infinity : 10 * log10(255 * 255 / meanSquaredError)
    }
}

extension TestMedia {
    /// A hoop's ring that is not orange, as the rim-finding tests need it: a grey ellipse 32 px
    /// wide and 10 px tall, drawn about 1 px thick, centred at (400, 120) of a 640×360 white board
    /// (the ring's box is x 0.6, y 115/360, width 0.05, height 10/360). The finder finds no hoop in
    /// it; a tap near it is fitted to it.
    public static func greyRing(at path: String, seconds: Int, frameRate: Int) throws {
        // The distance from the ellipse, |F| / |∇F| for F = (x/a)² + (y/b)² − 1 (a 16, b 5).
        let distance =
            "abs(pow((X-400)/16\\,2)+pow((Y-120)/5\\,2)-1)/(2*hypot((X-400)/256\\,(Y-120)/25)+0.001)"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i",
                "color=c=0xd8d8d8:s=640x360:d=\(seconds):r=\(frameRate),format=gray,geq=lum='if(lt(\(distance)\\,1.1)\\,70\\,215)'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
    }

    /// The box of ``greyRing(at:seconds:frameRate:)``'s ring as `[x, y, width, height]` fractions.
    public static let greyRingBox = [0.6, 115.0 / 360, 0.05, 10.0 / 360]
}

extension TestMedia {
    /// Three throws of a ball of `colour` (hex, 15 px across) across a pale blue sky at a dark
    /// grey rim (a bar 44×3 px at 396, 196) beside a white board, one every 2 s, released at 0.4,
    /// 2.4 and 4.4 s; 640×360, 30 fps, 6.5 s (`seconds` shorter: fewer throws — 2.3 s, one). A
    /// dark grey ball (`504a48`) is what a worn ball filmed outdoors looks like: only its
    /// brightness shows it.
    public static func threeThrows(at path: String, ball colour: String, seconds: Double = 6.5) throws {
        let flight = "(t-2*floor(t/2)-0.4)"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x9fbfdf:s=640x360:d=\(seconds):r=30", "-f", "lavfi",
                "-i",
                "color=c=0x\(colour):s=16x16:d=\(seconds):r=30,format=yuva420p,geq=lum='p(X,Y)':cb='p(X,Y)':cr='p(X,Y)':a='if(lte((X-7.5)*(X-7.5)+(Y-7.5)*(Y-7.5),56),255,0)'",
                "-filter_complex",
                "[0]drawbox=x=430:y=90:w=90:h=70:color=0xf0f0f0:t=fill,drawbox=x=396:y=196:w=44:h=3:color=0x383838:t=fill[bg];"
                    + "[bg][1]overlay=x='100+230*\(flight)-8':y='330-420*\(flight)+250*\(flight)*\(flight)-8':enable='between(\(flight),0,1.8)'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
    }

    /// The rim of ``threeThrows(at:ball:seconds:)`` as `[x, y, width, height]`, and the middle of its bar.
    public static let threeThrowsRim = [0.619, 0.540, 0.069, 0.02]
    public static let threeThrowsRimMiddle = (x: 418.0 / 640, y: 197.5 / 360)
}
