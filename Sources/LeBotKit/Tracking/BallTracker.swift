import CameraCommon

/// A point in a frame, normalised: x and y in 0...1, origin top left, y down.
public struct NormalizedPoint: Sendable, Codable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Where the ball was seen in one frame.
public struct BallObservation: Sendable, Equatable {
    /// Media time of the frame, seconds.
    public var time: Double
    /// Centre in analysis pixels (origin top left, y down).
    public var x: Double
    public var y: Double
    /// Radius in analysis pixels.
    public var radius: Double
    /// The track this observation belongs to.
    public var track: Int
    /// How ball-like the blob was, 0...1 (roundness and colour).
    public var confidence: Double
}

extension BallObservation {
    /// How far the ball is from `earlier`, in analysis pixels.
    public func distance(from earlier: BallObservation) -> Double {
        ((x - earlier.x) * (x - earlier.x) + (y - earlier.y) * (y - earlier.y)).squareRoot()
    }

    /// Whether the ball moved since `earlier`: 1.5 px or a fifth of its radius per 1/30 s, whatever
    /// the frame rate (a ball held or lying still jitters by less).
    public func moved(since earlier: BallObservation) -> Bool {
        distance(from: earlier) > max(1.5, earlier.radius * 0.2) * (time - earlier.time) * 30
    }
}

/// Finds a basketball in frames and follows it (the ball half of what Vision's trajectory request
/// does on iOS).
///
/// Per frame, on the 4:2:0 chroma plane (a quarter of the pixels): pixels that are orange now but
/// were not orange in a slowly updated background model are candidates — this keeps the orange rim
/// and a wooden floor out, and survives lighting changes, which move luma far more than chroma.
/// A faint orange counts where the luma changed a lot too (a dark ball's colour is faint), unless a
/// hand moved the picture further than a shake.
/// Candidates form blobs (connected components); blobs are kept when their size fits the radius
/// limits and they are round enough (fill of their box, aspect, allowing for motion blur). Blobs
/// are joined into tracks with a constant-acceleration prediction (a ball in flight follows a
/// parabola), which carries a track through a few frames of occlusion. With ``byBrightness`` the
/// candidates are pixels whose luma left the background's instead (a ball that is not orange).
public final class BallTracker {
    public struct Configuration: Sendable {
        /// Smallest and largest ball radius, as a fraction of the frame width.
        public var minimumRadius = 0.006
        public var maximumRadius = 0.04
        /// Orange in any light: Cr at least this far above neutral (128), Cb at least
        /// ``minimumBlueness`` below it, and not yellow (Cr's rise at least half Cb's fall). A ball in a
        /// dim gym sits barely off neutral (Cr 141, Cb 117), in a bright one far off (Cr 188, Cb 70).
        public var minimumRedness = 6
        public var minimumBlueness = 3
        /// How far (|ΔCb| + |ΔCr|) a pixel's chroma must be from the background model's to be new;
        /// half as far where its luma left the background's by ``minimumLumaChange`` too. A dark
        /// ball's colour is faint: in a dim gym (sideLeft-4501 on the 3D court) the ball in flight,
        /// blurred, was 6–12 from the pale wall's chroma and 84 below its luma, and was seen only
        /// near its apex, where it slowed. Not in a picture a hand moved further than a shake
        /// (``faintWithin``), held still to a pixel only: there the edges of dark things move a
        /// pixel or more between frames and change the brightness as much (45degree-2x, a real
        /// phone video panned by hand: the faint edges joined the ball's blob at the rim, its make
        /// was called a miss and its last shot lost).
        public var minimumChange = 14
        /// Once a flight has been followed, blobs whose colour is further than this (|ΔCb| + |ΔCr|)
        /// from the ball's learned colour are not balls (a skin tone, a shirt).
        public var colourTolerance = 26
        /// How fast the background model follows the scene, per frame.
        public var backgroundRate = 0.04
        /// Frames a track survives without a detection.
        public var maximumMissedFrames = 6
        /// How far a pixel's luma must be from the background model's to be new when the ball is
        /// told by its brightness (``BallTracker/byBrightness``), or for a faint orange to be new
        /// (``minimumChange``).
        public var minimumLumaChange = 30
        /// Pixels (luma, at the analysed width) the frame may have been moved to hold a hand-held
        /// picture still (``BallTracker/moved``) for a faint orange to count (``minimumChange``):
        /// a tripod's shake is held still to the pixel, but a picture a hand moved further is not,
        /// and the edges of dark things come and go (45degree-2x, panned by hand up to 3 % of its
        /// width; the 3D court's shaken cameras, 0.3 %).
        public var faintWithin = 2
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var width = 0
    public private(set) var height = 0
    private var backgroundCb: [Float] = []
    private var backgroundCr: [Float] = []
    private var backgroundY: [Float] = []
    private var mask: [UInt8] = []
    private var stack: [Int32] = []
    private var tracks: [Track] = []
    /// The balls' colours in this video (mean Cb, Cr), learned from the flights followed so far: one
    /// per ball that flew (two balls on one court need not be the same orange), three at most.
    public private(set) var ballColours: [(cb: Double, cr: Double)] = []
    private var nextTrack = 1
    /// Frames seen so far.
    public private(set) var framesProcessed = 0
    /// The frames are a handheld camera's, held still to a pixel (``FrameStabilizer``): an orange
    /// pixel is new only when no neighbour's background had its colour either (the rim one pixel
    /// over is not a ball). Off for a camera that stands still.
    public var heldStill = false
    /// The ball is told by its brightness, not its colour: a pixel is new when its luma left the
    /// background's, whatever its colour (only the sky's blue and the grass's green are not a ball).
    /// A worn ball filmed by a phone outdoors and compressed is a dark grey disc against the sky
    /// (Cb 126, Cr 138 where a gym's ball is Cr 150–190): orange nowhere.
    public var byBrightness = false
    /// How far (luma pixels) the frame was moved to hold a hand-held picture still: the band it
    /// uncovered along the opposite edges repeats the edge's pixels, so it is not picture, and by
    /// brightness no ball is looked for there. (That band changes as the hand moves, and by
    /// brightness it was full of "balls": blobs that then seemed to come back down from above the
    /// picture. By colour it is left alone: an orange ball at the top edge, repeated into the band,
    /// is how a high shot is seen to leave through the top.)
    public var moved = (x: 0, y: 0)

