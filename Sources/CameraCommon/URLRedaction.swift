/// Removes passwords from URLs before they reach logs, errors or `--json` output.
public enum URLRedaction {
    /// `rtsp://admin:secret@cam/live` → `rtsp://admin:***@cam/live`; text without credentials is
    /// returned unchanged.
    public static func redact(_ url: String) -> String {
        redactingURLs(in: url)
    }

    /// Redacts every `scheme://user:password@` occurrence in free text.
    public static func redactingURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let schemeEnd = rest.firstRange(of: "://") {
            result += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            // The authority ends at the first '/', '?', '#' or whitespace.
            let authorityEnd =
                rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0.isWhitespace })
                ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    result += userInfo[..<colon] + ":***"
                } else {
                    result += userInfo
                }
                result += authority[at...]
            } else {
                result += authority
            }
            rest = rest[authorityEnd...]
        }
        result += rest
        return result
    }
}
