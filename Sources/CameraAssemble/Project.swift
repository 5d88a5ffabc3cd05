import CameraCommon
import CameraEffects
import CameraIO
import FoundationEssentials

/// A saved edit: the timeline and the export settings, as JSON.
public struct Project: Sendable, Codable, Equatable {
    /// File format version; files from a newer CameraCore are refused with a clear error.
    public var version: Int
    public var timeline: Timeline
    /// Output frame size; nil uses the first clip's (as displayed, after rotation).
    public var width: Int?
    public var height: Int?
    /// Output frame rate; nil uses the first clip's.
    public var frameRate: Rational?

    public static let currentVersion = 1

    public init(timeline: Timeline, width: Int? = nil, height: Int? = nil, frameRate: Rational? = nil) {
        self.version = Self.currentVersion
        self.timeline = timeline
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// Reads and checks a project file: JSON shape, version, every source present and readable,
    /// every trim inside its source, every effect buildable.
    ///
    /// - Throws: ``MediaError`` naming the file and what is wrong (`clips[1]: … lasts 4s`).
    public static func load(_ path: String) throws(MediaError) -> Project {
        let project = try JSONFile.read(Project.self, from: path, operation: "open project \(path)")
        try project.validate(operation: "open project \(path)")
        return project
    }

    /// Checks sources, trims and effects (see ``load(_:)``).
    public func validate(operation: String = "check project") throws(MediaError) {
        guard version <= Self.currentVersion else {
            throw MediaError(
                .unsupported, operation: operation,
                message: "project version \(version) is newer than this CameraCore (\(Self.currentVersion))")
        }
        guard !timeline.clips.isEmpty else {
            throw MediaError(.invalidArgument, operation: operation, message: "the timeline has no clips")
        }
        var durations: [String: MediaTime] = [:]
        for (index, clip) in timeline.clips.enumerated() {
            let name = "clips[\(index)] (\(clip.id))"
            if durations[clip.source] == nil {
                do throws(MediaError) {
                    let reader = try MediaReader(.file(clip.source))
                    guard reader.videoStream != nil else {
                        throw MediaError(.invalidData, operation: operation, message: "has no video")
                    }
                    durations[clip.source] = reader.duration ?? .zero
                } catch {
                    throw MediaError(
                        error.kind, operation: operation, message: "\(name): source \(clip.source): \(error.message)")
                }
            }
            let duration = durations[clip.source] ?? .zero
            if clip.range.isEmpty || clip.range.start < .zero
                || clip.range.end > duration + MediaTime(value: 1, timescale: 1000)
            {
                throw MediaError(
                    .invalidArgument, operation: operation,
                    message: "\(name): range \(clip.range) is outside its source, which lasts \(duration.seconds)s")
            }
            if let effects = clip.effects {
                do throws(MediaError) {
                    _ = try effects.makeStack()
                } catch {
                    throw MediaError(error.kind, operation: operation, message: "\(name): \(error.message)")
                }
            }
        }
        var check = TimelineEditor(sourceDurations: durations)
        for clip in timeline.clips {
            var bare = clip
            bare.transitionToNext = nil
            try check.apply(.append(bare))
        }
        for (index, clip) in timeline.clips.enumerated() where clip.transitionToNext != nil {
            try check.apply(.setTransition(index: index, clip.transitionToNext))
        }
    }

    /// Saves atomically as pretty JSON.
    public func save(to path: String) throws(MediaError) {
        try JSONFile.write(self, to: path, operation: "save project \(path)")
    }
}
