import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import Testing

/// Runs the built `cameracore` binary with `arguments` and returns what it printed.
func run(_ arguments: [String]) throws -> Subprocess.Output {
    try Subprocess.run(CommandTests.binary, arguments, check: false)
}

/// End-to-end: run the built `cameracore` binary as a user would.
@Suite("cameracore command")
struct CommandTests {
    /// The `cameracore` executable built next to the test bundle.
    static let binary: String = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.path.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
        return folder.appendingPathComponent("cameracore").path
    }()

    @Test("probe --json reports exact frame counts and keyframes")
    func probeJSON() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 3, gopSize: 45, audio: true)
        let output = try run(["probe", video.path, "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        let videoStream = try #require(streams.first { $0["type"] as? String == "video" })
        #expect(videoStream["sampleCount"] as? Int == 90)
        #expect(videoStream["keyframeTimes"] as? [Double] == [0, 1.5])
        let text = try run(["probe", video.path])
        #expect(text.stdout.contains("90 frames") && text.stdout.contains("keyframe every 45 frames"))
    }

    @Test("remux cuts from the keyframe and says so; frames saves every Nth frame")
    func remuxAndFrames() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 3, gopSize: 30)
        let cut = folder.file("cut.mp4")
        let remux = try run(["remux", video.path, cut, "--from", "1.2", "--to", "0:02.5"])
        #expect(remux.status == 0, "\(remux.stderr)")
        #expect(remux.stdout.contains("from 0:01.000") && remux.stdout.contains("keyframe before 0:01.200"))
        #expect(try FFprobeReport.read(cut).videoFrames.count >= 45)

        let frames = try run(["frames", video.path, "--every", "30", "--out", folder.file("thumbs"), "--width", "80"])
        #expect(frames.status == 0, "\(frames.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.file("thumbs")).sorted()
        #expect(files == ["frame-000000.png", "frame-000030.png", "frame-000060.png"])
    }

    @Test("frames saves a phone's video stored turned as it is shown, as ffmpeg does")
    func framesOfATurnedVideo() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, frameCount: 10)
        let turned = try TestMedia.storedTurned(video.path, to: folder.file("portrait.mp4"), degrees: 90)
        let frames = try run(["frames", turned, "--every", "5", "--out", folder.file("thumbs")])
        #expect(frames.status == 0, "\(frames.stderr)")
        let first = try ImageDecoder.load(folder.file("thumbs/frame-000000.png"), format: .rgba)
        #expect(first.width == video.width && first.height == video.height)
        let psnr = SyntheticPattern.psnr(
            first, SyntheticPattern.frame(index: 0, width: video.width, height: video.height))
        #expect(psnr > 30, "\(psnr) dB against the picture shown")
    }

    @Test(
        "portrait videos stored upright (widths 360, 1080, 540, 200: 8 or more over a multiple of 16) decode to RGBA without corrupting memory"
    )
    func portraitWidthsDecode() throws {
        // libswscale writes up to 32 bytes past a packed RGBA picture of such a width: before the
        // converter's planes had room for it, `check` (and every re-encoding export) aborted with
        // "free(): invalid next size".
        let folder = try WorkingDirectory.temporary()
        for (width, height) in [(360, 640), (1080, 1920), (540, 960), (200, 100)] {
            let video = try TestMedia.lavfi(
                in: folder.path, name: "\(width).mp4", width: width, height: height, frameRate: 10, seconds: 1)
            let checked = try run(["check", video.path, "--pixel-format", "rgba"])
            #expect(
                checked.status == 0 && checked.stdout.contains("decoded 10 frames"),
                "\(width)×\(height): \(checked.status) \(checked.stderr.prefix(200))")
        }
    }

    @Test("errors name what was wrong and exit non-zero without crashing")
    func errors() throws {
        let missing = try run(["probe", "/no/such/file.mp4"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/no/such/file.mp4") && missing.stderr.contains("no such file"))

        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 1)
        let badTime = try run(["remux", video.path, folder.file("x.mp4"), "--from", "soon"])
        #expect(badTime.status != 0 && badTime.stderr.contains("soon"))
        let backwards = try run(["remux", video.path, folder.file("x.mp4"), "--from", "2", "--to", "1"])
        #expect(backwards.status != 0 && backwards.stderr.contains("--to"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.mp4")))
        let password = try run(["probe", "rtsp://admin:hunter2@127.0.0.1:1/stream", "--timeout", "1"])
        #expect(password.status != 0 && !password.stderr.contains("hunter2") && password.stderr.contains("admin:***@"))
    }

    @Test("--help teaches with examples")
    func help() throws {
        let help = try run(["--help"])
        #expect(help.stdout.contains("cameracore remux match.mp4 highlight.mp4 --from 1:05 --to 1:35"))
        let remuxHelp = try run(["remux", "--help"])
        #expect(remuxHelp.stdout.contains("keyframe"))
        // Paragraphs read as paragraphs: each line of prose is filled before the next begins, and
        // the examples fit 80 columns (the terminal's width when it is not a terminal).
        for command in [[], ["probe"], ["remux"], ["frames"], ["check"], ["effects"], ["edit"], ["playable"], ["demo"]]
        {
            let page = try run(command + ["--help"]).stdout
            #expect(HelpText.underfilledLines(page).isEmpty, "\(command): \(HelpText.underfilledLines(page))")
            #expect(
                HelpText.wideExamples(page).isEmpty, "\(command): wider than 80 columns: \(HelpText.wideExamples(page))"
            )
        }
    }
}

