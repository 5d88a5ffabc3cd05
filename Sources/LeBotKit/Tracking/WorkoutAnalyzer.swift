import CameraCommon
import CameraIO

/// What `lebot analyze` found in a video.
public struct WorkoutAnalysis: Sendable, Codable {
    public var source: String
    public var rim: RimCalibration
    /// How the rim was found (nil: the user gave it).
    public var rimFound: RimFinder.Result?
    /// How the rim was fitted at the point the user gave (nil: the user gave a box, or none).
    public var rimFitted: RimFinder.Fit?
    /// The rim found again after the camera moved, from `time` on (shots after it are judged
    /// against it; ``rim`` stays the first).
    public var rimMoves: [RimMove] = []
    /// Seconds of video analysed.
    public var duration: Double
    public var frames: Int
    public var shots: [ShotEvent]
    public var attempts: Int { shots.count }
    public var makes: Int { shots.filter { $0.outcome == .make }.count }
    public var misses: Int { shots.filter { $0.outcome == .miss }.count }
    public var indeterminate: Int { shots.filter { $0.outcome == .indeterminate }.count }
    /// Makes over decided attempts, 0...1; nil before any.
    public var fieldGoalPercentage: Double? {
        let decided = makes + misses
        return decided == 0 ? nil : Double(makes) / Double(decided)
    }
    /// How far the picture wandered from where it started, as a fraction of its width (a
    /// handheld phone; about 0 on a tripod). Frames were moved back before analysis; nil when
    /// stabilisation was off.
    public var cameraMovement: Double?
    /// How the ball was told from the rest of the picture (nil in analyses saved before this was
    /// kept).
    public var ballCue: BallCue?
    /// Wall-clock seconds the analysis took.
    public var processingSeconds: Double
    /// Milliseconds per frame spent in the ball tracker and shot detector (decoding excluded).
    public var detectorMillisecondsPerFrame: Double
    /// The video's picture as it is shown, pixels: what the fractions above are of (nil in analyses
    /// saved before this was kept).
    public var picture: Picture?

    /// A picture's size, pixels.
    public struct Picture: Sendable, Codable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
    }

    enum CodingKeys: String, CodingKey {
        case source, picture, rim, rimFound, rimFitted, rimMoves, duration, frames, shots, attempts, makes, misses
        case indeterminate, fieldGoalPercentage, cameraMovement, ballCue
        case processingSeconds, detectorMillisecondsPerFrame
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(picture, forKey: .picture)
        try container.encode(rim, forKey: .rim)
        try container.encodeIfPresent(rimFound, forKey: .rimFound)
        try container.encodeIfPresent(rimFitted, forKey: .rimFitted)
        if !rimMoves.isEmpty { try container.encode(rimMoves, forKey: .rimMoves) }
        try container.encode(duration, forKey: .duration)
        try container.encode(frames, forKey: .frames)
        try container.encode(shots, forKey: .shots)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(makes, forKey: .makes)
        try container.encode(misses, forKey: .misses)
        try container.encode(indeterminate, forKey: .indeterminate)
        try container.encodeIfPresent(fieldGoalPercentage, forKey: .fieldGoalPercentage)
        try container.encodeIfPresent(cameraMovement, forKey: .cameraMovement)
        try container.encodeIfPresent(ballCue, forKey: .ballCue)
        try container.encode(processingSeconds, forKey: .processingSeconds)
        try container.encode(detectorMillisecondsPerFrame, forKey: .detectorMillisecondsPerFrame)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        source = try container.decode(String.self, forKey: .source)
        picture = try container.decodeIfPresent(Picture.self, forKey: .picture)
        rim = try container.decode(RimCalibration.self, forKey: .rim)
        rimFound = try container.decodeIfPresent(RimFinder.Result.self, forKey: .rimFound)
        rimFitted = try container.decodeIfPresent(RimFinder.Fit.self, forKey: .rimFitted)
        rimMoves = try container.decodeIfPresent([RimMove].self, forKey: .rimMoves) ?? []
        duration = try container.decode(Double.self, forKey: .duration)
        frames = try container.decode(Int.self, forKey: .frames)
        shots = try container.decode([ShotEvent].self, forKey: .shots)
        cameraMovement = try container.decodeIfPresent(Double.self, forKey: .cameraMovement)
        ballCue = try container.decodeIfPresent(BallCue.self, forKey: .ballCue)
        processingSeconds = try container.decode(Double.self, forKey: .processingSeconds)
        detectorMillisecondsPerFrame = try container.decode(Double.self, forKey: .detectorMillisecondsPerFrame)
    }

    public init(
        source: String, rim: RimCalibration, duration: Double, frames: Int, shots: [ShotEvent],
        processingSeconds: Double, detectorMillisecondsPerFrame: Double
    ) {
        self.source = source
        self.rim = rim
        self.duration = duration
        self.frames = frames
        self.shots = shots
        self.processingSeconds = processingSeconds
        self.detectorMillisecondsPerFrame = detectorMillisecondsPerFrame
    }
}

