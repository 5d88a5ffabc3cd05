import CameraCommon
import CameraIO

/// Decodes one source forward, answering "which frame shows at source time t?" — the last frame
/// whose presentation time is at or before t. Seeks (to the keyframe before) only when asked to
/// go backwards or far ahead, so sequential playback and export decode each frame once.
final class ClipCursor {
    let source: String
    private let reader: MediaReader
    private let decoder: VideoDecoder
    private let videoIndex: Int
    private var current: VideoFrame?
    private var pending: [VideoFrame] = []
    private var finished = false
    let stream: StreamInfo

    init(source: String) throws(MediaError) {
        self.source = source
        reader = try MediaReader(.file(source))
        guard let video = reader.videoStream else {
            throw MediaError(.invalidData, operation: "open \(source)", message: "the file has no video")
        }
        stream = video
        videoIndex = video.index
        decoder = try VideoDecoder(reader: reader, format: .rgba)
    }

    /// The frame displayed at `time` (source time, from the source's start).
    func frame(at time: MediaTime) throws(MediaError) -> VideoFrame? {
        let origin = reader.startTime ?? .zero
        let target = time + origin
        if let current, let pts = current.pts, target < pts || target - pts > MediaTime(value: 5, timescale: 1) {
            try restart(at: target)
        } else if current == nil && pending.isEmpty && !finished {
            try restart(at: target)
        }
        while true {
            if let next = pending.first {
                if let pts = next.pts, pts > target { break }
                current = pending.removeFirst()
                continue
            }
            if finished { break }
            try decodeMore()
        }
        return current.map { frame in
            var shifted = frame
            shifted.pts = frame.pts.map { $0 - origin }
            return shifted
        }
    }

    private func restart(at target: MediaTime) throws(MediaError) {
        try reader.seek(to: target)
        _ = try decoder.flush()
        current = nil
        pending = []
        finished = false
    }

    private func decodeMore() throws(MediaError) {
        while let sample = try reader.nextSample() {
            guard sample.streamIndex == videoIndex else { continue }
            let frames = try decoder.decode(sample)
            if !frames.isEmpty {
                pending += frames
                return
            }
        }
        pending += try decoder.flush()
        finished = true
    }
}
