import CameraCommon
import CameraIO

/// Finds the hoop's rim in a video by itself, so nobody has to type four fractions.
///
/// The rim is the one orange thing that never moves: across frames sampled over the first
/// ``seconds`` of the video, chroma pixels that are orange in most of them are grouped into
/// shapes; a rim is a wide, flat shape (a line seen from the side, a flat ellipse from an angle)
/// with the white of a net below it or a backboard beside or above it. The ball, an orange shirt
/// and anything else that moves are orange only now and then, so they drop out.
///
/// A rim that is not orange (grey, rusty, dark red: most outdoor hoops) is found under the
/// backboard's painted inner square instead (``ringUnderBoard(in:)``), where the board faces the
/// camera enough to show it: at 45° or from behind; from the side, beside the square, which is
/// then a narrow parallelogram (``ringBesideBoard(in:picture:)``). A still orange bar is checked against
/// that ring too: a grey rim in a warm light is orange along a part of its length, and the ring
/// that holds the bar is the rim.
///
/// ``Result/confidence`` (0–1) says how sure the finder is: shape, stability, net and board (for
/// a rim under a square: how clearly the square is enclosed, and the ring). Below
/// ``minimumConfidence`` there is no result and the caller asks the user to point at the rim.
public struct RimFinder: Sendable {
    public struct Result: Sendable, Codable, Equatable {
        public var rim: RimCalibration
        public var confidence: Double
        /// Frames looked at.
        public var frames: Int
        /// What was seen, in words ("an orange bar, stable in 97 % of frames, a net below, a board beside").
        public var evidence: String
        /// Whether white that stays still hangs under the rim: a net (nil in analyses saved before
        /// this was kept).
        public var netBelow: Bool?
        /// Found under the backboard's painted square (``ringUnderBoard(in:)``), not by its
        /// orange: a rim that is not orange, which an orange ball passing makes look orange for a
        /// moment, so its orange is not watched to tell that the camera moved (nil: by its orange).
        public var underBoard: Bool? = nil
    }

    /// Seconds from the start of the video to sample.
    public var seconds: Double
    /// Frames sampled in that time (at most).
    public var samples: Int
    /// Decode width (at most the video's). A rim 45° off or behind the shooter is a thin ellipse
    /// a few pixels tall; halved to 640 it fades into the board behind it and breaks into pieces
    /// (two hoops of the 3D court were not found at 640 and were at 1280).
    public var analysisWidth: Int
    public var minimumConfidence: Double
    /// How a handheld camera's picture is held still while sampling (nil: frames as decoded). The
    /// same as ``WorkoutAnalyzer/stabilizer``, so the rim found is where the analysis sees it.
    public var stabilizer: FrameStabilizer.Configuration? = .init()

    public init(seconds: Double = 20, samples: Int = 40, analysisWidth: Int = 1280, minimumConfidence: Double = 0.5) {
        self.seconds = seconds
        self.samples = samples
        self.analysisWidth = analysisWidth
        self.minimumConfidence = minimumConfidence
    }

    /// Reads the start of the video at `path` and looks for the rim; nil when none is clear.
    ///
    /// - Throws: ``MediaError`` when the file cannot be read or has no video.
    public func find(in path: String) throws(MediaError) -> Result? {
        var reading = Reading(self, sampling: true)
        try readStart(of: path, operation: "find the rim in \(path)") { frame, duration in
            reading.offer(frame, duration: duration)
            return reading.isDone
        }
        return reading.result()
    }

    /// The finder reading the first frames of a video one by one as they are decoded at its size
    /// (``decodedSize(_:_:atMost:)`` of ``analysisWidth``): each held still by ``stabilizer``,
    /// kept for the fit at a point (``FitFrames``) and, when `sampling`, sampled over ``seconds``
    /// for the rim's orange (``Accumulator``). ``find(in:)`` reads a file so; an analysis reading
    /// the file once hands it the same frames, decoded at the finder's size beside its own.
    struct Reading {
        let finder: RimFinder
        let sampling: Bool
        private let stabilizing: FrameStabilizer?
        private(set) var accumulator: Accumulator?
        private(set) var start = FitFrames()
        private var decoded = 0

