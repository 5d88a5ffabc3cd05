import FoundationEssentials

/// Checks of a command's `--help` as a terminal 80 columns wide shows it (ArgumentParser's width
/// when output is not a terminal): the overview and discussion, before `USAGE:`.
public enum HelpText {
    /// Lines of prose that could have taken the next line's first word: a paragraph broken by hand
    /// and wrapped again, which leaves lines of two words. Each as `'line' could have taken 'word'`.
    public static func underfilledLines(_ help: String) -> [String] {
        let lines = prose(help)
        return zip(lines, lines.dropFirst()).compactMap { line, next in
            guard !line.isEmpty, !next.isEmpty, !line.hasPrefix(" "), !next.hasPrefix(" "), !next.hasPrefix("-")
            else { return nil }
            let word = next.split(separator: " ").first ?? ""
            return line.count + 1 + word.count >= 80 ? nil : "'\(line)' could have taken '\(word)'"
        }
    }

    /// Indented lines (examples) wider than 80 columns, which the terminal wraps to its left edge.
    public static func wideExamples(_ help: String) -> [String] {
        prose(help).filter { $0.hasPrefix("  ") && $0.count > 80 }.map(String.init)
    }

    static func prose(_ help: String) -> [Substring] {
        help.components(separatedBy: "USAGE:")[0].split(separator: "\n", omittingEmptySubsequences: false)
    }
}
