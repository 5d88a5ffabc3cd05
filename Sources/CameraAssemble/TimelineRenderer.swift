import CameraCommon
import CameraEffects
import CameraIO
import CameraTransform

/// Makes the pictures of a timeline: the frame at any time (sequential playback, scrubbing),
/// contact sheets, and the frames a re-encoding export writes.
public final class TimelineRenderer {
    public let project: Project
    public let width: Int
    public let height: Int
    public let frameRate: Rational
    /// One decoder per clip, not per source: two clips of the same file meet in a transition, and
    /// a shared cursor would seek back and forth on every frame of it.
    private var cursors: [Int: ClipCursor] = [:]
    private var stacks: [Int: LayerStack] = [:]

    /// - Throws: ``MediaError`` when a source cannot be opened or an effect cannot be built.
    public init(project: Project) throws(MediaError) {
        guard let first = project.timeline.clips.first else {
            throw MediaError(.invalidArgument, operation: "render timeline", message: "the timeline has no clips")
        }
        self.project = project
        let cursor = try ClipCursor(source: first.source)
        cursors[0] = cursor
        let sourceWidth = cursor.stream.width ?? 1280
        let sourceHeight = cursor.stream.height ?? 720
        let turned = (first.rotation + cursor.stream.rotation) % 180 == 90
        width = (project.width ?? (turned ? sourceHeight : sourceWidth)) & ~1
        height = (project.height ?? (turned ? sourceWidth : sourceHeight)) & ~1
        frameRate = project.frameRate ?? cursor.stream.frameRate ?? Rational(30, 1)
        for (index, clip) in project.timeline.clips.enumerated() {
            if let effects = clip.effects, !effects.layers.isEmpty { stacks[index] = try effects.makeStack() }
        }
    }

    /// Number of output frames.
    public var frameCount: Int {
        Int((project.timeline.duration.seconds * frameRate.doubleValue).rounded(.up))
    }

    /// The timeline's picture at `time`: the clip's frame turned, mirrored, with its effects, fitted
    /// to the output size; inside a transition the two clips mixed.
    public func frame(at time: MediaTime) throws(MediaError) -> VideoFrame {
        let active = project.timeline.clips(at: time)
        guard let outgoing = active.first else { return FrameOps.black(width: width, height: height) }
        var picture = try clipFrame(index: outgoing.index, localTime: outgoing.localTime)
        if active.count == 2, let transition = project.timeline.clips[outgoing.index].transitionToNext {
            let incoming = active[1]
            let next = try clipFrame(index: incoming.index, localTime: incoming.localTime)
            switch transition.kind {
            case .crossfade:
                picture = FrameOps.blend(picture, next, weight: incoming.weight)
            case .dipToBlack:
                let black = FrameOps.black(width: width, height: height)
                picture =
                    incoming.weight < 0.5
                    ? FrameOps.blend(picture, black, weight: incoming.weight * 2)
                    : FrameOps.blend(black, next, weight: (incoming.weight - 0.5) * 2)
            }
        }
        picture.pts = time
        return picture
    }

    private func clipFrame(index: Int, localTime: MediaTime) throws(MediaError) -> VideoFrame {
        let clip = project.timeline.clips[index]
        let cursor = try cursor(for: index)
        guard var frame = try cursor.frame(at: localTime) else { return FrameOps.black(width: width, height: height) }
        let rotation = (clip.rotation + cursor.stream.rotation) % 360
        if rotation != 0 { frame = frame.rotated(clockwise: rotation) }
        if clip.mirrored { frame = FrameOps.mirrored(frame) }
        frame = FrameOps.fitted(frame, width: width, height: height)
        if let stack = stacks[index] {
            frame = stack.render(frame, time: localTime - clip.range.start)
        }
        return frame
    }

    private func cursor(for index: Int) throws(MediaError) -> ClipCursor {
        if let cursor = cursors[index] { return cursor }
        let cursor = try ClipCursor(source: project.timeline.clips[index].source)
        cursors[index] = cursor
        // Clips play in order: a cursor two clips back is done with, so free its decoder.
        cursors[index - 2] = nil
        return cursor
    }

    /// A grid of `count` thumbnails evenly spread over the timeline, `columns` wide, each
    /// `thumbnailWidth` pixels wide, on black.
    public func contactSheet(count: Int = 12, columns: Int = 4, thumbnailWidth: Int = 240) throws(MediaError)
        -> VideoFrame
    {
        let count = max(1, count)
        let columns = max(1, min(columns, count))
        let rows = (count + columns - 1) / columns
        let thumbHeight = max(2, thumbnailWidth * height / max(width, 1)) & ~1
        let gap = 4
        let sheetWidth = columns * thumbnailWidth + (columns + 1) * gap
        let sheetHeight = rows * thumbHeight + (rows + 1) * gap
        var sheet = FrameOps.black(width: sheetWidth, height: sheetHeight)
        let duration = project.timeline.duration
        for index in 0..<count {
            let time = MediaTime(seconds: duration.seconds * (Double(index) + 0.5) / Double(count))
            let picture = try frame(at: time)
            let thumb = try picture.scaled(width: thumbnailWidth, height: thumbHeight)
            let left = gap + (index % columns) * (thumbnailWidth + gap)
            let top = gap + (index / columns) * (thumbHeight + gap)
            for y in 0..<thumb.height {
                let from = y * thumb.planes[0].bytesPerRow
                let to = ((top + y) * sheetWidth + left) * 4
                sheet.planes[0].bytes.replaceSubrange(
                    to..<(to + thumb.width * 4), with: thumb.planes[0].bytes[from..<(from + thumb.width * 4)])
            }
        }
        return sheet
    }
}
