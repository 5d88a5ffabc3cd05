import CameraCommon
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Writes to standard error: progress bars (only when stderr is a terminal) and messages.
enum Terminal {
    static let stderrIsTerminal = isatty(STDERR_FILENO) != 0

    static func error(_ text: String) {
        writeStandardError(text + "\n")
    }

    /// A one-line progress bar redrawn in place; silent when stderr is not a terminal, so logs and
    /// pipes stay clean.
    final class ProgressBar {
        private let label: String
        private var lastDrawn = -1
        private let enabled: Bool

        init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
            self.label = label
            self.enabled = enabled
        }

        func update(_ fraction: Double) {
            guard enabled else { return }
            let percent = Int((min(1, max(0, fraction)) * 100).rounded(.down))
            guard percent != lastDrawn else { return }
            lastDrawn = percent
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            writeStandardError("\r\(label) \(bar) \(percent)%")
        }

        func finish() {
            guard enabled, lastDrawn >= 0 else { return }
            writeStandardError("\r\u{1B}[2K")
        }
    }
}

/// Formats seconds as `1:05.250` for people.
func clock(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let totalMillis = Int((seconds * 1000).rounded())
    let minutes = totalMillis / 60_000
    let secs = (totalMillis % 60_000) / 1000
    let millis = totalMillis % 1000
    let secondsText = secs < 10 ? "0\(secs)" : "\(secs)"
    let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
    return "\(minutes):\(secondsText).\(millisText)"
}

/// Encodes a value as pretty JSON for `--json`.
func printJSON<T: Encodable>(_ value: T) throws {
    print(try JSON.encode(value))
}

enum JSON {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Unbuffered write to file descriptor 2 (the C `stderr` global is not concurrency-safe in Swift 6).
func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
