import CameraCommon
import CameraIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches one playing stream: timestamp jumps on every packet, and a frozen picture by decoding
/// only keyframes (one per group of pictures, so a pass-through stream stays nearly free) into a
/// 64×36 grey thumbnail and comparing each with the last: frozen when no pixel changed for
/// `frozenAfter` seconds.
final class HealthMonitor {
    let cameraID: UUID
    let options: StreamManager.Options
    let report: (HealthEvent) -> Void
    private var decoder: VideoDecoder?
    private var lastPicture: [UInt8]?
    private var unchangedSince: MediaTime?
    private var frozenReported = false
    private var lastVideoTime: MediaTime?

    init(cameraID: UUID, reader: MediaReader, options: StreamManager.Options, report: @escaping (HealthEvent) -> Void) {
        self.cameraID = cameraID
        self.options = options
        self.report = report
        if let video = reader.videoStream {
            decoder = try? VideoDecoder(
                reader: reader, streamIndex: video.index, format: .gray8, size: (64, 36), threads: 1)
            decoder?.decodesKeyframesOnly = true
        }
    }

    func observe(_ sample: MediaSample) {
        guard sample.mediaType == .video else { return }
        if let time = sample.decodeTime, let last = lastVideoTime {
            let jump = (time - last).seconds
            if jump > 5 || jump < -1 {
                report(
                    HealthEvent(
                        cameraID: cameraID, kind: .timestampJump, reason: "timestamps jumped \(String(format1: jump)) s"
                    ))
            }
        }
        lastVideoTime = sample.decodeTime ?? lastVideoTime
        guard let decoder, let frames = try? decoder.decode(sample) else { return }
        for frame in frames {
            let picture = frame.planes[0].bytes
            defer { lastPicture = picture }
            guard let previous = lastPicture, let time = frame.pts else { continue }
            // Frozen means no part of the picture moved: every pixel of the thumbnail within 2 grey
            // levels (what re-encoding one still frame leaves). A mean over the picture hid small
            // motion: bars with a moving ball in one corner (3 % of the picture) read as frozen.
            var largest = 0
            for index in picture.indices { largest = max(largest, abs(Int(picture[index]) - Int(previous[index]))) }
            let same = largest <= 2
            if same {
                if unchangedSince == nil { unchangedSince = time }
                if let since = unchangedSince, !frozenReported, (time - since).seconds >= options.frozenAfter {
                    frozenReported = true
                    report(
                        HealthEvent(
                            cameraID: cameraID, kind: .frozen,
                            reason: "picture unchanged for \(String(format1: (time - since).seconds)) s"))
                }
            } else {
                unchangedSince = nil
                if frozenReported {
                    frozenReported = false
                    report(HealthEvent(cameraID: cameraID, kind: .recovered, reason: "picture moving again"))
                }
            }
        }
    }
}
