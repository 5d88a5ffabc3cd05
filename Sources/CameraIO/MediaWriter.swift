import CFFmpeg
import CameraCommon

#if canImport(Glibc)
    import Glibc
#endif

/// Writes samples — stream-copied from a reader or a buffer, or fresh from ``VideoEncoder`` — into an
/// MP4 or fragmented MP4, to a file or to memory.
///
/// File output is atomic: bytes go to a hidden temporary file beside the destination, which is
/// renamed into place by ``finish()``; a writer dropped without finishing removes its temporary
/// file, so a reader of the folder never sees half a clip, even after a `kill -9`. Set
/// ``durable`` to also flush to disk before the rename (survives a power cut; costs a disk wait).
public final class MediaWriter {
    /// The container to produce.
    public enum Container: Sendable, Equatable {
        /// A regular MP4. `faststart` moves the index to the front so playback can begin before the
        /// whole file has downloaded.
        case mp4(faststart: Bool = true)
        /// Fragmented MP4 (an init segment, then `moof`+`mdat` fragments starting at keyframes), the
        /// form Media Source Extensions and live view want.
        case fragmentedMP4
        /// MPEG transport stream.
        case mpegTS
    }

    /// Where the bytes go.
    public enum Destination: Sendable, Equatable {
        case file(String)
        /// In memory; read with ``initSegment`` and ``takeFragments()`` (fragmented MP4 only).
        case memory
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var sink: MemorySink?
    private var streamMap: [Int: Int] = [:]  // source stream index → output stream index
    private var lastDecodeTicks: [Int: Int64] = [:]
    private var finished = false
    private let temporaryPath: String?
    private let finalPath: String?
    private let container: Container
    /// Whether ``finish()`` flushes the file to disk before renaming it into place.
    public var durable = false
    /// Samples skipped because their timestamps went backwards (broken sources); never fatal.
    public private(set) var droppedSampleCount = 0
    /// Samples written so far.
    public private(set) var writtenSampleCount = 0

    /// Creates a writer whose output streams are described by `streams`. Each sample's
    /// `streamIndex` is matched against those streams' `index`.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when `streams` is empty or memory output is asked
    ///   for a non-fragmented container; `writeFailed` when the folder is not writable.
    public init(destination: Destination, container: Container = .mp4(), streams: [StreamInfo]) throws(MediaError) {
        self.container = container
        (self.temporaryPath, self.finalPath) = try Self.paths(for: destination, container: container)
        try open(destination: destination, streamCount: streams.count) { context throws(MediaError) in
            for info in streams {
                try addStream(to: context, like: info) { parameters throws(MediaError) in try info.fill(parameters) }
            }
        }
    }

    /// Creates a writer that stream-copies `streamIndices` of `reader` with the demuxer's complete
    /// codec parameters (the most faithful remux).
    public init(
        destination: Destination, container: Container = .mp4(), copying reader: MediaReader,
        streams streamIndices: [Int], rotation: Int? = nil
    ) throws(MediaError) {
        self.container = container
        (self.temporaryPath, self.finalPath) = try Self.paths(for: destination, container: container)
        try open(destination: destination, streamCount: streamIndices.count) { context throws(MediaError) in
            for index in streamIndices {
                var info = reader.streams[index]
                if let rotation, info.mediaType == .video { info.rotation = rotation }
                try addStream(to: context, like: info) { target throws(MediaError) in
                    try reader.withCodecParameters(stream: index) { parameters throws(MediaError) -> Void in
                        _ = try FFmpegError.check(avcodec_parameters_copy(target, parameters), "copy stream \(index)")
                    }
                }
            }
        }
    }

    deinit {
        if let context, !finished, sink == nil {
            // Abandoned: close the file without a trailer and remove it.
            avio_closep(&context.pointee.pb)
        }
        if let temporaryPath, !finished { unlink(temporaryPath) }
        if sink != nil, let context {
            if let pb = context.pointee.pb {
                av_freep(&pb.pointee.buffer)
                var owned: UnsafeMutablePointer<AVIOContext>? = pb
                avio_context_free(&owned)
                context.pointee.pb = nil
            }
        }
        avformat_free_context(context)
        av_packet_free(&packet)
    }

    /// The init segment (`ftyp` + `moov`) of fragmented output in memory; nil for other outputs.
    public private(set) var initSegment: [UInt8]?

    /// Complete fragments (`moof` + `mdat`, with any `styp`/`sidx` before them) written since the
    /// last call, in order. Fragments close at keyframes, so each one starts decodable.
    public func takeFragments() -> [[UInt8]] {
        sink?.takeFragments() ?? []
    }

