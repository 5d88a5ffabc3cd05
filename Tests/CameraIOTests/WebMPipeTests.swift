import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The pipe a browser's stream goes through")
struct WebMPipeTests {
    /// Reads `path` (a FIFO) to its end, with plain reads as FFmpeg's file protocol does.
    func readToEnd(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, 4096) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// A short recording (a few seconds of a still picture is a few KiB) whose last chunk arrives
    /// before the reader has opened the pipe is read whole, not lost (the live-training route then
    /// said "the camera stream could not be read as a WebM video" when the machine was busy).
    @Test("a stream shorter than the pipe that ends before the reader opens it is read whole")
    func aShortStreamThatEndsBeforeTheReaderOpensIsReadWhole() throws {
        let folder = try WorkingDirectory.temporary()
        let pipe = try WebMPipe(folder: folder.path)
        let sent = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for start in stride(from: 0, to: sent.count, by: 4096) {
            #expect(pipe.write(Array(sent[start..<min(start + 4096, sent.count)])) == .queued)
        }
        pipe.finishInput()
        // The end has been given well before anyone reads.
        usleep(500_000)
        let received = readToEnd(pipe.path)
        pipe.readerFinished()
        #expect(received.count == sent.count && received == sent, "\(received.count) of \(sent.count) bytes read")
    }
}
