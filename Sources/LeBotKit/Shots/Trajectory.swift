import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// One point of a trajectory, normalised.
public struct TrajectoryPoint: Sendable, Codable, Equatable {
    public var time: Double
    public var x: Double
    public var y: Double
}

/// A ball's path (what Vision's VNTrajectoryObservation carries): the detected points, a parabola
/// y = a·x² + b·x + c fitted to them in normalised coordinates (origin top left, y down), the time
/// range, and how well the parabola fits.
public struct Trajectory: Sendable, Codable, Equatable {
    public var points: [TrajectoryPoint]
    /// a, b, c of y = a·x² + b·x + c.
    public var equation: [Double]
    public var start: Double
    public var end: Double
    /// 1 for a perfect parabola, falling with the residual.
    public var confidence: Double

    /// Least squares fit; nil with fewer than 3 points or when x does not vary (a vertical path).
    public static func fit(_ points: [TrajectoryPoint]) -> Trajectory? {
        guard let first = points.first, let last = points.last,
            let (a, b, c) = parabola(points.map { ($0.x, $0.y) })
        else { return nil }
        let residual =
            (points.map { point -> Double in
                let predicted = a * point.x * point.x + b * point.x + c
                return (predicted - point.y) * (predicted - point.y)
            }.reduce(0, +) / Double(points.count)).squareRoot()
        return Trajectory(
            points: points, equation: [a, b, c], start: first.time, end: last.time,
            confidence: max(0, 1 - residual / 0.02))
    }

    /// Least squares y = a·x² + b·x + c through `samples`; nil with fewer than 3 or when x does not
    /// vary. Height against x here; ``ShotEventDetector`` also fits height against time.
    static func parabola(_ samples: [(x: Double, y: Double)]) -> (a: Double, b: Double, c: Double)? {
        guard samples.count >= 3 else { return nil }
        // Normal equations for [x², x, 1], centred on the mean x for conditioning.
        let meanX = samples.map(\.x).reduce(0, +) / Double(samples.count)
        var s = [Double](repeating: 0, count: 5)  // Σ u^k, k = 0...4
        var t = [Double](repeating: 0, count: 3)  // Σ y u^k, k = 0...2
        for sample in samples {
            let u = sample.x - meanX
            var power = 1.0
            for k in 0..<5 {
                s[k] += power
                if k < 3 { t[k] += sample.y * power }
                power *= u
            }
        }
        let matrix = [[s[4], s[3], s[2]], [s[3], s[2], s[1]], [s[2], s[1], s[0]]]
        guard let solution = solve3(matrix, [t[2], t[1], t[0]]) else { return nil }
        let (a, b0, c0) = (solution[0], solution[1], solution[2])
        // Back from u = x − meanX to x.
        return (a, b0 - 2 * a * meanX, a * meanX * meanX - b0 * meanX + c0)
    }

    /// The least-squares line y = a·x + b through `samples` (at least two, not all at one x).
    static func line(_ samples: [(x: Double, y: Double)]) -> (a: Double, b: Double)? {
        guard samples.count >= 2 else { return nil }
        let n = Double(samples.count)
        let meanX = samples.map(\.x).reduce(0, +) / n
        let meanY = samples.map(\.y).reduce(0, +) / n
        let sxx = samples.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        guard sxx > 1e-12 else { return nil }
        let a = samples.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / sxx
        return (a, meanY - a * meanX)
    }

    static func solve3(_ m: [[Double]], _ v: [Double]) -> [Double]? {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(m)
        guard abs(d) > 1e-12 else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row][column] = v[row] }
            return det(replaced) / d
        }
    }
}