/// What tells the ball from the rest of the picture.
public enum BallCue: String, Sendable, Codable, Equatable {
    /// Its orange (``BallTracker``'s colour model): what a gym's ball, lit and filmed well, shows.
    case colour
    /// Its brightness against what was there before (``BallTracker/byBrightness``): a worn ball
    /// filmed outdoors by a phone and compressed is a dark grey disc against the sky or the board.
    case brightness
    /// Both, and the one that saw clearly more shots: a file one after the other; a camera or
    /// stream (read once) side by side, colour told until brightness has clearly seen more.
    case either
}

/// The rim found again after the camera moved.
public struct RimMove: Sendable, Codable, Equatable {
    /// Seconds into the video from which the new rim is used.
    public var time: Double
    public var found: RimFinder.Result
}

/// Reads a workout video and finds every shot: decode at the analysis width (YUV 4:2:0), track
/// the ball, detect attempts and outcomes on media time.
public struct WorkoutAnalyzer: Sendable {
    /// The rim; nil: found in the first ``rimWarmUp`` seconds of the source as they are read (a
    /// live stream), those frames kept and analysed once it is known.
    public var rim: RimCalibration?
    /// Seconds of a source watched for the rim when ``rim`` is nil.
    public var rimWarmUp = 4.0
    /// How to open the source (nil: the defaults for its kind).
    public var readerOptions: ReaderOptions?
    /// How ``rim`` was found, when the finder found it (kept in the analysis).
    public var rimFound: RimFinder.Result?
    /// How ``rim`` was fitted at the point the user gave (kept in the analysis; a fitted rim is
    /// the user's: never looked for again, only moved with the picture around it).
    public var rimFitted: RimFinder.Fit?
    /// A point on the rim the user gave, when ``rim`` is nil: the ring there is fitted
    /// (``RimFinder/fit(near:in:)``) on the source's first frames as they are read (a live stream
    /// cannot be read twice), those frames kept and analysed once it is known.
    public var rimPoint: RimPoint?
    /// Seconds a rim may look moved before it is followed — the camera was knocked; nil never. A
    /// rim looks moved when the picture around it is unlike what it was (``RimScene``), and a rim
    /// found by its orange also when its box shows too little orange. It then moves with that
    /// picture where it is found in the frame; where it is not, a found rim is looked for again
    /// and the user's is kept.
    public var rimLostSeconds: Double? = 2
    /// How a handheld camera's picture is held still (nil: frames are analysed as decoded).
    public var stabilizer: FrameStabilizer.Configuration? = .init()
    /// Frames are decoded at this width (height by aspect): the ball is ~20 px across, plenty.
    public var analysisWidth: Int
    /// Decoder threads (0: FFmpeg chooses). The benchmark uses 1.
    public var threads: Int
    public var tracker: BallTracker.Configuration
    public var detector: ShotEventDetector.Configuration
    /// How the ball is told from the rest of the picture.
    public var ballCue = BallCue.either
    /// The most a file's analysis holds in frames, bytes, while the finder reads the file's start
    /// in the same read (``analyze(_:progress:onShot:shouldStop:onRim:onFit:frameHandler:)``):
    /// 20 s of 640×360 at 60 fps. Beyond it (a fast frame rate: 120 fps and more), the finder
    /// reads the start on its own first, and the analysis reads the file after it.
    public var heldBytesLimit = 512 << 20

