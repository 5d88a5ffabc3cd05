import CameraCommon
import CameraIO
import CameraTesting
import Testing

@Suite("Decode and encode")
struct CodecTests {
    @Test("a synthetic pattern survives encode → decode with PSNR above 35 dB, frame for frame")
    func roundTripPSNR() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, frameCount: 45, gopSize: 15)
        let reader = try MediaReader(.file(video.path))
        let decoder = try VideoDecoder(reader: reader, format: .rgba)
        var frames: [VideoFrame] = []
        while let sample = try reader.nextSample() { frames += try decoder.decode(sample) }
        frames += try decoder.flush()
        #expect(frames.count == video.frameCount)
        for (index, frame) in frames.enumerated() {
            #expect(frame.pts == MediaTime(value: Int64(index), timescale: 30), "frame \(index) in order with its time")
            let psnr = SyntheticPattern.psnr(
                frame, SyntheticPattern.frame(index: index, width: video.width, height: video.height))
            #expect(psnr > 35, "frame \(index): \(psnr) dB")
        }
    }

    @Test("every: N hands out frames 0, N, 2N… with their own timestamps", arguments: [1, 4, 10])
    func everyNth(n: Int) throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2, gopSize: 30, bFrames: 2)
        let reader = try MediaReader(.file(video.path))
        let decoder = try VideoDecoder(reader: reader, format: .gray8, size: (80, 60), every: n)
        var frames: [VideoFrame] = []
        while let sample = try reader.nextSample() { frames += try decoder.decode(sample) }
        frames += try decoder.flush()
        #expect(decoder.decodedFrameCount == video.frameCount)
        #expect(frames.count == (video.frameCount + n - 1) / n)
        for (index, frame) in frames.enumerated() {
            #expect(frame.width == 80 && frame.height == 60 && frame.format == .gray8)
            #expect(frame.pts == MediaTime(value: Int64(index * n), timescale: 30))
        }
    }

    @Test(
        "upright: a video stored turned with a display matrix is handed out as players show it, at both sizes",
        arguments: [90, 180, 270])
    func upright(degrees: Int) throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, frameCount: 10, gopSize: 5)
        let turned = try TestMedia.storedTurned(video.path, to: folder.file("turned.mp4"), degrees: degrees)
        let reader = try MediaReader(.file(turned))
        let stream = try #require(reader.videoStream)
        #expect(stream.rotation == degrees)
        let shown = try #require(stream.shownSize)
        #expect(shown.width == video.width && shown.height == video.height)
        // Asked for half the shown size, and a second size of the whole picture.
        let decoder = try VideoDecoder(reader: reader, format: .rgba, size: (video.width / 2, video.height / 2))
        decoder.upright = true
        decoder.secondSize = (video.width, video.height)
        var frames: [(frame: VideoFrame, second: VideoFrame?)] = []
        while let sample = try reader.nextSample() { frames += try decoder.decodeAtBothSizes(sample) }
        frames += try decoder.flushAtBothSizes()
        #expect(frames.count == video.frameCount)
        for (index, (frame, second)) in frames.enumerated() {
            let original = SyntheticPattern.frame(index: index, width: video.width, height: video.height)
            let whole = try #require(second)
            #expect(frame.width == video.width / 2 && frame.height == video.height / 2)
            #expect(whole.width == video.width && whole.height == video.height)
            let psnr = SyntheticPattern.psnr(whole, original)
            #expect(psnr > 30, "frame \(index) turned \(degrees)°: \(psnr) dB against the picture shown")
        }
        // Without it, the stored picture: turned, and unlike the one shown.
        let storedReader = try MediaReader(.file(turned))
        let stored = try VideoDecoder(reader: storedReader, format: .rgba)
        var first: VideoFrame?
        while first == nil, let sample = try storedReader.nextSample() { first = try stored.decode(sample).first }
        if first == nil { first = try stored.flush().first }
        let storedFrame = try #require(first)
        #expect(storedFrame.width == stream.width && storedFrame.height == stream.height)
        if degrees == 180 {
            let psnr = SyntheticPattern.psnr(
                storedFrame, SyntheticPattern.frame(index: 0, width: video.width, height: video.height))
            #expect(psnr < 20, "the stored picture is upside down: \(psnr) dB")
        }
    }

    @Test("a second size: each picture decoded once is handed out at both sizes, as two decoders would")
    func secondSize() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2, gopSize: 30, bFrames: 2)
        func decoded(_ size: (width: Int, height: Int)) throws -> [VideoFrame] {
            let reader = try MediaReader(.file(video.path))
            let decoder = try VideoDecoder(reader: reader, format: .yuv420p, size: size)
            var frames: [VideoFrame] = []
            while let sample = try reader.nextSample() { frames += try decoder.decode(sample) }
            return frames + (try decoder.flush())
        }
        let (small, large) = (try decoded((80, 60)), try decoded((160, 120)))
        let reader = try MediaReader(.file(video.path))
        let decoder = try VideoDecoder(reader: reader, format: .yuv420p, size: (80, 60))
        decoder.secondSize = (160, 120)
        var both: [(frame: VideoFrame, second: VideoFrame?)] = []
        while let sample = try reader.nextSample() {
            both += try decoder.decodeAtBothSizes(sample)
            // The second size is wanted for the first 20 frames only.
            if both.count >= 20 { decoder.secondSize = nil }
        }
        both += try decoder.flushAtBothSizes()
        #expect(decoder.decodedFrameCount == video.frameCount && both.count == video.frameCount)
        #expect(both.map(\.frame) == small)
        let seconds = both.compactMap(\.second)
        #expect(seconds.count >= 20 && seconds.count < both.count)
        #expect(seconds == Array(large.prefix(seconds.count)))
        #expect(both.allSatisfy { $0.second == nil || $0.second?.pts == $0.frame.pts })
    }

    @Test("decoding to YUV copies planes; NV12 and gray agree on luma")
    func pixelFormatsAgree() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, frameCount: 5, gopSize: 5)
        func firstFrame(_ format: PixelFormat) throws -> VideoFrame {
            let reader = try MediaReader(.file(video.path))
            let decoder = try VideoDecoder(reader: reader, format: format)
            while let sample = try reader.nextSample() {
                if let frame = try decoder.decode(sample).first { return frame }
            }
            return try #require(try decoder.flush().first)
        }
        let yuv = try firstFrame(.yuv420p)
        let nv12 = try firstFrame(.nv12)
        let gray = try firstFrame(.gray8)
        #expect(yuv.planes.count == 3 && nv12.planes.count == 2)
        let yuvEqualsNV12 = yuv.planes[0].bytes == nv12.planes[0].bytes
        let yuvEqualsGray = yuv.planes[0].bytes == gray.planes[0].bytes
        #expect(yuvEqualsNV12)
        #expect(yuvEqualsGray)
    }

    @Test("the encoder places keyframes every GOP and no B-frames when asked")
    func encoderGOP() throws {
        let encoder = try VideoEncoder(settings: .init(width: 64, height: 48, gopSize: 10, maxBFrames: 0))
        var samples: [MediaSample] = []
        for index in 0..<35 {
            samples += try encoder.encode(VideoFrame(format: .gray8, width: 64, height: 48, fill: [UInt8(index * 5)]))
        }
        samples += try encoder.finish()
        #expect(samples.count == 35)
        #expect(samples.enumerated().filter(\.element.isKeyframe).map(\.offset) == [0, 10, 20, 30])
        #expect(samples.allSatisfy { $0.pts == $0.dts })
        #expect(!encoder.stream.extradata.isEmpty, "SPS/PPS are there for muxers")
    }

    @Test("the encoder refuses odd sizes and unknown presets with a clear error")
    func encoderBadSettings() {
        #expect { try VideoEncoder(settings: .init(width: 63, height: 48)) } throws: {
            ($0 as? MediaError)?.kind == .invalidArgument && "\($0)".contains("63x48")
        }
        #expect { try VideoEncoder(settings: .init(width: 64, height: 48, preset: "warp-speed")) } throws: {
            ($0 as? MediaError)?.kind == .invalidArgument && "\($0)".contains("warp-speed")
        }
    }

    @Test("PNG and JPEG images decode back to the picture")
    func images() throws {
        let folder = try WorkingDirectory.temporary()
        let frame = SyntheticPattern.frame(index: 3, width: 96, height: 64)
        try ImageEncoder.write(frame, to: folder.file("a.png"))
        try ImageEncoder.write(frame, to: folder.file("a.jpg"))
        for name in ["a.png", "a.jpg"] {
            let reader = try MediaReader(.file(folder.file(name)))
            let decoder = try VideoDecoder(reader: reader, format: .rgba)
            var decoded: [VideoFrame] = []
            while let sample = try reader.nextSample() { decoded += try decoder.decode(sample) }
            decoded += try decoder.flush()
            let image = try #require(decoded.first)
            #expect(image.width == 96 && image.height == 64)
            let psnr = SyntheticPattern.psnr(image, frame)
            #expect(psnr > (name == "a.png" ? 100 : 28), "\(name): \(psnr) dB")
        }
    }
}

