import CameraCommon

/// What `cameracore probe` reports about a source: container, streams and, from a scan of every
/// packet (no decoding), exact frame counts and keyframe positions.
public struct ProbeReport: Sendable, Codable, Equatable {
    /// One stream's facts.
    public struct Stream: Sendable, Codable, Equatable {
        public var index: Int
        public var type: MediaType
        public var codec: String
        public var width: Int?
        public var height: Int?
        /// Average frames per second (video).
        public var frameRate: Double?
        public var sampleRate: Int?
        public var channels: Int?
        public var bitRate: Int?
        public var rotation: Int
        /// Samples (frames for video) counted by the scan.
        public var sampleCount: Int
        /// Seconds from the first sample's start to the last sample's end.
        public var duration: Double?
        /// Presentation times (seconds, from the source start) of every keyframe, video only.
        public var keyframeTimes: [Double]?
        /// Frames from one keyframe to the next: the GOP length (video only; nil with one keyframe).
        public var keyframeInterval: KeyframeInterval?
    }

    /// GOP statistics in frames and seconds.
    public struct KeyframeInterval: Sendable, Codable, Equatable {
        public var minFrames: Int
        public var maxFrames: Int
        public var meanSeconds: Double
    }

    /// The source as given, credentials redacted.
    public var source: String
    public var format: String
    /// Container duration in seconds when stated.
    public var duration: Double?
    public var streams: [Stream]

    /// Opens `source`, reads every packet (stopping after `maxSeconds` of media for live sources)
    /// and reports.
    public static func probe(_ source: MediaSource, maxSeconds: Double? = nil, options: ReaderOptions = ReaderOptions())
        throws(MediaError) -> ProbeReport
    {
        let reader = try MediaReader(source, options: options)
        let origin = reader.startTime ?? .zero
        var counts = [Int](repeating: 0, count: reader.streams.count)
        var firstTime = [MediaTime?](repeating: nil, count: reader.streams.count)
        var lastEnd = [MediaTime?](repeating: nil, count: reader.streams.count)
        // Per video stream: presentation times of all frames and of keyframes, sorted later.
        var framePTS: [Int: [MediaTime]] = [:]
        var keyframePTS: [Int: [MediaTime]] = [:]
        let limit = maxSeconds.map { origin + MediaTime(seconds: $0) }
        while let sample = try reader.nextSample() {
            let index = sample.streamIndex
            counts[index] += 1
            guard let pts = sample.presentationTime else { continue }
            if let limit, pts > limit { break }
            firstTime[index] = min(firstTime[index] ?? pts, pts)
            lastEnd[index] = max(lastEnd[index] ?? pts, pts + sample.duration)
            if sample.mediaType == .video {
                framePTS[index, default: []].append(pts)
                if sample.isKeyframe { keyframePTS[index, default: []].append(pts) }
            }
        }
        let streams = reader.streams.map { info -> Stream in
            let index = info.index
            var keyframeTimes: [Double]?
            var interval: KeyframeInterval?
            if info.mediaType == .video {
                let frames = (framePTS[index] ?? []).sorted()
                let keys = (keyframePTS[index] ?? []).sorted()
                keyframeTimes = keys.map { ($0 - origin).seconds }
                if keys.count >= 2 {
                    // Frame positions of keyframes in presentation order give GOP lengths in frames.
                    var positions: [Int] = []
                    var cursor = 0
                    for key in keys {
                        while cursor < frames.count && frames[cursor] < key { cursor += 1 }
                        positions.append(cursor)
                    }
                    let gaps = zip(positions.dropFirst(), positions).map { $0 - $1 }
                    let seconds = (keys[keys.count - 1] - keys[0]).seconds / Double(keys.count - 1)
                    interval = KeyframeInterval(
                        minFrames: gaps.min() ?? 0, maxFrames: gaps.max() ?? 0, meanSeconds: seconds)
                }
            }
            var duration: Double?
            if let first = firstTime[index], let last = lastEnd[index] { duration = (last - first).seconds }
            return Stream(
                index: index, type: info.mediaType, codec: info.codec, width: info.width, height: info.height,
                frameRate: info.framesPerSecond, sampleRate: info.sampleRate, channels: info.channels,
                bitRate: info.bitRate,
                rotation: info.rotation, sampleCount: counts[index], duration: duration, keyframeTimes: keyframeTimes,
                keyframeInterval: interval)
        }
        return ProbeReport(
            source: source.description, format: reader.formatName, duration: reader.duration?.seconds, streams: streams)
    }
}
