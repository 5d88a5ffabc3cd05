/// The one error type of the media engine. Users see it when a file cannot be opened or decoded, a
/// stream refuses credentials or stops answering, or an argument is out of range.
///
/// `kind` is what callers branch on; `operation` says what we were doing, `message` says what went
/// wrong in words a user understands (FFmpeg's own message where it has one). Messages never contain
/// credentials: URLs are redacted before they are put in an error.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    /// What class of failure this is; stable across releases, so callers can match on it.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The path does not exist or is not readable.
        public static let notFound = Kind("notFound")
        /// The bytes are not a media file we can read (empty, truncated, random).
        public static let invalidData = Kind("invalidData")
        /// A scheme, container, codec or pixel format this build cannot handle.
        public static let unsupported = Kind("unsupported")
        /// The server refused our credentials (RTSP/HTTP 401 or 403).
        public static let authenticationFailed = Kind("authenticationFailed")
        /// No answer within the configured timeout.
        public static let timedOut = Kind("timedOut")
        /// The task that owned the operation was cancelled.
        public static let cancelled = Kind("cancelled")
        /// The network peer went away or could not be reached.
        public static let network = Kind("network")
        /// An argument was out of range or malformed (a time, a range, a size).
        public static let invalidArgument = Kind("invalidArgument")
        /// Writing an output failed (disk full, permission denied, muxer refused a packet).
        public static let writeFailed = Kind("writeFailed")
        /// The codec reported an error while encoding or decoding.
        public static let codec = Kind("codec")
        /// A policy forbids it (an address outside the networks the server may reach).
        public static let notAllowed = Kind("notAllowed")
        /// Anything else; the message carries the detail.
        public static let other = Kind("other")
    }

    public let kind: Kind
    /// What we were doing, e.g. `open rtsp://cam.local/stream` or `decode frame`.
    public let operation: String
    /// What went wrong, for people.
    public let message: String
    /// FFmpeg's (negative) error code when the failure came from FFmpeg.
    public let code: Int32?

    public init(_ kind: Kind, operation: String, message: String, code: Int32? = nil) {
        self.kind = kind
        self.operation = URLRedaction.redactingURLs(in: operation)
        self.message = URLRedaction.redactingURLs(in: message)
        self.code = code
    }

    public var description: String { "\(operation): \(message)" }
}
