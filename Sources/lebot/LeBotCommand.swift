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
            Film from the side, at 45° or from behind the shooter, on a tripod or held by hand. The rim is \
            found in the video by itself; when it is not, give a point on it with --rim x,y (fractions of \
            the frame, 0-1 from the top left, or pixels ending in px) and its ring is fitted there, or a \
            box around it with --rim x,y,width,height.

              lebot analyze workout.mp4                       every shot, made or not, why
              lebot analyze workout.mp4 --json > shots.json
              lebot analyze workout.mp4 --chart chart.svg --annotate seen.mp4
              lebot analyze workout.mp4 --rim 0.62,0.33       no hoop found: a point on the rim
              lebot live rtsp://192.168.1.30/stream           counts, speaks tips
              lebot live cam.mp4 --proxy URL --session-token $TOKEN   tips from Gemini
              lebot tips validate my_tips.json
            """,
        subcommands: [AnalyzeCommand.self, LiveCommand.self, TipsCommand.self]
    )
}

/// One JSON object per line (pretty JSON folded), for `--json` streams that scripts read line by line.
func printJSONLine<T: Encodable>(_ value: T) {
    if let text = try? JSON.encode(value) { print(text.replacing("\n", with: "")) }
}
