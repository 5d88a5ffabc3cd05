import Foundation
import Testing

@testable import CameraTesting

/// The tests' folders (up to 150 MB each, a few hundred per run) must not outlive the run: a
/// machine that runs CI often filled its disk with them once.
@Suite struct ScratchFolderTests {
    /// Makes a folder with a file in it. Run by `aTestProcessRemovesItsFoldersWhenItExits` as a
    /// child test process, it writes the folder's path where that test asks.
    @Test func aScratchFolderIsNewAndEmpty() throws {
        let folder = try ScratchFolder.make("scratch-test")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(folder.hasPrefix(ScratchFolder.root + "/scratch-test-"))
        #expect(try ScratchFolder.make("scratch-test") != folder)
        try Data("video".utf8).write(to: URL(fileURLWithPath: folder + "/clip.mp4"))
        if let report = ProcessInfo.processInfo.environment["CAMERACORE_SCRATCH_REPORT"] {
            try Data(folder.utf8).write(to: URL(fileURLWithPath: report))
        }
    }

    @Test func aTestProcessRemovesItsFoldersWhenItExits() throws {
        let report = try ScratchFolder.make("scratch-report") + "/folder.txt"
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try Subprocess.run(
            "env",
            [
                "CAMERACORE_SCRATCH_REPORT=\(report)", binary, "--testing-library", "swift-testing", "--filter",
                "aScratchFolderIsNewAndEmpty",
            ])
        let folder = try String(contentsOfFile: report, encoding: .utf8)
        #expect(folder.contains("/cameracore-tests-"))
        #expect(!FileManager.default.fileExists(atPath: folder), "the child's folder outlived it")
        #expect(!FileManager.default.fileExists(atPath: (folder as NSString).deletingLastPathComponent))
    }

    @Test func foldersOfATestProcessThatIsGoneAreRemovedAndARunningOnesKept() throws {
        let temporary = try ScratchFolder.make("scratch-abandoned") + "/"
        // A process that has exited: its id is free (until the kernel hands it out again).
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let abandoned = temporary + ScratchFolder.rootPrefix + String(gone.processIdentifier)
        let running = temporary + ScratchFolder.rootPrefix + String(getppid())
        let other = temporary + "cgame-tests-1"
        for folder in [abandoned, running, other] {
            try FileManager.default.createDirectory(atPath: folder + "/clip", withIntermediateDirectories: true)
        }
        ScratchFolder.removeAbandoned(in: temporary)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: running))
        #expect(FileManager.default.fileExists(atPath: other))
    }
}
