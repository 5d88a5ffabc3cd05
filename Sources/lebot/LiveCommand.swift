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
            Each shot is counted as it is decided and gets a tip: from Gemini through the CameraCore server
            (--proxy with a session token: Live over WebSocket first, then REST), or from the local tips when
            there is no server or it cannot be reached. Tips are spoken with espeak-ng unless --quiet.
            A file works too (it is read as fast as it decodes). Ctrl-C ends the session with a summary.
            """)

    @Argument(help: "rtsp://…, another stream URL, or a video file.") var source: String
    @Option(help: "The rim box: x,y,width,height as fractions of the frame.") var rim: String
    @Option(help: "CameraCore server for AI tips, e.g. http://localhost:8080.") var proxy: String?
    @Option(help: "Session token for --proxy (default: $LEBOT_SESSION_TOKEN).") var sessionToken: String?
    @Option(help: "Coaching tips file (default: the built-in tips).") var tips: String?
    @Flag(help: "Do not speak.") var quiet = false
    @Flag(help: "Print one JSON object per shot (and a summary at the end).") var json = false

    func run() async throws {
        let calibration: RimCalibration
        let coachingTips: CoachingTips
        do {
            calibration = try RimCalibration(parsing: rim)
            coachingTips = try tips.map { path throws(MediaError) in try CoachingTips.load(path) } ?? .standard
        } catch {
            throw ValidationError(error.description)
        }
        let token = sessionToken ?? ProcessInfo.processInfo.environment["LEBOT_SESSION_TOKEN"]
        var chain: [any ShotAnalyzing] = []
        if let proxy {
            guard let token else { throw ValidationError("--proxy needs --session-token or $LEBOT_SESSION_TOKEN") }
            chain = LiveCoachingSession.remoteChain(proxy: proxy, sessionToken: token)
        }
        let session = LiveCoachingSession(
            rim: calibration, tips: coachingTips, chain: chain, speaker: quiet ? nil : EspeakSynthesizer())
        let mediaSource: MediaSource = source.contains("://") ? .url(source) : .file(source)
        let printJSONLines = json
        let summary: LiveCoachingSession.Summary
        do {
            summary = try await session.run(source: mediaSource) { report in
                if printJSONLines {
                    printJSONLine(report)
                } else {
                    print(
                        "shot \(report.shot.number) at \(clock(report.shot.releaseTime)): \(report.shot.outcome.rawValue.lowercased())  —  \(report.stats.makes)/\(report.stats.attempts)  \(report.tip ?? "")"
                    )
                }
            }
        } catch {
            throw ValidationError(error.description)
        }
        let stats = summary.stats
        if json {
            printJSONLine(stats)
        } else {
            print(
                "Session: \(stats.makes) of \(stats.attempts) made, best streak \(stats.bestStreak), \(clock(summary.duration)) of video."
            )
        }
    }
}
