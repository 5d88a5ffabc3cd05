import CameraCommon
import CameraEffects
import CameraIO

/// How an export was made and what it wrote.
public struct ExportResult: Sendable, Codable, Equatable {
    public enum Mode: String, Sendable, Codable { case streamCopy, reencode }
    public var mode: Mode
    /// Why re-encoding was needed (nil for a stream copy).
    public var reason: String?
    public var videoFrames: Int
    public var duration: Double
    public var hasAudio: Bool
}

/// Writes a timeline to an MP4: by stream copy when the timeline is cut-only and every cut falls
/// on a keyframe of compatible sources (fast, lossless), otherwise by decoding, rendering and
/// re-encoding (libx264 video, AAC audio, crossfades on both).
public enum TimelineExporter {
    public enum Mode: String, Sendable, CaseIterable {
        /// Stream copy when possible, else re-encode.
        case automatic
        /// Stream copy or fail saying why not.
        case copy
        /// Always re-encode.
        case reencode
    }

    /// - Parameter shouldStop: asked before each re-encoded frame; true stops the export with a
    ///   `cancelled` error, leaving what was written at `path` for the caller to remove.
    public static func export(
        _ project: Project, to path: String, mode: Mode = .automatic, crf: Int = 20, preset: String = "veryfast",
        alreadyValidated: Bool = false, progress: ((Double) -> Void)? = nil, shouldStop: (() -> Bool)? = nil
    ) throws(MediaError) -> ExportResult {
        if !alreadyValidated { try project.validate(operation: "export to \(path)") }
        let blocker = mode == .reencode ? "re-encoding was asked for" : try copyBlocker(project)
        if let blocker {
            if mode == .copy {
                throw MediaError(
                    .invalidArgument, operation: "export to \(path)", message: "cannot stream-copy: \(blocker)")
            }
            var result = try reencode(
                project, to: path, crf: crf, preset: preset, progress: progress, shouldStop: shouldStop)
            result.reason = blocker
            return result
        }
        return try streamCopy(project, to: path, progress: progress)
    }

    /// Why this timeline cannot be exported by stream copy, or nil when it can.
    public static func copyBlocker(_ project: Project) throws(MediaError) -> String? {
        let timeline = project.timeline
        if let clip = timeline.clips.dropLast().first(where: { $0.transitionToNext != nil }) {
            return "clip \(clip.id) has a transition"
        }
        if let clip = timeline.clips.first(where: { $0.mirrored }) { return "clip \(clip.id) is mirrored" }
        if let clip = timeline.clips.first(where: { !($0.effects?.layers.isEmpty ?? true) }) {
            return "clip \(clip.id) has effects"
        }
        if Set(timeline.clips.map(\.rotation)).count > 1 { return "clips have different rotations" }
        if project.width != nil || project.height != nil || project.frameRate != nil {
            return "the project sets an output size or frame rate"
        }
        var reference: (video: StreamInfo, audio: StreamInfo?)?
        var readers: [String: MediaReader] = [:]
        for clip in timeline.clips {
            let reader: MediaReader
            if let known = readers[clip.source] {
                reader = known
            } else {
                reader = try MediaReader(.file(clip.source))
                readers[clip.source] = reader
            }
            guard let video = reader.videoStream else { return "\(clip.source) has no video" }
            let audio = reader.audioStream
            if let reference {
                if video.codec != reference.video.codec || video.width != reference.video.width
                    || video.height != reference.video.height || video.extradata != reference.video.extradata
                {
                    return "\(clip.source) is encoded differently from \(timeline.clips[0].source)"
                }
                if audio?.codec != reference.audio?.codec || audio?.sampleRate != reference.audio?.sampleRate
                    || audio?.channels != reference.audio?.channels
                {
                    return "\(clip.source) has different audio from \(timeline.clips[0].source)"
                }
            } else {
                reference = (video, audio)
            }
            // The clip must start on a keyframe, or the copy would start early.
            let origin = reader.startTime ?? .zero
            try reader.seek(to: clip.range.start + origin)
            var firstKey: MediaTime?
            while firstKey == nil, let sample = try reader.nextSample() {
                if sample.streamIndex == video.index {
                    firstKey = sample.isKeyframe ? sample.presentationTime : nil
                    break
                }
            }
            guard let key = firstKey, abs((key - origin - clip.range.start).seconds) < 0.002 else {
                return "clip \(clip.id) starts at \(clip.range.start.seconds)s, not on a keyframe"
            }
        }
        return nil
    }

    // MARK: - Stream copy

    static func streamCopy(_ project: Project, to path: String, progress: ((Double) -> Void)?) throws(MediaError)
        -> ExportResult
    {
        let clips = project.timeline.clips
        let result = try Remuxer.concatenate(
            clips.map { Remuxer.Segment(source: .file($0.source), range: $0.range) }, to: path,
            extraRotation: clips[0].rotation, progress: progress)
        return ExportResult(
            mode: .streamCopy, reason: nil, videoFrames: result.videoFrames, duration: result.duration.seconds,
            hasAudio: result.hasAudio)
    }

    // MARK: - Re-encode

