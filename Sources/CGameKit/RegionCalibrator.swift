import CameraCommon
import CameraIO

/// Finds where a game writes a keyword ("you fragged", "eliminated") by reading whole frames of a
/// recording at a low rate, and proposes a profile region around it: the user names the words, the
/// recording shows the place, nobody guesses fractions.
public enum RegionCalibrator {
    /// One line that contained the keyword.
    public struct Sighting: Sendable, Codable, Equatable {
        /// Seconds from the start of the recording.
        public var time: Double
        public var text: String
        public var confidence: Double
        /// Where the line was, as fractions of the frame.
        public var box: NormalizedRect
    }

    public struct Result: Sendable, Codable {
        /// The proposed region (with a margin for longer names and stacked lines); nil when the
        /// keyword was never read.
        public var region: NormalizedRect?
        /// How the lines are aligned: `left`, `centre` or `right` (the side names grow towards).
        public var alignment: String?
        /// The sightings the region was built from, and those far from the rest (left out).
        public var sightings: [Sighting]
        public var outliers: [Sighting]
        public var framesScanned: Int
        public var mediaSeconds: Double
    }

    /// Frames read again band by band when no whole frame showed the keyword.
    static let framesReadInBands = 3

    /// Scans `source` every `interval` seconds (at most `maxFrames` frames) for lines containing
    /// `keyword` (matched as a profile's keyword is: case, accents and one misread letter forgiven).
    ///
    /// - Throws: ``MediaError`` for a source that cannot be read or an OCR engine that cannot load.
    public static func scan(
        _ source: MediaSource, keyword: String, interval: Double = 1, maxFrames: Int = 180,
        readerOptions: ReaderOptions = ReaderOptions(), progress: ((Double) -> Void)? = nil
    ) throws(MediaError) -> Result {
        let rule = GameProfile.EventRule(type: "match", keywords: [keyword], minimumConfidence: 0.3)
        let matcher = GameProfile(
            name: "calibration", region: NormalizedRect(x: 0, y: 0, width: 1, height: 1), events: [rule])
        let recognizer = try TesseractRecognizer()
        let reader = try MediaReader(source, options: readerOptions)
        defer { reader.close() }
        guard let video = reader.videoStream else {
            throw MediaError(
                .invalidArgument, operation: "calibrate \(source)", message: "the source has no video stream")
        }
        let decoder = try VideoDecoder(reader: reader, streamIndex: video.index, format: .yuv420p)
        // The region found is of the picture as it is shown (a phone's recording may be stored turned).
        decoder.upright = true
        decoder.minimumInterval = MediaTime(seconds: max(0.1, interval))
        // Sparse text anywhere, light or dark: the whole frame is one region.
        let options = RecognitionOptions(pageSegmentation: .automatic, polarity: .automatic)
        let whole = NormalizedRect(x: 0, y: 0, width: 1, height: 1)
        let start = reader.startTime ?? .zero
        var sightings: [Sighting] = []
        var scanned = 0
        var position = 0.0
        // The first frames, read again band by band if the whole frames showed nothing (a screenshot
        // over busy scenery: one small line among many colour edges).
        var unread: [(time: Double, frame: VideoFrame)] = []
        func look(in frame: VideoFrame, region: NormalizedRect, options: RecognitionOptions, time: Double)
            throws(MediaError)
        {
            guard let prepared = try TextPreprocessor.prepare(frame, region: region, options: options) else { return }
            for observation in try recognizer.recognize(prepared, options: options)
            where !matcher.events(in: [observation]).isEmpty {
                // Boxes come as fractions of the region read; a band's may be the whole band's height.
                let box = NormalizedRect(
                    x: region.x + observation.box.x * region.width, y: region.y + observation.box.y * region.height,
                    width: observation.box.width * region.width, height: observation.box.height * region.height)
                sightings.append(
                    Sighting(time: time, text: observation.text, confidence: observation.confidence, box: box))
            }
        }
        func read(_ frame: VideoFrame) throws(MediaError) {
            let time = ((frame.pts ?? start) - start).seconds
            position = max(position, time)
            scanned += 1
            progress?(Double(scanned) / Double(maxFrames))
            let before = sightings.count
            try look(in: frame, region: whole, options: options, time: time)
            if sightings.count == before, unread.count < Self.framesReadInBands { unread.append((time, frame)) }
        }
        reading: while scanned < maxFrames, let sample = try reader.nextSample() {
            guard sample.streamIndex == video.index else { continue }
            for frame in try decoder.decode(sample) {
                try read(frame)
                if scanned >= maxFrames { break reading }
            }
        }
        // A still picture (a screenshot) or the last frames of a video come out when the decoder drains.
        if scanned < maxFrames {
            for frame in try decoder.flush() where scanned < maxFrames { try read(frame) }
        }
        if sightings.isEmpty {
            // Bands a tenth of the height tall, overlapping by half (so a line up to 5 % of the height
            // lies whole in one), each read as one block of light text. The recogniser may give a
            // band's whole height as the line's box, so bands are kept thin.
            let band = RecognitionOptions(pageSegmentation: .singleBlock, polarity: .light)
            for (time, frame) in unread {
                for top in stride(from: 0.0, through: 0.9, by: 0.05) {
                    try look(
                        in: frame, region: NormalizedRect(x: 0, y: top, width: 1, height: 0.1), options: band,
                        time: time)
                }
            }
        }
        let proposal = propose(sightings)
        return Result(
            region: proposal?.region, alignment: proposal?.alignment, sightings: proposal?.kept ?? [],
            outliers: proposal?.outliers ?? sightings, framesScanned: scanned, mediaSeconds: position)
    }

