import CameraCommon

/// One undoable change to a timeline (as in Shotcut: one command per edit).
public enum Edit: Sendable, Equatable {
    case append(Clip)
    case insert(Clip, at: Int)
    /// Moves the clip at `from` so it ends up at index `to`.
    case move(from: Int, to: Int)
    /// New in and/or out points, in source time.
    case trim(index: Int, start: MediaTime?, end: MediaTime?)
    /// Splits a clip at a time relative to the clip's start; the second part gets `newID`.
    case split(index: Int, at: MediaTime, newID: String)
    case delete(index: Int)
    case setMirrored(index: Int, Bool)
    /// Adds clockwise degrees (multiples of 90).
    case rotate(index: Int, degrees: Int)
    case setTransition(index: Int, Transition?)

    /// A short description for undo menus and logs.
    public var name: String {
        switch self {
        case .append: "Append clip"
        case .insert: "Insert clip"
        case .move: "Move clip"
        case .trim: "Trim clip"
        case .split: "Split clip"
        case .delete: "Delete clip"
        case .setMirrored: "Mirror clip"
        case .rotate: "Rotate clip"
        case .setTransition: "Set transition"
        }
    }
}

/// Applies edits to a timeline and keeps undo and redo history.
///
/// Each edit is checked against the timeline and the sources' durations before it changes
/// anything; a refused edit leaves the timeline as it was.
public struct TimelineEditor: Sendable {
    public private(set) var timeline: Timeline
    private var undoStack: [(Edit, Timeline)] = []
    private var redoStack: [(Edit, Timeline)] = []
    /// Source durations, to keep trims inside the media (unknown sources are not checked).
    public var sourceDurations: [String: MediaTime]

    public init(timeline: Timeline = Timeline(), sourceDurations: [String: MediaTime] = [:]) {
        self.timeline = timeline
        self.sourceDurations = sourceDurations
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    /// Name of the edit ``undo()`` would revert.
    public var undoName: String? { undoStack.last?.0.name }

    /// - Throws: ``MediaError`` `invalidArgument` saying what is wrong with the edit.
    public mutating func apply(_ edit: Edit) throws(MediaError) {
        let before = timeline
        timeline = try Self.applying(edit, to: timeline, durations: sourceDurations)
        undoStack.append((edit, before))
        redoStack.removeAll()
    }

    /// Reverts the last edit; false when there is none.
    @discardableResult
    public mutating func undo() -> Bool {
        guard let (edit, before) = undoStack.popLast() else { return false }
        redoStack.append((edit, timeline))
        timeline = before
        return true
    }

    /// Re-applies the last undone edit; false when there is none.
    @discardableResult
    public mutating func redo() -> Bool {
        guard let (edit, after) = redoStack.popLast() else { return false }
        undoStack.append((edit, timeline))
        timeline = after
        return true
    }

    static func applying(_ edit: Edit, to timeline: Timeline, durations: [String: MediaTime]) throws(MediaError)
        -> Timeline
    {
        var clips = timeline.clips
        func fail(_ message: String) -> MediaError {
            MediaError(.invalidArgument, operation: edit.name.lowercased(), message: message)
        }
        func checkIndex(_ index: Int, allowEnd: Bool = false) throws(MediaError) {
            let limit = allowEnd ? clips.count : clips.count - 1
            guard index >= 0, index <= limit else {
                throw fail("clip \(index) does not exist (the timeline has \(clips.count) clips)")
            }
        }
        func checkClip(_ clip: Clip) throws(MediaError) {
            guard !clip.range.isEmpty, clip.range.start >= .zero else {
                throw fail("clip \(clip.id) has an empty or negative range \(clip.range)")
            }
            if let duration = durations[clip.source], clip.range.end > duration + MediaTime(value: 1, timescale: 1000) {
                throw fail(
                    "clip \(clip.id) ends at \(clip.range.end.seconds)s but \(clip.source) lasts \(duration.seconds)s")
            }
            guard [0, 90, 180, 270].contains(clip.rotation) else { throw fail("rotation must be 0, 90, 180 or 270") }
            guard !clips.contains(where: { $0.id == clip.id }) else {
                throw fail("a clip with id \(clip.id) already exists")
            }
        }
        switch edit {
        case .append(let clip):
            try checkClip(clip)
            clips.append(clip)
        case .insert(let clip, let index):
            try checkIndex(index, allowEnd: true)
            try checkClip(clip)
            clips.insert(clip, at: index)
        case .move(let from, let to):
            try checkIndex(from)
            try checkIndex(to)
            clips.insert(clips.remove(at: from), at: to)
        case .trim(let index, let start, let end):
            try checkIndex(index)
            var clip = clips[index]
            clips.remove(at: index)
            clip.range = TimeRange(start: start ?? clip.range.start, end: end ?? clip.range.end)
            if (end ?? clip.range.end) <= (start ?? clip.range.start) {
                throw fail("the out point must be after the in point")
            }
            try checkClip(clip)
            clips.insert(clip, at: index)
        case .split(let index, let offset, let newID):
            try checkIndex(index)
            let clip = clips[index]
            guard offset > .zero, offset < clip.duration else {
                throw fail("split point \(offset.seconds)s is outside clip \(clip.id) (0…\(clip.duration.seconds)s)")
            }
            guard !clips.contains(where: { $0.id == newID }) else {
                throw fail("a clip with id \(newID) already exists")
            }
            var first = clip
            var second = clip
            first.range.end = clip.range.start + offset
            first.transitionToNext = nil
            second.id = newID
            second.range.start = clip.range.start + offset
            clips[index] = first
            clips.insert(second, at: index + 1)
        case .delete(let index):
            try checkIndex(index)
            clips.remove(at: index)
        case .setMirrored(let index, let mirrored):
            try checkIndex(index)
            clips[index].mirrored = mirrored
        case .rotate(let index, let degrees):
            try checkIndex(index)
            guard degrees % 90 == 0 else { throw fail("rotation must be a multiple of 90 degrees, got \(degrees)") }
            clips[index].rotation = ((clips[index].rotation + degrees) % 360 + 360) % 360
        case .setTransition(let index, let transition):
            try checkIndex(index)
            if let transition {
                guard index < clips.count - 1 else { throw fail("the last clip has no next clip to transition to") }
                let limit = min(clips[index].duration, clips[index + 1].duration)
                guard transition.duration > .zero, transition.duration <= limit else {
                    throw fail("a \(transition.duration.seconds)s transition does not fit clips of \(limit.seconds)s")
                }
            }
            clips[index].transitionToNext = transition
        }
        return Timeline(clips: clips)
    }
}
