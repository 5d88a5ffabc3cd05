import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile", abstract: "Stitch clips into a highlight reel.",
        discussion: """
              cgame compile a.mp4 b.mp4 c.mp4 -o reel.mp4
              cgame compile --all -o reel.mp4 --title "Best of the week" --length 45
              cgame compile --all -o reel.mp4 --transition none     (hard cuts; stream copy when possible)
            """)

    @Argument(help: "Clip files or clip ids.")
    var clips: [String] = []
    @Flag(help: "Use every saved and pending clip, oldest first.")
    var all = false
    @Option(name: .shortAndLong, help: "The reel (MP4).")
    var output: String
    @Option(help: "crossfade, dipToBlack or none.")
    var transition = "crossfade"
    @Option(help: "Transition length in seconds.")
    var transitionDuration: Double = 0.5
    @Option(help: "Title card text.")
    var title: String?
    @Option(help: "Fit the reel into this many seconds by trimming each clip around its events.")
    var length: Double?
    @OptionGroup var store: ClipStoreOption
    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let clipStore = try store.open()
        let known = clipStore.loadSavedClips() + clipStore.loadPendingClipMetadata()
        var items: [VideoCompiler.Item] = []
        if all {
            items = known.sorted { $0.timestamp < $1.timestamp }.map(Self.item)
        }
        for name in clips {
            if let clip = known.first(where: { $0.id == name || $0.id.hasPrefix(name) && name.count >= 6 }) {
                items.append(Self.item(clip))
            } else if FileManager.default.fileExists(atPath: name) {
                items.append(VideoCompiler.Item(path: name))
            } else {
                throw ValidationError("no clip file or clip id '\(name)'")
            }
        }
        guard !items.isEmpty else { throw ValidationError("give clip files or ids, or --all") }
        let kind: Transition.Kind?
        if transition == "none" {
            kind = nil
        } else if let parsed = Transition.Kind(rawValue: transition) {
            kind = parsed
        } else {
            throw ValidationError("--transition must be crossfade, dipToBlack or none")
        }
        let options = VideoCompiler.Options(
            transition: kind, transitionDuration: transitionDuration, title: title, targetDuration: length)
        let bar = Terminal.ProgressBar("Compiling \(items.count) clips")
        let result = try VideoCompiler.compile(items, to: output, options: options, progress: { bar.update($0) })
        bar.finish()
        if json {
            try printJSON(result)
        } else {
            print("wrote \(output): \(clock(result.duration)), \(result.videoFrames) frames, \(result.mode.rawValue)")
        }
    }

    static func item(_ clip: ClipMetadata) -> VideoCompiler.Item {
        let offsets = clip.eventOffsets
        let focus = offsets.isEmpty ? nil : (offsets.first! + offsets.last!) / 2
        return VideoCompiler.Item(path: clip.localPath, focus: focus)
    }
}
