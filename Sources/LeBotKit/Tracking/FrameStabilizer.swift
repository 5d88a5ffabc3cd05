import CameraCommon

/// Holds a handheld phone's picture still for everything after it (the rim finder, the ball
/// tracker's background model, the net): measures how far each frame's picture has moved since
/// the first frame and shifts the frame back by that much.
///
/// Only translation is measured — a phone held by hand turns by a degree or two, which moves the
/// picture nearly rigidly; rotation about the lens axis and zoom are not followed. Per frame, in
/// one pass over the luma plane: three horizontal bands each give a column profile (mean luma per
/// column) and four vertical bands a row profile. Each profile is cut into pieces (a band's
/// columns into four, a band's rows into three), so every piece stands for one part of the
/// picture, and each piece is matched against the reference's profile: the shift with the least
/// mean absolute difference once the mean difference is taken out (a phone's exposure drifts),
/// refined to a fraction of a pixel. The frame's shift is the median over the pieces whose best
/// match stands out, so a player walking past the lens or a plain wall (a flat profile) does not
/// drag the picture along.
///
/// The search looks near where the last frame was (a hand moves the picture a few pixels per
/// frame; a brick wall repeats every few pixels, and a wide search finds the wrong brick). When
/// most pieces find their best at the edge of that window, the picture jumped further than a hand
/// moves it in a frame (a knocked tripod): it is not followed, and the rim is found again where it
/// now is, as on a tripod. A second pass
/// moves the bands with the picture found, so each band sums the same part of the scene as in
/// the reference. The reference is renewed every ``Configuration/referenceLifetime`` seconds and
/// when the picture has wandered half the search range from it, carrying the offset on, so a
/// slow pan or a changing gym never outgrows the search.
///
/// The frame is moved by an even number of pixels, so the half-size chroma planes (where the
/// ball and the rim are found) move by whole pixels with it. On a tripod the measured shift
/// stays under a pixel and frames pass through untouched.
public final class FrameStabilizer {
    public struct Configuration: Sendable {
        /// Largest shift between a frame and its reference, as a fraction of the width (the
        /// reference is renewed when the picture has moved half of it).
        public var searchRange = 0.05
        /// How far from the last frame's shift the picture is first looked for, as a fraction of
        /// the width.
        public var frameStep = 0.01
        /// Seconds a reference frame is kept before the current frame replaces it.
        public var referenceLifetime = 2.0
        public init() {}
    }

    public let configuration: Configuration
    /// How far the picture has moved since the first frame, in pixels (right and down positive),
    /// as measured on the last frame.
    public private(set) var offset = (x: 0.0, y: 0.0)
    /// The largest distance the picture has moved from where it started, as a fraction of the
    /// frame width (0 on a tripod).
    public private(set) var largestMove = 0.0
    /// Whether any frame has been moved back yet. Until then (a tripod) every frame passed through
    /// untouched and ``residual`` is zero: nothing downstream changes for a camera that stands still.
    public private(set) var hasMoved = false
    /// Where the last returned frame's picture still sits from the first frame's, in pixels (frames
    /// move by whole even pixels, so up to about one): positions found in it, less this, are
    /// positions in the first frame's picture.
    public private(set) var residual = (x: 0.0, y: 0.0)
    /// How far the last frame was moved back, whole (even) pixels: (0, 0) until the picture
    /// first moved a whole pixel pair.
    public private(set) var moved = (x: 0, y: 0)

    /// Whether a frame moved back with this residual shows the picture as the first frame did,
    /// pixel for pixel: sampled at the same phase (within a third of a pixel). A thin rim seen
    /// edge-on is one chroma pixel tall; half a pixel off, its orange is spread over two rows too
    /// pale to count, so the rim finder prefers such frames.
    public static func isInPhase(_ residual: (x: Double, y: Double)) -> Bool {
        abs(residual.x) <= 0.35 && abs(residual.y) <= 0.35
    }
    private var reference: Profiles?
    private var referenceOffset = (x: 0.0, y: 0.0)
    private var referenceTime = 0.0
    /// Bands across (column profiles) and down (row profiles), and the pieces each is cut into.
    private static let (horizontalBands, verticalBands) = (3, 4)