        init(_ finder: RimFinder, sampling: Bool) {
            self.finder = finder
            self.sampling = sampling
            // Every frame goes through the stabilizer (it follows the picture from frame to frame).
            stabilizing = finder.stabilizer.map { FrameStabilizer(configuration: $0) }
        }

        /// Whether it has all the frames it wants (more are not looked at).
        var isDone: Bool { start.isFull && (!sampling || (accumulator?.frames ?? 0) >= finder.samples) }

        /// Takes the next decoded frame of a video lasting `duration` seconds (nil: not known).
        mutating func offer(_ frame: VideoFrame, duration: Double?) {
            let time = frame.pts?.seconds ?? Double(decoded) / 30
            decoded += 1
            let frame = stabilizing?.stabilize(frame, time: time) ?? frame
            guard !isDone else { return }
            start.offer(frame, at: time)
            guard sampling else { return }
            if accumulator == nil { accumulator = Accumulator(width: frame.width, height: frame.height) }
            let span = min(finder.seconds, duration ?? finder.seconds)
            accumulator?.offer(
                frame, time: time, step: max(span / Double(finder.samples), 0.001),
                inPhase: stabilizing.map { FrameStabilizer.isInPhase($0.residual) } ?? true)
        }

        /// The rim in what was read: a still orange one, else one under the board's square; nil
        /// when neither is as sure as ``minimumConfidence``. A still orange bar that is only a
        /// part of the ring by the board's square (``isPart(_:of:width:height:)``) is a grey rim
        /// orange in part: the ring is the rim.
        func result() -> Result? {
            guard let accumulator else { return finder.underBoard(in: start.frames, seen: nil) }
            return accumulator.rim(minimumConfidence: finder.minimumConfidence) { bar in
                finder.underBoard(in: start.frames, seen: accumulator, bar: bar)
            }
        }
    }

    /// Whether the orange bar `bar` is only a part of the rim `ring` found by the board's square
    /// (both as fractions of a `width`×`height` picture): the ring is more than a quarter wider,
    /// reaches to within a tenth of the bar's width of both its ends, and its middle is level with
    /// the bar's (within a quarter of the ring's width). A grey rim in a warm light is orange along
    /// part of its length (steel sideRight-4403: 44 of its 73 px, still in 90 % of frames, a net
    /// under it and a board beside it; the ring beside the square 73 px wide, 2 px off). An orange
    /// rim is all orange: on the 3D court's 466 seen videos of orange rims the ring by the square
    /// was at most 1.15 times as wide as the bar. The lit part is the tube's top, above the ring's
    /// middle, and the shorter it is the further that is in its own widths: steel sideRight-4608
    /// and sideLeft-4608 (seen, stop 61) were orange over 16 and 24 px of 70, 11 and 8 px above the
    /// ring's middle, and a quarter of the bar's width (4 and 6 px) left the ring unused.
    static func isPart(_ bar: RimCalibration, of ring: RimCalibration, width: Int, height: Int) -> Bool {
        let (w, h) = (Double(width), Double(height))
        let end = 0.1 * bar.width
        return ring.width > 1.25 * bar.width && ring.x <= bar.x + end
            && ring.x + ring.width >= bar.x + bar.width - end
            && abs((ring.y + ring.height / 2) - (bar.y + bar.height / 2)) * h <= 0.25 * ring.width * w
    }

