import CameraCommon
import CameraIO
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Basketball workouts rendered from a simple 3D gym, seen through a camera you place.
///
/// Unlike ``BasketballCorpus`` (a flat side view drawn in the picture), everything here lives in
/// metres and is projected through a pinhole camera: a regulation hoop (rim 3.05 m high, 45.7 cm
/// across, 2 cm rod), a backboard with its inner square and its support, a diamond-mesh net that
/// hides the ball and swings when a shot goes through, a wooden floor with court lines, walls,
/// the shooter and people walking by (one in an orange shirt), a second ball rolling on the floor.
/// The ball is a shaded sphere with seams that spin, drawn with motion blur over a half-frame
/// exposure. The flight is simulated in 3D (gravity, the rim as a torus, the board, the floor, a net
/// that holds a ball through it and takes most of its speed across); a shot of a wanted kind is
/// found by aiming at random until physics agrees. Lighting (dim, ordinary, bright gyms with a
/// colour cast), sensor noise, compression strength and a handheld camera's shake vary per seed. Ground truth per shot, as ``BasketballCorpus/Video``.
public enum CourtCorpus {
    /// Where the camera stands.
    public enum Placement: String, Codable, Sendable, CaseIterable {
        /// Side view, the shooter on the left of the picture and the hoop on the right.
        case sideLeft
        /// Side view from the other side: the hoop on the left.
        case sideRight
        /// 45° between the side and the shooter's back; the hoop on the right.
        case angledLeft
        /// 45° from the other side; the hoop on the left.
        case angledRight
        /// Behind the shooter, facing the hoop.
        case behind
    }

    /// Seeds the analyzer's rules were set on (looking at their videos and numbers).
    public static let tuningSeeds: [UInt64] = [1, 2, 3]
    /// Seeds kept from tuning: rendered and scored only after the code was frozen. 501–503 were
    /// first scored at the end of stop 28 (and so have been seen once since); 601–603 were added at
    /// stop 29 and first scored at its end.
    public static let heldOutSeeds: [UInt64] = [501, 502, 503, 601, 602, 603]
    /// The seeds as they are reported: tuning, then each held-out slice by when it was first scored.
    public static let seedSets: [(name: String, seeds: [UInt64])] =
        [
            ("tuning", tuningSeeds),
            ("held-out, first scored at stop 28", [501, 502, 503]),
            ("held-out, first scored at stop 29", [601, 602, 603]),
            ("held-out, first scored at stop 31", [701, 702, 703]),
            ("held-out, first scored at stop 32", [801, 802, 803]),
            ("held-out, first scored at the end of stop 32", [901, 902, 903]),
            ("first scored at stop 32, then used to drop a rule (seen)", [1001, 1002, 1003]),
            ("held-out, first scored at the end of stop 33", [1101, 1102, 1103]),
            ("first scored at the end of stop 34, then looked at (two rims not found): seen", [1201, 1202, 1203]),
            ("held-out, first scored at the end of stop 34 after the rim finder change", [1301, 1302, 1303]),
            ("first scored at the end of stop 35, then its faults looked at: seen", [1401, 1402, 1403]),
            ("first scored at the end of stop 36, its six faults listed in the note: seen", [1501, 1502, 1503]),
            ("first scored at the end of stop 37, then two rules read off its faults: seen", [1601, 1602, 1603]),
            (
                "held-out, first scored at the start of stop 38, before any change (its two faults printed)",
                [1701, 1702, 1703]
            ),
            (
                "first scored at stop 41, before any change to the calls (its five faults printed): seen",
                [1801, 1802, 1803]
            ),
            ("first scored at stop 42 (its seven faults printed): seen", [1901, 1902, 1903]),
            ("first scored at the end of stop 44: seen", [2301, 2302, 2303]),
        ] + bothColours
    /// Seeds rendered with grey steel rims (``Options/steelRim``) to score the rim found under the
    /// board's square (stop 42): tuning, two slices seen, one scored once at the end, then every
    /// slice rendered in both colours (``bothColours``). Their scenes are the same with an orange
    /// rim, so none of them is held out for the orange either.
    public static let steelSeedSets: [(name: String, seeds: [UInt64])] =
        [
            ("tuning", tuningSeeds),
            ("first scored before the last two changes, then seen", [2001, 2002, 2003]),
            ("first scored before the last change, then seen", [2101, 2102, 2103]),
            ("scored once at the end of stop 42", [2201, 2202, 2203]),
        ] + bothColours

    /// The slices rendered and scored in both rim colours (the same scenes), from stop 45 on: each
    /// new held-out slice is named here once, before it is rendered.
    static let bothColours: [(name: String, seeds: [UInt64])] = [
        ("scored once at stop 45 with the net that holds the ball, then the rule narrowed: seen", [3001, 3002, 3003]),
        ("scored once at the end of stop 46, then its faults read at stop 47: seen", [3101, 3102, 3103]),
        ("scored once at the end of stop 47", [3201, 3202, 3203]),
        ("scored once at the end of stop 48 (its faults, all at 45° from the left, printed)", [3301, 3302, 3303]),
        (
            "scored once at the end of stop 49 (its faults, most from the side on the left, printed)",
            [3401, 3402, 3403]
        ),
        ("scored once at the end of stop 51, then its faults read at stop 52: seen", [3501, 3502, 3503]),
        ("scored once at stop 52 after its first change, then its faults read: seen", [3601, 3602, 3603]),
        ("scored once at the end of stop 52, then its faults read at stop 53: seen", [3701, 3702, 3703]),
        (
            "held out until the end of stop 53, scored once then (ten seeds: 50 shots a placement): seen",
            Array(3801...3810)
        ),
        ("held out until stop 54, scored once then with stop 53's calls (ten seeds): seen", Array(3901...3910)),
        (
            "held out until the end of stop 54, scored once then (ten seeds), then its faults read: seen",
            Array(4001...4010)
        ),
        ("held out until stop 55, scored once then with stop 54's build (ten seeds): seen", Array(4101...4110)),
        (
            "held out until the end of stop 55, scored once then (ten seeds), then a rim it missed fixed: seen",
            Array(4201...4210)
        ),
        (
            "held out until the end of stop 56, scored once then (ten seeds), then a rim it boxed too narrow fixed: seen",
            Array(4301...4310)
        ),
        (
            "held out until stop 57, scored once then with stop 56's calls (ten seeds at 1280×720 30 fps; the first five at 1920×1080 60 fps too), then two grey rims it missed fixed at stop 58: seen",
            Array(4401...4410)
        ),
        (
            "held out until the end of stop 58, scored once then (ten seeds at 1280×720 30 fps, both colours; the first five at 1920×1080 60 fps, both colours), then its faults read at stop 59: seen",
            Array(4501...4510)
        ),
        (
            "held out until the end of stop 59, scored once then with a tracker rule taken back after (ten seeds at 1280×720 30 fps, both colours; its faults printed)",
            Array(4601...4610)
        ),
        (
            "held out until the end of stop 60, scored once then (five seeds at 1280×720 30 fps, both colours; its three faults printed)",
            Array(4701...4705)
        ),
        (
            "held out until the end of stop 61, scored once then, before its last change (five seeds at 1280×720 30 fps, both colours), then its faults read at stop 62: seen",
            Array(4706...4710)
        ),
        (
            "held out until stop 62, scored once then after its first three changes (five seeds at 1280×720 30 fps, both colours), then its faults read: seen",
            Array(4711...4715)
        ),
        (
            "held out until the end of stop 62, scored once then (five seeds at 1280×720 30 fps, both colours), then its faults read at stop 63: seen",
            Array(4716...4720)
        ),
        (
            "held out until the end of stop 63, scored once then (ten seeds at 1280×720 30 fps, both colours), then its faults read at stop 64: seen",
            Array(4721...4730)
        ),
        (
            "held out until the end of stop 64, scored once then (ten seeds at 1280×720 30 fps, both colours; the first four at 1920×1080 60 fps too, both colours; its faults printed), then its 1920×1080 fault read at stop 65: seen",
            Array(4731...4740)
        ),
        (
            "held out until the end of stop 65, scored once then (ten seeds at 1280×720 30 fps, both colours; the first four at 1920×1080 60 fps too, both colours; its three 1920×1080 faults printed), then its 1920×1080 faults read: seen",
            Array(4741...4750)
        ),
        (
            "held out until the end of stop 66, named before rendering, scored once then on the corpus's revision 2 (ten seeds at 1280×720 30 fps, both colours; the first three at 1920×1080 60 fps too, both colours; its faults, two grey rims from behind not found, printed), then those two read at stop 67: seen",
            Array(4751...4760)
        ),
        (
            "held out until the end of stop 67, named before rendering, scored once then (ten seeds at 1280×720 30 fps, both colours; the first three at 1920×1080 60 fps too, both colours; its one fault, orange sideRight-4764, printed), then that fault read at stop 68: seen",
            Array(4761...4770)
        ),
        (
            "held out until the end of stop 68, named before rendering, scored once then (ten seeds at 1280×720 30 fps, both colours; the first three at 1920×1080 60 fps too, both colours; its one fault, steel angledRight-4773 at 1920×1080, printed), then that fault read at stop 69: seen",
            Array(4771...4780)
        ),
        (
            "held out until the end of stop 69, named before rendering, scored once then (ten seeds at 1280×720 30 fps, both colours; the first at 1920×1080 60 fps too, both colours; its one fault, orange sideRight-4785's rim not found, printed), then that fault read at stops 70 and 71: seen",
            Array(4781...4790)
        ),
        (
            "held out until the end of stop 71, named before rendering, scored once then (ten seeds at 1280×720 30 fps, both colours; the first at 1920×1080 60 fps too, both colours; its one shot wrong, angledLeft-4796's rim-out at 9.2 s, a make in orange and indeterminate in steel, printed)",
            Array(4791...4800)
        ),
    ]