@Suite("Writer")
struct WriterTests {
    @Test("fragmented MP4 in memory: init segment + fragments play in ffprobe, one fragment per GOP")
    func fragmentedMP4() throws {
        let folder = try WorkingDirectory.temporary()
        let encoder = try VideoEncoder(settings: .init(width: 160, height: 120, gopSize: 15, maxBFrames: 0))
        let writer = try MediaWriter(destination: .memory, container: .fragmentedMP4, streams: [encoder.stream])
        let initSegment = try #require(writer.initSegment)
        #expect(String(decoding: initSegment[4..<8], as: UTF8.self) == "ftyp")
        var fragments: [[UInt8]] = []
        for index in 0..<60 {
            var frame = SyntheticPattern.frame(index: index, width: 160, height: 120)
            frame.pts = MediaTime(value: Int64(index), timescale: 30)
            for sample in try encoder.encode(frame) { try writer.write(sample) }
            fragments += writer.takeFragments()
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        fragments += writer.takeFragments()
        #expect(fragments.count >= 4, "60 frames with a 15-frame GOP make 4 fragments")
        for fragment in fragments.dropLast() {
            let type = String(decoding: fragment[4..<8], as: UTF8.self)
            #expect(type == "moof" || type == "styp", "a fragment starts with \(type)")
        }
        let path = folder.file("live.mp4")
        try writeFile(path, initSegment + fragments.flatMap { $0 })
        let probe = try FFprobeReport.read(path)
        #expect(probe.videoFrames.count == 60)
        // A late viewer joins with the init segment and the second fragment alone.
        let late = folder.file("late.mp4")
        try writeFile(late, initSegment + fragments[1])
        #expect(try FFprobeReport.read(late).videoFrames.count == 15)
    }

    @Test("a writer dropped before finish leaves no file; finish makes it appear whole")
    func atomicOutput() throws {
        let folder = try WorkingDirectory.temporary()
        let encoder = try VideoEncoder(settings: .init(width: 64, height: 48, gopSize: 5))
        let path = folder.file("clip.mp4")
        do {
            let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
            for sample in try encoder.encode(VideoFrame(format: .gray8, width: 64, height: 48, fill: [9])) {
                try writer.write(sample)
            }
            #expect(!fileExists(path), "nothing at the destination while writing")
        }
        #expect(try listFolder(folder.path).isEmpty, "abandoned temporary file removed")
        let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
        for index in 0..<10 {
            for sample in try encoder.encode(VideoFrame(format: .gray8, width: 64, height: 48, fill: [UInt8(index)])) {
                try writer.write(sample)
            }
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        #expect(try listFolder(folder.path) == ["clip.mp4"])
        #expect(try FFprobeReport.read(path).videoFrames.count >= 10)
    }

    @Test("rotation: players turn our 90° file clockwise, our reader says 90, and a remux keeps it")
    func rotation() throws {
        let folder = try WorkingDirectory.temporary()
        // A black picture with a white band along the top edge.
        let encoder = try VideoEncoder(settings: .init(width: 64, height: 48, gopSize: 5))
        var stream = encoder.stream
        stream.rotation = 90
        let written = folder.file("written.mp4")
        let writer = try MediaWriter(destination: .file(written), streams: [stream])
        var picture = VideoFrame(format: .gray8, width: 64, height: 48, fill: [0])
        for index in 0..<(64 * 8) { picture.planes[0].bytes[index] = 255 }
        for _ in 0..<5 {
            for sample in try encoder.encode(picture) { try writer.write(sample) }
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        #expect(try MediaReader(.file(written)).videoStream?.rotation == 90)

        let copy = folder.file("copy.mp4")
        try Remuxer.copy(from: .file(written), to: copy)
        #expect(try MediaReader(.file(copy)).videoStream?.rotation == 90)

        // ffmpeg autorotates on decode; clockwise 90° puts the top band on the right edge.
        for file in [written, copy] {
            let raw = try Subprocess.runBinary(
                "ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            #expect(raw.count == 48 * 64, "rotated to 48x64")
            let left = (0..<64).map { Int(raw[$0 * 48]) }.reduce(0, +) / 64
            let right = (0..<64).map { Int(raw[$0 * 48 + 47]) }.reduce(0, +) / 64
            #expect(right > 200 && left < 50, "top band on the right: left \(left), right \(right)")
        }
    }

    @Test("memory output refuses a non-fragmented container; a missing folder is named")
    func writerErrors() throws {
        let stream = StreamInfo(index: 0, mediaType: .video, codec: "h264", timeBase: 90_000, width: 64, height: 48)
        #expect { try MediaWriter(destination: .memory, container: .mp4(), streams: [stream]) } throws: {
            ($0 as? MediaError)?.kind == .invalidArgument
        }
        #expect { try MediaWriter(destination: .file("/nonexistent-folder/x.mp4"), streams: [stream]) } throws: {
            "\($0)".contains("/nonexistent-folder")
        }
    }
}
