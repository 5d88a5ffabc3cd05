import CameraCommon

/// How much the net under the rim moves between frames: the share of its pixels whose brightness
/// changed by more than ``threshold``, leaving out the pixels around any ball seen (a ball passing in
/// front of the net or through it changes them itself).
///
/// A shot through the hoop sets the net swinging for about a second after the ball has left it; a
/// ball that falls in front of the rim or bounces off it barely moves the net. That is what tells a
/// make from a miss when the camera looks along the shot (behind the shooter), where the ball's path
/// in the picture does not.
public struct NetMotion: Sendable {
    /// The net's box in analysis pixels: under the rim, as wide as it and 1.2 rim widths deep (a
    /// net hangs 15–18 in under an 18 in rim; the ball swings its lower end too, and a box read off
    /// the rim alone, not its bracket, is a third narrower than the finder's used to be).
    public let x0: Int
    public let x1: Int
    public let y0: Int
    public let y1: Int
    public var threshold = 22
    /// Frames are compared at least this far apart, seconds: a swinging net moves half as far
    /// between frames at 60 fps as at 30, and would look half as busy.
    public var spacing = 0.03
    /// The net's pixels of the last few frames measured, and the balls seen in each, newest last.
    private var kept: [(time: Double, pixels: [UInt8], balls: [BallObservation])] = []

    public init(rim: RimCalibration, width: Int, height: Int) {
        let w = Double(width)
        let h = Double(height)
        let rimWidth = rim.width * w
        x0 = max(0, Int(rim.x * w))
        x1 = min(width, Int(((rim.x + rim.width) * w).rounded(.up)))
        y0 = max(0, min(height, Int((rim.y + rim.height) * h)))
        y1 = max(y0, min(height, Int((rim.y + rim.height) * h + rimWidth * 1.2)))
    }

    /// Drops the frames kept: the next measure compares with nothing (after frames not measured).
    public mutating func forget() { kept.removeAll(keepingCapacity: true) }

    /// The share of the net's pixels that changed since the newest frame measured at least
    /// ``spacing`` before `time` (0 when there is none yet), leaving out the pixels near `balls`
    /// and near the balls of the frame compared with: a ball moving through the box changes the
    /// pixels where it was as much as those where it is.
    public mutating func measure(_ frame: VideoFrame, time: Double, balls: [BallObservation]) -> Double? {
        guard frame.format == .yuv420p, x1 > x0, y1 > y0 else { return nil }
        let luma = frame.planes[0]
        let columns = x1 - x0
        // Reuse the oldest kept buffer once four are kept (30 fps looks one frame back, 90 fps three).
        var current = kept.count >= 4 ? kept.removeFirst().pixels : []
        if current.count != columns * (y1 - y0) { current = [UInt8](repeating: 0, count: columns * (y1 - y0)) }
        for row in y0..<y1 {
            for column in x0..<x1 {
                current[(row - y0) * columns + column - x0] = luma.bytes[row * luma.bytesPerRow + column]
            }
        }
        defer { kept.append((time, current, balls)) }
        guard let compared = kept.last(where: { time - $0.time >= spacing - 1e-9 }) else { return 0 }
        let previous = compared.pixels
        var changed = 0
        var counted = 0
        // Only the balls whose ring reaches the box are tested at each pixel (most seen are elsewhere).
        let near = (balls + compared.balls).compactMap { ball -> (Double, Double, Double)? in
            let reach = ball.radius * 2.5
            guard ball.x + reach >= Double(x0), ball.x - reach <= Double(x1), ball.y + reach >= Double(y0),
                ball.y - reach <= Double(y1)
            else { return nil }
            return (ball.x, ball.y, reach * reach)
        }
        for row in y0..<y1 {
            for column in x0..<x1 {
                let (px, py) = (Double(column), Double(row))
                if near.contains(where: { (px - $0.0) * (px - $0.0) + (py - $0.1) * (py - $0.1) < $0.2 }) { continue }
                counted += 1
                let i = (row - y0) * columns + column - x0
                if abs(Int(current[i]) - Int(previous[i])) > threshold { changed += 1 }
            }
        }
        return counted == 0 ? nil : Double(changed) / Double(counted)
    }
}
