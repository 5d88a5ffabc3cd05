import CameraCommon
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Shared by the command-line tools (cameracore, cgame, watchbox, lebot).
///
/// Writes to standard error: progress bars (only when stderr is a terminal) and messages.
public enum Terminal {
    public static let stderrIsTerminal = isatty(STDERR_FILENO) != 0
    public static let stdoutIsTerminal = isatty(STDOUT_FILENO) != 0

    public static func error(_ text: String) {
        writeStandardError(text + "\n")
    }

    /// Reads a password from standard input (one line), so it is not in the shell history or `ps`;
    /// the prompt goes to stderr only when a person is typing.
    public static func readPassword(prompt: String) -> String? {
        if isatty(STDIN_FILENO) != 0 { writeStandardError(prompt) }
        return readLine(strippingNewline: true)
    }

    /// A one-line progress bar redrawn in place; silent when stderr is not a terminal, so logs and
    /// pipes stay clean.
    public final class ProgressBar {
        private let label: String
        private var lastDrawn = -1
        private let enabled: Bool

        public init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
            self.label = label
            self.enabled = enabled
        }

        public func update(_ fraction: Double) {
            guard enabled else { return }
            let percent = Int((min(1, max(0, fraction)) * 100).rounded(.down))
            guard percent != lastDrawn else { return }
            lastDrawn = percent
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            writeStandardError("\r\(label) \(bar) \(percent)%")
        }

        public func finish() {
            guard enabled, lastDrawn >= 0 else { return }
            writeStandardError("\r\u{1B}[2K")
        }
    }
}

/// Formats seconds as `1:05.250` for people.
public func clock(_ seconds: Double) -> String {
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
public func printJSON<T: Encodable>(_ value: T) throws {
    print(try JSON.encode(value))
}

public enum JSON {
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        // Dates as ISO 8601 text, which scripts can read, not seconds since 2001.
        String(decoding: try JSONFile.encoder().encode(value), as: UTF8.self)
    }
}

/// Unbuffered write to file descriptor 2 (the C `stderr` global is not concurrency-safe in Swift 6).
public func writeStandardError(_ text: String) {
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

extension Terminal {
    /// A message line on stderr that does not collide with a progress bar being drawn.
    public static func status(_ text: String) {
        writeStandardError((stderrIsTerminal ? "\r\u{1B}[2K" : "") + text + "\n")
    }
}

/// A plain-text table with aligned columns, for people (scripts use `--json`).
public struct TextTable {
    public var headers: [String]
    public var rows: [[String]]

    public init(headers: [String], rows: [[String]] = []) {
        self.headers = headers
        self.rows = rows
    }

    public var rendered: String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let last = index == cells.count - 1
                text += last ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text
        }
        var lines = [line(headers), line(widths.map { String(repeating: "─", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

/// Pushes out what `print` buffered (standard output is fully buffered when it is a pipe).
public func flushStandardOutput() {
    fflush(nil)
}
