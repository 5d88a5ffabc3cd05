import CameraCommon
import CameraIO

#if canImport(Glibc)
    import Glibc
#endif

/// A copy of a video that every browser plays: H.264 and AAC in MP4, upright, at most 1280×720
/// (720×1280 upright portrait) and 30 frames a second.
///
/// Phones record H.265 by default (iPhones since iOS 11), which Safari plays but Chromium and
/// Firefox on Linux and many Android browsers do not: they show a black picture with sound.
public enum BrowserCopy {
    /// Video codecs (FFmpeg's names) that Chromium, Firefox and Safari all decode.
    public static let playableCodecs: Set<String> = ["h264", "vp8", "vp9", "av1"]

    /// Why `path` needs a copy to play in every browser (its video codec, named), or nil when it
    /// plays as it is (or has no video).
    public static func reason(for path: String) throws(MediaError) -> String? {
        let reader = try MediaReader(.file(path))
        guard let video = reader.videoStream, !playableCodecs.contains(video.codec) else { return nil }
        let name = ["hevc": "H.265 (HEVC)", "mpeg4": "MPEG-4 Part 2", "prores": "ProRes"][video.codec] ?? video.codec
        return "its video is \(name), which only some browsers play"
    }

    /// The largest side of the copy, and the other side's limit.
    public static let longSide = 1280
    public static let shortSide = 720

    /// Writes the copy of `source` to `path`: re-encoded (libx264 `veryfast`, CRF 26), turned
    /// upright, scaled down to fit `longSide`×`shortSide` keeping its shape, at most 30 frames a
    /// second (every second frame of 60); AAC sound copied as it is, any other sound re-encoded.
    ///
    /// The frames go straight from the decoder (every core, scaled and in YUV there) to the
    /// encoder: no RGBA picture, no timeline.
    ///
    /// - Parameters:
    ///   - progress: 0…1 as the source is read.
    ///   - shouldStop: asked before each sample; true stops with a `cancelled` error and removes
    ///     what was written.
    @discardableResult
    public static func make(
        of source: String, to path: String, progress: ((Double) -> Void)? = nil, shouldStop: (() -> Bool)? = nil
    ) throws(MediaError) -> ExportResult {
        let operation = "copy \(source) for browsers"
        let reader = try MediaReader(.file(source))
        guard let video = reader.videoStream, let shown = shownSize(video),
            let duration = reader.duration ?? video.duration, duration > .zero
        else {
            throw MediaError(.invalidArgument, operation: operation, message: "it has no video")
        }
        let size = fitted(width: shown.width, height: shown.height)
        if let audio = reader.audioStream, audio.codec != "aac" {
            // Sound that MP4 players may not play (PCM, Opus…): the timeline re-encodes it to AAC.
            let rate = video.frameRate.map { $0.doubleValue > 30.5 ? Rational(30, 1) : $0 } ?? Rational(30, 1)
            return try makeThroughTimeline(
                of: source, to: path, size: size, frameRate: rate, duration: duration, progress: progress,
                shouldStop: shouldStop)
        }
        let turned = video.rotation % 180 == 90
        let rate = video.frameRate ?? Rational(30, 1)
        // Every n-th frame: 60 → 30, 50 → 25, 120 → 30.
        let every = max(1, Int((rate.doubleValue / 30).rounded(.up)))
        let decoder = try VideoDecoder(
            reader: reader, format: .yuv420p, size: turned ? (size.height, size.width) : size, every: every)
        let encoder = try VideoEncoder(
            settings: .init(
                width: size.width, height: size.height,
                frameRate: Rational(rate.numerator, rate.denominator * Int32(every)), crf: 26,
                gopSize: max(1, Int((rate.doubleValue / Double(every) * 2).rounded())), preset: "veryfast"))
        var streams = [encoder.stream]
        var audio = reader.audioStream
        audio?.index = 1
        if let audio { streams.append(audio) }
        let origin = reader.startTime ?? .zero
        var frames = 0
        do throws(MediaError) {
            let writer = try MediaWriter(destination: .file(path), streams: streams)
            func encode(_ decoded: [VideoFrame]) throws(MediaError) {
                for var frame in decoded {
                    frame.pts = frame.pts.map { $0 - origin }
                    if video.rotation != 0 { frame = frame.rotated(clockwise: video.rotation) }
                    for sample in try encoder.encode(frame) { try writer.write(sample) }
                    frames += 1
                }
            }
            while let sample = try reader.nextSample() {
                if shouldStop?() == true {
                    throw MediaError(.cancelled, operation: operation, message: "stopped before the end")
                }
                if sample.streamIndex == video.index {
                    try encode(try decoder.decode(sample))
                    // Decode times rise (presentation times go back and forth over B-frames).
                    if let time = sample.decodeTime {
                        progress?(min(max((time - origin).seconds / duration.seconds, 0), 1))
                    }
                } else if let source = reader.audioStream, sample.streamIndex == source.index {
                    var copied = sample
                    copied.streamIndex = 1
                    copied.pts = sample.pts.map { $0 - origin }
                    copied.dts = sample.dts.map { $0 - origin }
                    try writer.write(copied)
                }
            }
            try encode(try decoder.flush())
            for sample in try encoder.finish() { try writer.write(sample) }
            try writer.finish()
        } catch {
            unlink(path)
            throw error
        }
        progress?(1)
        return ExportResult(
            mode: .reencode, reason: nil, videoFrames: frames, duration: duration.seconds, hasAudio: audio != nil)
    }

    /// The copy made through the timeline (decoded to RGBA, scaled, the sound mixed and encoded to
    /// AAC), at `size` and `frameRate`, of the source's first `duration`.
    static func makeThroughTimeline(
        of source: String, to path: String, size: (width: Int, height: Int), frameRate rate: Rational,
        duration: MediaTime, progress: ((Double) -> Void)?, shouldStop: (() -> Bool)?
    ) throws(MediaError) -> ExportResult {
        let clip = Clip(id: "copy", source: source, range: TimeRange(start: .zero, end: duration))
        let project = Project(
            timeline: Timeline(clips: [clip]), width: size.width, height: size.height, frameRate: rate)
        do {
            return try TimelineExporter.export(
                project, to: path, mode: .reencode, crf: 26, preset: "veryfast", progress: progress,
                shouldStop: shouldStop)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// The picture size of `path`'s video as shown (turned upright).
    public static func size(of path: String) throws(MediaError) -> (width: Int, height: Int) {
        guard let video = try MediaReader(.file(path)).videoStream, let shown = shownSize(video) else {
            throw MediaError(.invalidArgument, operation: "read \(path)", message: "it has no video")
        }
        return shown
    }

    /// A video stream's picture size turned upright; nil when it has none.
    static func shownSize(_ video: StreamInfo) -> (width: Int, height: Int)? {
        guard let width = video.width, let height = video.height else { return nil }
        return video.rotation % 180 == 90 ? (height, width) : (width, height)
    }

    /// `width`×`height` scaled down (never up) to fit `longSide` by `shortSide` the same way
    /// round, both even.
    public static func fitted(width: Int, height: Int) -> (width: Int, height: Int) {
        let (long, short) = width >= height ? (longSide, shortSide) : (shortSide, longSide)
        let scale = min(1, Double(long) / Double(width), Double(short) / Double(height))
        let even = { (value: Double) in max(2, Int(value.rounded()) & ~1) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }
}
