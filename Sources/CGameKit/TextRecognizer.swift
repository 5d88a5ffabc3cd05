import CameraCommon

/// A line of text found in an image (the role of Vision's `VNRecognizedTextObservation`).
public struct TextObservation: Sendable, Hashable, Codable {
    /// The recognised text of one line.
    public var text: String
    /// How sure the recogniser is, 0...1.
    public var confidence: Double
    /// Where the line is, in normalised coordinates of the recognised image (origin top left).
    public var box: NormalizedRect

    public init(text: String, confidence: Double, box: NormalizedRect) {
        self.text = text
        self.confidence = confidence
        self.box = box
    }
}

/// How text in a region is laid out, which tells the recogniser how to segment it (Tesseract's
/// page-segmentation modes).
public enum PageSegmentation: String, Sendable, Codable, CaseIterable {
    /// Find blocks and lines automatically (slowest, most general).
    case automatic
    /// One uniform block of lines, like a kill feed.
    case singleBlock
    /// Exactly one line, like a banner.
    case singleLine
    /// Scattered text in no particular order.
    case sparse

    var tesseractMode: Int32 {
        switch self {
        case .automatic: 3
        case .singleBlock: 6
        case .singleLine: 7
        case .sparse: 11
        }
    }
}

/// Whether the text is lighter or darker than what is behind it. Tesseract reads dark text on a
/// light background best, so light text is inverted first.
public enum TextPolarity: String, Sendable, Codable, CaseIterable {
    case light, dark, automatic
}

/// How to recognise one region.
public struct RecognitionOptions: Sendable, Hashable, Codable {
    public var pageSegmentation: PageSegmentation
    /// Only these characters may be recognised (nil: any). With Tesseract 5.3's LSTM engine a
    /// whitelist made whole lines unreadable on the detection corpus (0 of 5 kills found, against 5 of 5
    /// without), so the shipped profiles leave it off; words are split at any non-alphanumeric
    /// character anyway.
    public var characterWhitelist: String?
    public var polarity: TextPolarity
    /// Crops shorter than this many pixels are upscaled first; Tesseract wants text 20–40 px high.
    public var minimumHeight: Int
    /// A fixed contrast level 0...255 above which a pixel is text; nil finds one per crop (Otsu's
    /// level of the top-hat, at least ``TextPreprocessor/minimumContrast``).
    public var threshold: Int?

    public init(
        pageSegmentation: PageSegmentation = .singleBlock, characterWhitelist: String? = nil,
        polarity: TextPolarity = .automatic, minimumHeight: Int = 48, threshold: Int? = nil
    ) {
        self.threshold = threshold
        self.pageSegmentation = pageSegmentation
        self.characterWhitelist = characterWhitelist
        self.polarity = polarity
        self.minimumHeight = minimumHeight
    }
}

/// Turns an image into lines of text. Implementations need not be thread-safe: the event detector
/// gives each worker its own recogniser.
public protocol TextRecognizer: AnyObject {
    /// Recognises `image` (8-bit grayscale, as produced by ``TextPreprocessor``).
    func recognize(_ image: VideoFrame, options: RecognitionOptions) throws(MediaError) -> [TextObservation]
}