    /// Whether the orange bar `bar` is far from the rim `ring` found by the board's square (both as
    /// fractions of a `width`×`height` picture): their middles more than three of the ring's widths
    /// apart. A rim hangs at its board's square; a still orange bar elsewhere is something else
    /// orange enough: paint, or a light. (Steel angledRight-4712, held out at stop 62: a 24×4 px
    /// piece of the cream light stripe where the far wall meets the ceiling, orange enough at its
    /// edge in 90 % of frames, 10.7 rim widths from the grey rim; the rim was not found and the
    /// video's five shots were lost.)
    static func isAway(_ bar: RimCalibration, from ring: RimCalibration, width: Int, height: Int) -> Bool {
        let (w, h) = (Double(width), Double(height))
        let dx = (bar.x + bar.width / 2 - ring.x - ring.width / 2) * w
        let dy = (bar.y + bar.height / 2 - ring.y - ring.height / 2) * h
        return (dx * dx + dy * dy).squareRoot() > 3 * ring.width * w
    }

    /// The rim under the backboard's inner square (``ringUnderBoard(in:)``) in `start` (the first
    /// frames, as the fit at a tap reads them), when its ring is as sure as ``minimumConfidence``;
    /// whether a net hangs under it, from the frames `seen` sampled over the video's start. `bar`:
    /// a still orange bar found first, which the evidence names (a part of the ring, or away from it).
    func underBoard(in start: [VideoFrame], seen: Accumulator?, bar: RimCalibration? = nil) -> Result? {
        guard let first = start.first, let (square, ring) = Self.ringUnderBoard(in: start) else { return nil }
        // Half the square (how much of it came back to one board), half the ring.
        let sides = square.sides.prefix(3).reduce(0, +) / 3
        let confidence = ((square.enclosed * sides + min(1, ring.score)) / 2 * 100).rounded() / 100
        guard confidence >= minimumConfidence,
            let rim = ring.box(width: first.width, height: first.height, out: Ring.tube)
        else { return nil }
        let net = seen?.netBelow(rim) ?? false
        return Result(
            rim: rim, confidence: confidence, frames: max(seen?.frames ?? 0, start.count),
            evidence:
                "\(bar.map { "an orange bar \(Int(($0.width * Double(first.width)).rounded())) px wide, \(Self.isAway($0, from: rim, width: first.width, height: first.height) ? "away from the board" : "only a part of the ring")" } ?? "no orange rim"); a backboard's inner square \(square.width)×\(square.height) px\(square.sideOn ? " seen from the side" : ""), and \(square.sideOn ? "beside" : "under") it \(ring.cue == .orange ? "an" : "a") \(ring.cue.rawValue) ring \(Int((2 * ring.a).rounded())) px wide (\(Int((ring.coverage * 100).rounded())) % of its outline on a thin line)\(net ? ", a net below" : "")",
            netBelow: net, underBoard: true)
    }

    /// The video's first frame as the analysis reads it (upright, at most ``analysisWidth`` wide),
    /// encoded as a JPEG: the picture a user marks the rim on when their browser cannot show the
    /// video itself (H.265, as iPhones record, in Chromium or Firefox on Linux). A tap on it is at
    /// the same fractions as on the frames the rim is looked for in.
    ///
    /// - Throws: ``MediaError`` when the file cannot be read, has no video or no frame decodes.
    public func firstFrameJPEG(of path: String, readerOptions: ReaderOptions? = nil) throws(MediaError) -> Still {
        var first: VideoFrame?
        try readStart(of: path, operation: "read the first frame of \(path)", readerOptions: readerOptions) {
            frame, _ in
            first = frame
            return true
        }
        guard let first else {
            throw MediaError(
                .invalidData, operation: "read the first frame of \(path)", message: "no frame of the video decodes")
        }
        return Still(
            jpeg: try ImageEncoder.encode(first, as: .jpeg, quality: 90), width: first.width, height: first.height)
    }

    /// A frame encoded as a picture, and its size in pixels.
    public struct Still: Sendable {
        public var jpeg: [UInt8]
        public var width: Int
        public var height: Int
    }