    /// Writes one sample. Samples of streams the writer was not given are ignored.
    ///
    /// - Throws: ``MediaError`` `writeFailed` when the muxer or the disk refuses the data.
    public func write(_ sample: MediaSample) throws(MediaError) {
        guard !finished, let context, let packet, let outputIndex = streamMap[sample.streamIndex],
            let stream = context.pointee.streams[outputIndex]
        else { return }
        try FFmpegError.check(av_new_packet(packet, Int32(sample.data.count)), "write sample")
        if !sample.data.isEmpty {
            sample.data.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        }
        // Convert the exact times straight to the output stream's time base.
        let timeBase = stream.pointee.time_base
        packet.pointee.pts = sample.pts?.ticks(in: timeBase) ?? cc_nopts_value()
        packet.pointee.dts = sample.dts?.ticks(in: timeBase) ?? cc_nopts_value()
        packet.pointee.duration = sample.duration.ticks(in: timeBase)
        packet.pointee.flags = sample.isKeyframe ? AV_PKT_FLAG_KEY : 0
        try writePacket(packet, timeBase: timeBase, streamIndex: sample.streamIndex)
    }

    /// Moves a demuxed packet into the muxer without copying its bytes, shifting its timestamps
    /// by `-shift` first. The packet is left blank.
    func writePacket(
        _ packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational, streamIndex: Int, shift: MediaTime = .zero
    ) throws(MediaError) {
        defer { av_packet_unref(packet) }
        guard !finished, let context, let outputIndex = streamMap[streamIndex],
            let stream = context.pointee.streams[outputIndex]
        else { return }
        let noTimestamp = cc_nopts_value()
        if packet.pointee.pts == noTimestamp { packet.pointee.pts = packet.pointee.dts }
        if packet.pointee.dts == noTimestamp { packet.pointee.dts = packet.pointee.pts }
        guard packet.pointee.pts != noTimestamp else {
            droppedSampleCount += 1
            return
        }
        if shift != .zero {
            let ticks = shift.ticks(in: timeBase)
            packet.pointee.pts -= ticks
            packet.pointee.dts -= ticks
        }
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        // Broken sources can send timestamps that go backwards; muxers refuse those, so drop them.
        if let last = lastDecodeTicks[outputIndex], packet.pointee.dts <= last {
            droppedSampleCount += 1
            return
        }
        lastDecodeTicks[outputIndex] = packet.pointee.dts
        packet.pointee.stream_index = Int32(outputIndex)
        packet.pointee.pos = -1
        let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
        let result = av_interleaved_write_frame(context, packet)
        if result < 0 {
            throw FFmpegError.error(result, "write sample to \(finalPath ?? "memory")", kind: .writeFailed)
        }
        writtenSampleCount += 1
        if let sink {
            avio_flush(context.pointee.pb)
            sink.collectFragments()
        } else if container == .fragmentedMP4, isKeyframe {
            // A keyframe closed the previous fragment: put it in the file now, so a process killed
            // later loses at most the fragment being written (recordings rely on this).
            avio_flush(context.pointee.pb)
        }
    }

    /// Writes the trailer, closes the output and, for files, renames it into place.
    ///
    /// - Throws: ``MediaError`` `writeFailed`; the temporary file is removed and no partial output
    ///   appears at the destination.
    public func finish() throws(MediaError) {
        guard !finished, let context else { return }
        let result = av_write_trailer(context)
        if sink != nil {
            avio_flush(context.pointee.pb)
            sink?.collectFragments(final: true)
        } else {
            avio_closep(&context.pointee.pb)
        }
        finished = true
        if result < 0 {
            if let temporaryPath { unlink(temporaryPath) }
            throw FFmpegError.error(result, "finish \(finalPath ?? "memory")", kind: .writeFailed)
        }
        if let temporaryPath, let finalPath {
            try AtomicFile.commit(temporaryPath: temporaryPath, to: finalPath, durable: durable)
        }
    }

    // MARK: - Set-up

    private static func paths(for destination: Destination, container: Container) throws(MediaError) -> (
        String?, String?
    ) {
        switch destination {
        case .memory:
            guard container == .fragmentedMP4 else {
                throw MediaError(
                    .invalidArgument, operation: "write to memory",
                    message: "memory output needs the fragmented MP4 container")
            }
            return (nil, nil)
        case .file(let path):
            return (try AtomicFile.temporaryPath(for: path), path)
        }
    }