    /// Per band: mean luma per column (horizontal bands) and per row (vertical bands).
    struct Profiles {
        var columns: [[Float]]
        var rows: [[Float]]
    }

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// `frame` with its picture moved back to where the first frame's was. Frames without a luma
    /// plane (RGBA) and tiny ones pass through.
    public func stabilize(_ frame: VideoFrame, time: Double) -> VideoFrame {
        guard frame.format != .rgba, frame.width >= 64, frame.height >= 64 else { return frame }
        let luma = frame.planes[0]
        let range = max(2, Int(Double(frame.width) * configuration.searchRange))
        let window = max(2, Int(Double(frame.width) * configuration.frameStep))
        let here = Self.profiles(luma, shift: (0, 0))
        guard let reference else {
            self.reference = here
            referenceTime = time
            return frame
        }
        let last = (x: offset.x - referenceOffset.x, y: offset.y - referenceOffset.y)
        let first = Self.match(here, reference, near: last, window: window, range: range)
        // The second pass, with the bands moved by the shift found; where that rounds to no move,
        // as the last frame's did (a tripod), its bands and window are the first pass's, and so
        // is its answer.
        let moved = first.map { (x: Int($0.x.rounded()), y: Int($0.y.rounded())) }
        let unmoved = moved.map { $0 == (0, 0) && $0 == (Int(last.x.rounded()), Int(last.y.rounded())) } ?? false
        guard let first, let moved,
            let shift = unmoved
                ? first
                : Self.match(Self.profiles(luma, shift: moved), reference, near: first, window: window, range: range)
        else {
            // A jump no hand makes (the tripod was knocked, the phone put down elsewhere): the
            // picture is not followed there. The correction in use stays and this frame becomes the
            // reference; the rim is found again where it now is (see ``WorkoutAnalyzer``).
            self.reference = here
            referenceOffset = offset
            referenceTime = time
            return moveBack(frame)
        }
        offset = (referenceOffset.x + shift.x, referenceOffset.y + shift.y)
        largestMove = max(largestMove, (offset.x * offset.x + offset.y * offset.y).squareRoot() / Double(frame.width))
        if time - referenceTime >= configuration.referenceLifetime
            || max(abs(shift.x), abs(shift.y)) > Double(range) / 2
        {
            self.reference = here
            referenceOffset = offset
            referenceTime = time
        }
        return moveBack(frame)
    }

    /// The frame moved back by the offset, to the nearest even pixel.
    private func moveBack(_ frame: VideoFrame) -> VideoFrame {
        let applied = (x: 2 * Int((offset.x / 2).rounded()), y: 2 * Int((offset.y / 2).rounded()))
        hasMoved = hasMoved || applied != (0, 0)
        residual = hasMoved ? (offset.x - Double(applied.x), offset.y - Double(applied.y)) : (0, 0)
        moved = (-applied.x, -applied.y)
        return frame.translated(dx: -applied.x, dy: -applied.y)
    }

    /// The bands' profiles, each band moved by `shift` (the picture's movement, so it covers the
    /// same part of the scene as the unmoved band did in the reference).
    static func profiles(_ plane: Plane, shift: (x: Int, y: Int)) -> Profiles {
        let (width, height) = (plane.width, plane.height)
        var columns = [[Float]](repeating: [], count: horizontalBands)
        var rows = [[Float]](repeating: [Float](repeating: 0, count: height), count: verticalBands)
        plane.bytes.withUnsafeBufferPointer { bytes in
            for band in 0..<horizontalBands {
                // Rows summed into a column profile.
                let top = min(max(height * band / horizontalBands + shift.y, 0), height - 1)
                let bottom = max(min(height * (band + 1) / horizontalBands + shift.y, height), top + 1)
                var sums = [UInt32](repeating: 0, count: width)
                sums.withUnsafeMutableBufferPointer { sums in
                    for row in top..<bottom {
                        let line = bytes.baseAddress! + row * plane.bytesPerRow
                        for column in 0..<width { sums[column] &+= UInt32(line[column]) }
                    }
                }
                let rowCount = Float(bottom - top)
                columns[band] = sums.map { Float($0) / rowCount }
            }
            for band in 0..<verticalBands {
                // Columns summed into a row profile.
                let left = min(max(width * band / verticalBands + shift.x, 0), width - 1)
                let right = max(min(width * (band + 1) / verticalBands + shift.x, width), left + 1)
                let columnCount = Float(right - left)
                for row in 0..<height {
                    let line = bytes.baseAddress! + row * plane.bytesPerRow
                    var sum: UInt32 = 0
                    for column in left..<right { sum &+= UInt32(line[column]) }
                    rows[band][row] = Float(sum) / columnCount
                }
            }
        }
        return Profiles(columns: columns, rows: rows)
    }