    public struct Options: Sendable {
        public var placement: Placement
        public var width = 1280
        public var height = 720
        public var frameRate = 30
        /// Events per video (shots with a dribble or a pass now and then).
        public var events = 8
        /// A handheld phone: the picture wanders by up to ~1° (otherwise a tripod).
        public var handheld = false
        /// A grey steel rim, as on many outdoor courts (otherwise painted orange). Changes nothing
        /// else in the scene, so a seed renders the same workout either way.
        public var steelRim = false
        /// The camera knocked once, as an event starts halfway through: it turns where it stands so
        /// the picture moves 50–160 px sideways and 16–60 px up or down (at 1280×720, scaled with
        /// the width), new scenery coming in at the edges, and stays there. Drawn from its own
        /// numbers, so a seed renders the same workout with or without it.
        public var knock = false

        public init(placement: Placement, width: Int = 1280, height: Int = 720, frameRate: Int = 30, events: Int = 8) {
            self.placement = placement
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.events = events
        }
    }

    /// Which drawing of the scene a rendered folder holds: raised whenever the same seed and
    /// options come out as a different picture with the same truth (2: the net pulled down by a
    /// make, stop 66). ``generate(in:seeds:options:)`` writes it beside `truth.json` as
    /// `revision`, and a folder rendered by an older one is rendered again, not reused.
    public static let revision = 2

