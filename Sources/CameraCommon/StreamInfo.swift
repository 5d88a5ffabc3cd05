/// The kind of a stream.
public enum MediaType: String, Sendable, Codable, Hashable {
    case video, audio, subtitle, data, unknown
}

/// What a stream carries, as read from a container or a network source: enough to decode it or to
/// copy its samples into another container.
public struct StreamInfo: Sendable, Hashable, Codable {
    /// Position in the source's stream list.
    public var index: Int
    public var mediaType: MediaType
    /// Codec name as FFmpeg spells it: `h264`, `hevc`, `aac`, `opus`, ...
    public var codec: String
    /// Timestamps of this stream's samples count ticks of `1 / timeBase` seconds.
    public var timeBase: Int32
    /// Pixel size for video; nil otherwise.
    public var width: Int?
    public var height: Int?
    /// Average frame rate for video when known (e.g. 30000/1001).
    public var frameRate: Rational?
    /// Audio sample rate and channel count; nil for video.
    public var sampleRate: Int?
    public var channels: Int?
    /// Average bit rate in bits per second when the container states one.
    public var bitRate: Int?
    /// Stream duration when the container states one.
    public var duration: MediaTime?
    /// Rotation in degrees from the display matrix (0, 90, 180, 270), 0 when absent: how far a
    /// player turns the stored picture clockwise to show it.
    public var rotation: Int
    /// Codec configuration (e.g. H.264 avcC with SPS/PPS) needed to decode or remux.
    public var extradata: [UInt8]

    public init(
        index: Int, mediaType: MediaType, codec: String, timeBase: Int32, width: Int? = nil,
        height: Int? = nil, frameRate: Rational? = nil, sampleRate: Int? = nil, channels: Int? = nil,
        bitRate: Int? = nil, duration: MediaTime? = nil, rotation: Int = 0, extradata: [UInt8] = []
    ) {
        self.index = index
        self.mediaType = mediaType
        self.codec = codec
        self.timeBase = timeBase
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.duration = duration
        self.rotation = rotation
        self.extradata = extradata
    }

    /// The picture's size as a player shows it (``rotation`` applied: a quarter turn swaps width
    /// and height); nil for a stream that is not video.
    public var shownSize: (width: Int, height: Int)? {
        guard let width, let height else { return nil }
        return rotation % 180 == 90 ? (height, width) : (width, height)
    }

    /// Frames per second as a number, when known.
    public var framesPerSecond: Double? {
        guard let frameRate, frameRate.numerator > 0, frameRate.denominator > 0 else { return nil }
        return frameRate.doubleValue
    }
}

/// A ratio of two integers, for frame rates (30000/1001) and aspect ratios.
public struct Rational: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int32
    public var denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    public var description: String { "\(numerator)/\(denominator)" }
}
