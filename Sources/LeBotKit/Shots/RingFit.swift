import CameraCommon
import CameraIO

#if canImport(Glibc)
    import Glibc
#endif

/// A point on the rim the user gave (a tap on the picture, `--rim x,y`), as fractions of the
/// picture from its top left.
public struct RimPoint: Sendable, Codable, Equatable {
    public var x: Double
    public var y: Double

    /// - Throws: ``MediaError`` `invalidArgument` when the point is not inside the picture.
    public init(x: Double, y: Double) throws(MediaError) {
        guard x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y) else {
            throw MediaError(
                .invalidArgument, operation: "read rim point",
                message: "x, y must be fractions of the frame (0-1), got \(x),\(y)")
        }
        (self.x, self.y) = (x, y)
    }

    /// `x,y` as `--rim` and `?rim=` take it (three decimals).
    public var argument: String { "\(String(format3: x)),\(String(format3: y))" }
}

/// The rim as the user gave it: a box around it, or a point on it for the finder to fit the ring at.
public enum RimGiven: Sendable, Equatable {
    case box(RimCalibration)
    case point(RimPoint)

    /// The box given, or nil for a point.
    public var box: RimCalibration? {
        if case .box(let box) = self { box } else { nil }
    }
    /// The point given, or nil for a box.
    public var point: RimPoint? {
        if case .point(let point) = self { point } else { nil }
    }

    /// Parses `x,y,w,h` (a box) or `x,y` (a point on the rim), as fractions of the frame or in
    /// pixels of a picture of `pixels` with `px` at the end (`601,176,43,10px`, `622,181px`).
    public init(parsing text: String, pixels: (width: Int, height: Int)? = nil) throws(MediaError) {
        let trimmed = text.trimmingWhitespace()
        let numbers = trimmed.hasSuffix("px") ? String(trimmed.dropLast(2)) : trimmed
        guard numbers.split(separator: ",", omittingEmptySubsequences: false).count == 2 else {
            self = .box(try RimCalibration(parsing: text, pixels: pixels))
            return
        }
        let values = numbers.split(separator: ",").compactMap { Double($0.trimmingWhitespace()) }
        guard values.count == 2 else {
            throw MediaError(
                .invalidArgument, operation: "read rim point",
                message:
                    "expected x,y of a point on the rim as fractions of the frame, e.g. 0.51,0.34, or in pixels, e.g. 327,122px; got \(text.debugDescription)"
            )
        }
        var (x, y) = (values[0], values[1])
        if trimmed.hasSuffix("px") {
            guard let pixels, pixels.width > 0, pixels.height > 0 else {
                throw MediaError(
                    .invalidArgument, operation: "read rim point",
                    message:
                        "a point in pixels (\(text.debugDescription)) needs the picture's size; give fractions here")
            }
            (x, y) = (x / Double(pixels.width), y / Double(pixels.height))
        }
        self = .point(try RimPoint(x: x, y: y))
    }
}

extension RimFinder {
    /// The rim fitted at a point the user gave: the ring's box when one is clear there, otherwise a
    /// box of typical size centred on the point.
    public struct Fit: Sendable, Codable, Equatable {
        public var point: RimPoint
        public var rim: RimCalibration
        /// Whether a ring was found at the point (false: ``tapBox`` centred on it).
        public var fitted: Bool
        /// How much of the fitted ring's outline is a thin line in the picture (0–1).
        public var coverage: Double
        /// In words, for the user.
        public var evidence: String
    }

    /// The box a point stands for when no ring is clear there: a rim of typical size in the videos
    /// LeBot is filmed for (7 % of the picture wide, 2.5 % tall), as the web app's tap marked before.
    public static let tapBox = (width: 0.07, height: 0.025)

    /// ``tapBox`` centred on `point`, moved inside the picture where it would stick out.
    public static func typicalBox(at point: RimPoint) throws(MediaError) -> RimCalibration {
        let (width, height) = tapBox
        return try RimCalibration(
            x: min(max(point.x - width / 2, 0), 1 - width), y: min(max(point.y - height / 2, 0), 1 - height),
            width: width, height: height)
    }

