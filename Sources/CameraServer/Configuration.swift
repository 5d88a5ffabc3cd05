import CameraCommon
import Foundation
import Networking
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the server can be told. Defaults first, then a JSON file (same keys), then
/// environment variables; the command line applies last.
public struct ServerConfiguration: Sendable, Codable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// SQLite database, clip files, credentials and the signing key live here.
    public var dataDirectory = "data"
    /// `postgres://user:password@host:port/database`; SQLite in ``dataDirectory`` when nil.
    public var databaseURL: String?
    /// The server's Gemini API key; it never leaves the server. Without it the AI routes answer 503.
    public var geminiAPIKey: String?
    public var geminiBaseURL = "https://generativelanguage.googleapis.com"
    public var geminiModel = "gemini-2.0-flash"
    /// Sign in with Apple: where Apple's public keys are (cached) and the app's client id (the
    /// token's audience).
    public var appleJWKSURL = "https://appleid.apple.com/auth/keys"
    public var appleClientID = "com.cameracore.app"
    /// Sign in with Apple on the web: the Services ID registered with Apple for this site and the
    /// page Apple returns to (registered there too). The web app shows the button only when both are
    /// set; tokens for either client id are accepted.
    public var appleWebClientID: String?
    public var appleWebRedirectURI: String?
    /// A token signed with a key id the cached set lacks (Apple rotated keys) fetches the set again,
    /// but at most this often, so forged key ids cannot make the server hammer Apple.
    public var appleKeysRefetchSeconds = 60.0
    /// HMAC key for session tokens; read from (or created in) `dataDirectory/session.key` when nil.
    public var sessionSecret: String?
    public var accessTokenSeconds = 900.0
    public var refreshTokenSeconds = 30 * 86400.0
    /// A session ends this long after sign-in however often it is refreshed.
    public var sessionMaxSeconds = 90 * 86400.0
    /// Largest clip upload (bytes).
    public var maxClipBytes = 512 * 1024 * 1024
    /// Largest workout video for LeBot analysis (bytes).
    public var maxWorkoutBytes = 1024 * 1024 * 1024
    /// Largest JSON body (analyze-shot images travel inside it).
    public var maxJSONBytes = 8 * 1024 * 1024
    /// Networks the server may reach for cameras: camera URLs, discovery interfaces and scan ranges
    /// must fall inside one. IPv4 CIDRs, or `local` for the networks of this machine's own
    /// interfaces (its LAN). Loopback, link-local (cloud metadata), multicast and reserved
    /// addresses are refused whatever this says. Empty: no cameras, discovery or scans.
    public var allowedNetworks: [String] = ["local"]
    /// Development and tests only: cameras on this machine's loopback (`127.0.0.0/8`). With it on,
    /// any signed-in user can point a camera at the server's own local services.
    public var allowLoopbackCameras = false
    /// Threads for blocking video work (snapshots, reels, workout analysis, upload checks), how
    /// many jobs may wait for one, and how many one user may have admitted at once; past that 429.
    public var mediaWorkers = 2
    public var mediaQueue = 16
    public var mediaJobsPerUser = 4
    /// A connection must finish sending its request head this soon after it opens or after its
    /// previous answer (seconds), and heads are at most `maxHeadBytes` (else 431 and close);
    /// a connection that sends nothing for `idleSeconds` is closed.
    public var headSeconds = 10.0
    public var maxHeadBytes = 16 * 1024
    public var idleSeconds = 60.0
    /// Uploads slower than this on average after their first `uploadGraceSeconds` are dropped (408).
    public var minUploadBytesPerSecond = 16 * 1024
    public var uploadGraceSeconds = 20.0
    /// How often (seconds) the server removes what was left unfinished in users' folders: hidden
    /// files an hour old (an upload or copy a stopped server left, a video kept past its hour for
    /// its first frame). Also once at start.
    public var leftoverSweepSeconds = 3600.0
    /// What one account may keep: clips, reels, workouts, and bytes of uploads in all (413/409
    /// past them, naming the limit).
    public var maxClipsPerUser = 5000
    public var maxReelsPerUser = 200
    public var maxWorkoutsPerUser = 500
    public var storageBytesPerUser = 20 * 1024 * 1024 * 1024
    /// Live views one user may have open, viewers of one camera, and cameras one user may keep
    /// streaming at once (the server streams at most 16 in all).
    public var liveViewsPerUser = 16
    public var viewersPerCamera = 8
    public var streamsPerUser = 6
    /// How long a snapshot of a camera may take (connect, first picture).
    public var snapshotSeconds = 8.0
    /// Continuous recording (opt-in per camera): segment length, and how much each camera keeps
    /// (the oldest segments go first when either limit is passed).
    public var recordingSegmentSeconds = 60.0
    public var recordingKeepHours = 24.0
    public var recordingBytesPerCamera = 4 * 1024 * 1024 * 1024
    /// Cameras one user may record at once (each keeps a stream open all the time).
    public var recordingCamerasPerUser = 4
    /// The longest span one playback or download may cover.
    public var playbackMaxSeconds = 3600.0
    /// How often a playing camera's grid poster is taken again from a keyframe.
    public var thumbnailSeconds = 60.0
    /// Captures from the browser (the Highlights tab) running at once in all (one per user); each
    /// takes most of a core. The longest one capture may run, and how long it may send nothing.
    public var capturesAtOnce = 2
    public var captureMaxSeconds = 4 * 3600.0
    public var captureIdleSeconds = 30.0
    /// Requests per minute per user (AI routes) or per address (sign-in routes).
    public var ephemeralTokensPerMinute = 10
    public var analyzeShotsPerMinute = 30
    public var signInsPerMinute = 20
    /// Gemini calls (tokens and shot analyses) a UTC day for all users together.
    public var geminiDailyBudget = 5000
    /// Reverse proxies (CIDRs) whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed: behind
    /// one that says `https`, cookies are `Secure`, and sign-in limits count the client's address,
    /// not the proxy's. Nobody else's forwarding headers count.
    public var trustedProxies: [String] = []
    /// Always mark cookies `Secure` (the server sits behind TLS however it is reached).
    public var secureCookies = false
    /// Where people reach the web app (`https://cams.example.com`): links in the server's mail start
    /// with it. Unset, mail carries codes only (never a link built from a request's `Host`).
    public var publicURL: String?
    /// Created at start when set and missing, so `make run` has a login to show.
    public var demoEmail: String?
    public var demoPassword: String?
    /// bcrypt cost (tests lower it; 10 is about 70 ms a hash on this machine).
    public var bcryptCost = 10

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, dataDirectory, databaseURL, geminiAPIKey, geminiBaseURL, geminiModel, appleJWKSURL,
            appleClientID, appleWebClientID, appleWebRedirectURI, appleKeysRefetchSeconds, sessionSecret,
            accessTokenSeconds, refreshTokenSeconds,
            sessionMaxSeconds,
            maxClipBytes, maxWorkoutBytes,
            maxJSONBytes, allowedNetworks, allowLoopbackCameras, mediaWorkers, mediaQueue, mediaJobsPerUser,
            headSeconds, maxHeadBytes, idleSeconds, minUploadBytesPerSecond, uploadGraceSeconds, leftoverSweepSeconds,
            snapshotSeconds,
            recordingSegmentSeconds, recordingKeepHours, recordingBytesPerCamera, recordingCamerasPerUser,
            playbackMaxSeconds, thumbnailSeconds, liveViewsPerUser, viewersPerCamera, streamsPerUser, maxClipsPerUser,
            maxReelsPerUser,
            maxWorkoutsPerUser, storageBytesPerUser, capturesAtOnce, captureMaxSeconds, captureIdleSeconds,
            ephemeralTokensPerMinute, analyzeShotsPerMinute, signInsPerMinute, geminiDailyBudget,
            trustedProxies, secureCookies, publicURL, demoEmail, demoPassword, bcryptCost
    }

    public init(from decoder: any Decoder) throws {
        // Every key optional: a file names only what it changes.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServerConfiguration()
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        host = try value(.host, defaults.host)
        port = try value(.port, defaults.port)
        dataDirectory = try value(.dataDirectory, defaults.dataDirectory)
        databaseURL = try container.decodeIfPresent(String.self, forKey: .databaseURL)
        geminiAPIKey = try container.decodeIfPresent(String.self, forKey: .geminiAPIKey)
        geminiBaseURL = try value(.geminiBaseURL, defaults.geminiBaseURL)
        geminiModel = try value(.geminiModel, defaults.geminiModel)
        appleJWKSURL = try value(.appleJWKSURL, defaults.appleJWKSURL)
        appleClientID = try value(.appleClientID, defaults.appleClientID)
        appleWebClientID = try container.decodeIfPresent(String.self, forKey: .appleWebClientID)
        appleWebRedirectURI = try container.decodeIfPresent(String.self, forKey: .appleWebRedirectURI)
        appleKeysRefetchSeconds = try value(.appleKeysRefetchSeconds, defaults.appleKeysRefetchSeconds)
        sessionSecret = try container.decodeIfPresent(String.self, forKey: .sessionSecret)
        accessTokenSeconds = try value(.accessTokenSeconds, defaults.accessTokenSeconds)
        refreshTokenSeconds = try value(.refreshTokenSeconds, defaults.refreshTokenSeconds)
        sessionMaxSeconds = try value(.sessionMaxSeconds, defaults.sessionMaxSeconds)
        maxClipBytes = try value(.maxClipBytes, defaults.maxClipBytes)
        maxWorkoutBytes = try value(.maxWorkoutBytes, defaults.maxWorkoutBytes)
        maxJSONBytes = try value(.maxJSONBytes, defaults.maxJSONBytes)
        allowedNetworks = try value(.allowedNetworks, defaults.allowedNetworks)
        allowLoopbackCameras = try value(.allowLoopbackCameras, defaults.allowLoopbackCameras)
        mediaWorkers = try value(.mediaWorkers, defaults.mediaWorkers)
        mediaQueue = try value(.mediaQueue, defaults.mediaQueue)
        mediaJobsPerUser = try value(.mediaJobsPerUser, defaults.mediaJobsPerUser)
        headSeconds = try value(.headSeconds, defaults.headSeconds)
        maxHeadBytes = try value(.maxHeadBytes, defaults.maxHeadBytes)
        idleSeconds = try value(.idleSeconds, defaults.idleSeconds)
        minUploadBytesPerSecond = try value(.minUploadBytesPerSecond, defaults.minUploadBytesPerSecond)
        uploadGraceSeconds = try value(.uploadGraceSeconds, defaults.uploadGraceSeconds)
        leftoverSweepSeconds = try value(.leftoverSweepSeconds, defaults.leftoverSweepSeconds)
        snapshotSeconds = try value(.snapshotSeconds, defaults.snapshotSeconds)
        recordingSegmentSeconds = try value(.recordingSegmentSeconds, defaults.recordingSegmentSeconds)
        recordingKeepHours = try value(.recordingKeepHours, defaults.recordingKeepHours)
        recordingBytesPerCamera = try value(.recordingBytesPerCamera, defaults.recordingBytesPerCamera)
        recordingCamerasPerUser = try value(.recordingCamerasPerUser, defaults.recordingCamerasPerUser)
        playbackMaxSeconds = try value(.playbackMaxSeconds, defaults.playbackMaxSeconds)
        thumbnailSeconds = try value(.thumbnailSeconds, defaults.thumbnailSeconds)
        liveViewsPerUser = try value(.liveViewsPerUser, defaults.liveViewsPerUser)
        viewersPerCamera = try value(.viewersPerCamera, defaults.viewersPerCamera)
        streamsPerUser = try value(.streamsPerUser, defaults.streamsPerUser)
        maxClipsPerUser = try value(.maxClipsPerUser, defaults.maxClipsPerUser)
        maxReelsPerUser = try value(.maxReelsPerUser, defaults.maxReelsPerUser)
        maxWorkoutsPerUser = try value(.maxWorkoutsPerUser, defaults.maxWorkoutsPerUser)
        storageBytesPerUser = try value(.storageBytesPerUser, defaults.storageBytesPerUser)
        capturesAtOnce = try value(.capturesAtOnce, defaults.capturesAtOnce)
        captureMaxSeconds = try value(.captureMaxSeconds, defaults.captureMaxSeconds)
        captureIdleSeconds = try value(.captureIdleSeconds, defaults.captureIdleSeconds)
        ephemeralTokensPerMinute = try value(.ephemeralTokensPerMinute, defaults.ephemeralTokensPerMinute)
        analyzeShotsPerMinute = try value(.analyzeShotsPerMinute, defaults.analyzeShotsPerMinute)
        signInsPerMinute = try value(.signInsPerMinute, defaults.signInsPerMinute)
        geminiDailyBudget = try value(.geminiDailyBudget, defaults.geminiDailyBudget)
        trustedProxies = try value(.trustedProxies, defaults.trustedProxies)
        secureCookies = try value(.secureCookies, defaults.secureCookies)
        publicURL = try container.decodeIfPresent(String.self, forKey: .publicURL)
        demoEmail = try container.decodeIfPresent(String.self, forKey: .demoEmail)
        demoPassword = try container.decodeIfPresent(String.self, forKey: .demoPassword)
        bcryptCost = try value(.bcryptCost, defaults.bcryptCost)
    }

    /// The environment variables read, and what they set.
    public static let environmentVariables: [(name: String, meaning: String)] = [
        ("CAMERACORE_HOST", "address to listen on"), ("CAMERACORE_PORT", "port"),
        ("CAMERACORE_DATA", "data directory"), ("DATABASE_URL", "PostgreSQL URL (SQLite when unset)"),
        ("GEMINI_API_KEY", "Gemini API key (server only)"), ("GEMINI_BASE_URL", "Gemini API base URL"),
        ("APPLE_JWKS_URL", "Sign in with Apple key set URL"), ("APPLE_CLIENT_ID", "Sign in with Apple audience"),
        ("APPLE_WEB_CLIENT_ID", "Sign in with Apple on the web: Services ID"),
        ("APPLE_WEB_REDIRECT_URI", "Sign in with Apple on the web: return page"),
        ("CAMERACORE_SESSION_SECRET", "session token signing key"),
        ("CAMERACORE_ALLOWED_NETWORKS", "comma-separated CIDRs (or local) where cameras may be"),
        ("CAMERACORE_PUBLIC_URL", "where people reach the web app; links in mail start with it"),
    ]

    /// Applies the environment variables that are set.
    public mutating func apply(environment: [String: String]) throws(MediaError) {
        func text(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let value = text("CAMERACORE_HOST") { host = value }
        if let value = text("CAMERACORE_PORT") {
            guard let number = Int(value), (0...65535).contains(number) else {
                throw MediaError(
                    .invalidArgument, operation: "read CAMERACORE_PORT", message: "\"\(value)\" is not a port number")
            }
            port = number
        }
        if let value = text("CAMERACORE_DATA") { dataDirectory = value }
        if let value = text("DATABASE_URL") { databaseURL = value }
        if let value = text("GEMINI_API_KEY") { geminiAPIKey = value }
        if let value = text("GEMINI_BASE_URL") { geminiBaseURL = value }
        if let value = text("APPLE_JWKS_URL") { appleJWKSURL = value }
        if let value = text("APPLE_CLIENT_ID") { appleClientID = value }
        if let value = text("APPLE_WEB_CLIENT_ID") { appleWebClientID = value }
        if let value = text("APPLE_WEB_REDIRECT_URI") { appleWebRedirectURI = value }
        if let value = text("CAMERACORE_SESSION_SECRET") { sessionSecret = value }
        if let value = text("CAMERACORE_PUBLIC_URL") { publicURL = value }
        if let value = text("CAMERACORE_ALLOWED_NETWORKS") {
            allowedNetworks = value.split(separator: ",").map { String($0).trimmingWhitespace() }
        }
    }

    /// Reads a JSON file; the error names the file and the key that was wrong.
    public static func load(file path: String) throws(MediaError) -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MediaError(.notFound, operation: "read configuration", message: "\(path) does not exist")
        }
        do {
            return try JSONDecoder().decode(ServerConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw MediaError(decoding: error, operation: "read configuration \(path)")
        } catch {
            throw MediaError(.invalidArgument, operation: "read configuration \(path)", message: "not JSON")
        }
    }

    /// The networks `allowedNetworks` names, `local` expanded to this machine's interfaces.
    public var cameraNetworks: [IPv4Network] {
        allowedNetworks.flatMap { $0 == "local" ? EgressPolicy.localNetworks() : [IPv4Network($0)].compactMap { $0 } }
    }

    /// Where cameras may be: ``cameraNetworks`` with loopback only when ``allowLoopbackCameras``.
    public var egressPolicy: EgressPolicy {
        EgressPolicy(networks: cameraNetworks, allowsLoopback: allowLoopbackCameras)
    }

    /// Checks what could only fail later; messages name the field.
    public func validate() throws(MediaError) {
        let operation = "check configuration"
        for proxy in trustedProxies where IPv4Network(proxy) == nil {
            throw MediaError(
                .invalidArgument, operation: operation, message: "trustedProxies: \"\(proxy)\" is not an IPv4 CIDR")
        }
        for network in allowedNetworks where network != "local" && IPv4Network(network) == nil {
            throw MediaError(
                .invalidArgument, operation: operation,
                message: "allowedNetworks: \"\(network)\" is not an IPv4 CIDR or \"local\"")
        }
        for (name, value) in [
            ("maxClipBytes", maxClipBytes), ("maxWorkoutBytes", maxWorkoutBytes), ("maxJSONBytes", maxJSONBytes),
            ("ephemeralTokensPerMinute", ephemeralTokensPerMinute), ("analyzeShotsPerMinute", analyzeShotsPerMinute),
            ("signInsPerMinute", signInsPerMinute), ("geminiDailyBudget", geminiDailyBudget),
            ("mediaWorkers", mediaWorkers), ("mediaJobsPerUser", mediaJobsPerUser),
            ("liveViewsPerUser", liveViewsPerUser), ("viewersPerCamera", viewersPerCamera),
            ("streamsPerUser", streamsPerUser), ("maxClipsPerUser", maxClipsPerUser),
            ("maxReelsPerUser", maxReelsPerUser), ("maxWorkoutsPerUser", maxWorkoutsPerUser),
            ("storageBytesPerUser", storageBytesPerUser),
            ("maxHeadBytes", maxHeadBytes), ("headSeconds", Int(headSeconds.rounded(.up))),
            ("idleSeconds", Int(idleSeconds.rounded(.up))), ("snapshotSeconds", Int(snapshotSeconds.rounded(.up))),
            ("leftoverSweepSeconds", Int(leftoverSweepSeconds.rounded(.up))),
            ("recordingSegmentSeconds", Int(recordingSegmentSeconds.rounded(.up))),
            ("recordingKeepHours", Int((recordingKeepHours * 3600).rounded(.up))),
            ("recordingBytesPerCamera", recordingBytesPerCamera), ("recordingCamerasPerUser", recordingCamerasPerUser),
            ("playbackMaxSeconds", Int(playbackMaxSeconds.rounded(.up))),
            ("thumbnailSeconds", Int(thumbnailSeconds.rounded(.up))), ("capturesAtOnce", capturesAtOnce),
            ("captureMaxSeconds", Int(captureMaxSeconds.rounded(.up))),
            ("captureIdleSeconds", Int(captureIdleSeconds.rounded(.up))),
        ] where value <= 0 {
            throw MediaError(.invalidArgument, operation: operation, message: "\(name): must be positive")
        }
        if let publicURL {
            let parts = URLComponents(string: publicURL)
            guard let parts, ["http", "https"].contains(parts.scheme?.lowercased() ?? ""), parts.host?.isEmpty == false,
                parts.query == nil, parts.fragment == nil, parts.user == nil, publicURL.count <= 512
            else {
                throw MediaError(
                    .invalidArgument, operation: operation,
                    message: "publicURL: \"\(publicURL)\" is not an http(s) address like https://cams.example.com")
            }
        }
        guard (4...31).contains(bcryptCost) else {
            throw MediaError(.invalidArgument, operation: operation, message: "bcryptCost: must be 4…31")
        }
    }
}
