import CGameKit
import CameraCommon
import CommandLineSupport
import FoundationEssentials

enum Table {
    static func render(_ summary: HighlightPipeline.Summary) -> String {
        var table = TextTable(headers: ["clip", "at", "length", "events", "file"])
        for clip in summary.clips {
            table.rows.append([
                clip.name, clock(clip.sourceStart), "\(String(format1: clip.duration)) s",
                clip.events.joined(separator: " "),
                clip.localPath,
            ])
        }
        let stats = summary.statistics
        var text = summary.clips.isEmpty ? "No highlights." : table.rendered
        text += "\n\n\(summary.game): \(summary.events.count) events, \(summary.clips.count) clips from "
        text += "\(clock(summary.mediaSeconds)) of video in \(String(format1: summary.wallSeconds)) s "
        text += "(\(String(format1: summary.speed))× realtime); \(stats.analyzed) frames read"
        if stats.dropped > 0 { text += ", \(stats.dropped) dropped because recognition fell behind" }
        for failure in summary.failures { text += "\nnot saved: \(failure)" }
        return text
    }

    static func render(pending: [ClipMetadata], saved: [ClipMetadata]) -> String {
        var table = TextTable(headers: ["state", "id", "game", "clip", "length", "when", "file"])
        for (state, clips) in [("pending", pending), ("saved", saved)] {
            for clip in clips {
                table.rows.append([
                    state, String(clip.id.prefix(8)), clip.game, clip.name, "\(String(format1: clip.duration)) s",
                    clip.timestamp.formatted(.iso8601), clip.localPath,
                ])
            }
        }
        return table.rows.isEmpty ? "No clips yet. Record some with `cgame run`." : table.rendered
    }
}