    /// How the ring is looked for near a point, in fractions of the picture's width (heights in
    /// fractions of its height). Read off three real phone videos and the 3D court's five placements
    /// (seed 1001, then 1, 2 and 3 for the orange cue), tapped at the true rim's centre and 1 % of
    /// the picture around it; scored once on seeds it never saw (BENCHMARKS.md, stop 39).
    struct RingSearch {
        /// How far from the point the ring's centre may be (across: a fraction of the picture's
        /// width; up and down: of its height, ``reachY`` when set).
        var reach = 0.02
        var reachY: Double?
        /// The ring's half-width, from ``smallest`` to ``largest``.
        var smallest = 0.008
        var largest = 0.04
        /// Its height over its width, from side-on (a line) to well above it.
        var ratios: [Double] = [0.08, 0.12, 0.16, 0.2, 0.25, 0.3, 0.35, 0.4]
        /// Flatter still, for an orange line: a painted rim seen side-on is a line a few pixels
        /// thick, and at 0.08 a wide ellipse's two sides no longer both lie on it. (Not for the
        /// lines by brightness: a board's straight edge runs beside most rims.)
        var flatRatios: [Double] = [0.03, 0.05]
        /// A pixel is on a line when it is this much darker (or brighter) than both neighbours two
        /// pixels away across it.
        var contrast = 10
        /// How far either side the neighbours are (each distance tried): 2 for a line a pixel or
        /// two thick; 2 and 3 for a tube 3–4 px thick seen side-on, whose middle is no darker than
        /// pixels two away inside it.
        var gaps = [2]
        /// A ring is hollow: its score loses the share of points halfway inside it that are on a
        /// line too. Without it a thick line fits best as an ellipse a pixel tall lying inside it.
        var hollow = false
        /// The widest ring scoring within this of the best is taken: a net's knots and a bracket
        /// make small closed loops that fit as well as the ring or better.
        var slack = 0.16
        /// Pixels (columns, rows) where the far (upper) half of a ring counts as on a dark line:
        /// the band of a board's square's bottom line (``ringUnderBoard(in:)``), along which a
        /// rim seen from behind has its far side, and which is too thick to be a thin line itself.
        /// Two steel rims behind the shooter on the 3D court, whose far side lay along it, scored
        /// 0.33–0.35 without it, under ``ringUnderSquare``. Its near half must still be on a line.
        var paintedLine: (columns: ClosedRange<Int>, rows: ClosedRange<Int>)?
        /// Below this score no ring is clear.
        var minimumScore = 0.45
        /// Points on the outline looked at.
        var samples = 72
    }

    /// Fits the rim's ring near `point` in the first frames of the video at `path` (held still like
    /// the analysis holds them, when ``stabilizer`` is set).
    ///
    /// - Throws: ``MediaError`` when the file cannot be read or has no video.
    /// A picture (a still of the video, PNG or JPEG) is read as a video of one frame when
    /// `readerOptions` let it be (``ReaderOptions/uploadedVideoOrPicture``).
    public func fit(near point: RimPoint, in path: String, readerOptions: ReaderOptions? = nil) throws(MediaError)
        -> Fit
    {
        var reading = Reading(self, sampling: false)
        try readStart(of: path, operation: "fit the rim in \(path)", readerOptions: readerOptions) { frame, _ in
            reading.offer(frame, duration: nil)
            return reading.isDone
        }
        guard !reading.start.frames.isEmpty else {
            throw MediaError(.invalidArgument, operation: "fit the rim in \(path)", message: "the video has no frames")
        }
        return try Self.fit(near: point, frames: reading.start.frames)
    }

    /// The frames the fit reads: three, 0.2 s apart from the first frame's time (a video need not
    /// start at 0); their median leaves out a ball or a hand passing the rim.
    struct FitFrames {
        static let times = [0, 0.2, 0.4]
        private(set) var frames: [VideoFrame] = []
        private var start: Double?
        var isFull: Bool { frames.count == Self.times.count }

        /// Keeps `frame` when it is the next one wanted; true once all are kept.
        @discardableResult
        mutating func offer(_ frame: VideoFrame, at time: Double) -> Bool {
            guard !isFull else { return true }
            let since = time - (start ?? time)
            if start == nil { start = time }
            if since >= Self.times[frames.count] - 0.001 { frames.append(frame) }
            return isFull
        }
    }

