import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct OCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr", abstract: "Read the text in a screenshot's profile region (to tune a profile).",
        discussion: "  cgame ocr screenshot.png --profile fortnite --save prepared.png")

    @Argument(help: "A PNG or JPEG screenshot.") var image: String
    @Option(help: "Profile whose region and options to use (default: the whole image).") var profile: String?
    @Option(help: "Write the prepared black-on-white crop here, to see what Tesseract sees.") var save: String?
    @Flag(help: "Print as JSON.") var json = false

    func run() throws {
        let frame = try ImageDecoder.load(image, format: .rgba)
        let chosen = try profile.map { try ProfileLibrary.profile(named: $0) }
        let region = chosen?.region ?? NormalizedRect(x: 0, y: 0, width: 1, height: 1)
        let options = chosen?.recognitionOptions ?? RecognitionOptions()
        guard let prepared = try TextPreprocessor.prepare(frame, region: region, options: options) else {
            Terminal.status("nothing text-like in the region (no stroke-like contrast)")
            if json { try printJSON(OCRReport(observations: [], events: [])) }
            return
        }
        if let save { try ImageEncoder.write(prepared, to: save) }
        let observations = try TesseractRecognizer().recognize(prepared, options: options)
        let matches = chosen?.events(in: observations) ?? []
        if json {
            try printJSON(OCRReport(observations: observations, events: matches))
            return
        }
        for observation in observations {
            print("\(Int((observation.confidence * 100).rounded()))%  \(observation.text)")
        }
        for match in matches { print("→ \(match.type): \(match.text)") }
    }

    struct OCRReport: Encodable {
        var observations: [TextObservation]
        var events: [EventMatch]
    }
}
