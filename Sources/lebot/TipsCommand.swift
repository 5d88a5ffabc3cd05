import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit
import Synchronization

struct TipsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tips", abstract: "Check or show coaching tips files (coaching_tips.json).",
        subcommands: [Validate.self, Show.self])

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check a tips file: the four lists (tips, encouragement, makes, misses) and the optional flat, short, long and wide ones, no blank or overlong tips."
        )
        @Argument(help: "A coaching_tips.json file.") var file: String
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            let tips: CoachingTips
            do {
                tips = try CoachingTips.load(file)
            } catch {
                throw ValidationError(error.description)
            }
            if json {
                try printJSON(tips)
            } else {
                print(
                    "\(file): \(tips.count) tips (\(tips.tips.count) tips, \(tips.encouragement.count) encouragement, \(tips.makes.count) makes, \(tips.misses.count) misses; for misses the camera can tell: \(tips.flat.count) flat, \(tips.short.count) short, \(tips.long.count) long, \(tips.wide.count) wide). OK."
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the tips that ship with LeBot, as a starting point for your own file.")

        func run() async throws {
            try printJSON(CoachingTips.standard)
        }
    }
}