    /// The ground truth of the videos ``generate(in:seeds:options:)`` rendered into `directory`, or
    /// nil when it was rendered by an older ``revision`` (or never) or a video is missing: such a
    /// folder is to be rendered again, not reused.
    public static func rendered(in directory: String) -> [BasketballCorpus.Video]? {
        guard (try? String(contentsOfFile: revisionFile(directory), encoding: .utf8)) == "\(revision)",
            let data = FileManager.default.contents(atPath: truthFile(directory)),
            let videos = try? JSONDecoder().decode([BasketballCorpus.Video].self, from: data),
            videos.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) })
        else { return nil }
        return videos
    }

    static func revisionFile(_ directory: String) -> String { "\(directory)/revision" }
    static func truthFile(_ directory: String) -> String { "\(directory)/truth.json" }

    /// Renders one video per seed into `directory` (`<placement>-<seed>.mp4`, a `truth.json` with
    /// all of them, the ``revision``) and returns the ground truth. What a killed render left in the
    /// folder (``AtomicFile/removeLeftovers(in:)``) is deleted first.
    public static func generate(in directory: String, seeds: [UInt64], options: Options) throws
        -> [BasketballCorpus.Video]
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A render killed mid-way (a bench stopped to change its seeds) left its hidden file.
        AtomicFile.removeLeftovers(in: directory)
        var videos: [BasketballCorpus.Video] = []
        for seed in seeds {
            var generator = SeededGenerator(seed: seed &* 2_654_435_761 &+ 17)
            let path = "\(directory)/\(options.placement.rawValue)-\(seed).mp4"
            videos.append(try render(path: path, options: options, generator: &generator))
        }
        try JSONEncoder().encode(videos).write(to: URL(fileURLWithPath: truthFile(directory)))
        try "\(revision)".write(toFile: revisionFile(directory), atomically: true, encoding: .utf8)
        return videos
    }

    // MARK: - Geometry

    struct V3 {
        var x: Double
        var y: Double
        var z: Double
        static func + (a: V3, b: V3) -> V3 { V3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
        static func - (a: V3, b: V3) -> V3 { V3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
        static func * (a: V3, s: Double) -> V3 { V3(x: a.x * s, y: a.y * s, z: a.z * s) }
        func dot(_ b: V3) -> Double { x * b.x + y * b.y + z * b.z }
        func cross(_ b: V3) -> V3 { V3(x: y * b.z - z * b.y, y: z * b.x - x * b.z, z: x * b.y - y * b.x) }
        var length: Double { dot(self).squareRoot() }
        var normalized: V3 { self * (1 / max(length, 1e-12)) }
    }

    /// Court dimensions, metres. The rim's centre stands above the origin; the court is toward +y.
    enum Court {
        static let rimHeight = 3.05
        static let rimRadius = 0.2286
        static let rodRadius = 0.01
        static let ballRadius = 0.12
        static let boardY = -0.38
        static let boardHalfWidth = 0.915
        static let boardBottom = 2.90
        static let boardTop = 3.97
        static let netDepth = 0.42
        static let netBottomRadius = 0.14
        static let baselineY = -1.58
        static let gravity = 9.81
    }

    /// A pinhole camera.
    struct Camera {
        var position: V3
        var forward: V3
        var right: V3
        var up: V3
        var focal: Double
        var cx: Double
        var cy: Double

        init(position: V3, lookAt: V3, horizontalFieldOfView degrees: Double, width: Int, height: Int) {
            self.position = position
            forward = (lookAt - position).normalized
            right = forward.cross(V3(x: 0, y: 0, z: 1)).normalized
            up = right.cross(forward)
            focal = Double(width) / 2 / tan(degrees * .pi / 360)
            cx = Double(width) / 2
            cy = Double(height) / 2
        }

        /// Picture position (pixels, y down) and depth along the view; nil behind the camera.
        func project(_ point: V3) -> (x: Double, y: Double, depth: Double)? {
            let relative = point - position
            let depth = relative.dot(forward)
            guard depth > 0.05 else { return nil }
            return (cx + focal * relative.dot(right) / depth, cy - focal * relative.dot(up) / depth, depth)
        }

        func ray(_ x: Double, _ y: Double) -> V3 {
            (forward + right * ((x - cx) / focal) - up * ((y - cy) / focal)).normalized
        }
    }

    /// Colour in display terms (0...1) → limited-range BT.601 Y, Cb, Cr.
    static func yuv(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        let r = max(0, min(1, r))
        let g = max(0, min(1, g))
        let b = max(0, min(1, b))
        return (
            16 + 65.481 * r + 128.553 * g + 24.966 * b, 128 - 37.797 * r - 74.203 * g + 112 * b,
            128 + 112 * r - 93.786 * g - 18.214 * b
        )
    }

    /// Where a ray from `origin` along `direction` enters an axis-aligned box, or nil.
    static func hitBox(_ origin: V3, _ direction: V3, _ low: V3, _ high: V3) -> Double? {
        var near = -Double.infinity
        var far = Double.infinity
        for (o, d, l, h) in [
            (origin.x, direction.x, low.x, high.x), (origin.y, direction.y, low.y, high.y),
            (origin.z, direction.z, low.z, high.z),
        ] {
            if abs(d) < 1e-12 {
                if o < l || o > h { return nil }
                continue
            }
            let t1 = (l - o) / d
            let t2 = (h - o) / d
            near = max(near, min(t1, t2))
            far = min(far, max(t1, t2))
        }
        return near <= far && far > 0 && near > 0 ? near : nil
    }

    // MARK: - Simulation

    struct Flight {
        var positions: [V3] = []
        var made = false
        /// Seconds from release to the centre passing down through the rim.
        var rimTime: Double?
        var touchedRim = false
        var touchedBoard = false
        /// When the rim or board was hit, seconds from release (for the net's shiver).
        var contactTime: Double?
        /// The ball's centre came down through the rim's height: where, when, and how fast.
        var descent: (point: V3, time: Double, velocity: V3)?
        /// The ball's velocity as it came down through the rim (a make), else just after it first
        /// knocked the rim or board: which way it sets the net swinging (``swingWay(_:)``).
        var swingVelocity: V3?
    }

    /// Which way a flight sets the net swinging: the ball's way across the floor as it came down
    /// through the rim (a make) or just after it first knocked the rim or board; zero when it had
    /// none (straight down). Until stop 66 it was read off the rendered path, one frame's step from
    /// the frame of the contact, which mixed the ways before and after a knock and, at 60 fps, was
    /// already inside the net, whose cords bend the path: the same scene's net swung differently at
    /// 30 and 60 fps (sideLeft-4742's make, which knocked the rim: 35° apart).
    static func swingWay(_ flight: Flight) -> V3 {
        guard let velocity = flight.swingVelocity else { return V3(x: 0, y: 0, z: 0) }
        return V3(x: velocity.x, y: velocity.y, z: 0).normalized
    }

    /// How far the net's bottom ring is moved `age` seconds after a flight set it moving (points
    /// higher up move in proportion to how far down the net they are): swinging along the ball's way
    /// across the floor, 7 cm for a make and 2 cm for a knock on the rim or board, and, for a make,
    /// pulled down while the ball drags the cords through (an eighth of a second, about as long as
    /// it takes to drop through) and springing back up past where it hangs, 8 cm each way before it
    /// dies down, as a real net does. That part shows from every side; until stop 66 there was only
    /// the swing, and a make whose way was along the camera's line of sight (from behind, or a knock
    /// that sent it across) left the net still in the picture once the ball was out of it.
    static func netOffset(way: V3, made: Bool, age: Double) -> V3 {
        guard age >= 0, age < 2 else { return V3(x: 0, y: 0, z: 0) }
        let swing = way * ((made ? 0.07 : 0.02) * exp(-age / 0.35) * sin(age * 2 * .pi * 2.5))
        guard made else { return swing }
        return swing + V3(x: 0, y: 0, z: -0.08 * exp(-age / 0.3) * sin(age * 2 * .pi * 4))
    }

    static func simulate(from start: V3, velocity: V3, frameRate: Int) -> Flight {
        var p = start
        var v = velocity
        var flight = Flight()
        let substeps = 10
        let dt = 1 / Double(frameRate * substeps)
        var time = 0.0
        var landed: Double?
        let rb = Court.ballRadius
        for _ in 0..<Int(4.0 * Double(frameRate)) {
            flight.positions.append(p)
            if let landed, time - landed > 0.7 { break }
            if abs(p.x) > 12 || p.y > 15 || p.y < Court.baselineY - 0.8 { break }
            for _ in 0..<substeps {
                let previous = p
                v.z -= Court.gravity * dt
                p = p + v * dt
                time += dt
                // The rim: the nearest point of its circle, a rod of 1 cm.
                let radial = (p.x * p.x + p.y * p.y).squareRoot()
                let nearest =
                    radial > 1e-9
                    ? V3(x: p.x / radial * Court.rimRadius, y: p.y / radial * Court.rimRadius, z: Court.rimHeight)
                    : V3(x: Court.rimRadius, y: 0, z: Court.rimHeight)
                let away = p - nearest
                let distance = away.length
                if distance < rb + Court.rodRadius {
                    let normal = away * (1 / distance)
                    let along = v.dot(normal)
                    if along < 0 {
                        v = v - normal * (1.65 * along)
                        flight.touchedRim = true
                        if flight.contactTime == nil { flight.swingVelocity = v }
                        flight.contactTime = flight.contactTime ?? time
                    }
                    p = nearest + normal * (rb + Court.rodRadius)
                }
                // The board's face.
                if p.y - rb < Court.boardY, previous.y - rb >= Court.boardY - 0.01, abs(p.x) < Court.boardHalfWidth,
                    p.z > Court.boardBottom, p.z < Court.boardTop, v.y < 0
                {
                    v.y = -0.6 * v.y
                    v.x *= 0.9
                    p.y = Court.boardY + rb
                    flight.touchedBoard = true
                    if flight.contactTime == nil { flight.swingVelocity = v }
                    flight.contactTime = flight.contactTime ?? time
                }
                if previous.z >= Court.rimHeight, p.z < Court.rimHeight, v.z < 0 {
                    if flight.descent == nil { flight.descent = (p, time, v) }
                    if radial < Court.rimRadius, !flight.made {
                        flight.made = true
                        flight.rimTime = time
                        flight.swingVelocity = v
                    }
                }
                // The net holds a ball that came through the rim: a funnel of cord from the rim down to
                // its smaller bottom ring, stretched around the ball as it passes. Pressed against the
                // cords, the ball loses its speed outward (they give and hold it), and their drag takes
                // most of its speed across and some of its fall: in the tenth of a second a ball takes
                // to drop through, about two thirds of the one and a fifth of the other, so it leaves
                // the net falling nearly straight, under the hoop. (Until stop 45 the net only slowed
                // a ball whose centre was inside the rim's circle, by a share per simulation step, not
                // per second; a ball coming through fast across left that circle within a tenth of a
                // second and flew on through the net's side as if it were not there. A make then kept
                // its speed across under the rim, as a ball that passed beside the hoop does, which
                // no net lets a ball do.)
                if flight.made, p.z < Court.rimHeight, p.z > Court.rimHeight - Court.netDepth {
                    let down = (Court.rimHeight - p.z) / Court.netDepth
                    let cords = Court.rimRadius + (Court.netBottomRadius - Court.rimRadius) * down
                    let room = max(0.03, cords - rb * 0.5)
                    let centre = (p.x * p.x + p.y * p.y).squareRoot()
                    if centre > room {
                        let out = V3(x: p.x / centre, y: p.y / centre, z: 0)
                        let outward = v.dot(out)
                        if outward > 0 { v = v - out * (outward * 1.2) }
                        p = V3(x: out.x * room, y: out.y * room, z: p.z)
                    }
                    let across = exp(-13.8 * dt)
                    v.x *= across
                    v.y *= across
                    v.z *= exp(-3 * dt)
                }
                if p.z < rb, v.z < 0 {
                    landed = landed ?? time
                    v.z = -0.62 * v.z
                    v.x *= 0.85
                    v.y *= 0.85
                    p.z = rb
                }
            }
        }
        return flight
    }

    /// Noah's numbers for a flight released at `release` (the rim's centre is above the origin).
    static func atRim(_ flight: Flight, releasedAt release: V3) -> BasketballCorpus.AtRim? {
        guard let descent = flight.descent else { return nil }
        let inches = 39.37
        let toShooter = V3(x: release.x, y: release.y, z: 0).normalized
        // Facing the rim, the shooter's right.
        let right = V3(x: -toShooter.y, y: toShooter.x, z: 0)
        let ground = V3(x: descent.point.x, y: descent.point.y, z: 0)
        let v = descent.velocity
        let apex = flight.positions.map(\.z).max() ?? Court.rimHeight
        return BasketballCorpus.AtRim(
            depth: -ground.dot(toShooter) * inches, leftRight: ground.dot(right) * inches,
            entryAngle: atan2(-v.z, (v.x * v.x + v.y * v.y).squareRoot()) * 180 / .pi,
            arcFeet: (apex - Court.rimHeight) * inches / 12)
    }

    static func classify(_ flight: Flight) -> BasketballCorpus.Kind {
        if flight.made { return flight.touchedBoard ? .bank : .clean }
        if flight.touchedRim { return .rimOut }
        if flight.touchedBoard { return .long }
        guard let descent = flight.descent else { return .short }
        let sideways = abs(descent.point.x)
        return sideways > Court.rimRadius + Court.ballRadius ? .airball : .short
    }

    /// A shot of `kind` released at `release`, by aiming at random until the simulation agrees.
    static func shot(
        _ kind: BasketballCorpus.Kind, from release: V3, frameRate: Int, generator: inout SeededGenerator
    ) -> Flight? {
        let toShooter = V3(x: release.x, y: release.y, z: 0).normalized
        let across = V3(x: -toShooter.y, y: toShooter.x, z: 0)
        for _ in 0..<3000 {
            let time = Double.random(in: 0.95...1.35, using: &generator)
            func around(_ spread: Double) -> Double { Double.random(in: -spread...spread, using: &generator) }
            var target: V3
            switch kind {
            case .clean:
                target = V3(x: around(0.09), y: around(0.09), z: Court.rimHeight)
            case .bank:
                target = V3(x: around(0.35), y: Court.boardY + Court.ballRadius, z: 3.15 + around(0.12) + 0.12)
            case .rimOut:
                let angle = Double.random(in: 0..<(2 * .pi), using: &generator)
                let reach = Court.rimRadius + around(0.07)
                target = V3(x: reach * cos(angle), y: reach * sin(angle), z: Court.rimHeight + 0.04)
            case .long:
                target = V3(x: around(0.5), y: Court.boardY + Court.ballRadius, z: 3.55 + around(0.3))
            case .short:
                target = toShooter * Double.random(in: 0.45...0.75, using: &generator) + across * around(0.1)
                target.z = Court.rimHeight
            case .airball:
                let side = Bool.random(using: &generator) ? 1.0 : -1.0
                target =
                    toShooter * Double.random(in: -0.2...0.6, using: &generator) + across
                    * (side * Double.random(in: 0.45...0.85, using: &generator))
                target.z = Court.rimHeight - 0.1
            case .dribble, .pass: return nil
            }
            let velocity = V3(
                x: (target.x - release.x) / time, y: (target.y - release.y) / time,
                z: (target.z - release.z + 0.5 * Court.gravity * time * time) / time)
            let flight = simulate(from: release, velocity: velocity, frameRate: frameRate)
            if classify(flight) == kind { return flight }
        }
        return nil
    }

    // MARK: - The scene for one video

    /// What varies per video.
    struct Look {
        var light: Double
        var tint: (r: Double, g: Double, b: Double)
        var noise: Int
        var crf: Int
        var wall: (r: Double, g: Double, b: Double)
        var banner: Bool
        var shirt: (r: Double, g: Double, b: Double)
    }

    static func camera(for options: Options, generator: inout SeededGenerator) -> Camera {
        func r(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }
        let (w, h) = (options.width, options.height)
        switch options.placement {
        case .sideLeft, .sideRight:
            let side = options.placement == .sideLeft ? -1.0 : 1.0
            let distance = r(7.5...9.5)
            let centre = r(2.4...3.2)
            return Camera(
                position: V3(x: side * distance, y: centre + r(-0.5...0.5), z: r(1.2...1.8)),
                lookAt: V3(x: 0, y: centre, z: r(2.2...2.5)),
                horizontalFieldOfView: 2 * atan(4.4 / distance) * 180 / .pi, width: w, height: h)
        case .angledLeft, .angledRight:
            let side = options.placement == .angledLeft ? -1.0 : 1.0
            let distance = r(8.0...9.5)
            let azimuth = r(40...50) * .pi / 180
            return Camera(
                position: V3(x: side * distance * sin(azimuth), y: distance * cos(azimuth), z: r(1.3...1.9)),
                lookAt: V3(x: side * 0.3, y: r(2.0...2.6), z: r(2.2...2.5)),
                horizontalFieldOfView: r(62...70), width: w, height: h)
        case .behind:
            return Camera(
                position: V3(x: r(-0.6...0.6), y: r(9.0...10.5), z: r(1.4...2.0)),
                lookAt: V3(x: 0, y: r(1.0...1.6), z: r(2.3...2.6)),
                horizontalFieldOfView: r(50...58), width: w, height: h)
        }
    }

    /// Where the shooter may stand (polar around the hoop: metres, radians from +y).
    static func shooterSpot(_ placement: Placement, generator: inout SeededGenerator) -> V3 {
        let distance = Double.random(in: 2.6...5.2, using: &generator)
        let angle: Double
        switch placement {
        case .sideLeft, .sideRight: angle = Double.random(in: -25...25, using: &generator)
        case .angledLeft: angle = Double.random(in: -35...10, using: &generator)
        case .angledRight: angle = Double.random(in: -10...35, using: &generator)
        case .behind: angle = Double.random(in: -30...30, using: &generator)
        }
        let a = angle * .pi / 180
        return V3(x: distance * sin(a), y: distance * cos(a), z: 0)
    }

    /// The still part of the picture: room, floor, board, support and rim, with depth.
    struct Still {
        var y: [UInt8]
        var cb: [UInt8]
        var cr: [UInt8]
        var depth: [Float]
    }

    static func renderStill(camera: Camera, width: Int, height: Int, look: Look, steelRim: Bool = false) -> Still {
        var still = Still(
            y: [UInt8](repeating: 16, count: width * height), cb: [UInt8](repeating: 128, count: width * height),
            cr: [UInt8](repeating: 128, count: width * height), depth: [Float](repeating: 1e9, count: width * height))
        let light = look.light
        func put(_ i: Int, _ c: (r: Double, g: Double, b: Double), _ depth: Double) {
            let (y, u, v) = yuv(c.r * light * look.tint.r, c.g * light * look.tint.g, c.b * light * look.tint.b)
            still.y[i] = UInt8(max(16, min(235, y)))
            still.cb[i] = UInt8(max(16, min(240, u)))
            still.cr[i] = UInt8(max(16, min(240, v)))
            still.depth[i] = Float(depth)
        }
        let room = (low: V3(x: -13, y: -3.2, z: 0), high: V3(x: 13, y: 15.5, z: 8.5))
        let pole = (V3(x: -0.13, y: -2.4, z: 0), V3(x: 0.13, y: -2.14, z: 3.45))
        let arm = (V3(x: -0.07, y: -2.14, z: 3.3), V3(x: 0.07, y: Court.boardY - 0.04, z: 3.42))
        let board = (
            V3(x: -Court.boardHalfWidth, y: Court.boardY - 0.04, z: Court.boardBottom),
            V3(x: Court.boardHalfWidth, y: Court.boardY, z: Court.boardTop)
        )
        for row in 0..<height {
            for column in 0..<width {
                let i = row * width + column
                let direction = camera.ray(Double(column) + 0.5, Double(row) + 0.5)
                let origin = camera.position
                // The room from inside: the nearest wall, floor or ceiling ahead.
                var t = Double.infinity
                var surface = 0
                for (axis, d, o, low, high) in [
                    (0, direction.x, origin.x, room.low.x, room.high.x),
                    (1, direction.y, origin.y, room.low.y, room.high.y),
                    (2, direction.z, origin.z, room.low.z, room.high.z),
                ] where abs(d) > 1e-9 {
                    let wall = d > 0 ? high : low
                    let hit = (wall - o) / d
                    if hit > 0, hit < t {
                        t = hit
                        surface = axis * 2 + (d > 0 ? 1 : 0)
                    }
                }
                var colour: (r: Double, g: Double, b: Double)
                let point = origin + direction * t
                switch surface {
                case 4:  // floor: planks along y, court lines
                    let plank = Int((point.x + 20) / 0.14)
                    let shade = 0.9 + 0.06 * Double((plank * 7919) % 5) / 4 + 0.03 * sin(point.y * 3.1 + Double(plank))
                    colour = (0.78 * shade, 0.56 * shade, 0.34 * shade)
                    let fromHoop = (point.x * point.x + point.y * point.y).squareRoot()
                    let onLine =
                        abs(point.y - Court.baselineY) < 0.025 || (abs(abs(point.x) - 2.45) < 0.025 && point.y < 4.22)
                        || (abs(point.y - 4.22) < 0.025 && abs(point.x) < 2.45) || abs(fromHoop - 6.75) < 0.025
                    if onLine { colour = (0.92, 0.92, 0.9) }
                case 5:  // ceiling with rows of lights
                    let lamp = abs(point.x.truncatingRemainder(dividingBy: 4)) < 0.4
                    colour = lamp ? (1, 1, 0.95) : (0.25, 0.25, 0.27)
                default:
                    // Walls: painted blocks with a band; a banner on one wall in some gyms.
                    let along = surface < 2 ? point.y : point.x
                    let mortar =
                        abs(point.z.truncatingRemainder(dividingBy: 0.2)) < 0.012
                        || abs(along.truncatingRemainder(dividingBy: 0.4)) < 0.012
                    let band = point.z > 1.0 && point.z < 1.4
                    colour =
                        band
                        ? (look.wall.b, look.wall.g * 0.8, look.wall.r * 0.7) : (look.wall.r, look.wall.g, look.wall.b)
                    if mortar { colour = (colour.r * 0.85, colour.g * 0.85, colour.b * 0.85) }
                    if point.z < 0.15 { colour = (0.2, 0.2, 0.22) }
                    if look.banner, surface == 2, abs(point.x - 5) < 1.4, point.z > 4.6, point.z < 5.4 {
                        colour = (0.9, 0.45, 0.1)
                    }
                }
                var depth = t * direction.dot(camera.forward)
                func closer(_ low: V3, _ high: V3) -> Double? {
                    guard let hit = hitBox(origin, direction, low, high) else { return nil }
                    let d = hit * direction.dot(camera.forward)
                    return d < depth ? d : nil
                }
                if let d = closer(pole.0, pole.1) {
                    depth = d
                    colour = (0.18, 0.2, 0.24)
                }
                if let d = closer(arm.0, arm.1) {
                    depth = d
                    colour = (0.22, 0.22, 0.25)
                }
                if let hit = hitBox(origin, direction, board.0, board.1) {
                    let d = hit * direction.dot(camera.forward)
                    if d < depth {
                        depth = d
                        let p = origin + direction * hit
                        let border =
                            Court.boardHalfWidth - abs(p.x) < 0.05 || p.z - Court.boardBottom < 0.05
                            || Court.boardTop - p.z < 0.05
                        let square =
                            (abs(abs(p.x) - 0.295) < 0.025 && p.z > 3.10 && p.z < 3.56)
                            || (abs(p.z - 3.535) < 0.025 && abs(p.x) < 0.32)
                            || (abs(p.z - 3.125) < 0.025 && abs(p.x) < 0.32)
                        colour = border || square ? (0.08, 0.08, 0.1) : (0.93, 0.94, 0.95)
                    }
                }
                put(i, colour, depth)
            }
        }
        func splat(_ point: V3, normal: V3) {
            guard let p = camera.project(point) else { return }
            let column = Int(p.x)
            let row = Int(p.y)
            guard column >= 0, column < width, row >= 0, row < height else { return }
            let i = row * width + column
            guard Float(p.depth) < still.depth[i] else { return }
            let shade = 0.55 + 0.45 * max(0, normal.z * 0.8 + 0.2)
            let paint = steelRim ? (r: 0.42, g: 0.43, b: 0.45) : (r: 0.86, g: 0.33, b: 0.09)
            put(i, (paint.r * shade, paint.g * shade, paint.b * shade), p.depth)
        }
        // The rim: a torus splatted densely, shaded from above; the bracket to the board.
        let steps = 3000
        for step in 0..<steps {
            let theta = Double(step) / Double(steps) * 2 * .pi
            let centre = V3(x: Court.rimRadius * cos(theta), y: Court.rimRadius * sin(theta), z: Court.rimHeight)
            let outward = V3(x: cos(theta), y: sin(theta), z: 0)
            for tube in 0..<10 {
                let phi = Double(tube) / 10 * 2 * .pi
                let normal = outward * cos(phi) + V3(x: 0, y: 0, z: sin(phi))
                splat(centre + normal * Court.rodRadius, normal: normal)
            }
        }
        for step in 0...60 {
            let y = Court.boardY + (-Court.rimRadius - Court.boardY) * Double(step) / 60
            for dx in [-0.04, 0.0, 0.04] {
                splat(V3(x: dx, y: y, z: Court.rimHeight - 0.01), normal: V3(x: 0, y: 0, z: 1))
            }
        }
        return still
    }

    // MARK: - Rendering

    /// A ball to draw this frame: where it is over the exposure and how it is turned.
    struct BallPose {
        var positions: [V3]
        var spin: Double
        var axis: V3
    }

    /// A person seen from the camera: a box of body parts facing it.
    struct Person {
        var position: V3
        var shirt: (r: Double, g: Double, b: Double)
        var armsUp: Bool
    }

    static func render(path: String, options: Options, generator: inout SeededGenerator) throws
        -> BasketballCorpus.Video
    {
        let (width, height, frameRate) = (options.width, options.height, options.frameRate)
        func r(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }
        let camera = camera(for: options, generator: &generator)
        let gym = Int.random(in: 0..<3, using: &generator)
        let look = Look(
            light: [0.62, 0.85, 1.05][gym], tint: (r(0.93...1.07), r(0.95...1.05), r(0.92...1.08)),
            noise: [9, 5, 4][gym], crf: Int.random(in: 22...29, using: &generator),
            wall: [(0.62, 0.66, 0.72), (0.75, 0.74, 0.68), (0.55, 0.6, 0.55)][Int.random(in: 0..<3, using: &generator)],
            banner: Bool.random(using: &generator),
            shirt: [(0.15, 0.25, 0.7), (0.9, 0.9, 0.92), (0.12, 0.12, 0.14), (0.1, 0.5, 0.25)][
                Int.random(in: 0..<4, using: &generator)])
        let still = renderStill(camera: camera, width: width, height: height, look: look, steelRim: options.steelRim)

        // The plan: per event a hold, the ball's path, and a pause while it is fetched.
        let shotKinds: [BasketballCorpus.Kind] = [.clean, .rimOut, .clean, .short, .bank, .rimOut, .long, .airball]
        let offset = Int.random(in: 0..<shotKinds.count, using: &generator)
        var kinds: [BasketballCorpus.Kind] = []
        for n in 0..<options.events {
            if n % 4 == 3 {
                kinds.append(n % 8 == 3 ? .dribble : .pass)
            } else {
                kinds.append(shotKinds[(n + offset) % shotKinds.count])
            }
        }
        struct Segment {
            var shooter: V3
            var path: [V3?]
            var release: Int
            var contact: Int?
            /// Which way the net swings from the contact on (``swingWay(_:)``).
            var swingWay: V3
            var made: Bool
        }
        var segments: [Segment] = []
        var events: [BasketballCorpus.Event] = []
        // Where each event left the hands (to place it in a knocked camera's picture).
        var handPoints: [V3] = []
        let fps = Double(frameRate)
        var frame = Int(1.0 * fps)
        for kind in kinds {
            let spot = shooterSpot(options.placement, generator: &generator)
            let toHoop = (V3(x: 0, y: 0, z: 0) - spot).normalized
            let hands = spot + toHoop * 0.3 + V3(x: 0, y: 0, z: 1.25)
            let hold = Int(r(0.6...1.0) * fps)
            var path: [V3?] = Array(repeating: hands, count: hold)
            var flight = Flight()
            switch kind {
            case .dribble:
                let side = V3(x: -toHoop.y, y: toHoop.x, z: 0) * 0.3
                let period = fps / 2
                for step in 0..<Int(Double(Int.random(in: 3...5, using: &generator)) * period) {
                    let phase = Double(step).truncatingRemainder(dividingBy: period) / period
                    let up = abs(phase * 2 - 1)
                    flight.positions.append(
                        spot + side + V3(x: 0, y: 0, z: Court.ballRadius + up * (0.95 - Court.ballRadius)))
                }
            case .pass:
                let angle = r(0...(2 * .pi))
                var p = hands
                var v = V3(x: 8 * cos(angle), y: 8 * sin(angle), z: 0.8)
                if v.dot(toHoop) > 0 { v = V3(x: -v.x, y: -v.y, z: v.z) }
                for _ in 0..<Int(1.2 * fps) {
                    flight.positions.append(p)
                    v.z -= Court.gravity / fps
                    p = p + v * (1 / fps)
                    if p.z < Court.ballRadius { break }
                }
            default:
                let release = hands + V3(x: 0, y: 0, z: r(0.8...1.1))
                // The ball goes up with the hands to the release point.
                let lift = Int(0.2 * fps)
                path.removeLast(min(lift, path.count - 1))
                for step in 0..<lift {
                    path.append(hands + (release - hands) * (Double(step) / Double(lift)))
                }
                guard let simulated = shot(kind, from: release, frameRate: frameRate, generator: &generator) else {
                    continue
                }
                flight = simulated
            }
            let releaseFrame = frame + path.count
            path += flight.positions.map { Optional($0) }
            path += Array(repeating: nil, count: Int(0.6 * fps))
            let contact = flight.rimTime ?? flight.contactTime
            segments.append(
                Segment(
                    shooter: spot, path: path, release: path.count - flight.positions.count - Int(0.6 * fps),
                    contact: contact.map { Int($0 * fps) + path.count - flight.positions.count - Int(0.6 * fps) },
                    swingWay: Self.swingWay(flight), made: flight.made))
            let handPoint = path[max(0, path.count - flight.positions.count - Int(0.6 * fps) - 1)] ?? hands
            handPoints.append(handPoint)
            let hand = camera.project(handPoint)
            events.append(
                BasketballCorpus.Event(
                    kind: kind, release: Double(releaseFrame) / fps,
                    rimTime: flight.rimTime.map { Double(releaseFrame) / fps + $0 }, made: flight.made,
                    releaseX: (hand?.x ?? 0) / Double(width), releaseY: (hand?.y ?? 0) / Double(height),
                    atRim: flight.positions.first.flatMap { Self.atRim(flight, releasedAt: $0) }))
            frame += path.count
        }
        let totalFrames = frame + Int(0.5 * fps)

        // People walking by, far side and near side; a second ball rolling on the floor.
        let across = V3(x: camera.right.x, y: camera.right.y, z: 0).normalized
        let ahead = V3(x: camera.forward.x, y: camera.forward.y, z: 0).normalized
        let ground = V3(x: camera.position.x, y: camera.position.y, z: 0)
        let hoopDistance = (V3(x: 0, y: 0, z: 0) - ground).dot(ahead)
        let walkers: [(start: V3, velocity: V3, shirt: (r: Double, g: Double, b: Double))] = [
            (
                ground + ahead * (hoopDistance + r(1.5...3)) - across * 9, across * r(0.9...1.4),
                (0.92, 0.42, 0.1)
            ),
            (ground + ahead * r(3...5) + across * 7, across * -r(1.0...1.5), (0.3, 0.3, 0.35)),
        ]
        let rolling = (
            start: ground + ahead * (hoopDistance + r(0.5...2)) + across * 6
                + V3(x: 0, y: 0, z: Court.ballRadius), velocity: across * -r(0.8...1.4)
        )

        let encoder = try VideoEncoder(
            settings: .init(
                width: width, height: height, frameRate: Rational(Int32(frameRate), 1), crf: look.crf,
                gopSize: frameRate * 2, preset: "ultrafast"))
        let writer = try MediaWriter(destination: .file(path), streams: [encoder.stream])
        var noise: [Int8] = []
        for _ in 0..<(width * height + 8192) {
            noise.append(Int8(Int.random(in: -look.noise...look.noise, using: &generator)))
        }
        let shakePhases = (0..<4).map { _ in r(0...(2 * .pi)) }
        /// How far a handheld camera's picture has moved at `time` (even pixels).
        func shake(_ time: Double) -> (dx: Int, dy: Int) {
            let amplitude = camera.focal * 0.012
            let dx = amplitude * (0.6 * sin(time * 1.3 + shakePhases[0]) + 0.4 * sin(time * 3.1 + shakePhases[1]))
            let dy = amplitude * (0.6 * sin(time * 1.7 + shakePhases[2]) + 0.4 * sin(time * 2.3 + shakePhases[3]))
            return (Int(dx) & ~1, Int(dy) & ~1)
        }
        // The knock: where the picture goes, and from which frame.
        var peek = generator
        var knockGenerator = SeededGenerator(seed: peek.next() ^ 0x6B6E_6F63_6B21)
        let scale = Double(width) / 1280
        let knockBy = (
            dx: Int(
                Double.random(in: 50...160, using: &knockGenerator) * scale
                    * (Bool.random(using: &knockGenerator) ? 1 : -1)) & ~1,
            dy: Int(
                Double.random(in: 16...60, using: &knockGenerator) * scale
                    * (Bool.random(using: &knockGenerator) ? 1 : -1)) & ~1
        )
        // Turned about its own position: across by the angle that moves the picture's centre
        // `knockBy.dx` pixels, up or down by the one that moves it `knockBy.dy`.
        let knocked: (camera: Camera, still: Still)? =
            options.knock
            ? {
                let yaw = atan(Double(knockBy.dx) / camera.focal)
                let pitch = atan(Double(knockBy.dy) / camera.focal)
                let f = camera.forward
                let level = (f.x * f.x + f.y * f.y).squareRoot()
                let elevation = atan2(f.z, level) + pitch
                let heading = atan2(f.y, f.x) + yaw
                let forward = V3(
                    x: cos(elevation) * cos(heading), y: cos(elevation) * sin(heading), z: sin(elevation))
                let turned = Camera(
                    position: camera.position, lookAt: camera.position + forward,
                    horizontalFieldOfView: 2 * atan(Double(width) / 2 / camera.focal) * 180 / .pi, width: width,
                    height: height)
                return (
                    turned,
                    renderStill(camera: turned, width: width, height: height, look: look, steelRim: options.steelRim)
                )
            }() : nil
        var knockedAt: Int?
        let steady = (camera: camera, still: still)
        var segmentIndex = 0
        var inSegment = 0
        var lastShooter = segments.first?.shooter ?? V3(x: 0, y: 3, z: 0)
        // When the net was last set moving (frame, by a make, which way).
        var swing: (frame: Int, made: Bool, way: V3)?
        for index in 0..<totalFrames {
            var ball: BallPose?
            var shooterArmsUp = false
            if index >= Int(1.0 * fps), segmentIndex < segments.count {
                let segment = segments[segmentIndex]
                lastShooter = segment.shooter
                if options.knock, knockedAt == nil, segmentIndex >= segments.count / 2, inSegment == 0 {
                    knockedAt = index
                }
                if let p = segment.path[inSegment] {
                    let previous = inSegment > 0 ? segment.path[inSegment - 1] ?? p : p
                    let next = inSegment + 1 < segment.path.count ? segment.path[inSegment + 1] ?? p : p
                    // Half-frame exposure: from a quarter frame before to a quarter after.
                    let positions = (0..<5).map { k -> V3 in
                        let f = Double(k) / 4 - 0.5
                        return f < 0 ? p + (p - previous) * (f / 2) : p + (next - p) * (f / 2)
                    }
                    let velocity = next - previous
                    let axis = velocity.cross(V3(x: 0, y: 0, z: 1)).normalized
                    ball = BallPose(positions: positions, spin: Double(index) * 0.35, axis: axis)
                }
                shooterArmsUp =
                    inSegment >= segment.release - Int(0.3 * fps) && inSegment < segment.release + Int(0.5 * fps)
                if let contact = segment.contact, inSegment == contact {
                    swing = (index, segment.made, segment.swingWay)
                }
                inSegment += 1
                if inSegment >= segment.path.count {
                    segmentIndex += 1
                    inSegment = 0
                }
            }
            let (camera, still) = knockedAt.flatMap { _ in knocked } ?? steady
            var y = still.y
            var cb = still.cb
            var cr = still.cr
            var depth = still.depth
            var canvas = Canvas(width: width, height: height)
            let time = Double(index) / fps
            var people = [Person(position: lastShooter, shirt: look.shirt, armsUp: shooterArmsUp)]
            for walker in walkers {
                people.append(
                    Person(position: walker.start + walker.velocity * time, shirt: walker.shirt, armsUp: false))
            }
            people.sort { ($0.position - camera.position).length > ($1.position - camera.position).length }
            y.withUnsafeMutableBufferPointer { yp in
                cb.withUnsafeMutableBufferPointer { cbp in
                    cr.withUnsafeMutableBufferPointer { crp in
                        depth.withUnsafeMutableBufferPointer { dp in
                            canvas.y = yp
                            canvas.cb = cbp
                            canvas.cr = crp
                            canvas.depth = dp
                            for person in people { canvas.draw(person, camera: camera, look: look) }
                            let rolled = rolling.start + rolling.velocity * time
                            canvas.draw(
                                BallPose(
                                    positions: [rolled], spin: time * rolling.velocity.length / Court.ballRadius,
                                    axis: rolling.velocity.cross(V3(x: 0, y: 0, z: 1)).normalized), camera: camera,
                                look: look)
                            if let ball { canvas.draw(ball, camera: camera, look: look) }
                            let offset =
                                swing.map {
                                    Self.netOffset(way: $0.way, made: $0.made, age: Double(index - $0.frame) / fps)
                                } ?? V3(x: 0, y: 0, z: 0)
                            canvas.drawNet(camera: camera, look: look, swing: offset, ball: ball?.positions[2])
                        }
                    }
                }
            }
            // Sensor noise, then 4:2:0 chroma (the average of each 2×2 block, as a camera does).
            let shift = Int.random(in: 0..<8192, using: &generator)
            var luma = [UInt8](repeating: 0, count: width * height)
            for i in 0..<(width * height) {
                luma[i] = UInt8(max(16, min(235, Int(y[i]) + Int(noise[i + shift]))))
            }
            let cw = width / 2
            let ch = height / 2
            var u = [UInt8](repeating: 128, count: cw * ch)
            var v = [UInt8](repeating: 128, count: cw * ch)
            for row in 0..<ch {
                for column in 0..<cw {
                    let a = row * 2 * width + column * 2
                    u[row * cw + column] = UInt8(
                        (Int(cb[a]) + Int(cb[a + 1]) + Int(cb[a + width]) + Int(cb[a + width + 1]) + 2) / 4)
                    v[row * cw + column] = UInt8(
                        (Int(cr[a]) + Int(cr[a + 1]) + Int(cr[a + width]) + Int(cr[a + width + 1]) + 2) / 4)
                }
            }
            var picture = VideoFrame(
                format: .yuv420p, width: width, height: height,
                planes: [
                    Plane(width: width, height: height, bytesPerRow: width, bytes: luma),
                    Plane(width: cw, height: ch, bytesPerRow: cw, bytes: u),
                    Plane(width: cw, height: ch, bytesPerRow: cw, bytes: v),
                ])
            if options.handheld {
                let moved = shake(time)
                picture = picture.translated(dx: moved.dx, dy: moved.dy)
            }
            picture.pts = MediaTime(value: Int64(index), timescale: Int32(frameRate))
            for sample in try encoder.encode(picture) { try writer.write(sample) }
        }
        for sample in try encoder.finish() { try writer.write(sample) }
        try writer.finish()

        // The rim's box in the picture: its circle projected, in the first frame's picture (where a
        // handheld camera's analysis holds every frame).
        let (w, h) = (Double(width), Double(height))
        func rimBox(_ camera: Camera) -> [Double] {
            var (minX, maxX, minY, maxY) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for step in 0..<360 {
                let theta = Double(step) * .pi / 180
                for z in [Court.rimHeight - Court.rodRadius, Court.rimHeight + Court.rodRadius] {
                    for radius in [Court.rimRadius - Court.rodRadius, Court.rimRadius + Court.rodRadius] {
                        guard let p = camera.project(V3(x: radius * cos(theta), y: radius * sin(theta), z: z))
                        else { continue }
                        (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y))
                    }
                }
            }
            if options.handheld {
                let first = shake(0)
                (minX, maxX) = (minX + Double(first.dx), maxX + Double(first.dx))
                (minY, maxY) = (minY + Double(first.dy), maxY + Double(first.dy))
            }
            return [minX / w, minY / h, (maxX - minX) / w, (maxY - minY) / h]
        }
        let rim = rimBox(camera)
        var after: [Double]?
        if let knockedAt, let knocked {
            after = rimBox(knocked.camera)
            for index in events.indices where events[index].release >= Double(knockedAt) / fps {
                let hand = knocked.camera.project(handPoints[index])
                events[index].releaseX = (hand?.x ?? 0) / w
                events[index].releaseY = (hand?.y ?? 0) / h
            }
        }
        return BasketballCorpus.Video(
            path: path, width: width, height: height, frameRate: frameRate, duration: Double(totalFrames) / fps,
            rim: rim, events: events, movedAt: knockedAt.map { Double($0) / fps }, rimAfterMove: after,
            placement: options.placement.rawValue)
    }

    /// The frame being drawn: full-resolution Y, Cb, Cr and depth.
    struct Canvas {
        let width: Int
        let height: Int
        var y: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)
        var cb: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)
        var cr: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)
        var depth: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        func put(_ i: Int, _ colour: (Double, Double, Double), depth d: Double) {
            y[i] = UInt8(max(16, min(235, colour.0)))
            cb[i] = UInt8(max(16, min(240, colour.1)))
            cr[i] = UInt8(max(16, min(240, colour.2)))
            depth[i] = Float(d)
        }

        func lit(_ c: (r: Double, g: Double, b: Double), _ shade: Double, _ look: Look) -> (Double, Double, Double) {
            yuv(
                c.r * shade * look.light * look.tint.r, c.g * shade * look.light * look.tint.g,
                c.b * shade * look.light * look.tint.b)
        }

        /// A rectangle of a body in the plane facing the camera: `u` sideways, `z` up, metres.
        func part(
            _ person: Person, _ u0: Double, _ u1: Double, _ z0: Double, _ z1: Double,
            _ colour: (r: Double, g: Double, b: Double), camera: Camera, look: Look
        ) {
            let across = V3(x: camera.right.x, y: camera.right.y, z: 0).normalized
            guard let a = camera.project(person.position + across * u0 + V3(x: 0, y: 0, z: z1)),
                let b = camera.project(person.position + across * u1 + V3(x: 0, y: 0, z: z0))
            else { return }
            let d = (a.depth + b.depth) / 2
            let value = lit(colour, 0.85, look)
            for row in max(0, Int(a.y))..<max(max(0, Int(a.y)), min(height, Int(b.y))) {
                for column in max(0, Int(a.x))..<max(max(0, Int(a.x)), min(width, Int(b.x))) {
                    let i = row * width + column
                    if Float(d) < depth[i] { put(i, value, depth: d) }
                }
            }
        }

        func draw(_ person: Person, camera: Camera, look: Look) {
            let skin = (r: 0.55, g: 0.38, b: 0.28)
            let shorts = (r: 0.1, g: 0.1, b: 0.12)
            part(person, -0.2, -0.03, 0, 0.85, skin, camera: camera, look: look)
            part(person, 0.03, 0.2, 0, 0.85, skin, camera: camera, look: look)
            part(person, -0.22, 0.22, 0.6, 0.95, shorts, camera: camera, look: look)
            part(person, -0.23, 0.23, 0.95, 1.5, person.shirt, camera: camera, look: look)
            part(person, -0.1, 0.1, 1.5, 1.78, skin, camera: camera, look: look)
            if person.armsUp {
                part(person, -0.26, -0.16, 1.35, 2.25, skin, camera: camera, look: look)
                part(person, 0.16, 0.26, 1.35, 2.25, skin, camera: camera, look: look)
            } else {
                part(person, -0.31, -0.23, 0.85, 1.45, skin, camera: camera, look: look)
                part(person, 0.23, 0.31, 0.85, 1.45, skin, camera: camera, look: look)
            }
        }

        /// A basketball: shaded, pebbled orange with black seams, averaged over the exposure.
        func draw(_ ball: BallPose, camera: Camera, look: Look) {
            let projected = ball.positions.compactMap { camera.project($0) }
            guard !projected.isEmpty else { return }
            let radiusPixels = projected.map { camera.focal * Court.ballRadius / $0.depth }.max() ?? 1
            let x0 = max(0, Int((projected.map(\.x).min() ?? 0) - radiusPixels) - 1)
            let x1 = min(width - 1, Int((projected.map(\.x).max() ?? 0) + radiusPixels) + 1)
            let y0 = max(0, Int((projected.map(\.y).min() ?? 0) - radiusPixels) - 1)
            let y1 = min(height - 1, Int((projected.map(\.y).max() ?? 0) + radiusPixels) + 1)
            guard x0 <= x1, y0 <= y1, x1 - x0 < width / 2 else { return }
            let lightDirection = V3(x: 0.3, y: 0.4, z: 1).normalized
            let count = Double(ball.positions.count)
            let (cosSpin, sinSpin) = (cos(ball.spin), sin(ball.spin))
            for row in y0...y1 {
                for column in x0...x1 {
                    let i = row * width + column
                    let ray = camera.ray(Double(column) + 0.5, Double(row) + 0.5)
                    var sum = (0.0, 0.0, 0.0)
                    var covered = 0
                    var nearest = Double.infinity
                    for centre in ball.positions {
                        // Ray–sphere: the nearest hit.
                        let toCentre = centre - camera.position
                        let along = toCentre.dot(ray)
                        let miss = toCentre.dot(toCentre) - along * along
                        let r2 = Court.ballRadius * Court.ballRadius
                        guard along > 0, miss < r2 else { continue }
                        let t = along - (r2 - miss).squareRoot()
                        let d = t * ray.dot(camera.forward)
                        guard Float(d) < depth[i] else { continue }
                        let hit = camera.position + ray * t
                        let normal = (hit - centre) * (1 / Court.ballRadius)
                        // Seams in the ball's own frame, turned by its spin about `axis`.
                        let k = ball.axis
                        let body =
                            normal * cosSpin + k.cross(normal) * sinSpin + k * (k.dot(normal) * (1 - cosSpin))
                        let seam =
                            abs(body.x) < 0.035 || abs(body.z) < 0.035
                            || abs((body.y * body.y + body.x * body.x).squareRoot() - 0.72) < 0.03
                        let diffuse = max(0, normal.dot(lightDirection))
                        let facing = max(0, -normal.dot(ray))
                        let shade = 0.35 + 0.65 * diffuse * (0.7 + 0.3 * facing)
                        var colour = seam ? lit((0.08, 0.05, 0.04), shade, look) : lit((0.82, 0.36, 0.12), shade, look)
                        // A soft highlight where the light reflects toward the camera.
                        let reflected = normal * (2 * normal.dot(lightDirection)) - lightDirection
                        let highlight = pow(max(0, -reflected.dot(ray)), 12) * 40 * look.light
                        colour.0 += highlight
                        colour.1 -= highlight * 0.15
                        colour.2 -= highlight * 0.25
                        sum = (sum.0 + colour.0, sum.1 + colour.1, sum.2 + colour.2)
                        covered += 1
                        nearest = min(nearest, d)
                    }
                    guard covered > 0 else { continue }
                    let rest = count - Double(covered)
                    let blended = (
                        (sum.0 + Double(y[i]) * rest) / count, (sum.1 + Double(cb[i]) * rest) / count,
                        (sum.2 + Double(cr[i]) * rest) / count
                    )
                    put(i, blended, depth: covered * 2 >= ball.positions.count ? nearest : Double(depth[i]))
                }
            }
        }

        /// The net: twelve cords from the rim crossing to a smaller ring below, in front of or behind
        /// the ball by depth, swinging after a shot and pushed out by a ball inside.
        func drawNet(camera: Camera, look: Look, swing: V3, ball: V3?) {
            let cords = 12
            let value = lit((0.93, 0.93, 0.93), 0.95, look)
            for cord in 0..<cords {
                for direction in [-1.0, 1.0] {
                    let top = Double(cord) / Double(cords) * 2 * .pi
                    let bottom = top + direction * 2 * .pi / Double(cords) * 1.5
                    let steps = 90
                    for step in 0...steps {
                        let f = Double(step) / Double(steps)
                        let angle = top + (bottom - top) * f
                        let radius = Court.rimRadius + (Court.netBottomRadius - Court.rimRadius) * f
                        var point = V3(
                            x: radius * cos(angle), y: radius * sin(angle), z: Court.rimHeight - Court.netDepth * f)
                        point = point + swing * f
                        if let ball, abs(ball.z - point.z) < Court.ballRadius,
                            (ball.x * ball.x + ball.y * ball.y).squareRoot() < Court.rimRadius
                        {
                            // A ball inside stretches the net around it.
                            let outward = V3(x: point.x - ball.x, y: point.y - ball.y, z: 0)
                            let gap = outward.length
                            if gap < Court.ballRadius { point = point + outward.normalized * (Court.ballRadius - gap) }
                        }
                        guard let p = camera.project(point) else { continue }
                        let column = Int(p.x)
                        let row = Int(p.y)
                        guard column >= 0, column < width, row >= 0, row < height else { continue }
                        let i = row * width + column
                        if Float(p.depth) < depth[i] { put(i, value, depth: p.depth) }
                    }
                }
            }
        }
    }
}