    /// The fit on frames of one picture (YUV 4:2:0, one size), read through their median.
    static func fit(near point: RimPoint, frames: [VideoFrame]) throws(MediaError) -> Fit {
        if let ring = ring(near: point, frames: frames), ring.score >= RingSearch().minimumScore,
            let first = frames.first
        {
            if let rim = ring.box(width: first.width, height: first.height) {
                return Fit(
                    point: point, rim: rim, fitted: true, coverage: ring.coverage,
                    evidence:
                        "\(ring.cue == .orange ? "an" : "a") \(ring.cue.rawValue) ring \(Int((2 * ring.a).rounded())) px wide at the point given (\(Int((ring.coverage * 100).rounded())) % of its outline on a thin line)"
                )
            }
        }
        return Fit(
            point: point, rim: try typicalBox(at: point), fitted: false, coverage: 0,
            evidence: "no ring clear at the point given: a box of typical size (7 % of the picture wide) centred on it"
        )
    }

    struct Ring {
        /// Centre and half-axes in pixels.
        var x: Double
        var y: Double
        var a: Double
        var b: Double
        /// What it was chosen by (see ``ring(near:frame:search:)``), and the share of its outline on a line.
        var score: Double
        var coverage: Double
        var cue: Cue

        /// Half the rim's tube over the ring's half-width: a rod 1.6–2 cm thick round a ring 46 cm
        /// across its middle.
        static let tube = 0.04

        /// The rim's box, as fractions of a `width`×`height` picture (cut where it would leave it),
        /// `out` (a share of the half-width, ``tube``) further out all round than the ring; nil when
        /// nothing of it is inside. A ring fitted on a thin line runs along the middle of the
        /// rim's tube, and the box bounds its outside, as the orange finder's box bounds the
        /// orange: the rings under and beside a board's square (a search that takes the widest
        /// ring within 0.04 of the best) were 0.88–0.92 of the true width at the middle on the 3D
        /// court's seen slices, and the narrowest 0.74–0.78. Not at a tap, whose search takes the
        /// widest within 0.16 of the best, out to the tube's outside already (0.76–1.06 of the
        /// true width on the court, most near 1; wider there, on a real video, called two more
        /// shots beside the rim makes).
        func box(width: Int, height: Int, out share: Double = 0) -> RimCalibration? {
            let (w, h) = (Double(width), Double(height))
            let out = share * a
            let left = max(0, (x - a - out) / w)
            let top = max(0, (y - b - out) / h)
            return try? RimCalibration(
                x: left, y: top, width: min(2 * (a + out) / w, 1 - left), height: min(2 * (b + out) / h, 1 - top))
        }
    }

    /// What marks the ring's outline.
    enum Cue: String, CaseIterable {
        /// A thin line darker than both neighbours two pixels across it (a grey or rusty ring on a
        /// white board or the sky), or brighter (a light ring against a dark wall).
        case dark, bright
        /// Orange, however thick the line (a painted rim; the finder usually finds these itself).
        case orange
    }

