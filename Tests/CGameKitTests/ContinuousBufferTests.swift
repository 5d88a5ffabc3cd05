import CGameKit
import CameraCommon
import CameraTesting
import Testing

/// A made-up source: video at `fps` with keyframes every `gop` frames (random sizes around a
/// bitrate), audio packets of 1024 samples at 48 kHz interleaved by time.
struct FakeStream {
    var fps: Int
    var gop: Int
    var videoBytes: ClosedRange<Int>
    var audio: Bool

    func samples(seconds: Double, using generator: inout SeededGenerator) -> [MediaSample] {
        var out: [MediaSample] = []
        let frames = Int(seconds * Double(fps))
        var audioIndex = 0
        for frame in 0..<frames {
            let time = MediaTime(value: Int64(frame), timescale: Int32(fps))
            while audio, MediaTime(value: Int64(audioIndex * 1024), timescale: 48_000) <= time {
                let audioTime = MediaTime(value: Int64(audioIndex * 1024), timescale: 48_000)
                out.append(
                    MediaSample(
                        data: [UInt8](repeating: 1, count: 300), pts: audioTime, dts: audioTime,
                        duration: MediaTime(value: 1024, timescale: 48_000), isKeyframe: true, streamIndex: 1,
                        mediaType: .audio))
                audioIndex += 1
            }
            let key = frame % gop == 0
            let size = Int.random(in: videoBytes, using: &generator) * (key ? 4 : 1)
            out.append(
                MediaSample(
                    data: [UInt8](repeating: 0, count: size), pts: time, dts: time,
                    duration: MediaTime(value: 1, timescale: Int32(fps)), isKeyframe: key, streamIndex: 0,
                    mediaType: .video))
        }
        return out
    }
}

@Suite struct ContinuousBufferTests {
    @Test func invariantsHoldAfterEveryAddForRandomStreams() {
        var generator = SeededGenerator(seed: 7)
        for trial in 0..<12 {
            let fps = [24, 30, 60][trial % 3]
            let gop = Int.random(in: 5...(fps * 3), using: &generator)
            let stream = FakeStream(fps: fps, gop: gop, videoBytes: 200...3000, audio: trial % 2 == 0)
            let maxDuration = Double(Int.random(in: 2...8, using: &generator))
            let maxBytes = Int.random(in: 200_000...2_000_000, using: &generator)
            let buffer = ContinuousBuffer(maxDuration: MediaTime(seconds: maxDuration), maxBytes: maxBytes)
            let gopSeconds = Double(gop) / Double(fps)
            var bytesInput = 0
            for sample in stream.samples(seconds: 20, using: &generator) {
                buffer.add(sample)
                bytesInput += sample.data.count
                #expect(buffer.byteCount <= maxBytes)
                #expect(buffer.startsOnKeyframe)
                if let range = buffer.range, buffer.keyframeTimes.count > 1 {
                    // Never more than maxDuration plus one group of pictures (and a frame).
                    #expect(range.duration.seconds <= maxDuration + gopSeconds + 1.0 / Double(fps) + 0.03)
                }
            }
            // At the end the window spans at least maxDuration unless the byte cap forbids it.
            let span = buffer.range?.duration.seconds ?? 0
            let byteLimited = buffer.byteCount + 3000 * 4 * gop > maxBytes
            #expect(span >= maxDuration - 0.001 || byteLimited, "trial \(trial): span \(span)")
            #expect(buffer.keyframeTimes.allSatisfy { $0 >= buffer.range!.start })
        }
    }

