import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

/// The whole capture pipeline (the spec's SampleHandler): source → buffer; sampled frames → event
/// detector → highlight sessions → clip exporter → pending store.
///
/// The reading thread only reads, buffers, decodes and queues frames; recognition runs on the
/// detector's workers and clip export on its own queue, so a live source is never held up.
public final class HighlightPipeline: Sendable {
    public struct Configuration: Sendable {
        public var source: MediaSource
        public var readerOptions: ReaderOptions
        public var profile: GameProfile
        public var highlights: HighlightSettings
        public var detector: EventDetector.Options
        public var bufferDuration: Double
        public var bufferBytes: Int
        /// Write clips (false: detect only).
        public var exportClips: Bool
        /// Encode the video to H.264 as it is read, whatever it is: for sources whose codec MP4
        /// does not take (a browser's VP8) or whose keyframes are far apart (a browser's H.264),
        /// so clips start near their pre-roll. Raw video is always encoded.
        public var reencodeVideo: Bool

        public init(
            source: MediaSource, readerOptions: ReaderOptions = ReaderOptions(), profile: GameProfile,
            highlights: HighlightSettings = HighlightSettings(), detector: EventDetector.Options? = nil,
            bufferDuration: Double = 30, bufferBytes: Int = 48 * 1024 * 1024, exportClips: Bool = true,
            reencodeVideo: Bool = false
        ) {
            self.source = source
            self.readerOptions = readerOptions
            self.profile = profile
            self.highlights = highlights
            // Live sources drop frames when OCR falls behind; files wait so every sample is read.
            self.detector = detector ?? EventDetector.Options(dropWhenBusy: source.isLive)
            self.bufferDuration = bufferDuration
            self.bufferBytes = bufferBytes
            self.exportClips = exportClips
            self.reencodeVideo = reencodeVideo
        }
    }

    /// Where a run is, for progress displays.
    public struct Progress: Sendable {
        /// Seconds of media read.
        public var position: Double
        /// The source's length when known (files).
        public var duration: Double?
        public var events: Int
        public var clips: Int
        public var droppedFrames: Int
    }

    /// What a run did.
    public struct Summary: Sendable, Codable {
        public var game: String
        /// Events with times relative to the start of the source.
        public var events: [DetectedEvent]
        public var clips: [ClipMetadata]
        /// Clips that could not be written, with the reason.
        public var failures: [String]
        public var statistics: EventDetector.Statistics
        public var mediaSeconds: Double
        public var wallSeconds: Double
        public var speed: Double { wallSeconds > 0 ? mediaSeconds / wallSeconds : 0 }
        public var peakBufferBytes: Int
        /// This machine's clock (seconds since 1970) when the source was opened: a live source's
        /// media time zero, to line events up with what happened elsewhere (a game's log).
        public var wallClockStart: Double

        private enum CodingKeys: String, CodingKey {
            case game, events, clips, failures, statistics, mediaSeconds, wallSeconds, peakBufferBytes, wallClockStart
        }
    }

    public let configuration: Configuration
    private let stopRequested = Atomic<Bool>(false)

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Asks a running ``run(store:onEvent:onClip:progress:)`` to stop after the current sample; open
    /// highlights are still saved.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    /// The least media time between two frames handed to the detector: a little under its
    /// sampling period, so frames at exactly that rate are all taken.
    public static func sampleInterval(_ detector: EventDetector.Options) -> MediaTime {
        MediaTime(seconds: 1 / max(0.1, detector.sampleRate) * 0.95)
    }