    /// The camera moved (knocked): the background is taken afresh from the next frame, as from
    /// the first, and the tracks are dropped; the balls' colours learned are kept. Against the old
    /// background every pixel of the new picture was new, and by brightness the knocked picture
    /// was full of "balls" (on the 3D court, four shots where there was none).
    public func restartBackground() {
        restartedColours = ballColours
        (width, height) = (0, 0)
    }
    /// Kept across a ``restartBackground()``: put back once the background is taken again.
    private var restartedColours: [(cb: Double, cr: Double)]?

    struct Track {
        var id: Int
        var points: [BallObservation]
        var missed = 0
        /// Mean colour of its blobs so far, and whether it has taught ``ballColours``.
        var cb = 0.0
        var cr = 0.0
        var taught = false

        /// How far from its prediction a blob may be this object: out of sight for a few frames, a
        /// moving ball may be further on, so the gate grows; a thing that stood still does not jump
        /// across the picture when it comes back. `minimum`: the least gate, in pixels.
        func gate(minimum: Double) -> Double {
            let last = points[points.count - 1]
            let still = points.count >= 2 && !last.moved(since: points[points.count - 2])
            return max(4 * last.radius, minimum) * Double(1 + (still ? 0 : missed))
        }

        /// Where the ball should be at `time`: constant acceleration from the last three points,
        /// constant velocity from two.
        func predict(_ time: Double) -> (x: Double, y: Double) {
            guard let last = points.last else { return (0, 0) }
            guard points.count >= 2 else { return (last.x, last.y) }
            let previous = points[points.count - 2]
            let dt = last.time - previous.time
            guard dt > 0 else { return (last.x, last.y) }
            var vx = (last.x - previous.x) / dt
            var vy = (last.y - previous.y) / dt
            var ay = 0.0
            if points.count >= 3 {
                let before = points[points.count - 3]
                let dt0 = previous.time - before.time
                if dt0 > 0 {
                    let vy0 = (previous.y - before.y) / dt0
                    ay = (vy - vy0) / ((dt + dt0) / 2)
                    // Gravity only pulls down; a bounce makes a spike that must not extrapolate.
                    ay = max(-200, min(4000, ay))
                }
            }
            let ahead = time - last.time
            vx = vx.isFinite ? vx : 0
            vy = vy.isFinite ? vy : 0
            return (last.x + vx * ahead, last.y + vy * ahead + 0.5 * ay * ahead * ahead)
        }
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Finds the ball in `frame` (YUV 4:2:0; decode at the analysis size) and returns what was
    /// seen, one observation per live track, best first.
    public func process(_ frame: VideoFrame, time: Double) throws(MediaError) -> [BallObservation] {
        guard frame.format == .yuv420p else {
            throw MediaError(
                .invalidArgument, operation: "track ball", message: "frames must be yuv420p, got \(frame.format)")
        }
        let cb = frame.planes[1]
        let cr = frame.planes[2]
        let cw = cb.width
        let ch = cb.height
        if width != frame.width || height != frame.height {
            width = frame.width
            height = frame.height
            backgroundCb = [Float](repeating: 128, count: cw * ch)
            backgroundCr = [Float](repeating: 128, count: cw * ch)
            backgroundY = [Float](repeating: 128, count: cw * ch)
            mask = [UInt8](repeating: 0, count: cw * ch)
            for y in 0..<ch {
                for x in 0..<cw {
                    backgroundCb[y * cw + x] = Float(cb.bytes[y * cb.bytesPerRow + x])
                    backgroundCr[y * cw + x] = Float(cr.bytes[y * cr.bytesPerRow + x])
                    backgroundY[y * cw + x] = Float(frame.planes[0].bytes[y * 2 * frame.planes[0].bytesPerRow + x * 2])
                }
            }
            tracks = []
            ballColours = restartedColours ?? []
            restartedColours = nil
        }
        framesProcessed += 1
        let blobs = findBlobs(luma: frame.planes[0], cb: cb, cr: cr)
        return associate(blobs, time: time)
    }