    /// The size a `width`×`height` video is decoded at for analysis: at most `limit` wide, even,
    /// the height by aspect.
    static func decodedSize(_ width: Int, _ height: Int, atMost limit: Int) -> (width: Int, height: Int) {
        let scaled = min(limit, width) & ~1
        return (scaled, max(2, Int((Double(height) * Double(scaled) / Double(width)).rounded()) & ~1))
    }

    /// Reads the start of the video at `path`, decoded at ``analysisWidth`` (at most the video's)
    /// as YUV 4:2:0, handing `take` each frame with the video's duration until `take` says it has
    /// enough (or the video ends).
    ///
    /// - Throws: ``MediaError`` when the file cannot be read or has no video.
    func readStart(
        of path: String, operation: String, readerOptions: ReaderOptions? = nil,
        _ take: (_ frame: VideoFrame, _ duration: Double?) -> Bool
    ) throws(MediaError) {
        let reader: MediaReader
        if let readerOptions {
            reader = try MediaReader(.file(path), options: readerOptions)
        } else {
            reader = try MediaReader(.file(path))
        }
        guard let video = reader.videoStream, let (sourceWidth, sourceHeight) = video.shownSize,
            sourceWidth > 0, sourceHeight > 0
        else {
            throw MediaError(.invalidArgument, operation: operation, message: "the file has no video stream")
        }
        let (width, height) = Self.decodedSize(sourceWidth, sourceHeight, atMost: analysisWidth)
        let decoder = try VideoDecoder(reader: reader, format: .yuv420p, size: (width, height), threads: 1)
        // The picture as the phone showed it: a portrait video, or one held the other way up, is
        // stored turned, and the rim, a tap and the shots are where the user sees them.
        decoder.upright = true
        let duration = reader.duration?.seconds
        var enough = false
        while !enough, let sample = try reader.nextSample() {
            guard sample.streamIndex == video.index else { continue }
            for frame in try decoder.decode(sample) where !enough { enough = take(frame, duration) }
        }
        if !enough { for frame in try decoder.flush() where !enough { enough = take(frame, duration) } }
    }

    /// The `operation` of every error that means "no rim": callers ask the user for one.
    public static let operation = "find the rim"

    /// No hoop was clear in the first `seconds` of the video.
    public static func noHoop(seconds: Double) -> MediaError {
        MediaError(
            .invalidArgument, operation: operation,
            message:
                "no hoop found in the first \(Int(seconds)) s (neither a still orange rim nor a ring under or beside a backboard's painted square)"
        )
    }

    /// Counts, per chroma pixel, the sampled frames in which it was orange and in which it was
    /// bright and colourless (net, backboard, their paint).
    /// Orange: red above neutral and blue below it, in any light — a painted rim in a dim gym, seen
    /// one chroma pixel thick from the side, is mixed with what is around it (Cr 140–148, Cb
    /// 115–120); in a bright one it is Cr 180, Cb 80. Orange things that never move and are not
    /// rims (a wooden floor, a painted band) are told apart by shape, net and board.
    static func isOrange(y: Int, u: Int, v: Int) -> Bool { v - 128 >= 8 && 128 - u >= 4 && v - u >= 18 && y > 40 }

