import CameraAssemble
import CameraCommon
import CameraEffects
import CameraIO
import CameraTesting
import Testing

func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value, timescale: 1000) }

func clip(_ id: String, _ start: Double, _ end: Double, source: String = "a.mp4") -> Clip {
    Clip(id: id, source: source, range: TimeRange(start: seconds(start), end: seconds(end)))
}

@Suite("Timeline edits")
struct TimelineEditTests {
    func editor() throws -> TimelineEditor {
        var editor = TimelineEditor(sourceDurations: ["a.mp4": seconds(10), "b.mp4": seconds(4)])
        try editor.apply(.append(clip("one", 0, 4)))
        try editor.apply(.append(clip("two", 1, 3, source: "b.mp4")))
        try editor.apply(.append(clip("three", 5, 8)))
        return editor
    }

    @Test("every edit and its undo and redo")
    func editsAndUndo() throws {
        var editor = try editor()
        let original = editor.timeline
        #expect(original.duration == seconds(9))
        let edits: [(Edit, (Timeline) -> Bool)] = [
            (.insert(clip("zero", 0, 1), at: 0), { $0.clips.map(\.id) == ["zero", "one", "two", "three"] }),
            (.move(from: 2, to: 0), { $0.clips.map(\.id) == ["three", "one", "two"] }),
            (
                .trim(index: 0, start: seconds(1), end: seconds(3)),
                { $0.clips[0].range == TimeRange(start: seconds(1), end: seconds(3)) }
            ),
            (
                .split(index: 0, at: seconds(1.5), newID: "one-b"),
                {
                    $0.clips.map(\.id) == ["one", "one-b", "two", "three"] && $0.clips[0].range.end == seconds(1.5)
                        && $0.clips[1].range.start == seconds(1.5) && $0.duration == seconds(9)
                }
            ),
            (.delete(index: 1), { $0.clips.map(\.id) == ["one", "three"] }),
            (.setMirrored(index: 2, true), { $0.clips[2].mirrored }),
            (.rotate(index: 1, degrees: -90), { $0.clips[1].rotation == 270 }),
            (
                .setTransition(index: 0, Transition(kind: .crossfade, duration: seconds(1))),
                { $0.duration == seconds(8) }
            ),
        ]
        for (edit, check) in edits {
            try editor.apply(edit)
            #expect(check(editor.timeline), "\(edit.name)")
            #expect(editor.undoName == edit.name)
            let undone = editor.undo()
            #expect(undone && editor.timeline == original, "undo \(edit.name)")
            let redone = editor.redo()
            #expect(redone && check(editor.timeline), "redo \(edit.name)")
            let undoneAgain = editor.undo()
            #expect(undoneAgain)
        }
        #expect(editor.timeline == original)
    }

    @Test(
        "refused edits say why and change nothing",
        arguments: [
            (Edit.trim(index: 0, start: nil, end: seconds(12)), "lasts 10"),
            (.trim(index: 0, start: seconds(3), end: seconds(2)), "after the in point"),
            (.move(from: 0, to: 7), "does not exist"),
            (.split(index: 1, at: seconds(5), newID: "x"), "outside clip"),
            (.split(index: 1, at: seconds(1), newID: "one"), "already exists"),
            (.rotate(index: 0, degrees: 45), "multiple of 90"),
            (.setTransition(index: 2, Transition(kind: .crossfade, duration: seconds(1))), "last clip"),
            (.setTransition(index: 0, Transition(kind: .crossfade, duration: seconds(3))), "does not fit"),
            (.append(clip("one", 0, 1)), "already exists"),
        ])
    func refused(edit: Edit, reason: String) throws {
        var editor = try editor()
        let before = editor.timeline
        var caught: MediaError?
        do { try editor.apply(edit) } catch { caught = error }
        #expect(caught.map { "\($0)".contains(reason) } == true, "\(String(describing: caught))")
        #expect(editor.timeline == before)
    }

