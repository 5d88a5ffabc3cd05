import CameraCommon
import CameraIO
import FoundationEssentials

/// A JPEG of a camera's current picture: connects with the low-latency options, decodes the first
/// keyframe and encodes it.
public enum Snapshot {
    /// - Throws: ``MediaError`` for a camera that cannot be reached, refuses the login or sends no
    ///   picture within `timeout`.
    public static func jpeg(
        url: String, timeout: Duration = .seconds(10), width: Int? = nil, quality: Int = 85
    ) throws(MediaError) -> [UInt8] {
        let reader = try MediaReader(MediaSource(parsing: url), options: .lowLatency(timeout: timeout))
        defer { reader.close() }
        guard let video = reader.videoStream else {
            throw MediaError(.invalidData, operation: "snapshot \(url)", message: "the stream has no video")
        }
        var size: (width: Int, height: Int)?
        if let width, let sourceWidth = video.width, let sourceHeight = video.height, sourceWidth > 0 {
            size = (width & ~1, max(2, (sourceHeight * width / sourceWidth) & ~1))
        }
        let decoder = try VideoDecoder(reader: reader, streamIndex: video.index, format: .rgba, size: size)
        decoder.decodesKeyframesOnly = true
        let started = ContinuousClock.now
        while let sample = try reader.nextSample() {
            if let frame = try decoder.decode(sample).first {
                return try ImageEncoder.encode(frame, as: .jpeg, quality: quality)
            }
            if ContinuousClock.now - started > timeout { break }
        }
        throw MediaError(.timedOut, operation: "snapshot \(url)", message: "no picture arrived")
    }
}

/// Records a camera's samples into MP4 segments (default 60 s) in a folder, cutting only at
/// keyframes so each segment plays on its own. Each segment appears whole or not at all (the
/// writer renames it into place when it is finished).
public final class SegmentRecorder {
    public let directory: String
    public let segmentDuration: MediaTime
    public let prefix: String
    private let streams: [StreamInfo]
    private var writer: MediaWriter?
    private var segmentStart: MediaTime?
    private var currentPath: String?
    /// Segments finished so far.
    public private(set) var segments: [String] = []

    public init(directory: String, streams: [StreamInfo], prefix: String = "segment", segmentSeconds: Double = 60)
        throws(MediaError)
    {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.writeFailed, operation: "record into \(directory)", message: "cannot create the folder")
        }
        guard segmentSeconds > 0 else {
            throw MediaError(.invalidArgument, operation: "record", message: "segments must last more than 0 s")
        }
        self.directory = directory
        self.prefix = prefix
        self.segmentDuration = MediaTime(seconds: segmentSeconds)
        var kept: [StreamInfo] = []
        if let video = streams.first(where: { $0.mediaType == .video }) { kept.append(video) }
        if let audio = streams.first(where: { $0.mediaType == .audio }) { kept.append(audio) }
        self.streams = kept
    }

    /// Writes one sample; samples before the first keyframe are skipped.
    public func write(_ sample: MediaSample) throws(MediaError) {
        let isKey = sample.mediaType == .video && sample.isKeyframe
        if let start = segmentStart, isKey, let time = sample.presentationTime, time - start >= segmentDuration {
            try finishSegment()
        }
        if writer == nil {
            guard isKey, let time = sample.presentationTime else { return }
            let path = directory + "/\(prefix)-\(String(segments.count + 1).leftPadded(to: 4)).mp4"
            writer = try MediaWriter(destination: .file(path), container: .mp4(), streams: streams)
            segmentStart = time
            currentPath = path
        }
        guard let start = segmentStart else { return }
        if let time = sample.presentationTime, time < start, sample.mediaType != .video { return }
        try writer?.write(sample.shifted(by: -start))
    }

    /// Finishes the open segment (call at the end).
    public func finish() throws(MediaError) {
        try finishSegment()
    }

    private func finishSegment() throws(MediaError) {
        guard let writer, let currentPath else { return }
        self.writer = nil
        self.segmentStart = nil
        self.currentPath = nil
        try writer.finish()
        segments.append(currentPath)
    }
}