    /// The share of the rim box (as fractions of the picture) that is orange in `frame` (YUV
    /// 4:2:0, read at chroma resolution): near 1 on the rim, near 0 where the camera no longer
    /// shows it.
    public static func orangeFraction(in frame: VideoFrame, rim: RimCalibration) -> Double {
        guard frame.format == .yuv420p, frame.planes.count == 3 else { return 1 }
        let (luma, cb, cr) = (frame.planes[0], frame.planes[1], frame.planes[2])
        let columns = frame.width / 2
        let rows = frame.height / 2
        let x0 = max(0, Int(rim.x * Double(columns)))
        let x1 = min(columns, Int(((rim.x + rim.width) * Double(columns)).rounded(.up)))
        let y0 = max(0, Int(rim.y * Double(rows)))
        let y1 = min(rows, Int(((rim.y + rim.height) * Double(rows)).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return 0 }
        var orange = 0
        for row in y0..<y1 {
            for column in x0..<x1 {
                let u = Int(cb.bytes[row * cb.bytesPerRow + column])
                let v = Int(cr.bytes[row * cr.bytesPerRow + column])
                let y = Int(luma.bytes[row * 2 * luma.bytesPerRow + column * 2])
                if isOrange(y: y, u: u, v: v) { orange += 1 }
            }
        }
        return Double(orange) / Double((x1 - x0) * (y1 - y0))
    }

    public struct Accumulator: Sendable {
        let width: Int
        let height: Int
        let columns: Int
        let rows: Int
        var orange: [UInt16]
        var white: [UInt16]
        public private(set) var frames = 0
        /// When the last frame was offered and added, seconds.
        private var lastAdded = -Double.infinity

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
            columns = width / 2
            rows = height / 2
            orange = [UInt16](repeating: 0, count: columns * rows)
            white = orange
        }

        /// Adds `frame` when `step` seconds have passed since the last frame added: at once when it
        /// shows the picture in phase with the first frame (``FrameStabilizer/isInPhase(_:)``; always
        /// on a tripod), otherwise only after one step more.
        public mutating func offer(_ frame: VideoFrame, time: Double, step: Double, inPhase: Bool) {
            guard time - lastAdded >= step, inPhase || time - lastAdded >= 2 * step else { return }
            add(frame)
            lastAdded = time
        }

        public mutating func add(_ frame: VideoFrame) {
            guard frame.format == .yuv420p, frame.planes.count == 3, frame.width == width, frame.height == height
            else { return }
            let (luma, cb, cr) = (frame.planes[0], frame.planes[1], frame.planes[2])
            // White (a net, a board) is bright for this picture: a board in a dim gym is grey.
            var sum = 0
            for row in stride(from: 0, to: luma.height, by: 4) {
                for column in stride(from: 0, to: luma.width, by: 4) {
                    sum += Int(luma.bytes[row * luma.bytesPerRow + column])
                }
            }
            let mean = sum / max(1, ((luma.height + 3) / 4) * ((luma.width + 3) / 4))
            let bright = min(170, mean + 25)
            for row in 0..<rows {
                for column in 0..<columns {
                    let u = Int(cb.bytes[row * cb.bytesPerRow + column])
                    let v = Int(cr.bytes[row * cr.bytesPerRow + column])
                    let y = Int(luma.bytes[row * 2 * luma.bytesPerRow + column * 2])
                    let index = row * columns + column
                    if RimFinder.isOrange(y: y, u: u, v: v) { orange[index] += 1 }
                    if y >= bright, abs(u - 128) <= 20, abs(v - 128) <= 20 { white[index] += 1 }
                }
            }
            frames += 1
        }

        struct Shape {
            var minX = Int.max
            var maxX = Int.min
            var minY = Int.max
            var maxY = Int.min
            var pixels = 0
            var stability = 0.0
            var w: Int { maxX - minX + 1 }
            var h: Int { maxY - minY + 1 }
            /// How far down its middle is, in rows (chroma pixels).
            var middle: Double { Double(minY + maxY + 1) / 2 }

            /// Grows the box to take in the pixel at column `x`, row `y`, and counts it.
            mutating func include(_ x: Int, _ y: Int) {
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
                pixels += 1
            }
        }

        /// How far down the picture a rim's centre may be, as a fraction of its height. A phone below
        /// the rim's 3.05 m sees the rim above its horizon, the picture's middle when held level:
        /// the real phone videos here have their rims at 0.15–0.46 of the height, the 3D court's
        /// 555 rendered videos at 0.33–0.46, and the flat side views rendered for the tests, whose
        /// camera stands as high as the rim, at most 0.54. Below that is the floor: at 0.6, a gym's
        /// maroon arc painted on the wooden floor was taken for the rim, a piece of it centred 0.58
        /// and 0.59 down on two clips (HooptuberDataset1's make009 and miss005, 56 and 65 % sure),
        /// the light wood round it passing for a net and a board.
        static let lowestRimCentre = 0.55

        /// The rim: the still orange bar (``result(minimumConfidence:)``) unless it is only a part
        /// of the ring that `board` finds by the backboard's square
        /// (``RimFinder/isPart(_:of:width:height:)``) or far from it
        /// (``RimFinder/isAway(_:from:width:height:)``), then that ring; with no bar, what `board`
        /// finds. `board` is handed the bar, for its evidence to name.
        func rim(minimumConfidence: Double, board: (_ bar: RimCalibration?) -> Result?) -> Result? {
            guard let orange = result(minimumConfidence: minimumConfidence) else { return board(nil) }
            guard let ring = board(orange.rim),
                RimFinder.isPart(orange.rim, of: ring.rim, width: width, height: height)
                    || RimFinder.isAway(orange.rim, from: ring.rim, width: width, height: height)
            else { return orange }
            return ring
        }

        /// The best rim candidate, or nil when none reaches `minimumConfidence`.
        public func result(minimumConfidence: Double) -> Result? {
            guard frames >= 3 else { return nil }
            let steady = UInt16((Double(frames) * 0.6).rounded(.up))
            let stable = orange.map { $0 >= steady }
            let whiteStable = white.map { $0 >= steady }
            var best: (score: Double, shape: Shape, body: Shape, net: Double, board: Double)?
            for shape in shapes(stable) {
                let aspect = Double(shape.w) / Double(shape.h)
                // Up to a sixth of the picture's width: through a 65° lens that is a rim about 2 m
                // away, closer than a shot's flight fits in the picture; wider bars are stripes on a
                // wall or the floor's edge.
                guard shape.w >= max(4, columns / 60), shape.w <= columns / 6, aspect >= 2 else { continue }
                // Nor thinner than a rim can look: its tube (2 cm on a 48 cm ring) makes it at
                // least a 24th of its width tall even seen edge-on, and from below a phone sees
                // it as an ellipse far taller. A still orange line a 30th of its width tall or
                // less is paint or a seam (3D court, sideRight-4608: a line 152×2 px near the
                // picture's edge, taken for the rim in both colours; rims found on the seen slices
                // were 6:1 or rounder).
                guard shape.w <= 30 * shape.h else { continue }
                // A bar that runs out of the side of the picture goes on beyond it (a stripe, the
                // floor's edge), and a rim cut by the picture's edge could not be watched anyway.
                guard shape.minX > 0, shape.maxX < columns - 1 else { continue }
                // A rim is 3.05 m up, above a phone held or stood at 1–1.7 m and aimed to see the
                // ball's arc over it: it is in the upper part of the picture. Lower down is the
                // floor, and a painted court (a maroon band beside its white lines) is orange
                // there: on two phone videos of outdoor courts the finder took such a band, sure
                // at 62 and 88 %.
                guard shape.middle < Self.lowestRimCentre * Double(rows) else { continue }
                // Nor is it at the very top: the board rises two rim widths above a rim (a 45 cm
                // ring, the board's top 90 cm up) and a shot's arc higher still, so a bar whose
                // centre is within its own width of the picture's top leaves both out of sight. A
                // light stripe where the wall meets the ceiling is orange enough and has white
                // round it (steel sideLeft-4209: a 72 px piece of one, 29 px from the top, taken
                // for the rim at 69 % over the grey rim under the board).
                guard shape.middle >= Double(shape.w) else { continue }
                // White below the rim (a net), and white beside or above it within a rim's width (a board).
                let net = netFraction(whiteStable, x: shape.minX...shape.maxX, bottom: shape.maxY)
                let board = fraction(
                    whiteStable, x: (shape.minX - shape.w)...(shape.maxX + shape.w),
                    y: (shape.minY - shape.w * 3 / 2)...(shape.maxY + 1))
                // How flat it is, measured on its body: a net's strand or the bracket's line can
                // hang a tail of single pixels under or over a rim seen from the side, which would
                // make the rim's box look three times as tall as its tube (orange sideRight-4785:
                // 48×16 chroma px, its body 7 rows, lost to a one-row piece of a ceiling stripe).
                let body = withoutTails(shape, stable)
                let flatness = min(1, (Double(body.w) / Double(body.h) - 1.5) / 3)
                let score =
                    flatness * shape.stability * (0.4 + 0.3 * min(1, net / 0.04) + 0.3 * min(1, board / 0.02))
                if score > best?.score ?? 0 { best = (score, shape, body, net, board) }
            }
            guard let best, best.score >= minimumConfidence else { return nil }
            let shape = withoutBracket(best.body, stable)
            let x = Double(shape.minX * 2) / Double(width)
            let boxWidth = Double(shape.w * 2) / Double(width)
            let centre = shape.middle * 2 / Double(height)
            let boxHeight = min(max(Double(shape.h * 2), 0.022 * Double(height)) / Double(height), 2 * centre)
            guard
                let rim = try? RimCalibration(
                    x: x, y: max(0, centre - boxHeight / 2), width: min(boxWidth, 1 - x), height: boxHeight)
            else { return nil }
            var seen = [
                "an orange bar \(shape.w * 2)×\(shape.h * 2) px, still in \(Int(shape.stability * 100)) % of frames"
            ]
            if best.net >= 0.02 { seen.append("a net below") }
            if best.board >= 0.01 { seen.append("a backboard beside it") }
            if shape.w < best.shape.w { seen.append("its bracket to the board left out") }
            if shape.h < best.shape.h { seen.append("a thin tail off it left out") }
            return Result(
                rim: rim, confidence: (best.score * 100).rounded() / 100, frames: frames,
                evidence: seen.joined(separator: ", "), netBelow: best.net >= 0.02)
        }

        /// `shape` without the bracket that holds the rim to the board, where it shows. From the
        /// side the rim is a flat ellipse and the bracket a thin bar out of one end, toward the
        /// board: a box around both is a third too wide (the scale of every number read from it,
        /// and where the rim's centre is). Column by column, the ellipse is at most two fifths of
        /// its height only for a pixel or two at each end; a run of such low columns longer at one
        /// end than at the other (by a twelfth of the shape's width or more) is the bracket, cut to
        /// the other end's length. (At a third, a bracket 3 chroma pixels thick beside a rim 8
        /// tall was kept whole: two held-out side views of stop 46 got boxes 1.3 rim widths wide.)
        /// Nothing is cut when the ellipse is too thin to tell (under five pixels tall) or the ends
        /// match (behind the shooter, or no bracket in sight).
        func withoutBracket(_ shape: Shape, _ mask: [Bool]) -> Shape {
            let tall = (shape.minX...shape.maxX).map { column in
                let rows = (shape.minY...shape.maxY).filter { mask[$0 * columns + column] }
                return rows.isEmpty ? 0 : rows.last! - rows.first! + 1
            }
            guard let tallest = tall.max(), tallest >= 5 else { return shape }
            let low = { (height: Int) in 5 * height <= 2 * tallest }
            let leading = tall.prefix(while: low).count
            let trailing = tall.reversed().prefix(while: low).count
            guard abs(leading - trailing) * 12 >= shape.w else { return shape }
            var trimmed = shape
            if leading > trailing { trimmed.minX += leading - trailing } else { trimmed.maxX -= trailing - leading }
            return trimmed
        }

        /// `shape` without the rows at its top and bottom that hold fewer than a quarter as many
        /// of its pixels as its fullest row: a tail a pixel or two wide hanging from it (a net's
        /// strand, the bracket's end) and not the body. An ellipse's outline keeps its top and
        /// bottom, which are its longest rows seen flat and, seen tall, still a third of its width.
        func withoutTails(_ shape: Shape, _ mask: [Bool]) -> Shape {
            let counts = (shape.minY...shape.maxY).map { row in
                (shape.minX...shape.maxX).reduce(0) { $0 + (mask[row * columns + $1] ? 1 : 0) }
            }
            guard let fullest = counts.max() else { return shape }
            let thin = { (count: Int) in 4 * count < fullest }
            var body = shape
            body.minY += counts.prefix(while: thin).count
            body.maxY -= counts.reversed().prefix(while: thin).count
            return body
        }

        /// Groups of set pixels, each within two pixels of another in its group.
        func shapes(_ mask: [Bool]) -> [Shape] {
            var seen = [Bool](repeating: false, count: mask.count)
            var found: [Shape] = []
            var stack: [Int] = []
            for start in mask.indices where mask[start] && !seen[start] {
                var shape = Shape()
                var total = 0
                seen[start] = true
                stack.append(start)
                while let index = stack.popLast() {
                    let (row, column) = index.quotientAndRemainder(dividingBy: columns)
                    shape.include(column, row)
                    total += Int(orange[index])
                    // Neighbours up to two chroma pixels away: a thin rim seen at an angle against
                    // a white board is orange only in pieces, a pixel or two apart.
                    for dy in -2...2 {
                        for dx in -2...2 {
                            let (y, x) = (row + dy, column + dx)
                            guard y >= 0, y < rows, x >= 0, x < columns else { continue }
                            let neighbour = y * columns + x
                            if mask[neighbour], !seen[neighbour] {
                                seen[neighbour] = true
                                stack.append(neighbour)
                            }
                        }
                    }
                }
                shape.stability = Double(total) / Double(shape.pixels * frames)
                found.append(shape)
            }
            return found
        }

        /// The share of `whiteStable` under a rim spanning columns `x` whose lowest row is
        /// `bottom` (chroma pixels), down three quarters of its width: a net hangs there.
        func netFraction(_ whiteStable: [Bool], x: ClosedRange<Int>, bottom: Int) -> Double {
            fraction(whiteStable, x: x, y: (bottom + 1)...(bottom + max(2, x.count * 3 / 4)))
        }

        /// Whether white stays still under `rim` (as fractions of the picture) in the frames
        /// added, as ``result(minimumConfidence:)`` tells it for the rim it finds.
        public func netBelow(_ rim: RimCalibration) -> Bool {
            guard frames >= 3 else { return false }
            let steady = UInt16((Double(frames) * 0.6).rounded(.up))
            let left = Int(rim.x * Double(columns))
            let right = max(left, Int(((rim.x + rim.width) * Double(columns)).rounded(.up)) - 1)
            let bottom = Int(((rim.y + rim.height) * Double(rows)).rounded(.up)) - 1
            return netFraction(white.map { $0 >= steady }, x: left...right, bottom: bottom) >= 0.02
        }

        /// The share of set pixels in a box (clipped to the picture).
        func fraction(_ mask: [Bool], x: ClosedRange<Int>, y: ClosedRange<Int>) -> Double {
            let (x0, x1) = (max(0, x.lowerBound), min(columns - 1, x.upperBound))
            let (y0, y1) = (max(0, y.lowerBound), min(rows - 1, y.upperBound))
            guard x0 <= x1, y0 <= y1 else { return 0 }
            var set = 0
            for row in y0...y1 { for column in x0...x1 where mask[row * columns + column] { set += 1 } }
            return Double(set) / Double((x1 - x0 + 1) * (y1 - y0 + 1))
        }
    }
}