    public init(
        rim: RimCalibration?, analysisWidth: Int = 640, threads: Int = 0,
        tracker: BallTracker.Configuration = .init(), detector: ShotEventDetector.Configuration = .init()
    ) {
        self.rim = rim
        self.analysisWidth = analysisWidth
        self.threads = threads
        self.tracker = tracker
        self.detector = detector
    }

    /// Analyses the file at `path`. `frameHandler` sees every analysed frame with what was found
    /// in it (for annotated output); `progress` gets 0...1; `onShot` each shot, once the whole
    /// file is read (a make by the path is judged again by what the net did later in the video,
    /// ``ShotEventDetector/lateCalls``). With no ``rim`` and no ``rimPoint``, the rim is found as ``RimFinder/find(in:)`` finds it,
    /// in the same read of the file (`onRim` is told it; the frames of the file's first 20 s are
    /// held meanwhile, about 200 MB at 640×360 and 30 fps); with a point, the ring there is fitted
    /// (`onFit`).
    ///
    /// - Throws: ``MediaError`` when the file cannot be read or has no video; one whose operation
    ///   is ``RimFinder/operation`` when no hoop is found.
    /// `shouldStop` is asked every frame; when it answers true the analysis ends with a
    /// `cancelled` error.
    public func analyze(
        _ path: String, progress: (Double) -> Void = { _ in }, onShot: (ShotEvent) -> Void = { _ in },
        shouldStop: () -> Bool = { false }, onRim: (RimFinder.Result) -> Void = { _ in },
        onFit: (RimFinder.Fit) -> Void = { _ in },
        frameHandler: ((VideoFrame, Double, [BallObservation]) -> Void)? = nil
    ) throws(MediaError) -> WorkoutAnalysis {
        // One read of the file follows the ball by colour and by brightness side by side (a
        // stream's two lanes), each lane's shots held back; the lane that saw clearly more is told
        // at the end. Each lane sees what a pass of its own would: they share only the decoded
        // frames, and decoding is most of the work on a phone's video.
        guard ballCue == .either, let frameHandler else {
            return try run(
                source: .file(path), progress: progress, onShot: onShot, shouldStop: shouldStop, onRim: onRim,
                onFit: onFit, frameHandler: frameHandler, decideAtTheEnd: true, findingLikeAFile: true)
        }
        // For the frames' handler, the lane told runs once more as a pass of its own.
        let started = ContinuousClock.now
        let both = try run(
            source: .file(path), progress: { progress($0 / 2) }, shouldStop: shouldStop, onRim: onRim, onFit: onFit,
            decideAtTheEnd: true, findingLikeAFile: true)
        var chosen = self
        chosen.ballCue = both.ballCue ?? .colour
        // The rim found or fitted while reading is the rim of the pass after it.
        chosen.rim = both.rim
        chosen.rimFound = rimFound ?? both.rimFound
        chosen.rimFitted = rimFitted ?? both.rimFitted
        var analysis = try chosen.run(
            source: .file(path), progress: { progress((1 + $0) / 2) }, shouldStop: shouldStop,
            frameHandler: frameHandler, decideAtTheEnd: true)
        for shot in analysis.shots { onShot(shot) }
        analysis.processingSeconds = (ContinuousClock.now - started).seconds
        return analysis
    }

    /// Whether brightness saw clearly more shots than colour: half as many again, and one more.
    /// Where the ball is orange the colour model sees every shot and brightness fewer (people and
    /// the net move too); where it is not, colour sees few or none.
    static func seesMore(_ brightness: Int, than colour: Int) -> Bool {
        Double(brightness) >= 1.5 * Double(colour) + 1
    }

    /// Analyses any source: a file, a camera stream (RTSP, opened for low latency) or a device.
    /// `onRim` is told the rim found when ``rim`` is nil, `onFit` the rim fitted at ``rimPoint``,
    /// `onCue` that the ball is followed by its brightness from now on (``BallCue/either`` only).
    public func analyze(
        source: MediaSource, progress: (Double) -> Void = { _ in }, onShot: (ShotEvent) -> Void = { _ in },
        shouldStop: () -> Bool = { false }, onRim: (RimFinder.Result) -> Void = { _ in },
        onFit: (RimFinder.Fit) -> Void = { _ in }, onCue: (BallCue) -> Void = { _ in },
        frameHandler: ((VideoFrame, Double, [BallObservation]) -> Void)? = nil
    ) throws(MediaError) -> WorkoutAnalysis {
        try run(
            source: source, progress: progress, onShot: onShot, shouldStop: shouldStop, onRim: onRim, onFit: onFit,
            onCue: onCue, frameHandler: frameHandler)
    }