@Suite("cameracore effects")
struct EffectsCommandTests {

    @Test("renders a video through a stack file, keeps every frame and the audio")
    func renderStack() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 2, audio: true)
        let stack = folder.file("stack.json")
        try #"{"layers": [{"type": "filter", "filter": {"kind": "grayscale", "amount": 1, "radius": 0.5}}]}"#
            .write(toFile: stack, atomically: true, encoding: .utf8)
        let output = folder.file("gray.mp4")
        let result = try run(["effects", video.path, "--stack", stack, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try FFprobeReport.read(output)
        #expect(probe.videoFrames.count == video.frameCount)
        #expect(!probe.audioFrames.isEmpty, "audio copied")
        // Grey output: chroma sits at neutral 128 (within encoder noise).
        let raw = try Subprocess.runBinary(
            "ffmpeg", ["-v", "error", "-i", output, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let chroma = raw[(320 * 240)...]
        #expect(chroma.allSatisfy { abs(Int($0) - 128) <= 3 })
    }

    @Test("a phone's video stored turned is styled as it is shown: the text lands where it does on the upright video")
    func stackOnATurnedVideo() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.synthetic(in: folder.path, frameCount: 10)
        let turned = try TestMedia.storedTurned(video.path, to: folder.file("turned.mp4"), degrees: 90)
        let stack = folder.file("stack.json")
        try
            ##"{"layers": [{"type": "text", "text": {"text": "GG", "font": "DejaVu Sans", "bold": true, "size": 0.3, "color": "#FFFFFF", "outlineColor": "#FFFFFF", "outlineWidth": 0, "x": 0.05, "y": 0.05}}]}"##
            .write(toFile: stack, atomically: true, encoding: .utf8)
        var shown: [[UInt8]] = []
        for (source, name) in [(video.path, "upright.mp4"), (turned, "styled.mp4")] {
            let result = try run(["effects", source, "--stack", stack, "-o", folder.file(name)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try MediaReader(.file(folder.file(name))).videoStream?.rotation == 0)
            // As a player shows it (ffmpeg turns by the matrix).
            shown.append(
                try Subprocess.runBinary(
                    "ffmpeg",
                    [
                        "-v", "error", "-i", folder.file(name), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray",
                        "-",
                    ]
                ))
        }
        try #require(shown[0].count == video.width * video.height && shown[1].count == shown[0].count)
        // The text's white strokes, top left of the picture (nothing else in it is that bright):
        // the same pixels in both.
        let white = { (raw: [UInt8]) in Set(raw.indices.filter { raw[$0] > 245 }) }
        let (upright, styled) = (white(shown[0]), white(shown[1]))
        #expect(upright.count > 100)
        #expect(
            Double(upright.intersection(styled).count) >= 0.8 * Double(upright.union(styled).count),
            "text pixels: \(upright.count) upright, \(styled.count) styled, \(upright.intersection(styled).count) shared"
        )
    }

    @Test("a bad stack file is named with the field at fault, and nothing is written")
    func badStack() throws {
        let folder = try WorkingDirectory.temporary()
        let video = try TestMedia.lavfi(in: folder.path, seconds: 1)
        let stack = folder.file("stack.json")
        try #"{"layers": [{"type": "sparkles"}]}"#.write(toFile: stack, atomically: true, encoding: .utf8)
        let result = try run(["effects", video.path, "--stack", stack, "-o", folder.file("out.mp4")])
        #expect(result.status != 0 && result.stderr.contains("sparkles"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4")))
    }
}

@Suite("cameracore edit")
struct EditCommandTests {

    @Test("new, trim, transition, export and sheet; a bad trim is refused and the file kept")
    func editFlow() throws {
        let folder = try WorkingDirectory.temporary()
        let a = try TestMedia.lavfi(in: folder.path, name: "a.mp4", seconds: 3, gopSize: 15, audio: true)
        let b = try TestMedia.lavfi(in: folder.path, name: "b.mp4", seconds: 3, gopSize: 15, audio: true)
        let project = folder.file("reel.json")
        #expect(try run(["edit", "new", project, a.path, b.path]).stdout.contains("total 0:06.000"))
        #expect(
            try run(["edit", "trim", project, "0", "--start", "1", "--end", "2"]).stdout.contains("total 0:04.000"))
        let copy = try run(["edit", "export", project, "-o", folder.file("cut.mp4")])
        #expect(copy.stdout.contains("stream copy"), "\(copy.stdout)\(copy.stderr)")
        #expect(try run(["edit", "transition", project, "0", "crossfade", "0.5"]).stdout.contains("total 0:03.500"))
        let reencoded = try run(["edit", "export", project, "-o", folder.file("fade.mp4"), "--json"])
        #expect(reencoded.stdout.contains("\"reencode\""), "\(reencoded.stderr)")
        #expect(try FFprobeReport.read(folder.file("fade.mp4")).videoFrames.count == 105)
        #expect(try run(["edit", "sheet", project, "-o", folder.file("sheet.png")]).status == 0)

        let before = try String(contentsOfFile: project, encoding: .utf8)
        let bad = try run(["edit", "trim", project, "0", "--end", "9"])
        #expect(bad.status != 0 && bad.stderr.contains("outside its source"))
        #expect(try String(contentsOfFile: project, encoding: .utf8) == before, "a refused edit changes nothing")
    }
}

