import ArgumentParser
import CameraAssemble
import CameraCommon
import CameraEffects
import CameraIO
import CommandLineSupport

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a multi-clip project (JSON) and export it.",
        discussion: """
            A project is a timeline of clips, each a range of a source video with its own mirror, \
            rotation, effects and transition to the next clip. Each command changes the project file \
            in place (atomically) and prints the timeline.

              cameracore edit new reel.json a.mp4 b.mp4 c.mp4
              cameracore edit trim reel.json 0 --start 2 --end 7.5
              cameracore edit split reel.json 1 --at 3
              cameracore edit move reel.json 2 0
              cameracore edit transition reel.json 0 crossfade 0.5
              cameracore edit export reel.json -o reel.mp4        # stream copy when it can
              cameracore edit sheet reel.json -o reel.png         # contact sheet
            """,
        subcommands: [
            New.self, Show.self, Trim.self, Split.self, Move.self, Delete.self, Mirror.self, Rotate.self,
            SetTransition.self, Export.self, Sheet.self,
        ])

    struct ProjectOption: ParsableArguments {
        @Argument(help: "The project file.")
        var project: String
    }

    /// Loads, applies one edit, saves, prints.
    static func change(_ path: String, _ edit: Edit) throws {
        let project = try Project.load(path)
        var editor = TimelineEditor(timeline: project.timeline)
        try editor.apply(edit)
        var changed = project
        changed.timeline = editor.timeline
        // Checks the edit against the sources (a trim past the end) before anything is saved.
        try changed.validate(operation: edit.name.lowercased())
        try changed.save(to: path)
        Show.print(changed)
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a project from whole clips, in order.")
        @Argument(help: "The project file to create.") var project: String
        @Argument(help: "Source videos.") var sources: [String]
        @Flag(help: "Replace an existing project file.") var force = false

        func run() throws {
            guard !sources.isEmpty else { throw ValidationError("give at least one source video") }
            if !force, (try? Project.load(project)) != nil {
                throw ValidationError("\(project) exists; use --force to replace it")
            }
            var clips: [Clip] = []
            for (index, source) in sources.enumerated() {
                let reader = try MediaReader(.file(source))
                guard reader.videoStream != nil, let duration = reader.duration else {
                    throw ValidationError("\(source) has no video or no known duration")
                }
                clips.append(
                    Clip(id: "clip\(index + 1)", source: source, range: TimeRange(start: .zero, duration: duration)))
            }
            let created = Project(timeline: Timeline(clips: clips))
            try created.save(to: project)
            Show.print(created)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the timeline.")
        @OptionGroup var options: ProjectOption
        @Flag(help: "Print the project as JSON.") var json = false

        func run() throws {
            let project = try Project.load(options.project)
            if json { try printJSON(project) } else { Self.print(project) }
        }

        static func print(_ project: Project) {
            let starts = project.timeline.clipStarts
            Swift.print("#  at        source range        clip")
            for (index, clip) in project.timeline.clips.enumerated() {
                var notes: [String] = []
                if clip.mirrored { notes.append("mirrored") }
                if clip.rotation != 0 { notes.append("rotated \(clip.rotation)°") }
                if let count = clip.effects?.layers.count, count > 0 { notes.append("\(count) effects") }
                if let transition = clip.transitionToNext {
                    notes.append("\(transition.kind.rawValue) \(formatNumber(transition.duration.seconds)) s →")
                }
                Swift.print(
                    "\(index)  \(clock(starts[index].seconds))  \(clock(clip.range.start.seconds))–\(clock(clip.range.end.seconds))  \(clip.id) \(clip.source) \(notes.joined(separator: ", "))"
                )
            }
            Swift.print("total \(clock(project.timeline.duration.seconds))")
        }
    }

    struct Trim: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a clip's in and/or out point (source time).")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number (from 0).") var index: Int
        @Option(help: "New in point.") var start: MediaTime?
        @Option(help: "New out point.") var end: MediaTime?
        func run() throws {
            guard start != nil || end != nil else { throw ValidationError("give --start, --end or both") }
            try EditCommand.change(options.project, .trim(index: index, start: start, end: end))
        }
    }

    struct Split: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Split a clip in two at a time from the clip's start.")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number (from 0).") var index: Int
        @Option(help: "Where to split, from the clip's start.") var at: MediaTime
        func run() throws {
            let project = try Project.load(options.project)
            let ids = Set(project.timeline.clips.map(\.id))
            var number = project.timeline.clips.count + 1
            while ids.contains("clip\(number)") { number += 1 }
            try EditCommand.change(options.project, .split(index: index, at: at, newID: "clip\(number)"))
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a clip to another position.")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number to move.") var from: Int
        @Argument(help: "Its new position.") var to: Int
        func run() throws { try EditCommand.change(options.project, .move(from: from, to: to)) }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a clip.")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number.") var index: Int
        func run() throws { try EditCommand.change(options.project, .delete(index: index)) }
    }

    struct Mirror: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mirror a clip left–right (or undo with --off).")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number.") var index: Int
        @Flag(help: "Turn mirroring off.") var off = false
        func run() throws { try EditCommand.change(options.project, .setMirrored(index: index, !off)) }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rotate a clip clockwise by 90, 180 or 270 degrees.")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number.") var index: Int
        @Argument(help: "Degrees, a multiple of 90 (negative turns anticlockwise).") var degrees: Int
        func run() throws { try EditCommand.change(options.project, .rotate(index: index, degrees: degrees)) }
    }

    struct SetTransition: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "transition", abstract: "Set the transition from a clip to the next: crossfade, dip, or none.")
        @OptionGroup var options: ProjectOption
        @Argument(help: "Clip number.") var index: Int
        @Argument(help: "crossfade, dip or none.") var kind: String
        @Argument(help: "Duration.") var duration: MediaTime = MediaTime(value: 1, timescale: 2)
        func run() throws {
            let transition: Transition?
            switch kind {
            case "crossfade": transition = Transition(kind: .crossfade, duration: duration)
            case "dip", "dipToBlack": transition = Transition(kind: .dipToBlack, duration: duration)
            case "none": transition = nil
            default: throw ValidationError("transition must be crossfade, dip or none, not \"\(kind)\"")
            }
            try EditCommand.change(options.project, .setTransition(index: index, transition))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the timeline to an MP4: stream copy when cut-only on keyframes, else re-encode.")
        @OptionGroup var options: ProjectOption
        @Option(name: .shortAndLong, help: "The MP4 to write.") var output: String
        @Option(help: "auto, copy or reencode.") var mode: String = "auto"
        @Option(help: "x264 quality when re-encoding (0 best … 51 worst).") var crf: Int = 20
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            let exportMode: TimelineExporter.Mode =
                switch mode {
                case "auto", "automatic": .automatic
                case "copy": .copy
                case "reencode": .reencode
                default: throw ValidationError("--mode must be auto, copy or reencode")
                }
            let project = try Project.load(options.project)
            let bar = Terminal.ProgressBar("export")
            let result = try TimelineExporter.export(
                project, to: output, mode: exportMode, crf: crf, progress: bar.update)
            bar.finish()
            if json {
                try printJSON(result)
            } else {
                let how =
                    result.mode == .streamCopy ? "stream copy (no re-encoding)" : "re-encoded (\(result.reason ?? ""))"
                print("Wrote \(output): \(clock(result.duration)), \(result.videoFrames) frames, \(how)")
            }
        }
    }

    struct Sheet: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a contact sheet of the timeline as PNG or JPEG.")
        @OptionGroup var options: ProjectOption
        @Option(name: .shortAndLong, help: "The image to write.") var output: String
        @Option(help: "Thumbnails.") var count: Int = 12
        @Option(help: "Thumbnails per row.") var columns: Int = 4
        func run() throws {
            let renderer = try TimelineRenderer(project: try Project.load(options.project))
            try ImageEncoder.write(renderer.contactSheet(count: count, columns: columns), to: output)
            print("Wrote \(output)")
        }
    }
}
