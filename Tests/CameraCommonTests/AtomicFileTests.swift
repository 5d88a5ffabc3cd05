import Foundation
import Testing

@testable import CameraCommon

@Suite("AtomicFile")
struct AtomicFileTests {
    /// The id of a process that ran and has ended (reaped): nothing answers to it now.
    static func endedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test("a temporary file's name tells the file it was to become and its writer; other names do not")
    func names() throws {
        let folder = try WorkingDirectory.temporary(prefix: "atomic")
        defer { folder.remove() }
        let path = try AtomicFile.temporaryPath(for: folder.file("sideLeft-4701.mp4"))
        let name = String(path.split(separator: "/").last!)
        #expect(AtomicFile.temporary(name)?.file == "sideLeft-4701.mp4")
        #expect(AtomicFile.temporary(name)?.writer == getpid())
        #expect(AtomicFile.temporary(".clip.mp4.tmp-4821-1.mp4")?.file == "clip.mp4")
        #expect(AtomicFile.temporary(".clip.mp4.tmp-4821-1.mp4")?.writer == 4821)
        for other in ["clip.mp4", ".hidden", ".clip.mp4.tmp-", ".tmp-12-1", ".clip.mp4.tmp-x-1", "clip.mp4.tmp-12-1"] {
            #expect(AtomicFile.temporary(other) == nil, "\(other)")
        }
    }

    @Test("a killed writer's hidden file is deleted; a running writer's, other hidden files and finished files stay")
    func leftovers() throws {
        let folder = try WorkingDirectory.temporary(prefix: "atomic")
        defer { folder.remove() }
        let dead = try Self.endedProcess()
        let killed = ".sideLeft-4701.mp4.tmp-\(dead)-3.mp4"
        let running = ".sideLeft-4702.mp4.tmp-\(getpid())-4.mp4"
        let kept = ["sideLeft-4701.mp4", "truth.json", ".hidden-notes", running]
        for name in kept + [killed] { try AtomicFile.write("x", to: folder.file(name), durable: false) }

        #expect(AtomicFile.removeLeftovers(in: folder.path) == [killed])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == kept.sorted())
        // Once more: nothing left to delete, nothing else touched.
        #expect(AtomicFile.removeLeftovers(in: folder.path).isEmpty)
        #expect(AtomicFile.removeLeftovers(in: folder.file("missing")).isEmpty)
    }
}