    @Test func samplesStartAtTheKeyframeBeforeTheRangeAndCoverIt() throws {
        var generator = SeededGenerator(seed: 3)
        let stream = FakeStream(fps: 30, gop: 30, videoBytes: 100...200, audio: true)
        let buffer = ContinuousBuffer(maxDuration: MediaTime(seconds: 30))
        for sample in stream.samples(seconds: 12, using: &generator) { buffer.add(sample) }
        // A range crossing three GOP boundaries, starting mid-GOP.
        let picked = buffer.samples(from: MediaTime(seconds: 4.5), to: MediaTime(seconds: 7.2))
        let first = try #require(picked.first)
        #expect(first.mediaType == .video && first.isKeyframe)
        #expect(first.pts == MediaTime(seconds: 4))
        let video = picked.filter { $0.mediaType == .video }
        // Every frame shown from the keyframe at 4 s until 7.2 s, in order, none missing.
        let expected = Int((7.2 * 30).rounded(.up)) - 4 * 30
        #expect(video.count == expected)
        let times = video.compactMap(\.pts)
        #expect(times == times.sorted())
        let audio = picked.filter { $0.mediaType == .audio }
        #expect(!audio.isEmpty)
        #expect(audio.allSatisfy { $0.pts! >= MediaTime(seconds: 4) && $0.pts! < MediaTime(seconds: 7.2) })
        // Arrival (decode) order is kept across streams.
        let decodeTimes = picked.map { $0.decodeTime!.seconds }
        #expect(zip(decodeTimes, decodeTimes.dropFirst()).allSatisfy { $0 <= $1 + 0.025 })
        // Starting on a keyframe exactly uses that keyframe.
        #expect(
            buffer.samples(from: MediaTime(seconds: 6), to: MediaTime(seconds: 6.5)).first?.pts == MediaTime(seconds: 6)
        )
    }

    @Test func toleratesSamplesWithoutTimestampsAndLeadingNonKeyframes() {
        let buffer = ContinuousBuffer()
        func video(_ pts: Double?, key: Bool) -> MediaSample {
            MediaSample(
                data: [1, 2, 3], pts: pts.map { MediaTime(seconds: $0) }, dts: pts.map { MediaTime(seconds: $0) },
                isKeyframe: key, streamIndex: 0, mediaType: .video)
        }
        buffer.add(video(nil, key: true))  // RTSP before RTCP sync: no time at all → dropped
        buffer.add(video(0.9, key: false))  // not decodable without its keyframe → dropped
        #expect(buffer.sampleCount == 0)
        buffer.add(video(1.0, key: true))
        buffer.add(video(nil, key: false))  // takes the last time of its stream
        buffer.add(video(1.1, key: false))
        #expect(buffer.sampleCount == 3)
        #expect(buffer.droppedCount == 2)
        #expect(buffer.range?.start == MediaTime(seconds: 1.0))
        #expect(buffer.samples(from: MediaTime(seconds: 1), to: MediaTime(seconds: 2)).count == 3)
    }

    @Test func memoryFollowsBitrateAt1080p60() {
        // 30 s of 1080p60 at 8 Mbit/s: about 30 MB of samples, far under the 48 MB cap; raw frames
        // would be 30 × 60 × 3.1 MB = 5.6 GB.
        var generator = SeededGenerator(seed: 11)
        let perFrame = 8_000_000 / 8 / 60
        let stream = FakeStream(fps: 60, gop: 120, videoBytes: (perFrame * 3 / 4)...(perFrame * 5 / 4), audio: true)
        let buffer = ContinuousBuffer()
        for sample in stream.samples(seconds: 45, using: &generator) { buffer.add(sample) }
        let megabytes = Double(buffer.byteCount) / 1_048_576
        #expect(megabytes < 40, "buffer holds \(megabytes) MB")
        #expect((buffer.range?.duration.seconds ?? 0) >= 30)
    }

    @Test func aGroupLargerThanTheByteCapEmptiesTheBufferUntilTheNextKeyframe() {
        let buffer = ContinuousBuffer(maxDuration: MediaTime(seconds: 30), maxBytes: 10_000)
        for index in 0..<10 {
            let time = MediaTime(value: Int64(index), timescale: 10)
            buffer.add(
                MediaSample(
                    data: [UInt8](repeating: 0, count: 3000), pts: time, dts: time, isKeyframe: index % 20 == 0,
                    streamIndex: 0, mediaType: .video))
            #expect(buffer.byteCount <= 10_000)
        }
        #expect(buffer.sampleCount == 0)
        #expect(buffer.startsOnKeyframe)
    }
}
