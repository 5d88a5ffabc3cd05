import CameraCommon
import Synchronization

/// A thread-safe rolling window of the most recent compressed samples (the spec's ContinuousBuffer).
///
/// The spec's version holds decoded `CMSampleBuffer`s; at 1080p60 that is ~5.6 GB for 30 s. This one
/// holds what the encoder produced (~30 MB for 30 s at 8 Mbit/s), so memory follows bitrate, not
/// resolution, and a clip is written by stream copy without re-encoding.
///
/// Invariants, after every call:
/// - the first sample is a video keyframe (eviction removes whole groups of pictures), so anything
///   taken from the front decodes;
/// - the held span is at least `maxDuration` when the input allows (eviction stops while dropping the
///   oldest group would leave less), and at most `maxDuration` plus one group of pictures;
/// - `byteCount <= maxBytes`, even if that means holding less than `maxDuration`.
public final class ContinuousBuffer: Sendable {
    /// Upper bound on the span to keep (soft by one group of pictures).
    public let maxDuration: MediaTime
    /// Hard upper bound on the sample bytes held.
    public let maxBytes: Int

    private let state: Mutex<State>

    struct State {
        var samples: [MediaSample] = []
        /// Index of the first live sample in `samples` (the array is compacted now and then).
        var head = 0
        var bytes = 0
        /// Positions (into `samples`) of video keyframes, oldest first.
        var keyframes: [Int] = []
        var keyframeHead = 0
        /// Last timestamp seen per stream, for samples that arrive without one.
        var lastTime: [Int: MediaTime] = [:]
        var waitingForKeyframe = true
        var dropped = 0
        /// The end (presentation time + duration) of the newest-ending sample held.
        var end: MediaTime?
    }

    public init(maxDuration: MediaTime = MediaTime(value: 30, timescale: 1), maxBytes: Int = 48 * 1024 * 1024) {
        self.maxDuration = maxDuration
        self.maxBytes = maxBytes
        self.state = Mutex(State())
    }

    /// Adds a sample, evicting the oldest groups of pictures when a bound is exceeded.
    ///
    /// Samples before the first video keyframe cannot be decoded and are dropped. A sample without
    /// timestamps (the first packets of an RTSP stream before RTCP sync) takes the last time seen on
    /// its stream; one with no earlier time on its stream is dropped. Both are counted in
    /// ``droppedCount``.
    public func add(_ sample: MediaSample) {
        state.withLock { state in
            var sample = sample
            if sample.decodeTime == nil {
                guard let last = state.lastTime[sample.streamIndex] else {
                    state.dropped += 1
                    return
                }
                sample.pts = last
                sample.dts = last
            }
            state.lastTime[sample.streamIndex] = sample.decodeTime
            let isVideoKeyframe = sample.mediaType == .video && sample.isKeyframe
            if state.waitingForKeyframe {
                guard isVideoKeyframe else {
                    state.dropped += 1
                    return
                }
                state.waitingForKeyframe = false
            }
            if isVideoKeyframe { state.keyframes.append(state.samples.count) }
            state.samples.append(sample)
            state.bytes += sample.data.count
            if let time = sample.presentationTime { state.end = max(state.end ?? time, time + sample.duration) }
            evict(&state)
        }
    }

    private func evict(_ state: inout State) {
        // Bytes: a hard bound. Drop whole groups; if the newest group alone is too big, drop it all
        // and wait for the next keyframe.
        while state.bytes > maxBytes {
            if state.keyframes.count - state.keyframeHead >= 2 {
                dropFront(upTo: state.keyframes[state.keyframeHead + 1], &state)
            } else {
                state.dropped += state.samples.count - state.head
                state = State(lastTime: state.lastTime, waitingForKeyframe: true, dropped: state.dropped)
                return
            }
        }
        // Duration: drop the oldest group while what remains still spans maxDuration.
        guard let newest = state.samples.last?.decodeTime else { return }
        while state.keyframes.count - state.keyframeHead >= 2 {
            let next = state.keyframes[state.keyframeHead + 1]
            guard let nextTime = state.samples[next].decodeTime, newest - nextTime >= maxDuration else { break }
            dropFront(upTo: next, &state)
        }
        // Compact now and then so the dead prefix does not grow without bound.
        if state.head > 4096 && state.head * 2 > state.samples.count {
            let shift = state.head
            state.samples.removeFirst(shift)
            state.keyframes = state.keyframes[state.keyframeHead...].map { $0 - shift }
            state.keyframeHead = 0
            state.head = 0
        }
    }

