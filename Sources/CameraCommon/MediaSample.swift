/// One compressed packet (an encoded video frame or a run of audio frames) that owns its bytes.
///
/// This is what buffers hold: 30 s of 1080p60 H.264 at 8 Mbit/s is about 30 MB as samples versus
/// about 5.6 GB as raw frames. `data` is copy-on-write, so handing a sample to several subscribers
/// shares the bytes rather than copying them.
public struct MediaSample: Sendable {
    /// The encoded bytes.
    public var data: [UInt8]
    /// Presentation time; nil when the container gave none.
    public var pts: MediaTime?
    /// Decode time; nil when the container gave none.
    public var dts: MediaTime?
    /// How long the sample lasts; zero when unknown.
    public var duration: MediaTime
    /// Whether decoding can start at this sample (an IDR / key frame).
    public var isKeyframe: Bool
    /// Index of the stream in its source's stream list.
    public var streamIndex: Int
    /// Kind of stream, so consumers need not look up the stream list.
    public var mediaType: MediaType

    public init(
        data: [UInt8], pts: MediaTime?, dts: MediaTime?, duration: MediaTime = .zero,
        isKeyframe: Bool, streamIndex: Int, mediaType: MediaType
    ) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.streamIndex = streamIndex
        self.mediaType = mediaType
    }

    /// The time used for ordering in decode order: dts when known, else pts.
    public var decodeTime: MediaTime? { dts ?? pts }
    /// The time used for presentation: pts when known, else dts.
    public var presentationTime: MediaTime? { pts ?? dts }

    /// The same sample with its timestamps moved by `offset` (e.g. rebased so a clip starts at 0).
    public func shifted(by offset: MediaTime) -> MediaSample {
        var copy = self
        copy.pts = pts.map { $0 + offset }
        copy.dts = dts.map { $0 + offset }
        return copy
    }
}
