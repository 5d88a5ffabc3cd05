import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit
import Synchronization

struct LiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "Run a training session on a camera or stream: live counters and spoken tips.",
        discussion: """
            Each shot is counted as it is decided and gets a tip from the first coach that answers:

              --proxy URL  Gemini Live at Gemini's own endpoint (--gemini-live-url),
                           with a new single-use token from the CameraCore server for
                           every session; then Gemini REST through the server. Needs
                           a session token (sign in on the web app; Settings).
              --api-key    Development only: Gemini directly with your own key (or
                           $GEMINI_API_KEY with --direct): Live, then REST. The key
                           stays on this machine.
              neither      The built-in tips (also when the network fails).

            The rim is found in the first 4 s; --rim x,y (a point on it) fits the ring there, \
            --rim x,y,w,h gives its box. Tips are spoken with espeak-ng unless \
            --quiet. A file works too (it is read as fast as it decodes). Ctrl-C ends the session with a \
            summary.

            Examples:
              lebot live rtsp://192.168.1.20/stream
              lebot live workout.mp4 --proxy https://camera.example.org --json
            """)

    @Argument(help: "rtsp://…, another stream URL, or a video file.") var source: String
    @Option(
        help:
            "A point on the rim, x,y (the ring there is fitted), or its box, x,y,width,height: fractions of the frame (default: found in the first 4 s)."
    )
    var rim: String?
    @Option(help: "CameraCore server for AI tips, e.g. http://localhost:8080.") var proxy: String?
    @Option(help: "Session token for --proxy (default: $LEBOT_SESSION_TOKEN).") var sessionToken: String?
    @Option(help: "Gemini's Live WebSocket base URL.") var geminiLiveURL = GeminiConfiguration().liveBase
    @Option(help: "Gemini's REST base URL (with --api-key).") var geminiURL = GeminiConfiguration().restBase
    @Option(help: "A Gemini API key, for development without a server.") var apiKey: String?
    @Flag(help: "Use $GEMINI_API_KEY as --api-key.") var direct = false
    @Option(help: "Coaching tips file (default: the built-in tips).") var tips: String?
    @Flag(help: "Do not speak.") var quiet = false
    @Flag(
        help:
            "Print one JSON object per shot (and a summary at the end); {\"rimFound\": …} when the rim is found (box, confidence, what was seen), {\"ballCue\": \"brightness\"} when the ball starts being followed by its brightness."
    ) var json = false

    func run() async throws {
        let calibration: RimGiven?
        let coachingTips: CoachingTips
        do {
            calibration = try rim.map { text throws(MediaError) in try RimGiven(parsing: text) }
            coachingTips = try tips.map { path throws(MediaError) in try CoachingTips.load(path) } ?? .standard
        } catch {
            throw ValidationError(error.description)
        }
        let token = sessionToken ?? ProcessInfo.processInfo.environment["LEBOT_SESSION_TOKEN"]
        var chain: [any ShotAnalyzing] = []
        let key = apiKey ?? (direct ? ProcessInfo.processInfo.environment["GEMINI_API_KEY"] : nil)
        if direct, key?.isEmpty ?? true { throw ValidationError("--direct needs $GEMINI_API_KEY") }
        for url in [geminiLiveURL, geminiURL, proxy].compactMap({ $0 }) {
            guard let scheme = url.split(separator: "://").first, ["http", "https", "ws", "wss"].contains(scheme)
            else { throw ValidationError("not an http(s) or ws(s) URL: \(URLRedaction.redactingURLs(in: url))") }
        }
        if proxy != nil, key != nil {
            throw ValidationError("give --proxy (through the server) or --api-key (direct), not both")
        } else if let proxy {
            guard let token else { throw ValidationError("--proxy needs --session-token or $LEBOT_SESSION_TOKEN") }
            chain = LiveCoachingSession.remoteChain(proxy: proxy, sessionToken: token, liveBase: geminiLiveURL)
        } else if let key {
            chain = LiveCoachingSession.directChain(
                apiKey: key, configuration: GeminiConfiguration(restBase: geminiURL, liveBase: geminiLiveURL))
        }
        let session = LiveCoachingSession(
            rim: calibration, tips: coachingTips, chain: chain, speaker: quiet ? nil : EspeakSynthesizer())
        let mediaSource: MediaSource = source.contains("://") ? .url(source) : .file(source)
        let printJSONLines = json
        let summary: LiveCoachingSession.Summary
        do {
            summary = try session.run(
                source: mediaSource,
                onRim: { found in
                    if printJSONLines {
                        printJSONLine(["rimFound": found])
                    } else {
                        print(
                            "Rim found at \(found.rim.argument) (confidence \(Int(found.confidence * 100)) %: \(found.evidence)); --rim overrides it."
                        )
                    }
                },
                onFit: { fit in
                    if !printJSONLines {
                        print("Rim \(fit.fitted ? "fitted" : "box") at \(fit.rim.argument): \(fit.evidence).")
                    }
                },
                onCue: { cue in
                    if printJSONLines {
                        printJSONLine(["ballCue": cue.rawValue])
                    } else {
                        print("The ball does not look orange: LeBot follows it by its brightness from here on.")
                    }
                },
                onShot: { report in
                    if printJSONLines {
                        printJSONLine(report)
                    } else {
                        print(
                            "shot \(report.shot.number) at \(clock(report.shot.releaseTime)): \(report.shot.outcome.rawValue.lowercased())  —  \(report.stats.makes)/\(report.stats.attempts)  \(report.tip ?? "")"
                        )
                    }
                })
        } catch {
            guard error.operation == RimFinder.operation else { throw ValidationError(error.description) }
            throw ValidationError(
                "\(error.message). Give a point on the rim with --rim x,y (fractions of the frame, e.g. 0.62,0.33) and its ring is fitted there, or its box with --rim x,y,width,height."
            )
        }
        let stats = summary.stats
        if json {
            printJSONLine(stats)
        } else {
            print(
                "Session: \(stats.makes) of \(stats.attempts) made, best streak \(stats.bestStreak), \(clock(summary.duration)) of video."
                    + (summary.analysis.ballCue == .brightness
                        ? " The ball was followed by its brightness: it did not look orange." : "")
            )
        }
    }
}
