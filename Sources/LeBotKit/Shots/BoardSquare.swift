import CameraCommon
import CameraIO

/// Where the rim is when it is not orange: under the backboard's inner square.
///
/// Outdoor rims are grey, rusty or dark red, a few pixels tall against a white board or the sky,
/// and the orange cue finds none of them. But nearly every board has the shooter's square painted
/// on it: a line around a patch of board, its bottom edge level with the rim, which hangs from the
/// board just below it. The square is found by what it is, not its colour: flat, pale, colourless
/// board with a thin line all round it and the same board again beyond the line (a window pane in
/// a fence has a different pane beyond each side). The ring is then fitted (``ring(near:frames:search:)``)
/// in a window below the square, as wide as the square is far either side of it, because the rim
/// sticks out toward the camera by a share of the square that depends on the angle it is seen from.
extension RimFinder {
    /// The pale inside of a board's inner square, in pixels of the frame (the line round it left out).
    struct BoardSquare: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        /// Of the scan lines out of its left, right, top and bottom, the share that cross a thin
        /// line and come back onto board.
        var sides: [Double]
        /// Of the scan lines out of its left, right and top that came back onto board, the share
        /// that came back onto the same piece of board.
        var enclosed: Double
        /// Found as a board seen from the side (``SquareRules/sideOn``): the rim is beside it.
        var sideOn = false
        /// How thick the line round it is, pixels, with its smoothed edges: the median of the
        /// scans out of its top that came back onto board.
        var line = 0
    }

    /// How a square is told from other pale patches.
    struct SquareRules {
        /// Pale: at least this bright (luma).
        var pale = 90
        /// Flat: no neighbour two pixels away differs by this much or more.
        var flat = 12
        /// Colourless: chroma within this of neutral.
        var colourless = 20
        /// The inside's box is at least this full (a square seen at an angle is a parallelogram;
        /// the rim's bracket or the net may cut a corner).
        var fill = 0.7
        /// The left, right and top sides must come back to board, each from at least this share
        /// of their scan lines (the rim, its bracket and the net hang under the bottom one).
        var sideShare = 0.5
        /// The share of those that must reach one piece of board.
        var enclosed = 0.8
        /// That piece is less than this many times the square's width across and its height tall.
        var board = 8
        /// The board seen from the side: the square is a parallelogram taller than wide (at most
        /// five times), narrow (more than twice as tall) or slanting (its middle column a tenth
        /// shorter than its box), so its height is read down its middle column, not off its box.
        var sideOn = false

        /// The rules for a board seen from the side.
        static var sideOnBoard: SquareRules {
            var rules = SquareRules()
            rules.sideOn = true
            return rules
        }
    }

    /// The pale, flat, colourless board in `frames` (one picture, YUV 4:2:0, read through their
    /// median; ``SquareRules/pale``, ``SquareRules/flat``, ``SquareRules/colourless``), in pieces:
    /// what ``boardSquares(in:rules:)`` looks for squares in, facing the camera and from the side.
    struct BoardPicture {
        let width: Int
        let height: Int
        let board: [Bool]
        /// Per pixel, its piece's number (0: not board), and the pieces (``label(_:width:height:)``).
        let labels: [Int32]
        let pieces: [Accumulator.Shape]

        init?(_ frames: [VideoFrame], rules: SquareRules = .init()) {
            guard let first = frames.first,
                frames.allSatisfy({
                    $0.format == .yuv420p && $0.planes.count == 3 && $0.width == first.width
                        && $0.height == first.height
                })
            else { return nil }
            let (width, height) = (first.planes[0].width, first.planes[0].height)
            guard width >= 32, height >= 32 else { return nil }
            // Smoothed over 3×3 pixels: a board in a dim gym is grainy, and grain two pixels apart
            // differs by more than ``SquareRules/flat`` where the board is flat.
            let luma = boxBlur(medianPlane(frames, 0), width: width, height: height)
            let cb = medianPlane(frames, 1)
            let cr = medianPlane(frames, 2)
            let chromaColumns = first.planes[1].width
            var board = [Bool](repeating: false, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let centre = Int(luma[y * width + x])
                    guard centre >= rules.pale else { continue }
                    let chroma = (y / 2) * chromaColumns + x / 2
                    guard abs(Int(cb[chroma]) - 128) <= rules.colourless,
                        abs(Int(cr[chroma]) - 128) <= rules.colourless
                    else { continue }
                    let left = Int(luma[y * width + max(0, x - 2)])
                    let right = Int(luma[y * width + min(width - 1, x + 2)])
                    let up = Int(luma[max(0, y - 2) * width + x])
                    let down = Int(luma[min(height - 1, y + 2) * width + x])
                    board[y * width + x] =
                        max(abs(centre - left), abs(centre - right), abs(centre - up), abs(centre - down))
                        < rules.flat
                }
            }
            (self.width, self.height, self.board) = (width, height, board)
            (labels, pieces) = label(board, width: width, height: height)
        }
    }

    /// The backboard's inner square in `picture`: every pale patch enclosed by a thin line as the
    /// square is, in the upper part of the picture; those whose line is as broad as a painted
    /// square's (``broadLine``) first, then the rest, each the largest first.
    static func boardSquares(in picture: BoardPicture, rules: SquareRules = .init()) -> [BoardSquare] {
        let (width, height, board, labels, pieces) = (
            picture.width, picture.height, picture.board, picture.labels, picture.pieces
        )
        var squares: [BoardSquare] = []
        for (index, piece) in pieces.enumerated() {
            let id = Int32(index + 1)
            let w = piece.w
            // Facing the camera, the square is 0.75 as tall as wide, at 45° about 1.06, and taller
            // the further the board turns away; at 1.5 (60°) it is more side-on than not, and the
            // rim sticks out beside it (a board's bottom edge and the rim together made a ring
            // under a square 1.7 as tall as wide on the 3D court, half a rim width off).
            let shaped = rules.sideOn ? (w < piece.h && piece.h <= 5 * w) : (3 * w >= 2 * piece.h && w <= 3 * piece.h)
            guard w >= 6, piece.h >= 4, w <= width / 8, shaped,
                Double(piece.pixels) >= rules.fill * Double(w * piece.h) || rules.sideOn,
                piece.middle < Accumulator.lowestRimCentre * Double(height)
            else { continue }
            // Top and bottom: the box's, or where the middle column enters and leaves the piece.
            var (top, bottom) = (piece.minY, piece.maxY)
            if rules.sideOn {
                let middle = (piece.minX + piece.maxX) / 2
                let rows = (piece.minY...piece.maxY).filter { labels[$0 * width + middle] == id }
                // Narrow, or slanting: its middle column a tenth shorter than its box.
                guard let first = rows.first, let last = rows.last, last - first >= 4,
                    2 * w < piece.h || 10 * (last - first + 1) < 9 * piece.h,
                    // Full: of a parallelogram as wide as the box and as tall as its middle
                    // column (its slanting corners are not in it).
                    Double(piece.pixels) >= rules.fill * Double(w * (last - first + 1))
                else { continue }
                (top, bottom) = (first, last)
            }
            let h = bottom - top + 1
            // Out from the middle of each side, along the middle three fifths of it: across the
            // piece, then a thin line (up to 45 % of the square's smaller side, 10 px at least: the
            // smoothing and the flatness test widen a line by three pixels each side), then board
            // again.
            // (Side-on, of its height: the square's width is foreshortened, its top line is not.)
            let longest = max(10, Int(0.45 * Double(rules.sideOn ? h : min(w, h))))
            let (centreX, centreY) = ((piece.minX + piece.maxX) / 2, (top + bottom) / 2)
            func span(_ low: Int, _ high: Int) -> [Int] {
                let (from, to) = (low + (high - low + 1) / 5, high - (high - low + 1) / 5)
                return from <= to ? Array(from...to) : [(low + high) / 2]
            }
            var landed: [Int32: Int] = [:]
            var topLines: [Int] = []
            func scan(_ starts: [(Int, Int)], _ dx: Int, _ dy: Int, counted: Bool = true) -> Double {
                var back = 0
                for (startX, startY) in starts {
                    var (x, y) = (startX, startY)
                    func inside() -> Bool { x >= 0 && x < width && y >= 0 && y < height }
                    while inside(), labels[y * width + x] == id { (x, y) = (x + dx, y + dy) }
                    var line = 0
                    while inside(), !board[y * width + x], line <= longest {
                        (x, y) = (x + dx, y + dy)
                        line += 1
                    }
                    guard line >= 1, line <= longest, inside(), board[y * width + x] else { continue }
                    back += 1
                    if counted { landed[labels[y * width + x], default: 0] += 1 }
                    if dy < 0 { topLines.append(line) }
                }
                return Double(back) / Double(max(1, starts.count))
            }
            let rows = span(top, bottom).map { (centreX, $0) }
            let columns = span(piece.minX, piece.maxX).map { ($0, centreY) }
            let sides = [
                scan(rows, -1, 0), scan(rows, 1, 0), scan(columns, 0, -1), scan(columns, 0, 1, counted: false),
            ]
            guard sides.prefix(3).allSatisfy({ $0 >= rules.sideShare }),
                let (surrounding, around) = landed.max(by: { $0.value < $1.value })
            else { continue }
            let enclosed = Double(around) / Double(landed.values.reduce(0, +))
            // A board is about three squares wide and two and a half tall (more where it runs
            // into a pale wall or sky beyond a thin edge); the page around a letter in a picture
            // of text goes on much further.
            let outside = pieces[Int(surrounding) - 1]
            guard enclosed >= rules.enclosed, outside.maxX - outside.minX < rules.board * w,
                outside.maxY - outside.minY < rules.board * h
            else { continue }
            squares.append(
                BoardSquare(
                    x: piece.minX, y: top, width: w, height: h, sides: sides, enclosed: enclosed,
                    sideOn: rules.sideOn, line: topLines.sorted()[topLines.count / 2]))
        }
        // Those painted with a broad line first, then the largest first (the first found of those
        // the same size, as pieces are labelled).
        func rank(_ found: (offset: Int, element: BoardSquare)) -> (Int, Int, Int) {
            (found.element.line >= broadLine ? 1 : 0, found.element.width * found.element.height, -found.offset)
        }
        return squares.enumerated().sorted { rank($0) > rank($1) }.map(\.element)
    }

    /// The least thickness (pixels, as ``BoardSquare/line`` reads it) of a square's line that is
    /// painted like a board's: a stripe about a twelfth of the square's width (5 cm round 59 cm),
    /// dark on pale board, read 11–15 px on the 3D court's boards and 8–10 on five phone videos'
    /// (the smoothing and the flatness test add about three each side of a clear line). The thin
    /// or faint lines that enclose other pale patches like a square read 1–3: between a pale
    /// wall's tiles (steel behind-4757 at 1280×720 and behind-4751 at 1920×1080: six and three
    /// tiles larger than the board's square, which was tried after them or not at all), round a
    /// window's pane, a net's loops. Squares with such a line are tried first (``squaresTried``).
    static let broadLine = 6

    /// How sure a ring under a board's square must be (``Ring/score``): less than at a tap
    /// (``RingSearch/minimumScore``), as the square already says a hoop is there. A grey rim 2 px
    /// thick seen from behind or at 45° on the 3D court scored 0.49–0.67 where it is, a rim
    /// on the phone videos 0.66–0.69.
    static let ringUnderSquare = 0.4

    /// The rim under the board's inner square in `frames`, or nil when there is no square or no
    /// ring is clear under it.
    static func ringUnderBoard(in frames: [VideoFrame]) -> (square: BoardSquare, ring: Ring)? {
        guard let picture = BoardPicture(frames) else { return nil }
        for square in boardSquares(in: picture).prefix(squaresTried) {
            if let ring = ring(under: square, frames: frames) { return (square, ring) }
        }
        return ringBesideBoard(in: frames, picture: picture)
    }

    /// How many of the pale patches enclosed as a square is (``boardSquares(in:rules:)``, broad
    /// lines first, then the largest) a ring is looked for by, until one has one: the largest is
    /// not always the board's. From the side a net's loops under a grey rim enclose a patch of
    /// pale wall as large as a board's square turned far away (steel sideLeft-4407: 39×30 px,
    /// beside it the square 19×46; no ring beside the net's, and no hoop found).
    static let squaresTried = 3

    /// The ring under `square` (found facing the camera) in `frames`, or nil when none is as
    /// sure as ``ringUnderSquare``.
    static func ring(under square: BoardSquare, frames: [VideoFrame]) -> Ring? {
        guard let first = frames.first else { return nil }
        let (w, h) = (Double(first.width), Double(first.height))
        let (side, tall) = (Double(square.width), Double(square.height))
        // The rim's centre is level with the square's bottom or a little below it (a camera under
        // the rim sees the ring's near side lower), and out to either side by up to two of the
        // square's widths (the rim sticks out toward the camera). Its size goes with the square's
        // height, not its width: the square narrows as the board turns away, a circle does not,
        // and both are seen from about the same height. A rim is 0.45 m across under a square
        // about 0.4 m tall inside. The pale patch found is a few pixels short of the square's
        // inside (the smoothed edges of its line are not flat): about 4 px in height, 6 in width.
        // Half-widths of 0.5–1.1 times the height plus 4 px (on three phone videos and the 3D
        // court, 0.7–0.9).
        let across = tall + 4
        var search = RingSearch()
        search.reach = max(3, 2 * side) / w
        search.reachY = max(3, 0.3 * tall) / h
        // Nor narrower than the square allows: a rim is 0.83 of the square's width inside, which
        // turning away only narrows (a half-width of at least 0.38 times the patch's width plus
        // 6 px; at 640 px from behind a ring two thirds wide, inside the rim's thick outline,
        // fitted better). And no smaller than the orange finder's smallest rim (a 60th of the picture): a
        // ring that small under a square of a few pixels is a letter under a letter in a picture
        // of text.
        search.smallest = max(0.5 * across / w, 0.38 * (side + 6) / w, 1.0 / 120)
        search.largest = 1.1 * across / w
        // The best ring, near enough: the widest within a tap's wider margin of it (kept there
        // against a net's small loops, smaller than the range here) reaches out along the board's
        // bottom edge beside the rim (1.4 times too wide at 45° on the 3D court).
        search.slack = 0.04
        guard
            let point = try? RimPoint(
                x: (Double(square.x) + side / 2) / w, y: min(1, (Double(square.y) + tall * 1.1) / h))
        else { return nil }
        var found = ring(near: point, frames: frames, search: search)
        // None clear: the rim hangs at the square's bottom line, and seen from behind or a little
        // below its far side can lie along that line (``RingSearch/paintedLine``). Only then, as
        // letting it count narrows rings found without it (at 45° by up to a fifth). And only
        // hollow rings at least 0.12 as tall as wide: a flat ellipse with its top half in the band
        // and its bottom half on the rim's near side fits as well.
        if (found?.score ?? 0) < ringUnderSquare {
            let bottom = square.y + square.height
            search.paintedLine = (
                (square.x - square.line)...(square.x + square.width + square.line), bottom...(bottom + square.line)
            )
            search.ratios = search.ratios.filter { $0 >= 0.12 }
            search.hollow = true
            found = ring(near: point, frames: frames, search: search)
        }
        guard let ring = found, ring.score >= ringUnderSquare else { return nil }
        return ring
    }

    /// The rim beside a board seen from the side (``SquareRules/sideOnBoard``), or nil.
    ///
    /// Side-on the square is a narrow parallelogram, and the rim, sticking out from the board
    /// toward the court, is seen beside it, not under it: on the 3D court's side placements its
    /// centre was 1.15–1.2 of the square's height (down its middle) to the side, 0.27–0.41 below
    /// its bottom, and half as wide as 0.72–0.76 of that height plus 4 px. Looked for on both
    /// sides (which side depends on where the camera stands), from 0.8 to 1.6 heights out and
    /// 0.1 to 0.6 below, half-widths 0.55–1.0 of the height plus 4 px. The ring there is a tube a
    /// few pixels thick against a textured wall: lines measured two and three pixels across, and
    /// the ring must be hollow (``RingSearch/hollow``).
    static func ringBesideBoard(in frames: [VideoFrame], picture: BoardPicture) -> (square: BoardSquare, ring: Ring)? {
        for square in boardSquares(in: picture, rules: .sideOnBoard).prefix(squaresTried) {
            if let ring = ring(beside: square, frames: frames) { return (square, ring) }
        }
        return nil
    }

    /// The ring beside `square` (found side-on) in `frames`, or nil when none is as sure as
    /// ``ringUnderSquare``.
    static func ring(beside square: BoardSquare, frames: [VideoFrame]) -> Ring? {
        guard let first = frames.first else { return nil }
        let (w, h) = (Double(first.width), Double(first.height))
        let tall = Double(square.height)
        let across = tall + 4
        var search = RingSearch()
        search.reach = 0.4 * tall / w
        search.reachY = 0.25 * tall / h
        search.smallest = 0.55 * across / w
        search.largest = 1.0 * across / w
        search.ratios = [0.12, 0.16, 0.2, 0.25, 0.3]
        search.gaps = [2, 3]
        search.hollow = true
        search.slack = 0.04
        let middle = Double(square.x) + Double(square.width) / 2
        let rings = [-1.0, 1.0].compactMap { side -> Ring? in
            guard
                let point = try? RimPoint(
                    x: min(1, max(0, (middle + side * 1.2 * tall) / w)),
                    y: min(1, (Double(square.y) + tall * 1.35) / h))
            else { return nil }
            return ring(near: point, frames: frames, search: search)
        }
        guard let best = rings.max(by: { $0.score < $1.score }), best.score >= ringUnderSquare else { return nil }
        return best
    }

    /// `plane` (`width`×`height`) with each pixel the mean of the 3×3 around it (clipped at the edges).
    static func boxBlur(_ plane: [UInt8], width: Int, height: Int) -> [UInt8] {
        var rows = [UInt16](repeating: 0, count: plane.count)
        for y in 0..<height {
            for x in 0..<width {
                let (left, right) = (max(0, x - 1), min(width - 1, x + 1))
                var sum = 0
                for column in left...right { sum += Int(plane[y * width + column]) }
                rows[y * width + x] = UInt16(sum * 16 / (right - left + 1))
            }
        }
        var out = [UInt8](repeating: 0, count: plane.count)
        for y in 0..<height {
            let (top, bottom) = (max(0, y - 1), min(height - 1, y + 1))
            for x in 0..<width {
                var sum = 0
                for row in top...bottom { sum += Int(rows[row * width + x]) }
                out[y * width + x] = UInt8(sum / (16 * (bottom - top + 1)))
            }
        }
        return out
    }

    /// One plane of `frames`, pixel by pixel the median of their values.
    static func medianPlane(_ frames: [VideoFrame], _ plane: Int) -> [UInt8] {
        let first = frames[0].planes[plane]
        let (width, height) = (first.width, first.height)
        var out = [UInt8](repeating: 0, count: width * height)
        if frames.count == 3 {
            // Three frames (``FitFrames``): their median without a sort.
            let (a, b, c) = (frames[0].planes[plane], frames[1].planes[plane], frames[2].planes[plane])
            for y in 0..<height {
                for x in 0..<width {
                    out[y * width + x] = median(
                        a.bytes[y * a.bytesPerRow + x], b.bytes[y * b.bytesPerRow + x], c.bytes[y * c.bytesPerRow + x])
                }
            }
            return out
        }
        var readings = [UInt8](repeating: 0, count: frames.count)
        for y in 0..<height {
            for x in 0..<width {
                for (index, frame) in frames.enumerated() {
                    let bytes = frame.planes[plane]
                    readings[index] = bytes.bytes[y * bytes.bytesPerRow + x]
                }
                readings.sort()
                out[y * width + x] = readings[readings.count / 2]
            }
        }
        return out
    }

    /// The middle one of three values.
    @inline(__always)
    static func median(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 { max(min(a, b), min(max(a, b), c)) }

    /// Pieces of set pixels (each touching another of its piece side by side or above and
    /// below): a label per pixel (0 for unset, then 1, 2, … in the order of `pieces`).
    static func label(_ mask: [Bool], width: Int, height: Int) -> (labels: [Int32], pieces: [Accumulator.Shape]) {
        var labels = [Int32](repeating: 0, count: mask.count)
        var pieces: [Accumulator.Shape] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && labels[start] == 0 {
            let id = Int32(pieces.count + 1)
            var piece = Accumulator.Shape()
            labels[start] = id
            stack.append(start)
            while let index = stack.popLast() {
                let (y, x) = index.quotientAndRemainder(dividingBy: width)
                piece.include(x, y)
                func visit(_ next: Int) {
                    if mask[next], labels[next] == 0 {
                        labels[next] = id
                        stack.append(next)
                    }
                }
                if x > 0 { visit(index - 1) }
                if x < width - 1 { visit(index + 1) }
                if y > 0 { visit(index - width) }
                if y < height - 1 { visit(index + width) }
            }
            pieces.append(piece)
        }
        return (labels, pieces)
    }
}
