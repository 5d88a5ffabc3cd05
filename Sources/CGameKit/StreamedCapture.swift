import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A capture that arrives as chunks of a WebM stream (a browser's `MediaRecorder`), run through the
/// highlight pipeline as it comes: the chunks go into a named pipe in `folder`, FFmpeg reads the
/// pipe as a live source (frames are dropped when reading falls behind, never the input), the
/// video is encoded to H.264 as it is read (a browser gives VP8 or keyframes minutes apart), and
/// clips are saved in `folder/clips` as they happen. The pipe is a ``WebMPipe``.
public final class StreamedCapture: Sendable {
    public let folder: String
    public let store: PendingClipStore
    private let input: WebMPipe
    private let pipeline: HighlightPipeline

    public typealias Accepted = WebMPipe.Accepted

    /// - Parameters:
    ///   - folder: an empty folder of this capture's own (the pipe and the clips go there).
    ///   - maxBacklog: bytes that may wait for the reader before ``write(_:)`` answers `.behind`.
    public init(
        folder: String, profile: GameProfile, highlights: HighlightSettings, maxBacklog: Int = 32 << 20
    ) throws(MediaError) {
        self.folder = folder
        store = try PendingClipStore(root: folder + "/clips")
        input = try WebMPipe(folder: folder, maxBacklog: maxBacklog)
        pipeline = HighlightPipeline(
            configuration: .init(
                source: .file(input.path), readerOptions: WebMPipe.readerOptions, profile: profile,
                highlights: highlights, detector: EventDetector.Options(dropWhenBusy: true), reencodeVideo: true))
    }

    public var maxBacklog: Int { input.maxBacklog }

    /// Runs the pipeline on a thread of its own; `completion` gets what it did once the input has
    /// ended (``finishInput()``) and every open highlight has been saved.
    public func start(
        onEvent: @escaping @Sendable (DetectedEvent) -> Void, onClip: @escaping @Sendable (ClipMetadata) -> Void,
        progress: @escaping @Sendable (HighlightPipeline.Progress) -> Void,
        completion: @escaping @Sendable (Result<HighlightPipeline.Summary, MediaError>) -> Void
    ) {
        DispatchQueue(label: "cgame.capture").async { [self] in
            let result = Result { () throws(MediaError) in
                try pipeline.run(store: store, onEvent: onEvent, onClip: onClip, progress: progress)
            }
            input.readerFinished()
            completion(result)
        }
    }

    /// Queues a chunk for the pipeline.
    public func write(_ bytes: [UInt8]) -> Accepted { input.write(bytes) }

    /// Ends the input once what was written has reached the pipe: the pipeline reads to the end,
    /// saves the open highlight and completes.
    public func finishInput() { input.finishInput() }

    /// Stops reading after the current sample (open highlights are still saved) and ends the input.
    public func stop() {
        pipeline.stop()
        finishInput()
    }
}