    /// A region around the sightings that agree on a place: those whose centre lies near the
    /// median centre, widened by about a word on both sides, more on the side names grow towards
    /// (half their width again, at least a tenth of the frame), and by most of a line above and below.
    static func propose(_ sightings: [Sighting]) -> (
        region: NormalizedRect, alignment: String, kept: [Sighting], outliers: [Sighting]
    )? {
        guard !sightings.isEmpty else { return nil }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let centreX = median(sightings.map { $0.box.x + $0.box.width / 2 })
        let centreY = median(sightings.map { $0.box.y + $0.box.height / 2 })
        let kept = sightings.filter {
            abs($0.box.x + $0.box.width / 2 - centreX) < 0.2 && abs($0.box.y + $0.box.height / 2 - centreY) < 0.15
        }
        let outliers = sightings.filter { !kept.contains($0) }
        let left = kept.map(\.box.x).min()!
        let right = kept.map { $0.box.x + $0.box.width }.max()!
        let top = kept.map(\.box.y).min()!
        let bottom = kept.map { $0.box.y + $0.box.height }.max()!
        let line = median(kept.map(\.box.height))
        // Which edge stays put while the names change: the one whose positions spread least.
        func spread(_ values: [Double]) -> Double { values.max()! - values.min()! }
        let spreads = [
            ("left", spread(kept.map(\.box.x))),
            ("centre", spread(kept.map { $0.box.x + $0.box.width / 2 })),
            ("right", spread(kept.map { $0.box.x + $0.box.width })),
        ]
        let alignment = spreads.min { $0.1 < $1.1 }!.0
        let extra = max((right - left) * 0.5, 0.1)
        // Whole-frame reading often loses a word at a line's ends (a name over busy scenery), so
        // both sides get about a word more.
        var x0 = left - max(line * 3, 0.03)
        var x1 = right + max(line * 3, 0.03)
        switch alignment {
        case "left": x1 += extra
        case "right": x0 -= extra
        default:
            x0 -= extra / 2
            x1 += extra / 2
        }
        let y0 = max(0, top - line * 0.75)
        let y1 = min(1, bottom + line * 0.75)
        x0 = max(0, x0)
        x1 = min(1, x1)
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let region = NormalizedRect(
            x: rounded(x0), y: rounded(y0), width: rounded(x1 - x0), height: rounded(y1 - y0))
        return (region, alignment, kept, outliers)
    }
}