    private func dropFront(upTo position: Int, _ state: inout State) {
        for index in state.head..<position {
            state.bytes -= state.samples[index].data.count
            state.samples[index] = Self.tombstone
        }
        state.head = position
        state.keyframeHead += 1
    }

    private static let tombstone = MediaSample(
        data: [], pts: nil, dts: nil, isKeyframe: false, streamIndex: -1, mediaType: .unknown)

    /// Everything from the video keyframe at or before `start` through `end`, every stream, in the
    /// order it arrived (decode order). Video runs up to the last sample shown before `end`,
    /// including the references it needs (with B-frames a reference shown just after `end` comes
    /// before it in decode order, so a clip can run a few frames long); other streams while their
    /// presentation time is before `end`. Audio before the keyframe is left out.
    ///
    /// When `start` is older than the buffer, the result begins at the oldest sample.
    public func samples(from start: MediaTime, to end: MediaTime) -> [MediaSample] {
        state.withLock { state in
            guard state.keyframeHead < state.keyframes.count else { return [] }
            // The last keyframe whose presentation time is <= start.
            var first = state.keyframes[state.keyframeHead]
            var low = state.keyframeHead
            var high = state.keyframes.count - 1
            while low <= high {
                let middle = (low + high) / 2
                let position = state.keyframes[middle]
                if let time = state.samples[position].presentationTime, time <= start {
                    first = position
                    low = middle + 1
                } else {
                    high = middle - 1
                }
            }
            let leadIn = state.samples[first].presentationTime ?? start
            // The last video sample (in decode order) shown before `end`; everything video up to it
            // is needed to decode it, nothing after it is.
            var lastVideo = first
            for index in first..<state.samples.count {
                let sample = state.samples[index]
                if sample.mediaType == .video, let time = sample.presentationTime, time < end { lastVideo = index }
            }
            var result: [MediaSample] = []
            for index in first..<state.samples.count {
                let sample = state.samples[index]
                if sample.mediaType == .video {
                    guard index <= lastVideo else { continue }
                } else {
                    guard let time = sample.presentationTime, time < end, time >= leadIn else { continue }
                }
                result.append(sample)
            }
            return result
        }
    }

    /// The span held: from the first keyframe's presentation time to the end of the newest sample.
    public var range: TimeRange? {
        state.withLock { state in
            guard state.head < state.samples.count, let start = state.samples[state.head].presentationTime,
                let end = state.end
            else { return nil }
            return TimeRange(start: start, end: max(start, end))
        }
    }

    /// Presentation times of the video keyframes held, oldest first.
    public var keyframeTimes: [MediaTime] {
        state.withLock { state in
            state.keyframes[state.keyframeHead...].compactMap { state.samples[$0].presentationTime }
        }
    }

    /// Bytes of sample data held.
    public var byteCount: Int { state.withLock { $0.bytes } }
    /// Samples held.
    public var sampleCount: Int { state.withLock { $0.samples.count - $0.head } }
    /// Samples refused (before the first keyframe, or without any time on their stream) or dropped
    /// to keep the byte bound.
    public var droppedCount: Int { state.withLock { $0.dropped } }
    /// Whether the first held sample is a video keyframe (always true when not empty).
    public var startsOnKeyframe: Bool {
        state.withLock { state in
            guard state.head < state.samples.count else { return true }
            let first = state.samples[state.head]
            return first.mediaType == .video && first.isKeyframe
        }
    }
}
