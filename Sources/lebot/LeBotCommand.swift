import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit

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
              lebot tips validate my_tips.json
            """,
        subcommands: [AnalyzeCommand.self, TipsCommand.self]
    )
}

struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze", abstract: "Find every shot in a workout video: time, make or miss, entry angle.",
        discussion: """
            Prints each shot as it is decided and a summary. With --chart, draws release points coloured by
            outcome (SVG, or PNG when the name ends in .png). Exit status 0 even when no shot is found.
            """)

    @Argument(help: "A video file.") var video: String
    @Option(help: "The rim box: x,y,width,height as fractions of the frame (origin top left).") var rim: String
    @Option(help: "Write a shot chart here (.svg or .png).") var chart: String?
    @Option(help: "Decoder threads (0: automatic).") var threads: Int = 0
    @Flag(help: "Print as JSON.") var json = false

    func run() async throws {
        let calibration: RimCalibration
        do {
            calibration = try RimCalibration(parsing: rim)
        } catch {
            throw ValidationError(error.message)
        }
        let analyzer = WorkoutAnalyzer(rim: calibration, threads: threads)
        let bar = Terminal.ProgressBar("analysing", enabled: !json && Terminal.stderrIsTerminal)
        let quiet = json
        var table = TextTable(headers: ["#", "release", "outcome", "entry angle", "apex above rim", "why"])
        let analysis: WorkoutAnalysis
        do {
            analysis = try analyzer.analyze(
                video, progress: { bar.update($0) },
                onShot: { shot in
                    if !quiet { Terminal.status(Self.line(shot)) }
                    table.rows.append(Self.row(shot))
                })
        } catch {
            bar.finish()
            throw ValidationError(error.description)
        }
        bar.finish()
        if let chart {
            try ShotChart(analysis: analysis).write(to: chart)
        }
        if json {
            try printJSON(analysis)
            return
        }
        if !table.rows.isEmpty { print(table.rendered) }
        let percentage = analysis.fieldGoalPercentage.map { " (\(Int(($0 * 100).rounded())) %)" } ?? ""
        print(
            "\(analysis.attempts) attempt\(analysis.attempts == 1 ? "" : "s"): \(analysis.makes) made, \(analysis.misses) missed\(percentage)\(analysis.indeterminate > 0 ? ", \(analysis.indeterminate) unclear" : "") in \(clock(analysis.duration)) of video (analysed in \(String(format1: analysis.processingSeconds)) s)."
        )
        if analysis.attempts == 0 {
            print("No shots found. Check --rim: it should box the rim itself, e.g. 0.85,0.42,0.08,0.02.")
        }
        if let chart { print("Shot chart: \(chart)") }
    }

    static func line(_ shot: ShotEvent) -> String {
        "shot \(shot.number) at \(clock(shot.releaseTime)): \(shot.outcome.rawValue.lowercased()) — \(shot.reason)"
    }

    static func row(_ shot: ShotEvent) -> [String] {
        [
            String(shot.number), clock(shot.releaseTime), shot.outcome.rawValue,
            shot.entryAngle.map { "\(Int($0.rounded()))°" } ?? "-",
            "\(Int((shot.apexHeight * 100).rounded())) % of frame", shot.reason,
        ]
    }
}

struct TipsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tips", abstract: "Check or show coaching tips files (coaching_tips.json).",
        subcommands: [Validate.self, Show.self])

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check a tips file: the four lists (tips, encouragement, makes, misses), no blank or overlong tips.")
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
                    "\(file): \(tips.count) tips (\(tips.tips.count) tips, \(tips.encouragement.count) encouragement, \(tips.makes.count) makes, \(tips.misses.count) misses). OK."
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