    /// The ring near `point`: of the ellipses around it (centre, half-width and height over width
    /// from ``RingSearch``), each scored by how much of its outline lies on a thin dark (or bright)
    /// line, or on orange — the mean of its four quarters' shares and the least of them, so a straight line
    /// through it is not a ring — the widest within ``RingSearch/slack`` of the best.
    static func ring(near point: RimPoint, frames: [VideoFrame], search: RingSearch = .init()) -> Ring? {
        guard let first = frames.first,
            frames.allSatisfy({
                $0.format == .yuv420p && $0.planes.count == 3 && $0.width == first.width && $0.height == first.height
            })
        else { return nil }
        let (width, height) = (first.planes[0].width, first.planes[0].height)
        guard width > 8, height > 8 else { return nil }
        let (w, h) = (Double(width), Double(height))
        let (tx, ty) = (point.x * w, point.y * h)
        let (reachX, reachY) = (search.reach * w, (search.reachY ?? search.reach) * h)
        let (smallest, largest) = (max(4, search.smallest * w), search.largest * w)
        let tallest = largest * (search.ratios.max() ?? 0.4)
        // The window every outline looked at falls in.
        let x0 = max(0, Int((tx - reachX - largest).rounded(.down)) - 1)
        let x1 = min(width - 1, Int((tx + reachX + largest).rounded(.up)) + 2)
        let y0 = max(0, Int((ty - reachY - tallest).rounded(.down)) - 1)
        let y1 = min(height - 1, Int((ty + reachY + tallest).rounded(.up)) + 2)
        guard x1 > x0, y1 > y0 else { return nil }
        let columns = x1 - x0 + 1
        // The window's pixels on each cue's line, in Cue order.
        var lines = [[Bool]](
            repeating: [Bool](repeating: false, count: columns * (y1 - y0 + 1)), count: Cue.allCases.count)
        // The window's pixels in ``RingSearch/paintedLine`` (none kept without one).
        var painted = [Bool](repeating: false, count: search.paintedLine == nil ? 0 : columns * (y1 - y0 + 1))
        // The frames' median, read only in the window (and the two pixels around it the lines are
        // measured against): a ball or a hand passing the rim in one frame is left out.
        var readings = [Int](repeating: 0, count: frames.count)
        func median(_ plane: Int, _ x: Int, _ y: Int) -> Int {
            if frames.count == 3 {
                // Three frames (``FitFrames``): their median without a sort.
                let (a, b, c) = (frames[0].planes[plane], frames[1].planes[plane], frames[2].planes[plane])
                return Int(
                    Self.median(
                        a.bytes[y * a.bytesPerRow + x], b.bytes[y * b.bytesPerRow + x], c.bytes[y * c.bytesPerRow + x]))
            }
            for (index, frame) in frames.enumerated() {
                let bytes = frame.planes[plane]
                readings[index] = Int(bytes.bytes[y * bytes.bytesPerRow + x])
            }
            readings.sort()
            return readings[readings.count / 2]
        }
        let gap = search.gaps.max() ?? 2
        let (lumaX0, lumaY0) = (max(0, x0 - gap), max(0, y0 - gap))
        let (lumaX1, lumaY1) = (min(width - 1, x1 + gap), min(height - 1, y1 + gap))
        let lumaColumns = lumaX1 - lumaX0 + 1
        var luma = [Int](repeating: 0, count: lumaColumns * (lumaY1 - lumaY0 + 1))
        for y in lumaY0...lumaY1 {
            for x in lumaX0...lumaX1 { luma[(y - lumaY0) * lumaColumns + x - lumaX0] = median(0, x, y) }
        }
        func value(_ x: Int, _ y: Int) -> Int {
            luma[(min(max(y, lumaY0), lumaY1) - lumaY0) * lumaColumns + min(max(x, lumaX0), lumaX1) - lumaX0]
        }
        // Orange, however thick the line, but a line: across it one way or the other the orange
        // ends within the thickest a rim's tube is seen here (a quarter of the largest half-width
        // looked for, 6 px at least). A field of it is no ring, however an ellipse is laid on it:
        // a beige wall in a warm light passes for orange (Cr 137–139, Cb 116), and on the 3D
        // court (steel behind-4208) a ring on such a wall beside the board, 62 % of whose pixels
        // passed, outscored the grey rim under the board's square. Read a band wider than the
        // window, so a run the window's edge cuts is not taken for a thin one.
        let thickest = max(6, Int((0.25 * largest).rounded()))
        let (orangeX0, orangeX1) = (max(0, x0 - thickest), min(width - 1, x1 + thickest))
        let (orangeY0, orangeY1) = (max(0, y0 - thickest), min(height - 1, y1 + thickest))
        let orangeColumns = orangeX1 - orangeX0 + 1
        let orangeRows = orangeY1 - orangeY0 + 1
        var orange = [Bool](repeating: false, count: orangeColumns * orangeRows)
        for y in orangeY0...orangeY1 {
            for x in orangeX0...orangeX1 {
                orange[(y - orangeY0) * orangeColumns + x - orangeX0] = RimFinder.isOrange(
                    y: median(0, x, y), u: median(1, x / 2, y / 2), v: median(2, x / 2, y / 2))
            }
        }
        // Per pixel, how long the orange run it is in is, across and down.
        let runAcross = Self.runLengths(
            orange, count: orangeRows, length: orangeColumns, stride: 1, step: orangeColumns)
        let runDown = Self.runLengths(orange, count: orangeColumns, length: orangeRows, stride: orangeColumns, step: 1)
        for y in y0...y1 {
            for x in x0...x1 {
                let centre = value(x, y)
                var (darker, brighter) = (Int.min, Int.min)
                for d in search.gaps {
                    let (up, down, left, right) = (value(x, y - d), value(x, y + d), value(x - d, y), value(x + d, y))
                    darker = max(darker, min(up, down) - centre, min(left, right) - centre)
                    brighter = max(brighter, centre - max(up, down), centre - max(left, right))
                }
                let index = (y - y0) * columns + (x - x0)
                lines[0][index] = darker > search.contrast
                if let band = search.paintedLine, band.columns.contains(x), band.rows.contains(y) {
                    painted[index] = true
                }
                lines[1][index] = brighter > search.contrast
                let o = (y - orangeY0) * orangeColumns + x - orangeX0
                lines[2][index] = orange[o] && min(runAcross[o], runDown[o]) <= thickest
            }
        }
        let angles = (0..<search.samples).map { 2 * Double.pi * Double($0) / Double(search.samples) }
        let (cosines, sines) = (angles.map { cos($0) }, angles.map { sin($0) })
        let centresX = Array(stride(from: tx - reachX, to: tx + reachX + 1, by: 1))
        // The centres' rows are a whole number of pixels from the first; an outline's rows are then
        // that first row's fraction plus a per-sample offset, rounded once per ellipse, not per centre.
        let firstY = ty - reachY
        let rowsOfCentres = Array(stride(from: firstY, to: ty + reachY + 1, by: 1)).count
        let baseY = Int(firstY.rounded(.down))
        let fractionY = firstY - Double(baseY)
        let quarter = search.samples / 4
        var candidates: [Ring] = []
        // Per sample, the outline's column in the window and its row offset; halfway inside
        // (``RingSearch/hollow``): 0.6 of the way across, 0.4 of the way up. Buffers, not arrays:
        // read ~10⁸ times, an array captured by the loop below is checked for exclusive access on
        // every read (a fifth of the search's time).
        let columnAt = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        let rowOffset = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        let innerColumnAt = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        let innerRowOffset = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        // When no outline of an ellipse leaves the frame, its samples' places in the window for the
        // first row of centres; the row of centres `j` adds `j` rows.
        let at = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        let innerAt = UnsafeMutableBufferPointer<Int>.allocate(capacity: search.samples)
        defer {
            for buffer in [columnAt, rowOffset, innerColumnAt, innerRowOffset, at, innerAt] { buffer.deallocate() }
        }
        for (cueIndex, cue) in Cue.allCases.enumerated() {
            // The far (upper) half of the outline may lie along the painted line instead: it is
            // read from the line's pixels and the band's together.
            let upper =
                cue == .dark && search.paintedLine != nil
                ? zip(lines[cueIndex], painted).map { $0 || $1 } : lines[cueIndex]
            guard upper.contains(true) || centresX.isEmpty || rowsOfCentres == 0 else {
                // Nothing on this cue's line (no orange near a grey rim): every ellipse scores 0,
                // and the first centre looked at is each one's best.
                for a in stride(from: smallest, to: largest, by: 1) {
                    for ratio in (cue == .orange ? search.flatRatios : []) + search.ratios {
                        candidates.append(
                            Ring(x: centresX[0], y: firstY, a: a, b: max(1, a * ratio), score: 0, coverage: 0, cue: cue)
                        )
                    }
                }
                continue
            }
            lines[cueIndex].withUnsafeBufferPointer { map in
                upper.withUnsafeBufferPointer { upperMap in
                    for a in stride(from: smallest, to: largest, by: 1) {
                        for ratio in (cue == .orange ? search.flatRatios : []) + search.ratios {
                            let b = max(1, a * ratio)
                            for k in 0..<search.samples {
                                rowOffset[k] = Int((fractionY + b * sines[k]).rounded())
                                innerRowOffset[k] = Int((fractionY + 0.4 * b * sines[k]).rounded())
                            }
                            // The inside's offsets lie within the outline's (sample 0 is on the
                            // centre's row; rounding keeps order).
                            let inFrame =
                                baseY + (rowOffset.min() ?? 0) >= 0
                                && baseY + rowsOfCentres - 1 + (rowOffset.max() ?? 0) <= height - 1
                            var best: Ring?
                            for cx in centresX {
                                for k in 0..<search.samples {
                                    columnAt[k] = min(max(Int((cx + a * cosines[k]).rounded()), 0), width - 1) - x0
                                    innerColumnAt[k] =
                                        min(max(Int((cx + 0.6 * a * cosines[k]).rounded()), 0), width - 1) - x0
                                    if inFrame {
                                        at[k] = (baseY + rowOffset[k] - y0) * columns + columnAt[k]
                                        innerAt[k] = (baseY + innerRowOffset[k] - y0) * columns + innerColumnAt[k]
                                    }
                                }
                                for j in 0..<rowsOfCentres {
                                    // Samples on the outline that fall on a line, per quarter (no
                                    // allocation here: this runs ~10⁸ times).
                                    func onLine(_ part: Int, _ map: UnsafeBufferPointer<Bool>) -> Int {
                                        var count = 0
                                        let samples = (part * quarter)..<((part + 1) * quarter)
                                        if inFrame {
                                            let down = j * columns
                                            for k in samples where map[at[k] + down] { count += 1 }
                                            return count
                                        }
                                        for k in samples {
                                            let row = min(max(baseY + j + rowOffset[k], 0), height - 1) - y0
                                            if map[row * columns + columnAt[k]] { count += 1 }
                                        }
                                        return count
                                    }
                                    let counts = (
                                        onLine(0, map), onLine(1, map), onLine(2, upperMap), onLine(3, upperMap)
                                    )
                                    let coverage =
                                        Double(counts.0 + counts.1 + counts.2 + counts.3) / Double(4 * quarter)
                                    let least = min(counts.0, counts.1, counts.2, counts.3)
                                    var score = 0.5 * coverage + 0.5 * Double(least) / Double(quarter)
                                    if search.hollow {
                                        var inside = 0
                                        for k in 0..<search.samples {
                                            let index =
                                                inFrame
                                                ? innerAt[k] + j * columns
                                                : (min(max(baseY + j + innerRowOffset[k], 0), height - 1) - y0)
                                                    * columns + innerColumnAt[k]
                                            if map[index] { inside += 1 }
                                        }
                                        score -= Double(inside) / Double(search.samples)
                                    }
                                    if score > (best?.score ?? -1) {
                                        best = Ring(
                                            x: cx, y: firstY + Double(j), a: a, b: b, score: score,
                                            coverage: coverage, cue: cue)
                                    }
                                }
                            }
                            if let best { candidates.append(best) }
                        }
                    }
                }
            }
        }
        guard let top = candidates.map(\.score).max() else { return nil }
        let close = candidates.filter { $0.score >= top - search.slack }
        // The first of the widest, in the order looked at (dark, bright, orange; flatter first).
        guard let widest = close.map(\.a).max() else { return nil }
        return close.first { $0.a == widest }
    }

    /// For each set pixel of `mask`, the length of the run of set pixels it is in along its line:
    /// `count` lines of `length` pixels, line `i`'s pixel `j` at `i * step + j * stride`.
    static func runLengths(_ mask: [Bool], count: Int, length: Int, stride: Int, step: Int) -> [Int] {
        var runs = [Int](repeating: 0, count: mask.count)
        for line in 0..<count {
            var start = 0
            while start < length {
                guard mask[line * step + start * stride] else {
                    start += 1
                    continue
                }
                var end = start
                while end + 1 < length, mask[line * step + (end + 1) * stride] { end += 1 }
                for j in start...end { runs[line * step + j * stride] = end - start + 1 }
                start = end + 1
            }
        }
        return runs
    }
}