    @Test("inside a crossfade two clips are active with a rising weight")
    func clipsAtTime() throws {
        var editor = try editor()
        try editor.apply(.setTransition(index: 0, Transition(kind: .crossfade, duration: seconds(1))))
        let timeline = editor.timeline
        #expect(timeline.clips(at: seconds(2)).map(\.index) == [0])
        let middle = timeline.clips(at: seconds(3.5))
        #expect(middle.map(\.index) == [0, 1])
        #expect(abs(middle[1].weight - 0.5) < 1e-9)
        #expect(middle[1].localTime == seconds(1.5), "clip two starts at source 1 s, half a second in")
        #expect(timeline.clips(at: seconds(9)).isEmpty)
    }
}

@Suite("Project files and rendering")
struct ProjectTests {
    @Test("a project saves, loads, and rejects missing sources, bad trims and unknown effects by name")
    func projectFiles() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 3)
        var good = clip("one", 0, 2, source: video.path)
        good.effects = EffectStackConfiguration(layers: [.filter(.init(kind: .grayscale, amount: 1))])
        let project = Project(timeline: Timeline(clips: [good]))
        try project.save(to: folder.file("p.json"))
        #expect(try Project.load(folder.file("p.json")) == project)

        let cases: [(Timeline, String)] = [
            (Timeline(clips: [clip("gone", 0, 1, source: folder.file("missing.mp4"))]), "missing.mp4"),
            (Timeline(clips: [clip("long", 1, 9, source: video.path)]), "clips[0] (long)"),
            (Timeline(clips: []), "no clips"),
        ]
        for (timeline, mention) in cases {
            try Project(timeline: timeline).save(to: folder.file("bad.json"))
            #expect { try Project.load(folder.file("bad.json")) } throws: { "\($0)".contains(mention) }
        }
        try writeText(
            #"{"version": 1, "timeline": {"clips": [{"id": "x", "source": "\#(video.path)", "range": {"start": {"value": 0, "timescale": 1}, "end": {"value": 1, "timescale": 1}}, "mirrored": false, "rotation": 0, "effects": {"layers": [{"type": "confetti"}]}}]}}"#,
            to: folder.file("effect.json"))
        #expect { try Project.load(folder.file("effect.json")) } throws: { "\($0)".contains("confetti") }
    }

    @Test("the frame at a time comes from the right clip, mirrored and rotated as edited")
    func frameAtTime() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, width: 160, height: 120, frameCount: 60, gopSize: 15)
        var second = clip("b", 0.5, 1, source: video.path)
        second.mirrored = true
        var third = clip("c", 0, 0.5, source: video.path)
        third.rotation = 90
        let project = Project(timeline: Timeline(clips: [clip("a", 1, 1.5, source: video.path), second, third]))
        let renderer = try TimelineRenderer(project: project)
        #expect(renderer.width == 160 && renderer.height == 120)
        // Timeline 0.2 s is source 1.2 s: frame 36 of the synthetic pattern.
        let first = try renderer.frame(at: seconds(0.2))
        #expect(SyntheticPattern.psnr(first, SyntheticPattern.frame(index: 36, width: 160, height: 120)) > 30)
        // Timeline 0.6 s is source 0.6 s (frame 18), mirrored: its left edge is the source's right edge.
        let mirrored = try renderer.frame(at: seconds(0.6))
        let reference = SyntheticPattern.frame(index: 18, width: 160, height: 120)
        #expect(abs(Int(mirrored.rgba(x: 2, y: 60).r) - Int(reference.rgba(x: 157, y: 60).r)) < 12)
        // The rotated clip is fitted into 160x120: a 90x120 picture centred, black bars at the sides.
        let rotated = try renderer.frame(at: seconds(1.2))
        #expect(rotated.rgba(x: 5, y: 60).r < 10 && rotated.rgba(x: 80, y: 60).g > 10)
    }

    @Test("a contact sheet lays thumbnails in a grid")
    func contactSheet() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2)
        let renderer = try TimelineRenderer(
            project: Project(timeline: Timeline(clips: [clip("a", 0, 2, source: video.path)])))
        let sheet = try renderer.contactSheet(count: 6, columns: 3, thumbnailWidth: 80)
        #expect(sheet.width == 3 * 80 + 4 * 4 && sheet.height == 2 * 60 + 3 * 4)
        #expect(sheet.rgba(x: 1, y: 1).r == 0, "gaps are black")
        #expect(sheet.rgba(x: 40, y: 30).a == 255)
    }
}

func writeText(_ text: String, to path: String) throws {
    try AtomicFile.write(text, to: path)
}
