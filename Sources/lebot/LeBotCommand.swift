import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit
import Synchronization

@main
struct LeBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lebot",
        abstract: "LeBot James, a basketball coach: counts shots, calls makes and misses, gives tips.",
        discussion: """
            Tell it where the rim is with --rim x,y,width,height: a box around the rim as fractions of the
            frame (0-1, from the top left). Pause a video on a frame and read it off, or use `lebot rim`.

              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02
              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02 --json > shots.json
              lebot analyze workout.mp4 --rim 0.85,0.42,0.08,0.02 --chart chart.svg
              lebot live rtsp://192.168.1.30/stream --rim 0.85,0.42,0.08,0.02    counts and speaks tips
              lebot live cam.mp4 --rim … --proxy http://localhost:8080 --session-token $TOKEN   with Gemini
              lebot tips validate my_tips.json
            """,
        subcommands: [AnalyzeCommand.self, LiveCommand.self, TipsCommand.self]
    )
}

/// One JSON object per line (pretty JSON folded), for `--json` streams that scripts read line by line.
func printJSONLine<T: Encodable>(_ value: T) {
    if let text = try? JSON.encode(value) { print(text.replacing("\n", with: "")) }
}
