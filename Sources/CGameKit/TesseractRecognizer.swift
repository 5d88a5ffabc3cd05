import CTesseract
import CameraCommon

/// Text recognition with Tesseract 5's LSTM engine through its C API, one engine per instance.
///
/// An engine is not thread-safe and costs ~30 MB and ~100 ms to load, so the event detector makes one
/// per worker thread and reuses it for every crop. The English model comes from Debian's
/// `tesseract-ocr-eng`; `TESSDATA_PREFIX` or `dataPath` point elsewhere.
///
/// Debian's libtesseract spreads each line over OpenMP threads, about 3× slower on crops this
/// small. OpenMP reads `OMP_THREAD_LIMIT` only when it loads, so set it to 1 before the process
/// starts (the `cgame` command re-executes itself with it; `make test` and `make bench` set it).
public final class TesseractRecognizer: TextRecognizer {
    private let handle: OpaquePointer
    private var currentMode: Int32 = -1
    private var currentWhitelist: String?

    /// Loads the engine for `language`.
    ///
    /// - Throws: ``MediaError`` `notFound` when the language model is not installed.
    public init(language: String = "eng", dataPath: String? = nil) throws(MediaError) {
        guard let handle = TessBaseAPICreate() else {
            throw MediaError(.other, operation: "load Tesseract", message: "out of memory")
        }
        // OEM 1 = LSTM only: the legacy engine's data is not shipped by Debian's tesseract-ocr-eng.
        let result = TessBaseAPIInit2(handle, dataPath, language, OEM_LSTM_ONLY)
        guard result == 0 else {
            TessBaseAPIDelete(handle)
            throw MediaError(
                .notFound, operation: "load Tesseract",
                message:
                    "the '\(language)' model is missing (install tesseract-ocr-\(language) or set TESSDATA_PREFIX)")
        }
        // Kill feeds are not documents: no dictionary bias towards English words for player names.
        _ = TessBaseAPISetVariable(handle, "load_system_dawg", "0")
        _ = TessBaseAPISetVariable(handle, "load_freq_dawg", "0")
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        self.handle = handle
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    public func recognize(_ image: VideoFrame, options: RecognitionOptions) throws(MediaError) -> [TextObservation] {
        guard image.format == .gray8, image.width > 0, image.height > 0 else {
            throw MediaError(
                .invalidArgument, operation: "recognize text",
                message: "expected a grayscale image, got \(image.format) \(image.width)x\(image.height)")
        }
        configure(options)
        let plane = image.planes[0]
        plane.bytes.withUnsafeBufferPointer { bytes in
            TessBaseAPISetImage(
                handle, bytes.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(plane.bytesPerRow))
        }
        // Screen text has no meaningful DPI; 70 keeps Tesseract from warning and guessing.
        TessBaseAPISetSourceResolution(handle, 70)
        defer { TessBaseAPIClear(handle) }
        guard TessBaseAPIRecognize(handle, nil) == 0 else {
            throw MediaError(.other, operation: "recognize text", message: "Tesseract could not process the image")
        }
        guard let iterator = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        var observations: [TextObservation] = []
        let page = TessResultIteratorGetPageIterator(iterator)
        repeat {
            guard let cText = TessResultIteratorGetUTF8Text(iterator, RIL_TEXTLINE) else { continue }
            let text = String(cString: cText).trimmingWhitespace()
            TessDeleteText(cText)
            if text.isEmpty { continue }
            let confidence = Double(TessResultIteratorConfidence(iterator, RIL_TEXTLINE)) / 100
            var left: Int32 = 0
            var top: Int32 = 0
            var right: Int32 = 0
            var bottom: Int32 = 0
            _ = TessPageIteratorBoundingBox(page, RIL_TEXTLINE, &left, &top, &right, &bottom)
            let box = NormalizedRect(
                x: Double(left) / Double(image.width), y: Double(top) / Double(image.height),
                width: Double(right - left) / Double(image.width), height: Double(bottom - top) / Double(image.height))
            observations.append(TextObservation(text: text, confidence: confidence, box: box))
        } while TessResultIteratorNext(iterator, RIL_TEXTLINE) != 0
        return observations
    }

    private func configure(_ options: RecognitionOptions) {
        let mode = options.pageSegmentation.tesseractMode
        if mode != currentMode {
            TessBaseAPISetPageSegMode(handle, TessPageSegMode(UInt32(mode)))
            currentMode = mode
        }
        if options.characterWhitelist != currentWhitelist {
            _ = TessBaseAPISetVariable(handle, "tessedit_char_whitelist", options.characterWhitelist ?? "")
            currentWhitelist = options.characterWhitelist
        }
    }
}