    private func open(
        destination: Destination, streamCount: Int,
        addStreams: (UnsafeMutablePointer<AVFormatContext>) throws(MediaError) -> Void
    ) throws(MediaError) {
        _ = FFmpegRuntime.setUp
        let operation = "create \(finalPath ?? "memory output")"
        guard streamCount > 0 else {
            throw MediaError(.invalidArgument, operation: operation, message: "no streams to write")
        }
        let formatName: String =
            switch container {
            case .mp4, .fragmentedMP4: "mp4"
            case .mpegTS: "mpegts"
            }
        var contextOrNil: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpegError.check(avformat_alloc_output_context2(&contextOrNil, nil, formatName, temporaryPath), operation)
        guard let context = contextOrNil else {
            throw MediaError(.other, operation: operation, message: "out of memory")
        }
        self.context = context
        self.packet = av_packet_alloc()
        try addStreams(context)

        if let temporaryPath {
            var pb: UnsafeMutablePointer<AVIOContext>? = nil
            let result = avio_open(&pb, temporaryPath, AVIO_FLAG_WRITE)
            guard result >= 0 else { throw FFmpegError.error(result, operation, kind: .writeFailed) }
            context.pointee.pb = pb
        } else {
            let sink = MemorySink()
            self.sink = sink
            let bufferSize: Int32 = 64 * 1024
            guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self),
                let pb = avio_alloc_context(
                    buffer, bufferSize, 1, Unmanaged.passUnretained(sink).toOpaque(), nil, MemorySink.writeCallback, nil
                )
            else {
                throw MediaError(.other, operation: operation, message: "out of memory")
            }
            context.pointee.pb = pb
        }

        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        switch container {
        case .mp4(let faststart):
            if faststart { av_dict_set(&options, "movflags", "+faststart", 0) }
        case .fragmentedMP4:
            av_dict_set(&options, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0)
        case .mpegTS:
            break
        }
        let result = avformat_write_header(context, &options)
        guard result >= 0 else {
            throw FFmpegError.error(
                result, operation, kind: result == cc_averror(EINVAL) ? .invalidArgument : .writeFailed)
        }
        if let sink {
            avio_flush(context.pointee.pb)
            initSegment = sink.takeAll()
        }
    }

    /// Adds an output stream for `info`, its codec parameters filled by `fillParameters`.
    private func addStream(
        to context: UnsafeMutablePointer<AVFormatContext>, like info: StreamInfo,
        fillParameters: (UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) -> Void
    ) throws(MediaError) {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError(.other, operation: "add stream", message: "out of memory")
        }
        try fillParameters(stream.pointee.codecpar)
        // The source container's codec tag may be invalid in the target container; let it choose.
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: info.timeBase)
        Self.setRotation(info.rotation, on: stream)
        streamMap[info.index] = Int(stream.pointee.index)
    }

    private static func setRotation(_ degrees: Int, on stream: UnsafeMutablePointer<AVStream>) {
        guard degrees % 360 != 0,
            let matrix = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * MemoryLayout<Int32>.size)
        else { return }
        matrix.withMemoryRebound(to: Int32.self, capacity: 9) {
            // Our degrees are clockwise, as players apply them. With FFmpeg 5.1's mov muxer a
            // matrix set to +degrees here is what ffmpeg's own autorotate (and our reader) then
            // turn clockwise; the writer test checks this against the ffmpeg command line, so a
            // change of convention in another FFmpeg version shows up as a failing test.
            av_display_rotation_set($0, Double(degrees))
        }
    }
}

/// Collects muxer output in memory and cuts it at top-level MP4 box boundaries.
final class MemorySink {
    private var pending: [UInt8] = []
    private var fragments: [[UInt8]] = []

    static let writeCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 =
        { opaque, buffer, size in
            guard let opaque, let buffer, size > 0 else { return size }
            let sink = Unmanaged<MemorySink>.fromOpaque(opaque).takeUnretainedValue()
            sink.pending.append(contentsOf: UnsafeBufferPointer(start: buffer, count: Int(size)))
            return size
        }

    func takeAll() -> [UInt8] {
        defer { pending = [] }
        return pending
    }

    /// Moves every complete fragment (everything up to and including an `mdat`) out of `pending`.
    func collectFragments(final: Bool = false) {
        var offset = 0
        var fragmentStart = 0
        while offset + 8 <= pending.count {
            var size =
                Int(pending[offset]) << 24 | Int(pending[offset + 1]) << 16 | Int(pending[offset + 2]) << 8
                | Int(pending[offset + 3])
            let type = String(decoding: pending[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if size == 1, offset + 16 <= pending.count {
                size = pending[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) }
            }
            guard size >= 8, offset + size <= pending.count else { break }
            offset += size
            if type == "mdat" {
                fragments.append(Array(pending[fragmentStart..<offset]))
                fragmentStart = offset
            }
        }
        if final && fragmentStart < pending.count && offset == pending.count {
            // Trailing boxes (mfra) after the last fragment.
            fragments.append(Array(pending[fragmentStart...]))
            fragmentStart = pending.count
        }
        if fragmentStart > 0 { pending.removeFirst(fragmentStart) }
    }

    func takeFragments() -> [[UInt8]] {
        defer { fragments = [] }
        return fragments
    }
}