    /// Reads the source to its end (or until ``stop()``), saving clips into `store`. `onEvent`
    /// hears each event as it is decided, and a correction of one heard before when its line reads
    /// better later (``DetectedEvent/corrects``); the summary's events and the clips carry the
    /// corrected text (a clip saved before the correction keeps what it was saved with).
    ///
    /// - Throws: ``MediaError`` for a source that cannot be opened or read, or an OCR engine that
    ///   cannot load. Clips saved before an error stay saved.
    public func run(
        store: PendingClipStore?, onEvent: (@Sendable (DetectedEvent) -> Void)? = nil,
        onClip: (@Sendable (ClipMetadata) -> Void)? = nil, progress: ((Progress) -> Void)? = nil
    ) throws(MediaError) -> Summary {
        let started = ContinuousClock.now
        let origin = Date()
        let config = configuration
        let reader = try MediaReader(config.source, options: config.readerOptions)
        guard let video = reader.videoStream else {
            throw MediaError(
                .invalidArgument, operation: "read \(config.source)", message: "the source has no video stream")
        }
        var options = config.detector
        if let trace = options.trace {
            // Traced at the times events are reported at: from the source's start.
            let start = (reader.startTime ?? .zero).seconds
            options.trace = { line in
                var line = line
                line.time -= start
                line.event = line.event.map { $0 - start }
                trace(line)
            }
        }
        let detector = try EventDetector(profile: config.profile, options: options)
        // OCR needs ~10 frames a second. At high frame rates the frames nothing refers to (B-frames)
        // are not even decoded — half the decoding work of a typical 60 fps stream — while the
        // reference frames (at least every 4th with x264's defaults) still come faster than the
        // sampling rate. The rest are sampled by media time.
        let decoder = try VideoDecoder(reader: reader, streamIndex: video.index, format: .yuv420p)
        // The picture as it is shown, where the profile's region is drawn: a phone's recording may
        // be stored turned, with a display matrix (kept on the clips' stream copies).
        decoder.upright = true
        let interval = Self.sampleInterval(config.detector)
        // A raw capture (x11grab's frames: ~110 MB a second at 720p30) is encoded to H.264 as it
        // is read, so the buffer holds its 30 s rather than half a second and clips are stream
        // copies like any other source's; so is any video when asked (a browser's capture). Every
        // frame is then decoded; the detector still gets its samples by media time.
        var encoder: VideoEncoder?
        var streams = reader.streams
        // A variable frame rate (a browser's capture) is encoded at up to 30 frames a second.
        let rate = video.frameRate.flatMap { (1...120).contains($0.doubleValue) ? $0 : nil } ?? Rational(30, 1)
        var lastEncodedTick = Int.min
        var lastKeyframe: MediaTime?
        if video.codec == "rawvideo" || config.reencodeVideo, let (width, height) = video.shownSize {
            let made = try VideoEncoder(
                settings: .init(
                    width: width & ~1, height: height & ~1, frameRate: rate, crf: 23,
                    gopSize: max(2, Int((rate.doubleValue * 2).rounded())), preset: "ultrafast", maxBFrames: 0,
                    tune: "zerolatency"))
            var encoded = made.stream
            encoded.index = video.index
            if let position = streams.firstIndex(where: { $0.index == video.index }) { streams[position] = encoded }
            encoder = made
        } else {
            decoder.skipsNonReferenceFrames = (video.framesPerSecond ?? 0) >= 4 * config.detector.sampleRate
            decoder.minimumInterval = interval
        }
        var lastSubmitted: MediaTime?
        let buffer = ContinuousBuffer(
            maxDuration: MediaTime(seconds: config.bufferDuration), maxBytes: config.bufferBytes)
        let sourceStart = reader.startTime ?? .zero
        let exporter = store.map {
            ClipExporter(store: $0, streams: streams, game: config.profile.name, origin: origin, zero: sourceStart)
        }
        var sessions = HighlightSessionManager(settings: config.highlights)
        let exportQueue = DispatchQueue(label: "cgame.export")
        let results = Mutex<(clips: [ClipMetadata], failures: [String])>(([], []))
        var events: [DetectedEvent] = []
        var peakBytes = 0
        var position = MediaTime.zero
        var lastProgress = -1.0

        func export(_ highlights: [Highlight]) {
            guard config.exportClips, let exporter, !highlights.isEmpty else { return }
            for highlight in highlights {
                exportQueue.async {
                    do throws(MediaError) {
                        let clip = try exporter.export(highlight, from: buffer)
                        results.withLock { $0.clips.append(clip) }
                        onClip?(clip)
                    } catch {
                        results.withLock { $0.failures.append("\(highlight.name): \(error)") }
                    }
                }
            }
        }

        func collect() {
            // Corrections first: each names an event decided before it, so taken with or before them.
            let corrections = detector.takeCorrections()
            let (found, analyzed) = detector.takeEvents()
            for event in found {
                sessions.handleEvent(event)
                var reported = event
                reported.time = event.time - sourceStart
                reported.frame = nil
                events.append(reported)
                onEvent?(reported)
            }
            for correction in corrections {
                sessions.correct(correction)
                var reported = correction
                reported.time = correction.time - sourceStart
                events.apply(reported)
                onEvent?(reported)
            }
            export(sessions.takeReady(analyzedThrough: analyzed, buffered: buffer.range))
        }

        /// Samples of the raw capture's encoder go into the buffer in the video stream's place.
        func bufferEncoded(_ samples: [MediaSample]) {
            for var sample in samples {
                sample.streamIndex = video.index
                buffer.add(sample)
            }
        }

        var readError: MediaError?
        do throws(MediaError) {
            while !stopRequested.load(ordering: .relaxed), let sample = try reader.nextSample() {
                if encoder == nil || sample.streamIndex != video.index { buffer.add(sample) }
                if let time = sample.presentationTime { position = max(position, time - sourceStart) }
                if sample.streamIndex == video.index {
                    for frame in try decoder.decode(sample) {
                        let time = frame.pts ?? sample.presentationTime ?? .zero
                        if let encoder {
                            // Two frames in one tick of the encoder's clock: the second is not encoded.
                            let tick = Int((time.seconds * rate.doubleValue).rounded())
                            if tick > lastEncodedTick {
                                lastEncodedTick = tick
                                // A keyframe every 2 s of media time, however few frames arrived
                                // (a loaded browser sends fewer): clips start near their pre-roll.
                                let due = lastKeyframe.map { time - $0 >= MediaTime(seconds: 2) } ?? true
                                if due { lastKeyframe = time }
                                bufferEncoded(try encoder.encode(frame, keyframe: due))
                            }
                            if let last = lastSubmitted, time - last < interval { continue }
                        }
                        lastSubmitted = time
                        detector.submit(frame, at: time)
                    }
                }
                peakBytes = max(peakBytes, buffer.byteCount)
                collect()
                if let progress, position.seconds - lastProgress >= 0.5 {
                    lastProgress = position.seconds
                    progress(
                        Progress(
                            position: position.seconds, duration: reader.duration?.seconds, events: events.count,
                            clips: results.withLock { $0.clips.count }, droppedFrames: detector.statistics.dropped))
                }
            }
            for frame in try decoder.flush() { detector.submit(frame, at: frame.pts ?? position + sourceStart) }
            bufferEncoded(try encoder?.finish() ?? [])
        } catch {
            // Keep what was found: finish detection and save open highlights, then report.
            readError = error
        }
        detector.finish()
        collect()
        export(sessions.flush(buffered: buffer.range))
        exportQueue.sync {}
        if let readError, events.isEmpty { throw readError }
        let elapsed = ContinuousClock.now - started
        let (clips, failures) = results.withLock { $0 }
        return Summary(
            game: config.profile.name, events: events, clips: clips.sorted { $0.sourceStart < $1.sourceStart },
            failures: failures + (readError.map { ["stopped reading: \($0)"] } ?? []),
            statistics: detector.statistics, mediaSeconds: position.seconds,
            wallSeconds: elapsed.seconds,
            peakBufferBytes: peakBytes, wallClockStart: origin.timeIntervalSince1970)
    }
}
