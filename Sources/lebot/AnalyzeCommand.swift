import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import LeBotKit
import Synchronization

struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze", abstract: "Find every shot in a workout video: time, make or miss, entry angle.",
        discussion: """
            Prints each shot and a summary. With --chart, draws release points coloured by \
            outcome (SVG, or PNG when the name ends in .png). Exit status 0 even when no shot is found.

            The ball is followed by its orange and, side by side in the same read of the file, by its \
            brightness (a worn ball filmed outdoors is grey, not orange); the way that saw clearly more \
            shots is kept.

            The rim is found in the video by itself (the still orange bar with a net or backboard, in the \
            first 20 s; a rim that is not orange, under the backboard's painted square, or beside it when \
            the board is seen from the side), in the same read of the file as the shots (those 20 s are held \
            in memory meanwhile, about 200 MB for 30 fps); the box used and how sure the finder was are \
            printed. Give --rim to override it, \
            e.g. when the finder says no hoop was found: --rim 0.85,0.42,0.08,0.02 boxes a rim 85 % of the \
            way across, 42 % down, 8 % of the width wide. Or give only a point on the rim, --rim 0.89,0.43 \
            (or 622,181px): the ring around it is fitted (a thin dark or bright ellipse, a line from the \
            side), and the box used is printed; where no ring is clear, a box of typical size is centred \
            on the point.
            """)

    @Argument(help: "A video file.") var video: String
    @Option(
        help:
            "The rim box: x,y,width,height as fractions of the frame (origin top left), or pixels ending in px (601,176,43,10px); or a point on the rim, x,y (0.89,0.43 or 622,181px), to fit the ring there; default: found."
    )
    var rim: String?
    @Option(help: "Write a shot chart here (.svg or .png).") var chart: String?
    @Option(help: "Write an annotated video here (.mp4): rim, ball path, count, outcome.") var annotate: String?
    @Option(
        help: ArgumentHelp(
            "Write the ball as tracked here (.csv): a row per ball per analysed frame.",
            discussion:
                "Columns: time (s), track, x, y (its centre, fractions of the frame from the top left), radius (fraction of the width), confidence (0-1)."
        )) var track: String?
    @Option(help: "Decoder threads (0: automatic).") var threads: Int = 0
    @Flag(help: "Print as JSON.") var json = false

    /// What to say when no hoop was found (`error`) in a picture of `size`: how to give the rim.
    private func noHoop(_ error: MediaError, size: (width: Int, height: Int)?) -> ValidationError {
        let picture = size.map { "\($0.width)×\($0.height) " } ?? ""
        // The examples in pixels are inside this picture (a rim 62 % across, a third down).
        let (w, h) = (Double(size?.width ?? 960), Double(size?.height ?? 540))
        let point = "\(Int(0.62 * w)),\(Int(0.33 * h))px"
        let box = "\(Int(0.6 * w)),\(Int(0.32 * h)),\(Int(0.045 * w)),\(Int(0.02 * h))px"
        return ValidationError(
            "\(video): \(error.message). Give a point on the rim with --rim x,y and its ring is fitted there: fractions of the frame (e.g. 0.62,0.33) or pixels of the \(picture)picture with px (e.g. \(point); `ffmpeg -i \(video) -frames:v 1 frame.png` saves one to read it off). Or give its box: --rim x,y,width,height (e.g. 0.6,0.32,0.045,0.02 or \(box))."
        )
    }

    func run() async throws {
        // The picture's size as a player shows it (a phone's portrait video is stored turned), for a
        // rim box given in pixels and for the words when none is found.
        let size = (try? MediaReader(.file(video)))?.videoStream?.shownSize
        let given: RimGiven?
        do {
            given = try rim.map { text throws(MediaError) in try RimGiven(parsing: text, pixels: size) }
        } catch {
            throw ValidationError(error.message)
        }
        // The rim given, the ring fitted at the point given, or found: in the same read of the file
        // as the analysis, said when it is known.
        var calibration = given?.box
        var analyzer = WorkoutAnalyzer(rim: calibration, threads: threads)
        analyzer.rimPoint = given?.point
        let bar = Terminal.ProgressBar("analysing", enabled: !json && Terminal.stderrIsTerminal)
        let quiet = json
        var table = TextTable(headers: ["#", "release", "outcome", "entry angle", "at the rim", "arc above rim", "why"])
        let analysis: WorkoutAnalysis
        var annotator: ShotAnnotator?
        var trackRows = track == nil ? nil : ["time,track,x,y,radius,confidence"]
        do {
            analysis = try analyzer.analyze(
                video, progress: { bar.update($0) },
                onShot: { shot in
                    if !quiet { Terminal.status(Self.line(shot)) }
                    table.rows.append(Self.row(shot))
                    annotator?.add(shot)
                },
                onRim: { found in
                    calibration = found.rim
                    if !quiet {
                        Terminal.status(
                            "Rim found at \(found.rim.argument) (confidence \(Int(found.confidence * 100)) %: \(found.evidence)); --rim overrides it."
                        )
                    }
                },
                onFit: { fitted in
                    calibration = fitted.rim
                    if !quiet {
                        Terminal.status(
                            fitted.fitted
                                ? "Rim fitted at \(fitted.rim.argument): \(fitted.evidence). If it is not the rim, give its box with --rim x,y,width,height."
                                : "Rim: \(fitted.evidence), \(fitted.rim.argument). If that is not the rim, give its box with --rim x,y,width,height."
                        )
                    }
                },
                frameHandler: annotate == nil && track == nil
                    ? nil
                    : { frame, time, observations in
                        if trackRows != nil {
                            let (w, h) = (Double(frame.width), Double(frame.height))
                            for ball in observations {
                                trackRows?.append(
                                    [
                                        String(time, decimals: 3), "\(ball.track)", String(ball.x / w, decimals: 5),
                                        String(ball.y / h, decimals: 5), String(ball.radius / w, decimals: 5),
                                        String(ball.confidence, decimals: 2),
                                    ].joined(separator: ","))
                            }
                        }
                        guard let path = annotate else { return }
                        if annotator == nil {
                            let rate = (try? MediaReader(.file(video)))?.videoStream?.frameRate
                            let fps =
                                rate.map { Int((Double($0.numerator) / Double(max(1, $0.denominator))).rounded()) }
                                ?? 30
                            // (The rim is known before any frame is analysed: given, or told found.)
                            annotator = calibration.flatMap { rim in
                                try? ShotAnnotator(
                                    path: path, width: frame.width, height: frame.height, frameRate: max(1, fps),
                                    rim: rim)
                            }
                        }
                        try? annotator?.write(frame, time: time, observations: observations)
                    })
            try annotator?.finish()
        } catch {
            bar.finish()
            throw error.operation == RimFinder.operation
                ? noHoop(error, size: size) : ValidationError(error.description)
        }
        bar.finish()
        if let annotate, annotator?.frames != analysis.frames {
            throw ValidationError("could not write every frame of \(annotate)")
        }
        if let chart {
            try ShotChart(analysis: analysis).write(to: chart)
        }
        if let track, let trackRows {
            do {
                try AtomicFile.write(trackRows.joined(separator: "\n") + "\n", to: track, durable: false)
            } catch {
                throw ValidationError("could not write the ball track: \(error.description)")
            }
        }
        if json {
            try printJSON(analysis)
            return
        }
        if !table.rows.isEmpty { print(table.rendered) }
        if let moved = analysis.cameraMovement, moved >= 0.005 {
            print(
                "The camera moved (handheld): the picture wandered up to \(String(format1: moved * 100)) % of its width; every frame was held still before the shots were looked for."
            )
        }
        if analysis.ballCue == .brightness {
            print(
                "The ball was followed by its brightness: it is not orange enough in this video for its colour to tell it from the rest."
            )
        }
        for move in analysis.rimMoves {
            print(
                "The camera moved at \(clock(move.time)): the rim is now at \(move.found.rim.argument) "
                    + "(\(move.found.evidence); confidence \(Int(move.found.confidence * 100)) %); the shots after it are judged against it."
            )
        }
        let percentage = analysis.fieldGoalPercentage.map { " (\(Int(($0 * 100).rounded())) %)" } ?? ""
        print(
            "\(analysis.attempts) attempt\(analysis.attempts == 1 ? "" : "s"): \(analysis.makes) made, \(analysis.misses) missed\(percentage)\(analysis.indeterminate > 0 ? ", \(analysis.indeterminate) unclear" : "") in \(clock(analysis.duration)) of video (analysed in \(String(format1: analysis.processingSeconds)) s)."
        )
        if analysis.attempts == 0 {
            print(
                "No shots found. Check the rim (\(analysis.rim.argument)): it should box the rim itself; --annotate shows it."
            )
        }
        if let chart { print("Shot chart: \(chart)") }
        if let annotate { print("Annotated video: \(annotate)") }
        if let track { print("Ball track: \(track)") }
    }

    static func line(_ shot: ShotEvent) -> String {
        "shot \(shot.number) at \(clock(shot.releaseTime)): \(shot.outcome.rawValue.lowercased()) — \(shot.reason)"
    }

    static func row(_ shot: ShotEvent) -> [String] {
        [
            String(shot.number), clock(shot.releaseTime), shot.outcome.rawValue,
            shot.entryAngle.map { "\(Int($0.rounded()))°" } ?? "-",
            shot.depth.map { "\(Int(abs($0).rounded())) in \($0 < 0 ? "short" : "deep")" }
                ?? shot.leftRight.map { "\(Int(abs($0).rounded())) in \($0 < 0 ? "left" : "right")" } ?? "-",
            shot.arcFeet.map { "\(String(format1: $0)) ft" } ?? "-", shot.reason,
        ]
    }
}