    /// The picture's shift from `reference` to `current`, looked for within `window` of `near`:
    /// per axis the median over the pieces whose match stands out; `near` where none does. Nil
    /// when the picture jumped: more pieces find their best at the window's edge (the match lies
    /// beyond it) than inside it.
    static func match(
        _ current: Profiles, _ reference: Profiles, near: (x: Double, y: Double), window: Int, range: Int
    ) -> (x: Double, y: Double)? {
        func axis(_ current: [[Float]], _ reference: [[Float]], pieces: Int, near: Double) -> Double? {
            let centre = Int(near.rounded())
            let shifts = max(centre - window, -range)...min(centre + window, range)
            var found: [Double] = []
            var beyond = 0
            for (profile, old) in zip(current, reference) {
                let count = profile.count
                for piece in 0..<pieces {
                    let part = (count * piece / pieces)..<(count * (piece + 1) / pieces)
                    guard let best = search(profile, old, part, shifts) else { continue }
                    if best.shift == shifts.lowerBound || best.shift == shifts.upperBound {
                        beyond += 1
                    } else {
                        found.append(best.refined)
                    }
                }
            }
            guard beyond <= found.count else { return nil }
            guard !found.isEmpty else { return near }
            found.sort()
            return found.count % 2 == 1
                ? found[found.count / 2] : (found[found.count / 2 - 1] + found[found.count / 2]) / 2
        }
        guard let x = axis(current.columns, reference.columns, pieces: verticalBands, near: near.x),
            let y = axis(current.rows, reference.rows, pieces: horizontalBands, near: near.y)
        else { return nil }
        return (x, y)
    }

    /// The `d` in `shifts` for which `current[i]` best matches `reference[i - d]` over `part`
    /// (least mean absolute difference after the mean difference is removed), refined to a
    /// fraction of a pixel, when it stands out: its cost under 0.8 of the median cost of the
    /// shifts tried (a flat or repeating piece does not).
    static func search(
        _ current: [Float], _ reference: [Float], _ part: Range<Int>, _ shifts: ClosedRange<Int>
    ) -> (shift: Int, refined: Double)? {
        let count = current.count
        var costs: [Float] = []
        costs.reserveCapacity(shifts.count)
        current.withUnsafeBufferPointer { current in
            reference.withUnsafeBufferPointer { reference in
                for d in shifts {
                    let lower = max(part.lowerBound, d)
                    let upper = min(part.upperBound, count + d)
                    guard upper - lower >= part.count / 2 else {
                        costs.append(.infinity)
                        continue
                    }
                    var mean: Float = 0
                    for i in lower..<upper { mean += current[i] - reference[i - d] }
                    mean /= Float(upper - lower)
                    var cost: Float = 0
                    for i in lower..<upper { cost += abs(current[i] - reference[i - d] - mean) }
                    costs.append(cost / Float(upper - lower))
                }
            }
        }
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }), costs[best].isFinite else { return nil }
        let typical = costs.sorted()[costs.count / 2]
        guard costs[best] < 0.8 * typical else { return nil }
        var refined = Double(shifts.lowerBound + best)
        if best > 0, best < costs.count - 1, costs[best - 1].isFinite, costs[best + 1].isFinite {
            // Absolute differences grow linearly away from the match: fit a V, not a parabola.
            let (a, b, c) = (Double(costs[best - 1]), Double(costs[best]), Double(costs[best + 1]))
            let slope = max(a, c) - b
            if slope > 0 { refined += max(-0.5, min(0.5, (a - c) / (2 * slope))) }
        }
        return (shifts.lowerBound + best, refined)
    }
}
