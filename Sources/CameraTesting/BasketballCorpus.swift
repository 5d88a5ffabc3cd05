import CameraCommon
import CameraIO
import Foundation

/// Basketball workout videos rendered at test time, with ground truth.
///
/// A side view of one basket: wall and wooden floor with sensor noise and slow lighting changes, a
/// backboard, an orange rim and a net, a dark player who moves between shots, and a ball whose
/// flight is *simulated* (gravity, the rim's front and back edges, the backboard, the floor, a net
/// that holds a ball through the hoop and takes most of its speed across). Shots are drawn by
/// aiming at random and keeping the ones whose simulated outcome is the kind wanted, so rim-outs,
/// bank shots and air balls happen the way physics makes them, not as scripted paths. Dribbles and
/// passes are the non-shots.
public enum BasketballCorpus {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case clean, bank, rimOut, long, short, airball, dribble, pass

        public var isShot: Bool { self != .dribble && self != .pass }
        public var isMake: Bool { self == .clean || self == .bank }
    }

    /// One event of a video's ground truth.
    public struct Event: Codable, Sendable {
        public var kind: Kind
        /// When the ball leaves the hands, seconds.
        public var release: Double
        /// When the ball crosses the rim line going down (makes), seconds.
        public var rimTime: Double?
        public var made: Bool
        /// Release point, normalised (origin top left).
        public var releaseX: Double
        public var releaseY: Double
        /// Noah's numbers, from the 3D scene (``CourtCorpus``; nil for the flat side views and for
        /// shots that never came down through the rim's height).
        public var atRim: AtRim? = nil
    }

    /// Where and how a shot came down through the rim's height, in the court (not the picture).
    public struct AtRim: Codable, Sendable {
        /// Inches past the rim's centre along the line from the shooter (negative: short of it).
        public var depth: Double
        /// Inches right of the rim's centre as the shooter sees it (negative: left).
        public var leftRight: Double
        /// Degrees below horizontal the ball was travelling.
        public var entryAngle: Double
        /// The apex above the rim, feet.
        public var arcFeet: Double
    }

    public struct Video: Codable, Sendable {
        public var path: String
        public var width: Int
        public var height: Int
        public var frameRate: Int
        public var duration: Double
        /// The rim box, normalised (x, y, width, height; origin top left).
        public var rim: [Double]
        public var events: [Event]
        /// When the camera was knocked (seconds), and the rim box from then on.
        public var movedAt: Double?
        public var rimAfterMove: [Double]?
        /// Where the camera stood (``CourtCorpus/Placement``); nil for the flat side views.
        public var placement: String? = nil

        /// The rim box at `time`.
        public func rim(at time: Double) -> [Double] {
            if let movedAt, let rimAfterMove, time >= movedAt { return rimAfterMove }
            return rim
        }
    }

    /// Scene geometry at 640×360; everything scales with the width.
    struct Scene {
        let scale: Double
        /// Where the hoop stands, moved from the standard place (pixels at 640 wide).
        var hoopShift: (x: Double, y: Double) = (0, 0)
        var floorY: Double { 300 * scale }
        var rimFront: (x: Double, y: Double) { ((545 + hoopShift.x) * scale, (154 + hoopShift.y) * scale) }
        var rimBack: (x: Double, y: Double) { ((597 + hoopShift.x) * scale, (154 + hoopShift.y) * scale) }
        var rimEdgeRadius: Double { 2.5 * scale }
        var boardX: Double { (601 + hoopShift.x) * scale }
        var boardTop: Double { (70 + hoopShift.y) * scale }
        var boardBottom: Double { (165 + hoopShift.y) * scale }
        var ballRadius: Double { 9 * scale }
        var gravity: Double { 470 * scale }
        var netBottom: Double { (196 + hoopShift.y) * scale }
    }

    /// Where the camera saw the hoop: the standard spot, or moved and seen from either side.
    public enum Layout: Sendable {
        /// The hoop always at the same place, shooter on the left (the original corpus).
        case standard
        /// Per video: the hoop moved up to 90 px left and 35 px up or down (at 640×360), and the
        /// picture mirrored (shooter on the right) for every other seed.
        case varied
    }

    /// Writes `videos` videos of about `eventsPerVideo` events into `directory`, with a
    /// `truth.json` beside them, and returns the ground truth.
    /// - Parameter cameraMoves: the camera is knocked once, halfway through each video (before an
    ///   event, never during one): the picture moves 40–80 px sideways and 10–25 px up or down (at
    ///   640×360) and stays there.
    public static func generate(
        in directory: String, videos: Int = 4, eventsPerVideo: Int = 14, width: Int = 640, height: Int = 360,
        frameRate: Int = 30, seed: UInt64 = 7, layout: Layout = .standard, cameraMoves: Bool = false
    ) throws -> [Video] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var result: [Video] = []
        for index in 0..<videos {
            var generator = SeededGenerator(seed: seed &+ UInt64(index) &* 7919)
            // Mostly shots, of every kind, with a dribble or a pass now and then.
            let shotKinds: [Kind] = [.clean, .clean, .bank, .rimOut, .rimOut, .long, .short, .airball, .clean, .rimOut]
            var kinds: [Kind] = []
            for n in 0..<eventsPerVideo {
                if n % 4 == 2 {
                    kinds.append(n % 8 == 2 ? .dribble : .pass)
                } else {
                    kinds.append(shotKinds[(n + index * 3) % shotKinds.count])
                }
            }
            var shift = (x: 0.0, y: 0.0)
            var mirrored = false
            if layout == .varied {
                shift = (Double.random(in: -90...0, using: &generator), Double.random(in: -35...35, using: &generator))
                mirrored = (seed &+ UInt64(index)) % 2 == 1
            }
            var move: CameraMove?
            if cameraMoves {
                let sideways = Double.random(in: 40...80, using: &generator)
                let vertical = Double.random(in: 10...25, using: &generator)
                move = CameraMove(
                    beforeEvent: kinds.count / 2, dx: Bool.random(using: &generator) ? sideways : -sideways,
                    dy: Bool.random(using: &generator) ? vertical : -vertical)
            }
            let video = try render(
                kinds: kinds, path: "\(directory)/workout-\(index).mp4", width: width, height: height,
                frameRate: frameRate, hoopShift: shift, mirrored: mirrored, move: move, generator: &generator)
            result.append(video)
        }
        let data = try JSONEncoder().encode(result)
        try data.write(to: URL(fileURLWithPath: "\(directory)/truth.json"))
        return result
    }

    // MARK: - Simulation

    struct BallState {
        var x: Double
        var y: Double
        var vx: Double
        var vy: Double
    }

    /// A simulated flight: positions at every frame from release, and what happened.
    struct Flight {
        var positions: [(x: Double, y: Double)]
        var made = false
        var rimTime: Double?
        var touchedRim = false
        var touchedBoard = false
    }

    static func simulate(_ start: BallState, scene: Scene, frameRate: Int, duration: Double) -> Flight {
        var ball = start
        var flight = Flight(positions: [])
        let substeps = 8
        let dt = 1 / Double(frameRate * substeps)
        let frames = Int(duration * Double(frameRate))
        let r = scene.ballRadius
        var time = 0.0
        var landed: Double?
        for _ in 0..<frames {
            flight.positions.append((ball.x, ball.y))
            // Done a little after the first bounce on the floor, or once out of the picture.
            if let landed, time - landed > 0.6 { break }
            if ball.x < -2 * r || ball.x > scene.boardX + 60 * scene.scale { break }
            for _ in 0..<substeps {
                let previousY = ball.y
                ball.vy += scene.gravity * dt
                ball.x += ball.vx * dt
                ball.y += ball.vy * dt
                time += dt
                // Rim edges: small circles.
                for edge in [scene.rimFront, scene.rimBack] {
                    let dx = ball.x - edge.x
                    let dy = ball.y - edge.y
                    let distance = (dx * dx + dy * dy).squareRoot()
                    let reach = r + scene.rimEdgeRadius
                    if distance < reach, distance > 0 {
                        let nx = dx / distance
                        let ny = dy / distance
                        let along = ball.vx * nx + ball.vy * ny
                        if along < 0 {
                            ball.vx -= 1.6 * along * nx
                            ball.vy -= 1.6 * along * ny
                            flight.touchedRim = true
                        }
                        ball.x = edge.x + nx * reach
                        ball.y = edge.y + ny * reach
                    }
                }
                // Backboard: a vertical segment.
                if ball.x + r > scene.boardX, ball.x < scene.boardX, ball.y > scene.boardTop,
                    ball.y < scene.boardBottom,
                    ball.vx > 0
                {
                    ball.vx = -0.6 * ball.vx
                    ball.x = scene.boardX - r
                    flight.touchedBoard = true
                }
                // Through the hoop: the centre crosses the rim line going down between the edges.
                let rimY = scene.rimFront.y
                if previousY < rimY, ball.y >= rimY, ball.x > scene.rimFront.x, ball.x < scene.rimBack.x, !flight.made {
                    flight.made = true
                    flight.rimTime = time
                }
                // The net holds a ball that came through the hoop, as the 3D court's does (stop 45): the
                // cords narrow from the rim to the net's bottom, a ball pressed against them loses its
                // speed outward, and their drag takes about two thirds of its speed across and a fifth
                // of its fall in the tenth of a second it takes to drop through. (Until stop 46 the
                // net slowed only a ball whose centre was between the rim's edges, by a share per
                // simulation step: a bank coming back off the board left through the net's front at
                // three quarters of its speed, as a ball that passed beside the hoop does.)
                if flight.made, ball.y > rimY, ball.y < scene.netBottom {
                    let down = (ball.y - rimY) / (scene.netBottom - rimY)
                    let left = scene.rimFront.x + 10 * scene.scale * down
                    let right = scene.rimBack.x - 10 * scene.scale * down
                    let centre = (left + right) / 2
                    let room = max(3 * scene.scale, (right - left) / 2 - r * 0.5)
                    let off = ball.x - centre
                    if abs(off) > room {
                        if ball.vx * off > 0 { ball.vx *= -0.2 }
                        ball.x = centre + (off > 0 ? room : -room)
                    }
                    ball.vx *= exp(-13.8 * dt)
                    ball.vy *= exp(-3 * dt)
                }
                if ball.y + r > scene.floorY, ball.vy > 0 {
                    if landed == nil { landed = time }
                    ball.vy = -0.55 * ball.vy
                    ball.vx *= 0.8
                    ball.y = scene.floorY - r
                }
            }
        }
        return flight
    }

    /// The velocity that takes a ball from `from` to `to` in `time` seconds under gravity.
    static func aim(from: (x: Double, y: Double), to: (x: Double, y: Double), time: Double, gravity: Double) -> (
        vx: Double, vy: Double
    ) {
        ((to.x - from.x) / time, (to.y - from.y - 0.5 * gravity * time * time) / time)
    }

    static func classify(_ flight: Flight, scene: Scene) -> Kind {
        if flight.made { return flight.touchedBoard ? .bank : .clean }
        if flight.touchedRim { return .rimOut }
        if flight.touchedBoard { return .long }
        // No contact: short if it came down before the rim, air ball otherwise (over or past it).
        let rimY = scene.rimFront.y
        var previous = flight.positions.first!
        for position in flight.positions.dropFirst() {
            if previous.y < rimY, position.y >= rimY {
                return position.x < scene.rimFront.x ? .short : .airball
            }
            previous = position
        }
        return .short
    }

    /// A shot of `kind` from `release`, found by aiming at random until the simulation agrees.
    static func shot(
        _ kind: Kind, from release: (x: Double, y: Double), scene: Scene, frameRate: Int,
        generator: inout SeededGenerator
    ) -> Flight? {
        let rimCentre = ((scene.rimFront.x + scene.rimBack.x) / 2, scene.rimFront.y)
        for _ in 0..<4000 {
            let time = Double.random(in: 1.0...1.5, using: &generator)
            var target: (x: Double, y: Double)
            switch kind {
            case .clean:
                target = (rimCentre.0 + Double.random(in: -12...12, using: &generator) * scene.scale, rimCentre.1)
            case .bank:
                target = (scene.boardX - scene.ballRadius, Double.random(in: 95...140, using: &generator) * scene.scale)
            case .rimOut:
                let edge = Bool.random(using: &generator) ? scene.rimFront.x : scene.rimBack.x
                target = (
                    edge + Double.random(in: -8...8, using: &generator) * scene.scale, rimCentre.1 - 4 * scene.scale
                )
            case .long:
                target = (scene.boardX, Double.random(in: 100...150, using: &generator) * scene.scale)
            case .short:
                target = (scene.rimFront.x - Double.random(in: 20...45, using: &generator) * scene.scale, rimCentre.1)
            case .airball:
                target = (
                    scene.rimFront.x - Double.random(in: 5...60, using: &generator) * scene.scale,
                    rimCentre.1 + 30 * scene.scale
                )
            case .dribble, .pass: return nil
            }
            let velocity = aim(from: release, to: target, time: time, gravity: scene.gravity)
            let flight = simulate(
                BallState(x: release.x, y: release.y, vx: velocity.vx, vy: velocity.vy), scene: scene,
                frameRate: frameRate, duration: 4.5)
            // Keep only clear cases: a make must drop through, a miss must end away from the hoop.
            if classify(flight, scene: scene) == kind { return flight }
        }
        return nil
    }

    // MARK: - Rendering

    /// The camera knocked before an event: the picture moved by (dx, dy) pixels at 640×360.
    struct CameraMove {
        var beforeEvent: Int
        var dx: Double
        var dy: Double
    }

    static func render(
        kinds: [Kind], path: String, width: Int, height: Int, frameRate: Int, hoopShift: (x: Double, y: Double),
        mirrored: Bool, move: CameraMove? = nil, generator: inout SeededGenerator
    ) throws -> Video {
        let scene = Scene(scale: Double(width) / 640, hoopShift: hoopShift)
        let background = Background(width: width, height: height, scene: scene, generator: &generator)
        // Plan: for each event, a hold (ball in hands), the motion, then the ball gone for a moment.
        struct Segment {
            var playerX: Double
            var positions: [(x: Double, y: Double)?]
            var event: Event?
        }
        var segments: [Segment] = []
        var events: [Event] = []
        var clock = 0.6
        for kind in kinds {
            let playerX = Double.random(in: 90...330, using: &generator) * scene.scale
            let hands = (x: playerX + 16 * scene.scale, y: scene.floorY - 122 * scene.scale)
            let holdFrames = Int(Double.random(in: 0.5...0.9, using: &generator) * Double(frameRate))
            var positions: [(x: Double, y: Double)?] = Array(repeating: hands, count: holdFrames)
            var flight: [(x: Double, y: Double)] = []
            var rimTime: Double?
            switch kind {
            case .dribble:
                // Bounces between the hand at the waist and the floor, about 2 a second.
                let waist = scene.floorY - 70 * scene.scale
                let bounces = Int.random(in: 3...5, using: &generator)
                let period = Double(frameRate) / 2
                for frame in 0..<Int(Double(bounces) * period) {
                    let phase = Double(frame).truncatingRemainder(dividingBy: period) / period
                    let depth = abs(phase * 2 - 1)  // 1 at the hand, 0 at the floor
                    let x: Double = hands.x + 4 * scene.scale * sin(Double(frame) / 5)
                    let y: Double = waist + (1 - depth) * (scene.floorY - scene.ballRadius - waist)
                    flight.append((x, y))
                }
            case .pass:
                // Chest pass out of the frame to the left.
                let start = (x: hands.x - 10 * scene.scale, y: scene.floorY - 95 * scene.scale)
                var state = BallState(
                    x: start.x, y: start.y, vx: -Double.random(in: 420...560, using: &generator) * scene.scale,
                    vy: -60 * scene.scale)
                while state.x > -20 * scene.scale {
                    flight.append((state.x, state.y))
                    state.vy += scene.gravity * 0.4 / Double(frameRate)
                    state.x += state.vx / Double(frameRate)
                    state.y += state.vy / Double(frameRate)
                }
            default:
                guard let simulated = shot(kind, from: hands, scene: scene, frameRate: frameRate, generator: &generator)
                else {
                    continue
                }
                flight = simulated.positions
                rimTime = simulated.rimTime
            }
            positions.removeLast()
            let release = clock + Double(positions.count) / Double(frameRate)
            positions += flight.map { Optional($0) }
            positions += Array(repeating: nil, count: Int(0.5 * Double(frameRate)))
            let event = Event(
                kind: kind, release: release, rimTime: rimTime.map { release + $0 }, made: kind.isMake,
                releaseX: hands.x / Double(width), releaseY: hands.y / Double(height))
            events.append(event)
            segments.append(Segment(playerX: playerX, positions: positions, event: event))
            clock += Double(positions.count) / Double(frameRate)
        }
        let totalFrames = Int((clock + 0.5) * Double(frameRate))

        let encoder = try VideoEncoder(
            settings: .init(
                width: width, height: height, frameRate: Rational(Int32(frameRate), 1), crf: 23, gopSize: frameRate * 2,
                preset: "ultrafast"))
        let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
        var frameIndex = 0
        var segmentIndex = 0
        var indexInSegment = 0
        var movedAt: Double?
        let leadIn = Int(0.6 * Double(frameRate))
        while frameIndex < totalFrames {
            var ball: (x: Double, y: Double)?
            var playerX = segments.first?.playerX ?? 200 * scene.scale
            if let move, movedAt == nil, frameIndex >= leadIn, segmentIndex >= move.beforeEvent,
                indexInSegment == 0
            {
                movedAt = Double(frameIndex) / Double(frameRate)
            }
            if frameIndex >= leadIn, segmentIndex < segments.count {
                let segment = segments[segmentIndex]
                playerX = segment.playerX
                ball = segment.positions[indexInSegment]
                indexInSegment += 1
                if indexInSegment >= segment.positions.count {
                    segmentIndex += 1
                    indexInSegment = 0
                }
            } else if segmentIndex < segments.count {
                playerX = segments[segmentIndex].playerX
            }
            var frame = background.frame(index: frameIndex, frameRate: frameRate, generator: &generator)
            drawPlayer(
                &frame, x: playerX, scene: scene, armsUp: ball.map { $0.y < scene.floorY - 110 * scene.scale } ?? false,
                index: frameIndex)
            // A spectator in an orange shirt walks along the back wall: orange and moving, but
            // not round, so it must not become a ball.
            let walker =
                (Double(frameIndex) * 1.2 * scene.scale).truncatingRemainder(
                    dividingBy: Double(width) + 60 * scene.scale) - 30 * scene.scale
            fillRect(
                &frame, x0: walker, x1: walker + 22 * scene.scale, y0: 200 * scene.scale, y1: 240 * scene.scale, y: 120,
                cb: 72, cr: 186)
            if let ball { drawBall(&frame, x: ball.x, y: ball.y, radius: scene.ballRadius) }
            // A pole in the foreground hides the ball for a frame or two on most shots.
            fillRect(
                &frame, x0: 405 * scene.scale, x1: 417 * scene.scale, y0: 30 * scene.scale, y1: Double(height), y: 35,
                cb: 128, cr: 128)
            if mirrored { frame = mirror(frame) }
            if let move, movedAt != nil {
                frame = frame.translated(dx: Int(move.dx * scene.scale) & ~1, dy: Int(move.dy * scene.scale) & ~1)
            }
            frame.pts = MediaTime(value: Int64(frameIndex), timescale: Int32(frameRate))
            for sample in try encoder.encode(frame) { try writer.write(sample) }
            frameIndex += 1
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()
        var rimBox = [
            (scene.rimFront.x - 2 * scene.scale) / Double(width), (scene.rimFront.y - 4 * scene.scale) / Double(height),
            (scene.rimBack.x - scene.rimFront.x + 4 * scene.scale) / Double(width), 8 * scene.scale / Double(height),
        ]
        if mirrored {
            rimBox[0] = 1 - rimBox[0] - rimBox[2]
            for index in events.indices { events[index].releaseX = 1 - events[index].releaseX }
        }
        var after: [Double]?
        if let move, let movedAt {
            let dx = Double(Int(move.dx * scene.scale) & ~1) / Double(width)
            let dy = Double(Int(move.dy * scene.scale) & ~1) / Double(height)
            after = [rimBox[0] + dx, rimBox[1] + dy, rimBox[2], rimBox[3]]
            for index in events.indices where events[index].release >= movedAt {
                events[index].releaseX += dx
                events[index].releaseY += dy
            }
        }
        return Video(
            path: path, width: width, height: height, frameRate: frameRate,
            duration: Double(totalFrames) / Double(frameRate),
            rim: rimBox, events: events, movedAt: after == nil ? nil : movedAt, rimAfterMove: after)
    }

    /// The static picture (wall, floor, backboard, rim, net) and per-frame noise and lighting.
    struct Background {
        let width: Int
        let height: Int
        var luma: [UInt8]
        var cb: [UInt8]
        var cr: [UInt8]
        let noise: [Int8]

        init(width: Int, height: Int, scene: Scene, generator: inout SeededGenerator) {
            self.width = width
            self.height = height
            let cw = width / 2
            let ch = height / 2
            var values: [Int8] = []
            values.reserveCapacity(width * height + 4096)
            for _ in 0..<(width * height + 4096) { values.append(Int8.random(in: -5...5, using: &generator)) }
            noise = values
            luma = [UInt8](repeating: 0, count: width * height)
            cb = [UInt8](repeating: 128, count: cw * ch)
            cr = [UInt8](repeating: 128, count: cw * ch)
            for y in 0..<height {
                for x in 0..<width {
                    let fy = Double(y)
                    let value: Double
                    if fy >= scene.floorY {
                        // Wood planks: stripes of slightly different brightness.
                        value =
                            150 + 10 * sin(Double(x) / (23 * scene.scale) + fy / 40) + Double(
                                (x / Int(40 * scene.scale)) % 3) * 4
                    } else {
                        value = 95 + 25 * fy / scene.floorY
                    }
                    luma[y * width + x] = UInt8(max(16, min(235, value)))
                }
            }
            for y in 0..<ch {
                for x in 0..<cw {
                    let floor = Double(y * 2) >= scene.floorY
                    cb[y * cw + x] = floor ? 112 : 136
                    cr[y * cw + x] = floor ? 142 : 122
                }
            }
            // Backboard: white, seen edge-on as a tall bar, and its pole.
            fill(
                x0: scene.boardX, x1: scene.boardX + 7 * scene.scale, y0: scene.boardTop, y1: scene.boardBottom, y: 225,
                cb: 128, cr: 128)
            fill(
                x0: scene.boardX + 7 * scene.scale, x1: scene.boardX + 14 * scene.scale,
                y0: scene.boardTop + 40 * scene.scale, y1: scene.floorY, y: 60, cb: 128, cr: 128)
            // Net: white strands below the rim.
            let steps = 7
            for strand in 0...steps {
                let top = scene.rimFront.x + (scene.rimBack.x - scene.rimFront.x) * Double(strand) / Double(steps)
                let bottom =
                    scene.rimFront.x + 10 * scene.scale + (scene.rimBack.x - scene.rimFront.x - 20 * scene.scale)
                    * Double(strand) / Double(steps)
                var t = 0.0
                while t <= 1 {
                    let x = top + (bottom - top) * t
                    let y = scene.rimFront.y + (scene.netBottom - scene.rimFront.y) * t
                    fill(x0: x, x1: x + 1.5 * scene.scale, y0: y, y1: y + 1.5 * scene.scale, y: 210, cb: 128, cr: 128)
                    t += 0.02
                }
            }
            // Rim: orange, like the ball, so colour alone cannot tell them apart.
            fill(
                x0: scene.rimFront.x - 2 * scene.scale, x1: scene.rimBack.x + 4 * scene.scale,
                y0: scene.rimFront.y - 2 * scene.scale, y1: scene.rimFront.y + 3 * scene.scale, y: 110, cb: 78, cr: 182)
        }

        mutating func fill(x0: Double, x1: Double, y0: Double, y1: Double, y: UInt8, cb: UInt8, cr: UInt8) {
            let cw = width / 2
            for row in max(0, Int(y0))..<min(height, Int(y1.rounded(.up))) {
                for column in max(0, Int(x0))..<min(width, Int(x1.rounded(.up))) {
                    luma[row * width + column] = y
                    self.cb[(row / 2) * cw + column / 2] = cb
                    self.cr[(row / 2) * cw + column / 2] = cr
                }
            }
        }

        /// The background for one frame: lighting drifts ±8 % over 7 s, noise moves every frame.
        func frame(index: Int, frameRate: Int, generator: inout SeededGenerator) -> VideoFrame {
            let light = 1 + 0.08 * sin(Double(index) / Double(frameRate) * 2 * .pi / 7)
            let gain = Int(light * 256)
            let offset = Int.random(in: 0..<4096, using: &generator)
            var y = [UInt8](repeating: 0, count: width * height)
            luma.withUnsafeBufferPointer { source in
                noise.withUnsafeBufferPointer { noise in
                    y.withUnsafeMutableBufferPointer { out in
                        for i in 0..<out.count {
                            let value = ((Int(source[i]) * gain) >> 8) + Int(noise[i + offset])
                            out[i] = UInt8(truncatingIfNeeded: max(16, min(235, value)))
                        }
                    }
                }
            }
            let cw = width / 2
            let ch = height / 2
            return VideoFrame(
                format: .yuv420p, width: width, height: height,
                planes: [
                    Plane(width: width, height: height, bytesPerRow: width, bytes: y),
                    Plane(width: cw, height: ch, bytesPerRow: cw, bytes: cb),
                    Plane(width: cw, height: ch, bytesPerRow: cw, bytes: cr),
                ])
        }
    }

    static func fillRect(
        _ frame: inout VideoFrame, x0: Double, x1: Double, y0: Double, y1: Double, y: UInt8, cb: UInt8, cr: UInt8
    ) {
        let cw = frame.width / 2
        for row in max(0, Int(y0))..<max(max(0, Int(y0)), min(frame.height, Int(y1))) {
            for column in max(0, Int(x0))..<max(max(0, Int(x0)), min(frame.width, Int(x1))) {
                frame.planes[0].bytes[row * frame.width + column] = y
                frame.planes[1].bytes[(row / 2) * cw + column / 2] = cb
                frame.planes[2].bytes[(row / 2) * cw + column / 2] = cr
            }
        }
    }

    static func drawDisc(
        _ frame: inout VideoFrame, x: Double, y: Double, radius: Double, luma: (Double) -> UInt8, cb: UInt8, cr: UInt8
    ) {
        let width = frame.width
        let height = frame.height
        let cw = width / 2
        let x0 = max(0, Int(x - radius) - 1)
        let x1 = min(width - 1, Int(x + radius) + 1)
        let y0 = max(0, Int(y - radius) - 1)
        let y1 = min(height - 1, Int(y + radius) + 1)
        guard x0 <= x1, y0 <= y1 else { return }
        for row in y0...y1 {
            for column in x0...x1 {
                let dx = Double(column) + 0.5 - x
                let dy = Double(row) + 0.5 - y
                let d = (dx * dx + dy * dy).squareRoot() / radius
                guard d <= 1 else { continue }
                frame.planes[0].bytes[row * width + column] = luma(d)
                frame.planes[1].bytes[(row / 2) * cw + column / 2] = cb
                frame.planes[2].bytes[(row / 2) * cw + column / 2] = cr
            }
        }
    }

    /// The frame seen from the other side (left and right swapped).
    static func mirror(_ frame: VideoFrame) -> VideoFrame {
        var copy = frame
        copy.planes = frame.planes.map { plane in
            var bytes = plane.bytes
            for row in 0..<plane.height {
                let start = row * plane.bytesPerRow
                bytes[start..<(start + plane.width)].reverse()
            }
            return Plane(width: plane.width, height: plane.height, bytesPerRow: plane.bytesPerRow, bytes: bytes)
        }
        return copy
    }

    static func drawBall(_ frame: inout VideoFrame, x: Double, y: Double, radius: Double) {
        // Orange with a darker rim (shading) and a seam line.
        drawDisc(
            &frame, x: x, y: y, radius: radius, luma: { d in d > 0.8 ? 95 : (abs(d - 0.45) < 0.06 ? 80 : 128) }, cb: 70,
            cr: 188)
    }

    static func drawPlayer(_ frame: inout VideoFrame, x: Double, scene: Scene, armsUp: Bool, index: Int) {
        let s = scene.scale
        let sway = 2 * s * sin(Double(index) / 9)
        let feet = scene.floorY
        func rect(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double) {
            for row in max(0, Int(y0))..<min(frame.height, Int(y1)) {
                for column in max(0, Int(x0))..<min(frame.width, Int(x1)) {
                    frame.planes[0].bytes[row * frame.width + column] = 42
                    frame.planes[1].bytes[(row / 2) * (frame.width / 2) + column / 2] = 132
                    frame.planes[2].bytes[(row / 2) * (frame.width / 2) + column / 2] = 126
                }
            }
        }
        rect(x - 12 * s + sway, x + 12 * s + sway, feet - 100 * s, feet - 45 * s)  // torso
        rect(x - 10 * s + sway, x - 2 * s + sway, feet - 45 * s, feet)  // legs
        rect(x + 2 * s + sway, x + 10 * s + sway, feet - 45 * s, feet)
        drawDisc(&frame, x: x + sway, y: feet - 110 * s, radius: 10 * s, luma: { _ in 42 }, cb: 132, cr: 126)
        if armsUp {
            rect(x + 8 * s + sway, x + 16 * s + sway, feet - 130 * s, feet - 95 * s)
        } else {
            rect(x + 10 * s + sway, x + 18 * s + sway, feet - 98 * s, feet - 60 * s)
        }
    }
}