    /// ``analyze(source:progress:onShot:shouldStop:onRim:onFit:onCue:frameHandler:)``.
    /// `decideAtTheEnd` (a file): no shot is told while the source is read; at its end the lane
    /// that saw clearly more tells all of its own, with the detectors' late calls. `findingLikeAFile`: with
    /// no rim and no point given, the rim is found as ``RimFinder/find(in:)`` finds it in a file
    /// (not over ``rimWarmUp`` as in a stream), from the same frames.
    private func run(
        source: MediaSource, progress: (Double) -> Void = { _ in }, onShot: (ShotEvent) -> Void = { _ in },
        shouldStop: () -> Bool = { false }, onRim: (RimFinder.Result) -> Void = { _ in },
        onFit: (RimFinder.Fit) -> Void = { _ in }, onCue: (BallCue) -> Void = { _ in },
        frameHandler: ((VideoFrame, Double, [BallObservation]) -> Void)? = nil, decideAtTheEnd: Bool = false,
        findingLikeAFile: Bool = false
    ) throws(MediaError) -> WorkoutAnalysis {
        let started = ContinuousClock.now
        let path = source.description
        let reader: MediaReader
        if let readerOptions {
            reader = try MediaReader(source, options: readerOptions)
        } else if case .url = source {
            reader = try MediaReader(source, options: .lowLatency())
        } else {
            reader = try MediaReader(source)
        }
        guard let video = reader.videoStream, let (sourceWidth, sourceHeight) = video.shownSize,
            sourceWidth > 0, sourceHeight > 0
        else {
            throw MediaError(.invalidArgument, operation: "analyze \(path)", message: "the file has no video stream")
        }
        let (width, height) = RimFinder.decodedSize(sourceWidth, sourceHeight, atMost: analysisWidth)
        let decoder = try VideoDecoder(reader: reader, format: .yuv420p, size: (width, height), threads: threads)
        // The picture as the phone showed it: a portrait video, or one held the other way up, is
        // stored turned, and the rim, a tap and the shots are where the user sees them.
        decoder.upright = true
        // The source's length, seconds, when known (a file; not a live stream).
        let duration = reader.duration?.seconds
        let ballTracker = BallTracker(configuration: tracker)
        ballTracker.byBrightness = ballCue == .brightness
        // A stream is read once: with `.either` the ball is followed by colour and, beside it, by
        // brightness, each lane with its own shot detector. Colour's shots are told until
        // brightness has clearly seen more (``seesMore(_:than:)``, and at least two while the
        // stream runs; at its end, the file's rule alone), then brightness's — those it saw that
        // colour did not tell, and every one after.
        let brightTracker = ballCue == .either ? BallTracker(configuration: tracker) : nil
        brightTracker?.byBrightness = true
        var tellingBrightness = ballCue == .brightness
        // Every shot each lane decided.
        var (colourShots, brightShots) = ([ShotEvent](), [ShotEvent]())
        let stabilizing = stabilizer.map { FrameStabilizer(configuration: $0) }
        var rim = self.rim
        var rimFound = self.rimFound
        var rimFitted = self.rimFitted
        var findingLikeAFile = findingLikeAFile && rim == nil && rimPoint == nil
        let rimFinder = RimFinder()
        if findingLikeAFile, case .file(let file) = source {
            // The frames held while the finder reads the file's start (``heldBytesLimit``).
            let span = min(rimFinder.seconds, duration ?? rimFinder.seconds)
            let held = span * (video.framesPerSecond ?? 30) * Double(width * height * 3 / 2)
            if held > Double(heldBytesLimit) {
                guard let found = try rimFinder.find(in: file) else {
                    throw RimFinder.noHoop(seconds: rimFinder.seconds)
                }
                (rim, rimFound, findingLikeAFile) = (found.rim, found, false)
                onRim(found)
            }
        }
        let detector = self.detector
        func detecting(_ rim: RimCalibration, netBelow: Bool) -> (ShotEventDetector, ShotEventDetector?) {
            let make = {
                ShotEventDetector(rim: rim, width: width, height: height, netBelow: netBelow, configuration: detector)
            }
            return (make(), brightTracker.map { _ in make() })
        }
        var (shotDetector, brightDetector) =
            rim.map { detecting($0, netBelow: rimFound?.netBelow ?? false) } ?? (nil, nil)
        // Without a rim: frames held (and sampled for the finder) until it is found.
        var held: [Taken] = []
        var finder = RimFinder.Accumulator(width: width, height: height)
        var firstHeld: Double?
        var shots: [ShotEvent] = []
        /// Tells a shot decided by the lane that is told; numbered in the order told.
        func tell(_ shot: ShotEvent) {
            var shot = shot
            shot.number = shots.count + 1
            shots.append(shot)
            onShot(shot)
        }
        /// Shots a lane decided: told when its lane is; the brightness lane taken on when it has
        /// clearly seen more.
        func decided(_ decided: [ShotEvent], byBrightness: Bool) {
            if byBrightness {
                brightShots += decided
            } else {
                colourShots += decided
            }
            guard !decideAtTheEnd else { return }
            if byBrightness == tellingBrightness { decided.forEach(tell) }
            takeBrightness(atLeast: 2)
        }
        /// The lanes' detectors finish at `time` (the camera was knocked, or the source ended):
        /// what was pending is judged, and a file's earlier calls judged again.
        func finishLanes(at time: Double) {
            decided(shotDetector?.finish(at: time) ?? [], byBrightness: ballTracker.byBrightness)
            decided(brightDetector?.finish(at: time) ?? [], byBrightness: true)
            revise(shotDetector, byBrightness: ballTracker.byBrightness)
            revise(brightDetector, byBrightness: true)
        }
        /// A file's lanes (told at the end) take what `detector` judged again with what it has
        /// seen of the net by now (``ShotEventDetector/lateCalls``) in place of its calls at the time.
        func revise(_ detector: ShotEventDetector?, byBrightness: Bool) {
            guard decideAtTheEnd, let detector else { return }
            for late in detector.lateCalls {
                let same = { (shot: ShotEvent) in
                    shot.releaseTime == late.releaseTime && shot.decidedTime == late.decidedTime
                }
                if byBrightness {
                    brightShots = brightShots.map { same($0) ? late : $0 }
                } else {
                    colourShots = colourShots.map { same($0) ? late : $0 }
                }
            }
        }
        /// Brightness's lane is told from now on when it has seen `atLeast` shots, clearly more
        /// than colour's.
        func takeBrightness(atLeast least: Int) {
            guard brightTracker != nil, !tellingBrightness, brightShots.count >= least,
                Self.seesMore(brightShots.count, than: colourShots.count)
            else { return }
            tellingBrightness = true
            onCue(.brightness)
            // Every shot brightness saw that colour did not tell (none told within a second of its
            // release): those before colour's last one too, told late rather than lost.
            let told = shots.map(\.releaseTime)
            brightShots.filter { shot in !told.contains { abs($0 - shot.releaseTime) < 1 } }.forEach(tell)
        }
        var frames = 0
        var lastTime = 0.0
        var detectorTime = Duration.zero
        // Watching a found rim: since when it looks bare, and the rim used before looking again.
        var bareSince: Double?
        var lastCheck = -Double.infinity
        // The most of the rim's box seen orange since the rim was taken: bare is against this, as
        // a thin rim found at full size is orange in only part of its box at the analysis size.
        var rimOrange = 0.0
        var lostRim: (rim: RimCalibration, netBelow: Bool)?
        var rimMoves: [RimMove] = []
        let watchRim = (rim == nil && rimPoint == nil) || rimFound != nil
        // The rim in use is watched by the picture around it (``RimScene``; nil until it is taken,
        // and when it cannot be watched), and an orange rim found by its orange by that too.
        var byOrange = watchRim && rimFound?.underBoard != true
        var scene = rim.flatMap { RimScene(rim: $0, width: width, height: height) }
        // With no rim given, the first frames are decoded at the finder's size too, beside the
        // analysis's, and read as the finder and the fit read a file (``RimFinder/Reading``) until
        // it has what it wants: to find the rim (`findingLikeAFile`: its orange sampled over the
        // file's first 20 s, the analysis's frames held meanwhile); to fit the ring at the point
        // given; or, in a stream, to look under the board's square for a rim that is not orange (a
        // ring a few pixels tall fits wrong at 640 px).
        var reading: RimFinder.Reading?
        if rim == nil {
            reading = RimFinder.Reading(rimFinder, sampling: findingLikeAFile)
            decoder.secondSize = RimFinder.decodedSize(sourceWidth, sourceHeight, atMost: rimFinder.analysisWidth)
        }
        // The first frames at the finder's size, once read.
        var start = RimFinder.FitFrames()
        var fitting = rim == nil ? rimPoint : nil
        /// Shots are looked for against `rim` from the frames held on.
        func resume(with rim: RimCalibration, netBelow: Bool, byOrange orange: Bool) throws(MediaError) {
            lostRim = nil
            rimOrange = 0
            byOrange = orange
            scene = RimScene(rim: rim, width: width, height: height)
            (shotDetector, brightDetector) = detecting(rim, netBelow: netBelow)
            let waiting = held
            held = []
            for taken in waiting { try handle(taken) }
        }
        // How far the source has been decoded, and whether frames are held for the finder reading
        // the file's start: then progress is half decoding and half analysis (the frames held
        // are analysed after the rim is found), so it moves while the start is read.
        var decodedUpTo = 0.0
        var decodedFrames = 0
        func tellProgress() {
            guard let total = duration, total > 0 else { return }
            let analysed = min(1, lastTime / total)
            progress(findingLikeAFile ? (min(1, decodedUpTo / total) + analysed) / 2 : analysed)
        }
        /// Frames decoded, each also at the finder's size while it reads them; when it has read
        /// what it wants (or the source `ended`), the rim it found or the ring fitted at the point
        /// given.
        func read(_ decoded: [(frame: VideoFrame, second: VideoFrame?)], ended: Bool) throws(MediaError) {
            for (frame, second) in decoded {
                if let second { reading?.offer(second, duration: duration) }
                try take(frame)
                decodedFrames += 1
                decodedUpTo = max(decodedUpTo, frame.pts?.seconds ?? 0)
                if findingLikeAFile, shotDetector == nil, decodedFrames % 15 == 0 { tellProgress() }
            }
            guard let done = reading, done.isDone || ended else { return }
            reading = nil
            decoder.secondSize = nil
            start = done.start
            if let point = fitting {
                fitting = nil
                guard !start.frames.isEmpty else { return }
                let fit = try RimFinder.fit(near: point, frames: start.frames)
                (rim, rimFitted) = (fit.rim, fit)
                onFit(fit)
                try resume(with: fit.rim, netBelow: false, byOrange: false)
            } else if done.sampling {
                guard let result = done.result() else { throw RimFinder.noHoop(seconds: done.finder.seconds) }
                (rim, rimFound) = (result.rim, result)
                onRim(result)
                try resume(with: result.rim, netBelow: result.netBelow ?? false, byOrange: result.underBoard != true)
            }
        }
        func findRim(final: Bool) throws(MediaError) {
            let enough = final || finder.frames >= 40
            guard
                let result = finder.rim(
                    minimumConfidence: rimFinder.minimumConfidence,
                    board: { bar in bar != nil || enough ? underBoard(bar: bar) : nil })
            else {
                guard enough else { return }
                // Looked for again and not found: the old rim is the best there is.
                guard let previous = lostRim else { throw RimFinder.noHoop(seconds: rimWarmUp) }
                return try resume(with: previous.rim, netBelow: previous.netBelow, byOrange: byOrange)
            }
            if lostRim != nil {
                rimMoves.append(RimMove(time: firstHeld ?? lastTime, found: result))
            } else {
                rim = result.rim
                rimFound = result
            }
            onRim(result)
            try resume(with: result.rim, netBelow: result.netBelow ?? false, byOrange: result.underBoard != true)
        }
        /// The rim under the board's inner square in the first frames (at the finder's size when
        /// they were decoded so; when the rim is looked for again, in the first frames held).
        func underBoard(bar: RimCalibration?) -> RimFinder.Result? {
            var frames = RimFinder.FitFrames()
            if lostRim == nil, !start.frames.isEmpty {
                frames = start
            } else {
                for taken in held where !frames.isFull { frames.offer(taken.frame, at: taken.frame.pts?.seconds ?? 0) }
            }
            return rimFinder.underBoard(in: frames.frames, seen: finder, bar: bar)
        }
        /// The camera was knocked at `since`: what was pending is judged with the rim it had, and
        /// the trackers learn the background afresh (against the old one the whole knocked picture
        /// is new).
        func leave(at since: Double) {
            finishLanes(at: since)
            ballTracker.restartBackground()
            brightTracker?.restartBackground()
        }
        // Frames seen while the rim in use looks bare, not analysed yet: analysed with it if it comes
        // back (a player in front of it), or held for finding it again if it stays away.
        var suspect: [Taken] = []
        /// A decoded frame, held still when the camera is handheld.
        func take(_ frame: VideoFrame) throws(MediaError) {
            guard let stabilizing else { return try handle(Taken(frame: frame)) }
            let still = stabilizing.stabilize(frame, time: frame.pts?.seconds ?? Double(frames) / 30)
            try handle(
                Taken(
                    frame: still, residual: stabilizing.hasMoved ? stabilizing.residual : nil,
                    moved: stabilizing.moved))
        }
        func handle(_ taken: Taken) throws(MediaError) {
            let frame = taken.frame
            if shouldStop() {
                throw MediaError(.cancelled, operation: "analyze \(path)", message: "the analysis was cancelled")
            }
            let time = frame.pts?.seconds ?? Double(frames) / 30
            if let current = shotDetector, let lost = rimLostSeconds, byOrange || scene != nil {
                if time - lastCheck >= 0.25 {
                    lastCheck = time
                    // Unlike what it was (the camera moved, or something stands in front of
                    // it), or, for an orange rim, bare of its orange.
                    var bare = (scene?.look(at: frame)).map { $0 < RimScene.same } ?? false
                    if byOrange {
                        let orange = RimFinder.orangeFraction(in: frame, rim: current.rim)
                        rimOrange = max(rimOrange, orange)
                        bare = bare || orange < 0.3 * rimOrange
                    }
                    bareSince = bare ? (bareSince ?? time) : nil
                }
                if let since = bareSince {
                    suspect.append(taken)
                    guard time - since >= lost else { return }
                    bareSince = nil
                    let moved = scene?.search(frame).flatMap { $0.score >= RimScene.found ? $0 : nil }
                    let shifted = moved.flatMap {
                        current.rim.shifted(by: ($0.dx / Double(width), $0.dy / Double(height)))
                    }
                    if let watched = scene, let moved, abs(moved.dx) <= Double(watched.block),
                        abs(moved.dy) <= Double(watched.block)
                    {
                        // Still there (the picture changed around it for a while): watched against
                        // the picture as it is now.
                        scene = RimScene(rim: current.rim, width: width, height: height)
                    } else if let moved, let shifted {
                        // The camera moved and the rim with the picture: the frames from the
                        // first changed one are judged with the rim where the picture went.
                        leave(at: since)
                        let found = RimFinder.Result(
                            rim: shifted, confidence: (moved.score * 100).rounded() / 100, frames: 1,
                            evidence: RimScene.moveInWords(
                                dx: moved.dx, dy: moved.dy, width: width, height: height, score: moved.score),
                            netBelow: current.netBelow, underBoard: rimFound?.underBoard)
                        rimMoves.append(RimMove(time: since, found: found))
                        onRim(found)
                        held = suspect
                        suspect = []
                        return try resume(with: shifted, netBelow: current.netBelow, byOrange: byOrange)
                    } else if !watchRim {
                        // The user's rim is kept whatever the picture; watched from now on
                        // against the picture as it is.
                        scene = RimScene(rim: current.rim, width: width, height: height)
                    } else {
                        // The camera moved: the rim is looked for again from the first changed
                        // frame on.
                        leave(at: since)
                        lostRim = (current.rim, current.netBelow)
                        (shotDetector, brightDetector) = (nil, nil)
                        finder = RimFinder.Accumulator(width: width, height: height)
                        firstHeld = nil
                        let waiting = suspect
                        suspect = []
                        for taken in waiting { try handle(taken) }
                        return
                    }
                }
                let waiting = suspect
                suspect = []
                for taken in waiting { try analyse(taken, with: current) }
            }
            guard let detecting = shotDetector else {
                held.append(taken)
                // (Held for the fit at the point given, or for the finder reading the file's start.)
                if fitting != nil || reading?.sampling == true { return }
                let first = firstHeld ?? time
                firstHeld = first
                finder.offer(
                    frame, time: time, step: rimWarmUp / 40,
                    inPhase: taken.residual.map(FrameStabilizer.isInPhase) ?? true)
                if time - first >= rimWarmUp { try findRim(final: false) }
                return
            }
            try analyse(taken, with: detecting)
        }
        func analyse(_ taken: Taken, with detecting: ShotEventDetector) throws(MediaError) {
            let frame = taken.frame
            let time = frame.pts?.seconds ?? Double(frames) / 30
            let clock = ContinuousClock.now
            // A frame the stabilizer moved: the tracker allows for the pixel it may be off, and the
            // ball's positions lose what the whole-pixel move left over (so a hand's jitter does
            // not bend the ball's path).
            let residual = taken.residual
            /// The ball's positions by `tracker`, less what the stabilizer's move left over.
            func follow(_ tracker: BallTracker) throws(MediaError) -> (seen: [BallObservation], held: [BallObservation])
            {
                if residual != nil { tracker.heldStill = true }
                tracker.moved = taken.moved
                let observations = try tracker.process(frame, time: time)
                var corrected = observations
                if let residual {
                    for index in corrected.indices {
                        corrected[index].x -= residual.x
                        corrected[index].y -= residual.y
                    }
                }
                return (observations, corrected)
            }
            let (observations, corrected) = try follow(ballTracker)
            let first = detecting.process(corrected, time: time, frame: frame)
            var second: [ShotEvent] = []
            if let brightTracker, let brightDetector {
                second = brightDetector.process(try follow(brightTracker).held, time: time, frame: frame)
            }
            detectorTime += ContinuousClock.now - clock
            frameHandler?(frame, time, observations)
            decided(first, byBrightness: ballTracker.byBrightness)
            decided(second, byBrightness: true)
            frames += 1
            lastTime = time
            if frames % 15 == 0 { tellProgress() }
        }
        while let sample = try reader.nextSample() {
            guard sample.streamIndex == video.index else { continue }
            try read(try decoder.decodeAtBothSizes(sample), ended: false)
        }
        try read(try decoder.flushAtBothSizes(), ended: true)
        if let detecting = shotDetector {
            // Bare at the very end: too short to call the camera moved.
            for taken in suspect { try analyse(taken, with: detecting) }
        }
        // (A point given and no frame to fit it on: no frames, said below.)
        if shotDetector == nil, rimPoint == nil { try findRim(final: true) }
        finishLanes(at: lastTime)
        if decideAtTheEnd {
            // The whole file seen: the lane that saw clearly more tells its shots (colour wins ties).
            tellingBrightness = ballCue == .brightness || Self.seesMore(brightShots.count, than: colourShots.count)
            (tellingBrightness ? brightShots : colourShots).forEach(tell)
        } else {
            // The whole stream seen: one shot by brightness and none by colour is told, as for a file.
            takeBrightness(atLeast: 1)
        }
        progress(1)
        guard let rim else {
            throw MediaError(.invalidArgument, operation: RimFinder.operation, message: "the video has no frames")
        }
        var analysis = WorkoutAnalysis(
            source: path, rim: rim, duration: lastTime, frames: frames, shots: shots,
            processingSeconds: (ContinuousClock.now - started).seconds,
            detectorMillisecondsPerFrame: frames == 0 ? 0 : detectorTime.seconds * 1000 / Double(frames))
        analysis.rimFound = rimFound
        analysis.rimFitted = rimFitted
        analysis.rimMoves = rimMoves
        analysis.cameraMovement = stabilizing?.largestMove
        analysis.ballCue = tellingBrightness ? .brightness : .colour
        analysis.picture = .init(width: sourceWidth, height: sourceHeight)
        return analysis
    }
}

/// A decoded frame on its way through ``WorkoutAnalyzer``, held still if the camera is handheld.
private struct Taken {
    var frame: VideoFrame
    /// What the stabilizer's whole-pixel move left over, pixels (nil: the frame was not moved).
    var residual: (x: Double, y: Double)?
    /// How far it was moved, whole pixels (0, 0 when it was not).
    var moved = (x: 0, y: 0)
}
