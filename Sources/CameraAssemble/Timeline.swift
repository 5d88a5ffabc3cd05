import CameraCommon
import CameraEffects

/// One piece of a source video on the timeline.
public struct Clip: Sendable, Codable, Equatable {
    /// Stable identity across edits (for UIs and undo).
    public var id: String
    /// Path of the source video.
    public var source: String
    /// The part of the source this clip plays, in source time.
    public var range: TimeRange
    /// Flipped left–right.
    public var mirrored: Bool
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// Effects drawn on this clip's frames, bottom to top.
    public var effects: EffectStackConfiguration?
    /// How this clip hands over to the next one; nil is a hard cut.
    public var transitionToNext: Transition?

    public init(
        id: String, source: String, range: TimeRange, mirrored: Bool = false, rotation: Int = 0,
        effects: EffectStackConfiguration? = nil, transitionToNext: Transition? = nil
    ) {
        self.id = id
        self.source = source
        self.range = range
        self.mirrored = mirrored
        self.rotation = rotation
        self.effects = effects
        self.transitionToNext = transitionToNext
    }

    public var duration: MediaTime { range.duration }
}

/// A transition between two neighbouring clips; they overlap by `duration`.
public struct Transition: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The outgoing picture fades into the incoming one (audio crossfades too).
        case crossfade
        /// Out to black over the first half, in from black over the second.
        case dipToBlack
    }

    public var kind: Kind
    public var duration: MediaTime

    public init(kind: Kind, duration: MediaTime) {
        self.kind = kind
        self.duration = duration
    }
}

/// What plays when: clips in order, each overlapping the next by its transition. A value — edits
/// make new timelines, so undo is keeping the old one.
public struct Timeline: Sendable, Codable, Equatable {
    public var clips: [Clip]

    public init(clips: [Clip] = []) { self.clips = clips }

    /// Where each clip starts on the timeline.
    public var clipStarts: [MediaTime] {
        var starts: [MediaTime] = []
        var cursor = MediaTime.zero
        for (index, clip) in clips.enumerated() {
            starts.append(cursor)
            cursor += clip.duration
            if index < clips.count - 1, let transition = clip.transitionToNext { cursor -= transition.duration }
        }
        return starts
    }

    public var duration: MediaTime {
        guard let last = clips.last, let start = clipStarts.last else { return .zero }
        return start + last.duration
    }

    /// The clips sounding/visible at timeline time `t`: one, or two inside a transition (the
    /// outgoing first) with the incoming clip's weight 0…1.
    public func clips(at time: MediaTime) -> [(index: Int, localTime: MediaTime, weight: Double)] {
        let starts = clipStarts
        var result: [(Int, MediaTime, Double)] = []
        for (index, clip) in clips.enumerated() {
            let start = starts[index]
            guard time >= start, time < start + clip.duration else { continue }
            result.append((index, clip.range.start + (time - start), 1))
        }
        if result.count == 2, let transition = clips[result[0].0].transitionToNext {
            let incomingStart = starts[result[1].0]
            let progress = (time - incomingStart).seconds / max(transition.duration.seconds, 1e-9)
            result[1].2 = min(1, max(0, progress))
        }
        return result
    }
}
