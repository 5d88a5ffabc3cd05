import CameraCommon

/// The picture around a rim, kept when the rim is taken and compared with the frames after it:
/// how a rim is watched for the camera being knocked, and where the rim went when it was. A grey
/// rim found under the board's square cannot be watched by its colour (it looks orange whenever
/// the orange ball passes it), nor can a rim the user gave; an orange rim's colour misses a knock
/// that leaves orange in its box, and finding it again from scratch can find part of it.
///
/// The patch runs from 2 rim widths above the rim (the board and its square) to half a width below
/// it, and from 0.75 of a width left of it to 0.75 right. It is sampled in blocks about a twelfth of
/// the rim wide (the mean of each, so grain and a pixel of jitter do not count) and compared by
/// normalised correlation, which a change of exposure or light does not move.
struct RimScene: Sendable {
    /// Block size, pixels of the analysed frame.
    let block: Int
    /// The patch's top-left block in the frame's grid of blocks, and its size in blocks.
    let column: Int
    let row: Int
    let columns: Int
    let rows: Int
    /// The patch as first seen: per block the median of the first ``gather`` looks (a ball or a
    /// player passing in one or two of them is not kept), zero mean and unit length. Nil while
    /// gathering, or when the patch is too flat to tell anything by.
    private(set) var reference: [Float]?
    private var looks: [[Float]] = []
    /// Whether the patch had too little in it to watch (a blank wall): nothing is ever told then.
    private(set) var flat = false

    /// As alike as this or more (``look(at:)``): the same picture.
    static let same = 0.6
    /// Found elsewhere at least this alike (``search(_:)``): the camera moved and the rim with it.
    static let found = 0.75
    /// Looks gathered before the reference is taken.
    static let gather = 5
    /// The patch's spread of brightness below which it is too flat to watch, luma levels.
    static let flatSpread: Float = 3

    /// The patch around `rim` in frames `width`×`height`; nil when too little of it is in the frame.
    init?(rim: RimCalibration, width: Int, height: Int) {
        let (w, h) = (Double(width), Double(height))
        let (rx, ry, rw, rh) = (rim.x * w, rim.y * h, rim.width * w, rim.height * h)
        block = max(1, Int((rw / 12).rounded()))
        let x0 = max(0, Int((rx - 0.75 * rw) / Double(block)))
        let y0 = max(0, Int((ry - 2 * rw) / Double(block)))
        let x1 = min(width / block, Int(((rx + 1.75 * rw) / Double(block)).rounded(.up)))
        let y1 = min(height / block, Int(((ry + rh + 0.5 * rw) / Double(block)).rounded(.up)))
        guard x1 - x0 >= 8, y1 - y0 >= 8 else { return nil }
        (column, row, columns, rows) = (x0, y0, x1 - x0, y1 - y0)
    }

    /// The frame's luma as a grid of `block`×`block` means, `blocks` of them across and down.
    struct Grid {
        let columns: Int
        let rows: Int
        var values: [Float]

        /// `only`: the blocks measured (columns, rows; the rest stay 0), all when nil: a look at
        /// the patch needs the blocks around it, not the frame.
        init?(_ frame: VideoFrame, block: Int, only: (columns: Range<Int>, rows: Range<Int>)? = nil) {
            guard frame.format == .yuv420p || frame.format == .gray8, let luma = frame.planes.first, block > 0 else {
                return nil
            }
            let (columns, rows) = (luma.width / block, luma.height / block)
            guard columns > 0, rows > 0 else { return nil }
            (self.columns, self.rows) = (columns, rows)
            let across = (only?.columns ?? 0..<columns).clamped(to: 0..<columns)
            let down = (only?.rows ?? 0..<rows).clamped(to: 0..<rows)
            var values = [Float](repeating: 0, count: columns * rows)
            let scale = 1 / Float(block * block)
            luma.bytes.withUnsafeBufferPointer { bytes in
                for y in (down.lowerBound * block)..<(down.upperBound * block) {
                    let line = y * luma.bytesPerRow
                    let to = (y / block) * columns
                    for x in (across.lowerBound * block)..<(across.upperBound * block) {
                        values[to + x / block] += Float(bytes[line + x])
                    }
                }
            }
            for index in values.indices { values[index] *= scale }
            self.values = values
        }

        /// Blocks merged 2×2: the grid of blocks twice the size.
        func halved() -> Grid {
            Grid(halving: self)
        }

        private init(halving grid: Grid) {
            columns = grid.columns / 2
            rows = grid.rows / 2
            var values = [Float](repeating: 0, count: columns * rows)
            for y in 0..<rows {
                for x in 0..<columns {
                    let a = 2 * y * grid.columns + 2 * x
                    values[y * columns + x] =
                        (grid.values[a] + grid.values[a + 1] + grid.values[a + grid.columns]
                            + grid.values[a + grid.columns + 1]) / 4
                }
            }
            self.values = values
        }

        /// The `columns`×`rows` blocks from (`column`, `row`), zero mean and unit length; nil when
        /// they are not all in the grid, or their spread is under `spread`.
        func patch(column: Int, row: Int, columns width: Int, rows height: Int, spread: Float = 0) -> [Float]? {
            guard column >= 0, row >= 0, column + width <= columns, row + height <= rows else { return nil }
            var patch = [Float](repeating: 0, count: width * height)
            var sum: Float = 0
            for y in 0..<height {
                for x in 0..<width {
                    let value = values[(row + y) * columns + column + x]
                    patch[y * width + x] = value
                    sum += value
                }
            }
            let mean = sum / Float(patch.count)
            var squares: Float = 0
            for index in patch.indices {
                patch[index] -= mean
                squares += patch[index] * patch[index]
            }
            guard squares > 0, (squares / Float(patch.count)).squareRoot() >= spread else { return nil }
            let norm = 1 / squares.squareRoot()
            for index in patch.indices { patch[index] *= norm }
            return patch
        }
    }