    struct Blob {
        var x: Double
        var y: Double
        var radius: Double
        var confidence: Double
        /// Mean chroma of its pixels.
        var cb: Double
        var cr: Double
    }

    /// Candidate pixels → connected components → ball-like blobs, in luma pixel units.
    private func findBlobs(luma: Plane, cb: Plane, cr: Plane) -> [Blob] {
        let cw = cb.width
        let ch = cb.height
        let redness = Float(configuration.minimumRedness)
        let blueness = Float(configuration.minimumBlueness)
        let change = Float(configuration.minimumChange)
        let rate = Float(configuration.backgroundRate)
        let heldStill = heldStill
        // A faint orange counts where the brightness changed a lot too, unless a hand moved the
        // picture more than a shake: held still to a pixel, the edges of dark things come and go.
        let faint = max(abs(moved.x), abs(moved.y)) <= configuration.faintWithin
        let byBrightness = byBrightness
        let lumaChange = Float(configuration.minimumLumaChange)
        // The picture the frame still shows, in chroma pixels (a moved frame's uncovered band left out).
        let columns = max(0, moved.x / 2 + (moved.x > 0 ? 1 : 0))..<min(cw, cw + moved.x / 2 - (moved.x < 0 ? 1 : 0))
        let rows = max(0, moved.y / 2 + (moved.y > 0 ? 1 : 0))..<min(ch, ch + moved.y / 2 - (moved.y < 0 ? 1 : 0))
        luma.bytes.withUnsafeBufferPointer { yBytes in
            cb.bytes.withUnsafeBufferPointer { cbBytes in
                cr.bytes.withUnsafeBufferPointer { crBytes in
                    backgroundCb.withUnsafeMutableBufferPointer { bgCb in
                        backgroundCr.withUnsafeMutableBufferPointer { bgCr in
                            backgroundY.withUnsafeMutableBufferPointer { bgY in
                                mask.withUnsafeMutableBufferPointer { mask in
                                    for y in 0..<ch {
                                        let rowCb = y * cb.bytesPerRow
                                        let rowCr = y * cr.bytesPerRow
                                        let rowY = y * 2 * luma.bytesPerRow
                                        for x in 0..<cw {
                                            let i = y * cw + x
                                            let u = Float(cbBytes[rowCb + x])
                                            let v = Float(crBytes[rowCr + x])
                                            let l = Float(yBytes[rowY + x * 2])
                                            /// Whether this pixel is new against the background at `n`.
                                            /// By colour: its chroma moved by `change`, or by half that
                                            /// where its luma moved as far as by brightness and the
                                            /// picture was not moved far (a dark ball's colour is
                                            /// faint: ``Configuration/minimumChange``).
                                            func isNew(against n: Int) -> Bool {
                                                if byBrightness { return abs(l - bgY[n]) >= lumaChange }
                                                let moved = abs(v - bgCr[n]) + abs(u - bgCb[n])
                                                return moved >= change
                                                    || faint && moved >= change / 2
                                                        && abs(l - bgY[n]) >= lumaChange
                                            }
                                            let red = v - 128
                                            let blue = 128 - u
                                            var candidate: Bool
                                            if byBrightness {
                                                // Anything but the sky's blue or the grass's green, in the
                                                // picture the frame still shows.
                                                candidate =
                                                    isNew(against: i) && blue > -8 && red > -8
                                                    && columns.contains(x) && rows.contains(y)
                                            } else {
                                                let orange = red >= redness && blue >= blueness && red * 2 >= blue
                                                candidate = orange && isNew(against: i)
                                            }
                                            if candidate, heldStill {
                                                // Not new when a neighbour's background had this colour
                                                // (or brightness): an orange rim one pixel over (a
                                                // hand-held picture is held still to a pixel, not better).
                                                search: for ny in max(0, y - 1)...min(ch - 1, y + 1) {
                                                    for nx in max(0, x - 1)...min(cw - 1, x + 1)
                                                    where nx != x || ny != y {
                                                        if !isNew(against: ny * cw + nx) {
                                                            candidate = false
                                                            break search
                                                        }
                                                    }
                                                }
                                            }
                                            mask[i] = candidate ? 1 : 0
                                            // Follow the scene, but slowly under a candidate so the ball
                                            // does not melt into the background while it is held still.
                                            let r = candidate ? rate * 0.1 : rate
                                            bgCb[i] += (u - bgCb[i]) * r
                                            bgCr[i] += (v - bgCr[i]) * r
                                            bgY[i] += (l - bgY[i]) * r
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Connected components (4-neighbour flood fill on an explicit stack).
        let minimumRadius = configuration.minimumRadius * Double(width) / 2
        let maximumRadius = configuration.maximumRadius * Double(width) / 2
        let minimumArea = Int(max(2, Double.pi * minimumRadius * minimumRadius * 0.5))
        let maximumArea = Int(Double.pi * maximumRadius * maximumRadius * 2.5)
        var blobs: [Blob] = []
        for start in 0..<mask.count where mask[start] == 1 {
            mask[start] = 2
            stack.removeAll(keepingCapacity: true)
            stack.append(Int32(start))
            var area = 0
            var sumCb = 0
            var sumCr = 0
            var sumX = 0
            var sumY = 0
            var minX = Int.max
            var maxX = 0
            var minY = Int.max
            var maxY = 0
            while let top = stack.popLast() {
                let i = Int(top)
                let x = i % cw
                let y = i / cw
                area += 1
                sumCb += Int(cb.bytes[y * cb.bytesPerRow + x])
                sumCr += Int(cr.bytes[y * cr.bytesPerRow + x])
                sumX += x
                sumY += y
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
                if x > 0, mask[i - 1] == 1 {
                    mask[i - 1] = 2
                    stack.append(Int32(i - 1))
                }
                if x + 1 < cw, mask[i + 1] == 1 {
                    mask[i + 1] = 2
                    stack.append(Int32(i + 1))
                }
                if y > 0, mask[i - cw] == 1 {
                    mask[i - cw] = 2
                    stack.append(Int32(i - cw))
                }
                if y + 1 < ch, mask[i + cw] == 1 {
                    mask[i + cw] = 2
                    stack.append(Int32(i + cw))
                }
            }
            guard area >= minimumArea, area <= maximumArea else { continue }
            let boxWidth = Double(maxX - minX + 1)
            let boxHeight = Double(maxY - minY + 1)
            let fill = Double(area) / (boxWidth * boxHeight)
            let aspect = max(boxWidth, boxHeight) / min(boxWidth, boxHeight)
            // A disc fills π/4 (0.785) of its box and blur stretches it; a box-shaped patch (a
            // shirt, a sign) fills nearly all of it, lines and specks are too thin.
            let squareish = fill > 0.93 && area >= 12
            guard fill >= 0.45, !squareish, aspect <= 2.6 || (area < 6 && aspect <= 3) else { continue }
            let radius = (Double(area) / Double.pi).squareRoot()
            guard radius <= maximumRadius * 1.3 else { continue }
            let roundness = 1 - min(1, abs(fill - 0.785) / 0.5) * 0.5 - min(1, (aspect - 1) / 2) * 0.5
            // Chroma pixel centres → luma pixel units.
            blobs.append(
                Blob(
                    x: (Double(sumX) / Double(area) + 0.5) * 2, y: (Double(sumY) / Double(area) + 0.5) * 2,
                    radius: max(1, radius * 2), confidence: max(0, min(1, roundness)),
                    cb: Double(sumCb) / Double(area), cr: Double(sumCr) / Double(area)))
        }
        return blobs
    }

    /// The longest gap, seconds, within a stretch of a track followed frame after frame (``isFlight``).
    private static let flightGap = 0.05

    /// A track that flew: 10 points or more, round, and a rise of several of its own radii (a
    /// thrown or dribbled ball; a shirt, a rolling ball or a skin tone does not rise like that).
    /// The rise counts only within a stretch followed frame after frame (``flightGap``): a track
    /// that lost a ball rolling on the floor and, its gate grown, took the ball held at the
    /// shooter's chest rose without flying, and taught the held ball's colour (bled into by an
    /// orange stripe behind it) as the ball's, so the real flights were not seen.
    private func isFlight(_ track: Track) -> Bool {
        guard track.points.count >= 10 else { return false }
        let recent = track.points.suffix(30)
        var rise = 0.0
        var stretch = (low: recent.first!.y, high: recent.first!.y)
        for (earlier, point) in zip(recent, recent.dropFirst()) {
            if point.time - earlier.time > Self.flightGap { stretch = (point.y, point.y) }
            stretch = (min(stretch.low, point.y), max(stretch.high, point.y))
            rise = max(rise, stretch.high - stretch.low)
        }
        let radius = recent.map(\.radius).reduce(0, +) / Double(recent.count)
        let round = recent.map(\.confidence).reduce(0, +) / Double(recent.count)
        return rise >= 6 * radius && round >= 0.5
    }

    /// The balls' colours: a flight sets one, later flights of a like colour move it (light changes
    /// over a session; a ball that goes from a bright to a dim end of the gym), a flight of another
    /// colour (a second ball) adds one. One moving colour would follow whichever ball flew most and
    /// could lose the other: a second ball dribbled for seconds pulled it so far that the shots of
    /// the first were no longer seen.
    private func learn(from track: Track) {
        guard track.taught else { return }
        let tolerance = Double(configuration.colourTolerance)
        let nearest = ballColours.indices.min {
            Self.colourDistance(ballColours[$0], (track.cb, track.cr))
                < Self.colourDistance(ballColours[$1], (track.cb, track.cr))
        }
        if let nearest,
            ballColours.count == 3 || Self.colourDistance(ballColours[nearest], (track.cb, track.cr)) <= tolerance / 2
        {
            let colour = ballColours[nearest]
            ballColours[nearest] = (
                colour.cb + (track.cb - colour.cb) * 0.02, colour.cr + (track.cr - colour.cr) * 0.02
            )
        } else {
            ballColours.append((track.cb, track.cr))
        }
    }

    /// |ΔCb| + |ΔCr|.
    private static func colourDistance(_ colour: (cb: Double, cr: Double), _ other: (cb: Double, cr: Double)) -> Double
    {
        abs(colour.cb - other.cb) + abs(colour.cr - other.cr)
    }

    /// Greedy nearest-prediction assignment of blobs to tracks; unmatched blobs start tracks.
    private func associate(_ blobs: [Blob], time: Double) -> [BallObservation] {
        var unused = Array(blobs.indices)
        if !ballColours.isEmpty {
            let tolerance = Double(configuration.colourTolerance)
            unused.removeAll { blob in
                !ballColours.contains { Self.colourDistance($0, (blobs[blob].cb, blobs[blob].cr)) <= tolerance }
            }
        }
        var observations: [BallObservation] = []
        let predictions = tracks.map { $0.predict(time) }
        let gates = tracks.map { $0.gate(minimum: Double(width) * 0.05) }
        /// How far `blob` is from where track `index` expects its object, when it may be that object.
        func gated(_ index: Int, _ blob: Int) -> Double? {
            let last = tracks[index].points.last!
            let dx = blobs[blob].x - predictions[index].x
            let dy = blobs[blob].y - predictions[index].y
            let distance = (dx * dx + dy * dy).squareRoot()
            // A ball keeps its size from frame to frame (half hidden at worst): a speck of
            // noise is not the ball that appears far from it.
            let sizes = (blobs[blob].radius, last.radius)
            guard max(sizes.0, sizes.1) <= 2.5 * max(min(sizes.0, sizes.1), 1), distance < gates[index] else {
                return nil
            }
            return distance
        }
        // Per blob, the two tracks that expect it nearest: a track that lost its object for a frame
        // or more looks further around (its gate grows), and must not take a blob another track
        // expects nearer. A long track whose object went out of sight for a few frames took a ball
        // in flight, predicted to a pixel by its own track: the shot seemed to start at its apex.
        var nearest = [(first: (track: Int, distance: Double), second: Double)](
            repeating: ((-1, .infinity), .infinity), count: blobs.count)
        // Track by blob, nil where the blob is not within the track's gate.
        var distances = [[Double?]](repeating: [Double?](repeating: nil, count: blobs.count), count: tracks.count)
        for index in tracks.indices {
            for blob in unused {
                guard let distance = gated(index, blob) else { continue }
                distances[index][blob] = distance
                if distance < nearest[blob].first.distance {
                    nearest[blob] = ((index, distance), nearest[blob].first.distance)
                } else if distance < nearest[blob].second {
                    nearest[blob].second = distance
                }
            }
        }
        // Longest tracks choose first: a ball in flight should not lose its blob to a new track.
        let order = tracks.indices.sorted { tracks[$0].points.count > tracks[$1].points.count }
        for index in order {
            var best: (blob: Int, distance: Double)?
            for (position, blob) in unused.enumerated() {
                guard let distance = distances[index][blob] else { continue }
                if tracks[index].missed > 0 {
                    let other = nearest[blob].first.track == index ? nearest[blob].second : nearest[blob].first.distance
                    if other < distance { continue }
                }
                if distance < best?.distance ?? .infinity { best = (position, distance) }
            }
            if let best {
                let blob = blobs[unused.remove(at: best.blob)]
                let observation = BallObservation(
                    time: time, x: blob.x, y: blob.y, radius: blob.radius, track: tracks[index].id,
                    confidence: blob.confidence)
                tracks[index].points.append(observation)
                if tracks[index].points.count > 240 { tracks[index].points.removeFirst(60) }
                tracks[index].missed = 0
                let n = Double(min(tracks[index].points.count, 30))
                tracks[index].cb += (blob.cb - tracks[index].cb) / n
                tracks[index].cr += (blob.cr - tracks[index].cr) / n
                learn(from: tracks[index])
                if !tracks[index].taught, tracks[index].points.count >= 10, isFlight(tracks[index]) {
                    tracks[index].taught = true
                }
                observations.append(observation)
            } else {
                tracks[index].missed += 1
            }
        }
        tracks.removeAll { $0.missed > configuration.maximumMissedFrames }
        for index in unused {
            let blob = blobs[index]
            let observation = BallObservation(
                time: time, x: blob.x, y: blob.y, radius: blob.radius, track: nextTrack, confidence: blob.confidence)
            tracks.append(Track(id: nextTrack, points: [observation], cb: blob.cb, cr: blob.cr))
            nextTrack += 1
            observations.append(observation)
        }
        // Best first: long tracks, then round blobs.
        let lengths = Dictionary(uniqueKeysWithValues: tracks.map { ($0.id, $0.points.count) })
        return observations.sorted {
            (lengths[$0.track] ?? 0, $0.confidence) > (lengths[$1.track] ?? 0, $1.confidence)
        }
    }
}