    static func reencode(
        _ project: Project, to path: String, crf: Int, preset: String, progress: ((Double) -> Void)?,
        shouldStop: (() -> Bool)? = nil
    ) throws(MediaError) -> ExportResult {
        let renderer = try TimelineRenderer(project: project)
        let rate = renderer.frameRate
        let encoder = try VideoEncoder(
            settings: .init(
                width: renderer.width, height: renderer.height, frameRate: rate, crf: crf,
                gopSize: max(1, Int(rate.doubleValue * 2)), preset: preset))
        let audioTrack = try mixAudio(project)
        let audioEncoder = try audioTrack.map { _ throws(MediaError) in try AudioEncoder() }
        var streams = [encoder.stream]
        if let audioEncoder { streams.append(audioEncoder.stream) }
        let writer = try MediaWriter(destination: .file(path), streams: streams)

        var audioSamples: [MediaSample] = []
        if let audioTrack, let audioEncoder {
            audioSamples = try audioEncoder.encode(audioTrack.samples) + audioEncoder.finish()
        }
        var audioCursor = 0
        let frameCount = renderer.frameCount
        for index in 0..<frameCount {
            if shouldStop?() == true {
                throw MediaError(.cancelled, operation: "export to \(path)", message: "stopped before the end")
            }
            let time = MediaTime(value: Int64(index) * Int64(rate.denominator), timescale: rate.numerator)
            var picture = try renderer.frame(at: time)
            picture.pts = time
            for sample in try encoder.encode(picture) { try writer.write(sample) }
            // Audio up to this picture's time, so the muxer interleaves without hoarding.
            while audioCursor < audioSamples.count, (audioSamples[audioCursor].pts ?? .zero) <= time {
                try writer.write(audioSamples[audioCursor])
                audioCursor += 1
            }
            progress?(Double(index + 1) / Double(max(frameCount, 1)))
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        while audioCursor < audioSamples.count {
            try writer.write(audioSamples[audioCursor])
            audioCursor += 1
        }
        try writer.finish()
        return ExportResult(
            mode: .reencode, reason: nil, videoFrames: frameCount, duration: project.timeline.duration.seconds,
            hasAudio: audioTrack != nil)
    }

    /// The timeline's audio at 48 kHz stereo: each clip's range decoded and placed at its start,
    /// faded across transitions (linear crossfade; dip-to-black fades out then in). Nil when no
    /// source has audio.
    static func mixAudio(_ project: Project) throws(MediaError) -> AudioBuffer? {
        let rate = 48_000
        let channels = 2
        let clips = project.timeline.clips
        var buffers: [[Float]?] = []
        for clip in clips {
            let reader = try MediaReader(.file(clip.source))
            guard reader.audioStream != nil else {
                buffers.append(nil)
                continue
            }
            let decoder = try AudioDecoder(reader: reader, sampleRate: rate, channels: channels)
            let origin = reader.startTime ?? .zero
            let seekTo = max(.zero, clip.range.start - MediaTime(value: 1, timescale: 2))
            try reader.seek(to: seekTo + origin)
            var decoded: [Float] = []
            var bufferStart: MediaTime?
            let end = clip.range.end + origin
            while let sample = try reader.nextSample() {
                guard sample.streamIndex == decoder.stream.index else { continue }
                if bufferStart == nil { bufferStart = sample.presentationTime }
                if let pts = sample.presentationTime, pts > end { break }
                decoded += try decoder.decode(sample)
            }
            decoded += try decoder.flush()
            let startOffset = Int(
                ((clip.range.start + origin - (bufferStart ?? origin)).seconds * Double(rate)).rounded())
            let wanted = Int((clip.duration.seconds * Double(rate)).rounded())
            var slice = [Float](repeating: 0, count: wanted * channels)
            for frame in 0..<wanted {
                let source = startOffset + frame
                guard source >= 0, source * channels + channels <= decoded.count else { continue }
                for channel in 0..<channels { slice[frame * channels + channel] = decoded[source * channels + channel] }
            }
            buffers.append(slice)
        }
        guard buffers.contains(where: { $0 != nil }) else { return nil }
        let starts = project.timeline.clipStarts
        let totalFrames = Int((project.timeline.duration.seconds * Double(rate)).rounded(.up))
        var mix = [Float](repeating: 0, count: totalFrames * channels)
        for (index, buffer) in buffers.enumerated() {
            guard let buffer else { continue }
            let offset = Int((starts[index].seconds * Double(rate)).rounded())
            let frames = buffer.count / channels
            let fadeOut = clips[index].transitionToNext.map {
                ($0.kind, Int(($0.duration.seconds * Double(rate)).rounded()))
            }
            let fadeIn =
                index > 0
                ? clips[index - 1].transitionToNext.map {
                    ($0.kind, Int(($0.duration.seconds * Double(rate)).rounded()))
                } : nil
            for frame in 0..<frames where offset + frame < totalFrames {
                var gain: Float = 1
                if let (kind, length) = fadeIn, frame < length {
                    let t = Float(frame) / Float(max(length, 1))
                    gain *= kind == .crossfade ? t : max(0, 2 * t - 1)
                }
                if let (kind, length) = fadeOut, frame >= frames - length {
                    let t = Float(frame - (frames - length)) / Float(max(length, 1))
                    gain *= kind == .crossfade ? 1 - t : max(0, 1 - 2 * t)
                }
                for channel in 0..<channels {
                    mix[(offset + frame) * channels + channel] += buffer[frame * channels + channel] * gain
                }
            }
        }
        return AudioBuffer(sampleRate: rate, channels: channels, samples: mix)
    }
}