    /// Takes one more look at `frame` while gathering; then how like the reference the patch is
    /// (1 the same, 0 nothing alike), the best over a block's shift either way (a pixel or two of
    /// jitter). Nil while gathering or when the patch is too flat to watch.
    mutating func look(at frame: VideoFrame) -> Double? {
        guard !flat,
            let grid = Grid(
                frame, block: block, only: ((column - 1)..<(column + columns + 1), (row - 1)..<(row + rows + 1)))
        else { return nil }
        guard let reference else {
            var values: [Float] = []
            values.reserveCapacity(columns * rows)
            for y in row..<min(grid.rows, row + rows) {
                for x in column..<min(grid.columns, column + columns) {
                    values.append(grid.values[y * grid.columns + x])
                }
            }
            guard values.count == columns * rows else {
                flat = true
                return nil
            }
            looks.append(values)
            guard looks.count >= Self.gather else { return nil }
            let median = (0..<values.count).map { index -> Float in
                let sorted = looks.map { $0[index] }.sorted()
                return sorted[sorted.count / 2]
            }
            let medianGrid = Grid(columns: columns, rows: rows, values: median)
            self.reference = medianGrid.patch(
                column: 0, row: 0, columns: columns, rows: rows, spread: Self.flatSpread)
            flat = self.reference == nil
            looks = []
            return nil
        }
        var best = -1.0
        for dy in -1...1 {
            for dx in -1...1 {
                guard let patch = grid.patch(column: column + dx, row: row + dy, columns: columns, rows: rows) else {
                    continue
                }
                best = max(best, Self.correlation(patch, reference))
            }
        }
        return best
    }

    /// Where the patch is in `frame`: its shift in pixels and how alike it is there, searched over
    /// the whole frame (blocks twice the size first, then the best places at full size, then to a
    /// fraction of a block by the parabola through the best place and its neighbours: a whole
    /// block is 3 px at 640, a tenth of a rim seen from behind).
    func search(_ frame: VideoFrame) -> (dx: Double, dy: Double, score: Double)? {
        guard let reference, let grid = Grid(frame, block: block) else { return nil }
        let coarse = grid.halved()
        let referenceGrid = Grid(columns: columns, rows: rows, values: reference)
        guard let small = referenceGrid.halved().patch(column: 0, row: 0, columns: columns / 2, rows: rows / 2)
        else { return nil }
        var candidates: [(x: Int, y: Int, score: Double)] = []
        for y in 0...max(0, coarse.rows - rows / 2) {
            for x in 0...max(0, coarse.columns - columns / 2) {
                guard let patch = coarse.patch(column: x, row: y, columns: columns / 2, rows: rows / 2) else {
                    continue
                }
                candidates.append((x, y, Self.correlation(patch, small)))
            }
        }
        candidates.sort { $0.score > $1.score }
        func score(_ x: Int, _ y: Int) -> Double? {
            grid.patch(column: x, row: y, columns: columns, rows: rows).map { Self.correlation($0, reference) }
        }
        var best: (x: Int, y: Int, score: Double)?
        for candidate in candidates.prefix(4) {
            for y in (2 * candidate.y - 1)...(2 * candidate.y + 2) {
                for x in (2 * candidate.x - 1)...(2 * candidate.x + 2) {
                    guard let score = score(x, y) else { continue }
                    if score > best?.score ?? -2 { best = (x, y, score) }
                }
            }
        }
        guard let best else { return nil }
        /// The peak's offset from the middle of three scores a block apart (within half a block).
        func peak(_ before: Double?, _ middle: Double, _ after: Double?) -> Double {
            guard let before, let after else { return 0 }
            let curvature = before - 2 * middle + after
            guard curvature < 0 else { return 0 }
            return min(0.5, max(-0.5, (before - after) / (2 * curvature)))
        }
        let across = peak(score(best.x - 1, best.y), best.score, score(best.x + 1, best.y))
        let down = peak(score(best.x, best.y - 1), best.score, score(best.x, best.y + 1))
        return (
            (Double(best.x - column) + across) * Double(block), (Double(best.y - row) + down) * Double(block),
            best.score
        )
    }

    /// "the picture around the rim went 9 % of the width right and 5 % of the height up (93 %
    /// alike)", from the move in pixels of a `width`×`height` frame.
    static func moveInWords(dx: Double, dy: Double, width: Int, height: Int, score: Double) -> String {
        func percent(_ part: Double, of whole: Int) -> Int { Int((100 * abs(part) / Double(whole)).rounded()) }
        var parts: [String] = []
        if percent(dx, of: width) > 0 {
            parts.append("\(percent(dx, of: width)) % of the width \(dx > 0 ? "right" : "left")")
        }
        if percent(dy, of: height) > 0 {
            parts.append("\(percent(dy, of: height)) % of the height \(dy > 0 ? "down" : "up")")
        }
        if parts.isEmpty { parts.append("under 1 % of the picture") }
        return
            "the picture around the rim went \(parts.joined(separator: " and ")) (\(Int((score * 100).rounded())) % alike)"
    }

    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        var sum: Float = 0
        for index in 0..<min(a.count, b.count) { sum += a[index] * b[index] }
        return Double(sum)
    }
}

extension RimScene.Grid {
    fileprivate init(columns: Int, rows: Int, values: [Float]) {
        self.columns = columns
        self.rows = rows
        self.values = values
    }
}