@Suite("cameracore playable")
struct PlayableCommandTests {
    @Test(
        "an H.265 phone video becomes an H.264 copy with its sound; H.264 is left alone unless --force, which turns a portrait upright; a non-video is named"
    )
    func playable() throws {
        let folder = try WorkingDirectory.temporary()
        let phone = try TestMedia.lavfi(
            in: folder.path, name: "phone.mp4", width: 640, height: 360, seconds: 1, audio: true,
            extraArguments: ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1"])
        let copy = folder.file("copy.mp4")
        let made = try run(["playable", phone.path, copy, "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        #expect(json["copied"] as? Bool == true && (json["reason"] as? String ?? "").contains("H.265"), "\(json)")
        let probe = try FFprobeReport.read(copy)
        #expect(probe.videoCodec == "h264" && probe.width == 640 && probe.height == 360)
        #expect(probe.videoFrames.count == 30 && !probe.audioFrames.isEmpty)
        let text = try run(["playable", phone.path, folder.file("again.mp4")])
        #expect(text.stdout.contains("H.264 640×360") && text.stdout.contains("with its sound"), "\(text.stdout)")
        // H.264 stored turned (as a phone stores what it filmed): plays already; forced, the copy's
        // frames are stored as shown, with no turn left to apply.
        let portrait = try TestMedia.storedTurned(phone.path, to: folder.file("portrait.mp4"), degrees: 90)
        let alone = try run(["playable", portrait, folder.file("none.mp4")])
        #expect(alone.status == 0 && alone.stdout.contains("plays in every browser already"), "\(alone.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.mp4")))
        let forced = try run(["playable", portrait, folder.file("upright.mp4"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr.prefix(300))")
        let upright = try FFprobeReport.read(folder.file("upright.mp4"))
        #expect(upright.width == 640 && upright.height == 360 && (upright.rotation ?? 0) == 0, "\(upright)")
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: folder.file("notes.mp4")))
        let junk = try run(["playable", folder.file("notes.mp4"), folder.file("junk.mp4")])
        #expect(junk.status != 0 && junk.stderr.contains("notes.mp4"), "\(junk.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("junk.mp4")))
    }
}
