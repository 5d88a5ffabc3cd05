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

struct ClipsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clips", abstract: "List pending and saved clips.",
        discussion: "Pending clips wait to be uploaded by `cgame sync`; `--keep` moves them to the saved folder.")

    @OptionGroup var store: ClipStoreOption
    @Flag(help: "Move every pending clip to the saved folder.")
    var keep = false
    @Flag(help: "Delete unlisted files left in the pending folder by an interrupted export.")
    var clean = false
    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let clipStore = try store.open()
        if clean { Terminal.status("removed \(clipStore.removeOrphans()) leftover files") }
        if keep {
            for clip in clipStore.loadPendingClipMetadata() { _ = try clipStore.keep(clip) }
        }
        let (pending, problems) = clipStore.loadPending()
        let saved = clipStore.loadSavedClips()
        if json {
            try printJSON(Listing(pending: pending, saved: saved, problems: problems))
            return
        }
        print(Table.render(pending: pending, saved: saved))
        for problem in problems { Terminal.error("warning: \(problem)") }
    }

    struct Listing: Encodable {
        var pending: [ClipMetadata]
        var saved: [ClipMetadata]
        var problems: [String]
    }
}
