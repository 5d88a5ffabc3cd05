import CameraTesting
import Foundation
import LeBotKit

/// A user who taps the rim instead of dragging a box around it: how well the ring is fitted at
/// the tap (``RimFinder/fit(near:in:)``), and what `lebot analyze --rim x,y` then finds, against
/// the box of typical size the web app's tap marked before. Each video is tapped five times: on
/// the true rim's centre and 1 % of the picture off it on both diagonals (a finger's error on a
/// phone).
enum RimTapBench {
    /// The taps on a rim `[x, y, w, h]`: its centre, and `error` of the picture off it on both diagonals.
    static func taps(on rim: [Double], error: Double) -> [RimPoint] {
        let (x, y) = (rim[0] + rim[2] / 2, rim[1] + rim[3] / 2)
        return [(0, 0), (-error, -error), (error, error), (-error, error), (error, -error)].compactMap {
            try? RimPoint(x: x + $0.0, y: y + $0.1)
        }
    }

    struct Fits {
        var taps = 0
        var right = 0
        var fitted = 0
        /// The box of typical size at the same taps, scored the same way.
        var typicalRight = 0
        var widths: [Double] = []
        /// The taps whose rim was wrong, in words.
        var wrong: [String] = []

        mutating func add(_ fit: RimFinder.Fit, truth: [Double], video: String) {
            let score = RimScore(found: fit.rim.values, truth: truth)
            let box = (try? RimFinder.typicalBox(at: fit.point)).map { [$0.x, $0.y, $0.width, $0.height] }
            let typical = RimScore(found: box ?? [0, 0, 0, 0], truth: truth)
            taps += 1
            if score.isFound { right += 1 }
            if typical.isFound { typicalRight += 1 }
            if fit.fitted { fitted += 1 }
            widths.append(score.width)
            if !score.isFound {
                wrong.append(
                    "\(video) tapped at \(fit.point.argument): \(fit.rim.argument), centre off by \(format(score.centre, digits: 2)) widths, width ×\(format(score.width, digits: 2)) (\(fit.evidence))"
                )
            }
        }

        static func + (a: Fits, b: Fits) -> Fits {
            Fits(
                taps: a.taps + b.taps, right: a.right + b.right, fitted: a.fitted + b.fitted,
                typicalRight: a.typicalRight + b.typicalRight, widths: a.widths + b.widths, wrong: a.wrong + b.wrong)
        }

        var cells: String {
            let range =
                widths.isEmpty ? "-" : "\(format(widths.min() ?? 0, digits: 2))–\(format(widths.max() ?? 0, digits: 2))"
            return "\(right)/\(taps) | \(typicalRight)/\(taps) | \(fitted)/\(taps) | \(range)"
        }
    }

    static func run(
        folder: String, work: String, lebot: String, heldOut: Bool, courtSeeds: [UInt64]? = nil, error: Double = 0.01
    ) throws {
        if courtSeeds == nil { try realFootage(folder: folder, lebot: lebot, heldOut: heldOut, error: error) }
        try court(work: work, heldOut: heldOut, seeds: courtSeeds, error: error)
        print("")
        print(
            "rim right: centre within a quarter of the true rim's width of its centre and width 0.75–1.3 of it (as the finder is scored); fitted: a ring was clear at the tap (otherwise the box of typical size); width: fitted or used over true."
        )
    }

    static func realFootage(folder: String, lebot: String, heldOut: Bool, error: Double) throws {
        let videos = try RealFootageBench.videos(in: folder, heldOut: heldOut)
        print("")
        print(
            "A tap on the rim, real footage (\(heldOut ? "tuning and held-out videos" : "tuning videos only")), 5 taps each, \(format(error * 100, digits: 1)) % of the picture apart"
        )
        print("")
        print(
            "| video | held out | rim right | typical box right | fitted | width | `--rim x,y`: found, right, extra | typical box at the tap: found, right, extra |"
        )
        print("|---|---|---|---|---|---|---|---|")
        var (allFits, allFitted, allTyped) = (Fits(), RealFootageBench.Tally(), RealFootageBench.Tally())
        // Taps need the true rim: not on a clip whose ring was not measured.
        for video in videos {
            guard let rim = video.rim else { continue }
            let path = "\(folder)/\(video.name)"
            var (fits, fitted, typed) = (Fits(), RealFootageBench.Tally(), RealFootageBench.Tally())
            for tap in taps(on: rim, error: error) {
                fits.add(try RimFinder().fit(near: tap, in: path), truth: rim, video: video.name)
                fitted.add(video, try RealFootageBench.analyze(path, lebot: lebot, rim: tap.argument))
                let typical = try RimFinder.typicalBox(at: tap)
                let box = [typical.x, typical.y, typical.width, typical.height].map { String($0) }.joined(
                    separator: ",")
                typed.add(video, try RealFootageBench.analyze(path, lebot: lebot, rim: box))
            }
            (allFits, allFitted, allTyped) = (allFits + fits, allFitted + fitted, allTyped + typed)
            print(
                "| \(video.name) | \(video.heldOut ? "yes" : "no") | \(fits.cells) | \(fitted.cells) | \(typed.cells) |"
            )
        }
        print("| all | | \(allFits.cells) | \(allFitted.cells) | \(allTyped.cells) |")
        if !allFits.wrong.isEmpty { print("") }
        for line in allFits.wrong { print("- \(line)") }
    }

    /// The 3D court's 1280×720 videos (rendered into `work` as `--only court` does): the fit alone,
    /// per placement, on the seeds it was read off (1001) or on slices it never saw.
    static func court(work: String, heldOut: Bool, seeds chosen: [UInt64]?, error: Double) throws {
        let seeds: [UInt64] = chosen ?? (heldOut ? [1101, 1102, 1103, 1301, 1302, 1303] : [1001])
        print("")
        print(
            "A tap on the rim, the 3D court (1280×720 30 fps), seeds \(seeds.map(String.init).joined(separator: ", ")) (\(chosen != nil ? "chosen" : heldOut ? "never seen by the fit" : "the fit was read off 1001")), 5 taps each, \(format(error * 100, digits: 1)) % of the picture apart"
        )
        print("")
        print("| placement | rim right | typical box right | fitted | width |")
        print("|---|---|---|---|---|")
        var all = Fits()
        for placement in CourtCorpus.Placement.allCases {
            let videos = try CourtBench.corpus(
                in: "\(work)/court-\(CourtBench.Format.standard.name)/\(placement.rawValue)", seeds: seeds,
                placement: placement, format: .standard)
            var fits = Fits()
            for video in videos {
                for tap in taps(on: video.rim, error: error) {
                    fits.add(
                        try RimFinder().fit(near: tap, in: video.path), truth: video.rim,
                        video: URL(fileURLWithPath: video.path).lastPathComponent)
                }
            }
            all = all + fits
            print("| \(placement.rawValue) | \(fits.cells) |")
        }
        print("| all | \(all.cells) |")
        if !all.wrong.isEmpty { print("") }
        for line in all.wrong { print("- \(line)") }
    }
}
