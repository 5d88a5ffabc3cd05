import CameraCommon
import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Testing
import WatchBoxKit

@testable import CameraServer

/// The routes the web app's screens stand on: the game list, reels with progress, workout history,
/// a camera connection test and grid order, and the account (password, sign out everywhere, delete).
@Suite("App routes", .serialized)
struct AppRoutesTests {
    @Test("settings accept only games the server has a profile for; aliases are saved by name")
    func settingsNameARealGame() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let games = try await server.request(.GET, "/api/profiles", token: user.token).array
        #expect(games.compactMap { $0["name"] as? String }.contains("Fortnite"))
        #expect(games.allSatisfy { !(($0["events"] as? [String]) ?? []).isEmpty })
        var settings: [String: Any] = [
            "gameProfileName": "Minecraft lol", "videoQuality": "720p", "preRollDuration": 4, "postRollDuration": 2,
        ]
        let refused = try await server.request(.PUT, "/api/settings", token: user.token, json: settings)
        #expect(refused.status == 400)
        #expect(refused.text.contains("gameProfileName: no game called"), "\(refused.text)")
        #expect(refused.text.contains("Valorant"), "the refusal lists the games: \(refused.text)")
        // Nothing of the refused save was kept.
        #expect(
            try await server.request(.GET, "/api/settings", token: user.token).object["gameProfileName"] as? String
                == "Fortnite")
        settings["gameProfileName"] = "fn"
        let saved = try await server.request(.PUT, "/api/settings", token: user.token, json: settings)
        #expect(saved.status == 200)
        #expect(
            try await server.request(.GET, "/api/settings", token: user.token).object["gameProfileName"] as? String
                == "Fortnite")
    }

    @Test("reels: options are checked, the list names them, progress while compiling, delete removes the file")
    func reelsListProgressAndDelete() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let clip = try ServerMedia.clip.get()
        for id in ["r1", "r2"] {
            #expect(
                try await server.request(.PUT, "/api/clips/\(id)", token: user.token, json: clipMetadata).status == 200)
            #expect(
                try await server.request(.PUT, "/api/clips/\(id)/file", token: user.token, body: clip).status == 200)
        }
        let badTransition = try await server.request(
            .POST, "/api/reels", token: user.token, json: ["clipIDs": ["r1"], "transition": "wipe"])
        #expect(badTransition.status == 400 && badTransition.text.contains("transition"), "\(badTransition.text)")
        let badLength = try await server.request(
            .POST, "/api/reels", token: user.token, json: ["clipIDs": ["r1"], "targetDuration": 1])
        #expect(badLength.status == 400 && badLength.text.contains("targetDuration"), "\(badLength.text)")

        let made = try await server.request(
            .POST, "/api/reels", token: user.token,
            json: ["clipIDs": ["r1", "r2"], "title": "  Friday night  ", "transition": "dipToBlack"])
        #expect(made.status == 202, "\(made.text)")
        let id = made.object["id"] as? String ?? ""
        #expect(made.object["progress"] as? Double == 0)
        var reel: [String: Any] = [:]
        var sawProgress = false
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            reel = try await server.request(.GET, "/api/reels", token: user.token).array.first ?? [:]
            if reel["status"] as? String == "compiling", reel["progress"] is Double { sawProgress = true }
            if reel["status"] as? String != "compiling" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sawProgress, "the list never showed progress while compiling")
        #expect(reel["status"] as? String == "ready", "\(reel)")
        #expect(reel["title"] as? String == "Friday night")
        #expect(reel["progress"] == nil, "a finished reel has no progress")
        let file = try await server.request(.GET, "/api/reels/\(id)/file", token: user.token)
        #expect(file.status == 200 && file.body.count > 1000)
        #expect(try await server.request(.DELETE, "/api/reels/\(id)", token: user.token).status == 204)
        #expect(try await server.request(.GET, "/api/reels", token: user.token).array.isEmpty)
        #expect(try await server.request(.GET, "/api/reels/\(id)/file", token: user.token).status == 404)
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/reels/\(user.id)/\(id).mp4"))
    }

    @Test("workouts: the history lists them, the video is kept for replay (Range), delete removes all three files")
    func workoutHistoryAndVideo() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let video = try ServerMedia.clip.get()
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
        let posted = try await server.request(
            .POST, "/api/lebot/workouts?rim=0.45,0.2,0.1,0.03", token: user.token, body: video)
        #expect(posted.status == 201, "\(posted.text)")
        let id = posted.object["id"] as? String ?? ""
        #expect(posted.object["videoURL"] as? String == "/api/lebot/workouts/\(id)/video")
        #expect(posted.object["rim"] as? String == "0.450,0.200,0.100,0.030")
        #expect((posted.object["analysis"] as? [String: Any])?["rimFound"] == nil)
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        #expect(history.count == 1 && history.first?["id"] as? String == id)
        #expect((history.first?["made"] as? Int ?? -1) <= (history.first?["shots"] as? Int ?? -2))
        let part = try await server.request(
            .GET, "/api/lebot/workouts/\(id)/video", token: user.token, headers: [("Range", "bytes=0-99")])
        #expect(part.status == 206 && part.body == Array(video.prefix(100)))
        #expect(try await server.request(.DELETE, "/api/lebot/workouts/\(id)", token: user.token).status == 204)
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        #expect(left.isEmpty, "files left behind: \(left)")
        // A refused upload keeps nothing either.
        let junk = try await server.request(
            .POST, "/api/lebot/workouts?rim=0.4,0.2,0.1,0.03", token: user.token, body: [1, 2, 3])
        #expect(junk.status == 400)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)").isEmpty)
        // Without ?rim= the rim is looked for; a test pattern has no hoop: 422 in words, nothing kept.
        let unfound = try await server.request(.POST, "/api/lebot/workouts", token: user.token, body: video)
        #expect(unfound.status == 422, "\(unfound.text)")
        #expect((unfound.object["error"] as? String)?.contains("no hoop found") == true, "\(unfound.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)").isEmpty)
        let badRim = try await server.request(.POST, "/api/lebot/workouts?rim=2,0,0", token: user.token, body: video)
        #expect(badRim.status == 400 && badRim.text.contains("x,y,width,height"), "\(badRim.text)")
        // A point on the rim (a tap) is taken: the answer says how the rim was fitted there.
        let tapped = try await server.request(.POST, "/api/lebot/workouts?rim=0.5,0.5", token: user.token, body: video)
        #expect(tapped.status == 201, "\(tapped.text)")
        let fitted = (tapped.object["analysis"] as? [String: Any])?["rimFitted"] as? [String: Any]
        #expect(fitted?["fitted"] is Bool && (fitted?["evidence"] as? String)?.isEmpty == false, "\(tapped.text)")
        // A point off the picture, not a number, or with CR/LF inside a number is refused in words,
        // nothing kept (CR/LF around a number is whitespace, trimmed like a space).
        let kept = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        for (query, words) in [
            ("1.5,0.5", "fractions of the frame"), ("nan,nan", "fractions of the frame"),
            ("0.%0D%0A5,0.5", "x,y of a point"),
        ] {
            let refused = try await server.request(
                .POST, "/api/lebot/workouts?rim=\(query)", token: user.token, body: video)
            #expect(refused.status == 400 && refused.text.contains(words), "\(query): \(refused.text)")
        }
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)"))
                == Set(kept))
    }

    @Test(
        "rim fit before upload: a still of the video and the point tapped give the ring's box; a tap on nothing, a box, a missing point, not a picture, too big are each answered in words, nothing kept"
    )
    func rimFitOnAStill() async throws {
        let folder = try temporaryDirectory()
        let ring = folder + "/ring.mp4"
        try TestMedia.greyRing(at: ring, seconds: 1, frameRate: 10)
        let still = folder + "/still.png"
        _ = try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", ring, "-frames:v", "1", still])
        let picture = Array(try Data(contentsOf: URL(fileURLWithPath: still)))
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let box = TestMedia.greyRingBox
        let tapped = try await server.request(
            .POST, "/api/lebot/rim-fit?rim=0.632,0.34", token: user.token, body: picture,
            headers: [("Content-Type", "image/png")])
        #expect(tapped.status == 200, "\(tapped.text)")
        let rim = tapped.object["rim"] as? [String: Any] ?? [:]
        let width = rim["width"] as? Double ?? 0
        #expect(
            tapped.object["fitted"] as? Bool == true && width > 0.85 * box[2] && width < 1.2 * box[2], "\(tapped.text)")
        #expect(abs((rim["x"] as? Double ?? 0) + width / 2 - 0.625) < 0.25 * box[2], "\(tapped.text)")
        // The same ring as the fit on the video itself (its first frames), which the analysis uses.
        let video = try await server.request(
            .POST, "/api/lebot/rim-fit?rim=0.632,0.34", token: user.token,
            body: Array(try Data(contentsOf: URL(fileURLWithPath: ring))))
        #expect(video.status == 200 && (video.object["rim"] as? [String: Any])?["width"] as? Double == width)
        let bare = try await server.request(
            .POST, "/api/lebot/rim-fit?rim=0.2,0.7", token: user.token, body: picture)
        #expect(bare.status == 200 && bare.object["fitted"] as? Bool == false, "\(bare.text)")
        #expect((bare.object["evidence"] as? String ?? "").contains("typical size"))
        for (query, body, status, words) in [
            ("rim=0.6,0.3,0.05,0.03", picture, 400, "point tapped"), ("", picture, 400, "point tapped"),
            ("rim=0.5,1.5", picture, 400, "fractions of the frame"),
            ("rim=0.5,0.5", Array("GIF89a not a picture".utf8), 400, "not a PNG or JPEG"),
            ("rim=0.5,0.5", [UInt8](repeating: 0x89, count: 9 * 1024 * 1024), 413, "8"),
        ] as [(String, [UInt8], Int, String)] {
            let refused = try await server.request(.POST, "/api/lebot/rim-fit?\(query)", token: user.token, body: body)
            #expect(
                refused.status == status && refused.text.contains(words), "\(query): \(refused.status) \(refused.text)")
            #expect(!refused.text.contains(server.directory), "a path in \(refused.text)")
        }
        let left =
            (try? FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(try await server.request(.POST, "/api/lebot/rim-fit?rim=0.5,0.5", body: picture).status == 401)
    }

    @Test(
        "first frame for a browser that cannot show the video: H.265 and a portrait stored turned give a JPEG of the picture as analysed; not a video, too big, signed out are answered in words; only the latest video sent is kept"
    )
    func firstFrameOfAVideoTheBrowserCannotShow() async throws {
        let folder = try temporaryDirectory()
        let ring = folder + "/ring.mp4"
        try TestMedia.greyRing(at: ring, seconds: 1, frameRate: 10)
        // H.265, as an iPhone records.
        let hevc = try Self.hevc(of: ring)
        let turned = try TestMedia.storedTurned(ring, to: folder + "/turned.mp4", degrees: 90)
        let server = try await TestServer.start { $0.maxWorkoutBytes = 4 * 1024 * 1024 }
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let probe = try FFprobeReport.read(ring)
        let (width, height) = (probe.width ?? 0, probe.height ?? 0)
        // The portrait's frames are stored turned (a reader that ignores the display matrix sees
        // them on their side); the still is the picture as shown, like the H.265 one.
        #expect(try FFprobeReport.read(turned).width == height)
        var stills: [[UInt8]] = []
        var uploads: [String] = []
        for (path, size) in [(hevc, (width, height)), (turned, (width, height))] {
            let answer = try await server.request(
                .POST, "/api/lebot/first-frame", token: user.token,
                body: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            #expect(answer.status == 200, "\(path): \(answer.text.prefix(300))")
            uploads.append(answer.object["upload"] as? String ?? "")
            #expect(
                answer.object["width"] as? Int == size.0 && answer.object["height"] as? Int == size.1,
                "\(path): \(answer.object["width"] ?? 0)×\(answer.object["height"] ?? 0), not \(size)")
            let picture = answer.object["picture"] as? String ?? ""
            #expect(picture.hasPrefix("data:image/jpeg;base64,"))
            let jpeg = Data(base64Encoded: String(picture.dropFirst("data:image/jpeg;base64,".count))) ?? Data()
            #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]) && jpeg.count > 1000, "\(jpeg.count) bytes")
            // What the page marks the rim on: the grey ring where the truth has it, upright.
            let still = folder + "/still.jpg"
            try jpeg.write(to: URL(fileURLWithPath: still))
            let stillProbe = try FFprobeReport.read(still)
            #expect(stillProbe.width == size.0 && stillProbe.height == size.1)
            stills.append(
                try Subprocess.runBinary(
                    "ffmpeg", ["-v", "error", "-i", still, "-f", "rawvideo", "-pix_fmt", "gray", "-"]))
        }
        // The same picture both ways: the grey ring where the source has it.
        if stills.count == 2, stills[0].count == stills[1].count, !stills[0].isEmpty {
            let difference = zip(stills[0], stills[1]).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / stills[0].count
            #expect(difference < 8, "mean difference \(difference)")
        } else {
            Issue.record("stills of \(stills.map(\.count)) bytes")
        }
        for (body, status, words) in [
            (Array("GIF89a not a video".utf8), 400, "not an MP4"),
            ([UInt8](repeating: 0, count: 5 * 1024 * 1024), 413, "4"),
        ] as [([UInt8], Int, String)] {
            let refused = try await server.request(.POST, "/api/lebot/first-frame", token: user.token, body: body)
            #expect(refused.status == status && refused.text.contains(words), "\(refused.status) \(refused.text)")
            #expect(!refused.text.contains(server.directory), "a path in \(refused.text)")
        }
        // Kept for the analysis: the latest video read, not the refused ones nor the one before.
        let left =
            (try? FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")) ?? []
        #expect(left == [".sent-\(uploads.last ?? "").mp4"], "\(left), sent \(uploads)")
        let video = Array(try Data(contentsOf: URL(fileURLWithPath: ring)))
        #expect(try await server.request(.POST, "/api/lebot/first-frame", body: video).status == 401)
    }

    @Test(
        "an H.265 workout sent once for its first frame is analysed by its id with no second upload, and replayed from an H.264 copy of the same length; another user's id, a bad one, an old one and a replaced one are refused in words"
    )
    func sentVideoAnalysedByIDAndReplayedAsH264() async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 3).first)
        let hevc = try Self.hevc(of: workout.path)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: hevc)))
        let rim = workout.rim.map { String($0) }.joined(separator: ",")
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let sentFrame = try await server.request(.POST, "/api/lebot/first-frame", token: user.token, body: bytes)
        let id = try #require(sentFrame.object["upload"] as? String, "\(sentFrame.text.prefix(300))")
        // Another user cannot name it: the same id is looked up in their own folder.
        let other = try await server.user()
        let stolen = try await server.request(.POST, "/api/lebot/workouts?upload=\(id)&rim=\(rim)", token: other.token)
        #expect(stolen.status == 404 && stolen.text.contains("send it again"), "\(stolen.status) \(stolen.text)")
        for bad in ["..%2F..%2Fsecrets", "a%0D%0Ab", String(repeating: "a", count: 65)] {
            let refused = try await server.request(.POST, "/api/lebot/workouts?upload=\(bad)", token: user.token)
            #expect(refused.status == 400 && refused.text.contains("upload"), "\(bad): \(refused.text)")
        }
        // By its id, with no body: the same shots as the video sent with the request.
        let byID = try await server.request(.POST, "/api/lebot/workouts?upload=\(id)&rim=\(rim)", token: user.token)
        #expect(byID.status == 201, "\(byID.text.prefix(300))")
        let sentAgain = try await server.request(
            .POST, "/api/lebot/workouts?rim=\(rim)", token: user.token, body: bytes)
        #expect(sentAgain.status == 201, "\(sentAgain.text.prefix(300))")
        let shots = { (reply: TestServer.Reply) in
            ((reply.object["analysis"] as? [String: Any])?["shots"] as? [[String: Any]] ?? []).map {
                "\($0["outcome"] ?? "") at \($0["releaseTime"] ?? "")"
            }
        }
        #expect(!shots(byID).isEmpty && shots(byID) == shots(sentAgain), "\(shots(byID)) vs \(shots(sentAgain))")
        // The replay is H.264 (every browser plays it), as long as the original, upright, with its sound.
        let videoURL = try #require(byID.object["videoURL"] as? String)
        let replay = try await server.request(.GET, videoURL, token: user.token)
        let replayed = folder + "/replayed.mp4"
        try Data(replay.body).write(to: URL(fileURLWithPath: replayed))
        let (original, copy) = (try FFprobeReport.read(hevc), try FFprobeReport.read(replayed))
        #expect(original.videoCodec == "hevc" && copy.videoCodec == "h264", "\(copy.videoCodec ?? "none")")
        #expect(copy.width == original.width && copy.height == original.height)
        #expect(
            abs(Double(copy.videoFrames.count) - Double(original.videoFrames.count)) <= 1,
            "\(copy.videoFrames.count) frames, not \(original.videoFrames.count)")
        // Still there for another try (another rim); gone when replaced by another video, or an hour old.
        #expect(
            try await server.request(.POST, "/api/lebot/workouts?upload=\(id)&rim=\(rim)", token: user.token).status
                == 201)
        let next = try await server.request(.POST, "/api/lebot/first-frame", token: user.token, body: bytes)
        let nextID = try #require(next.object["upload"] as? String)
        let replaced = try await server.request(.POST, "/api/lebot/workouts?upload=\(id)", token: user.token)
        #expect(replaced.status == 404 && replaced.text.contains("send it again"), "\(replaced.text)")
        let sentFile = server.directory + "/workouts/\(user.id)/.sent-\(nextID).mp4"
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3700)], ofItemAtPath: sentFile)
        let old = try await server.request(.POST, "/api/lebot/workouts?upload=\(nextID)", token: user.token)
        #expect(old.status == 404 && old.text.contains("kept for an hour"), "\(old.text)")
        #expect(!FileManager.default.fileExists(atPath: sentFile))
    }

    /// `video` encoded again as H.265 (as an iPhone records, tagged `hvc1`) beside it: the new path.
    static func hevc(of video: String) throws -> String {
        let hevc = (video as NSString).deletingPathExtension + "-hevc.mp4"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", video, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                "log-level=error", "-tag:v", "hvc1", hevc,
            ])
        return hevc
    }

    /// A server, a user, and a generated side-view workout of 14 events with its rim (`x,y,w,h`);
    /// `hevc`: the workout encoded as H.265.
    static func workoutUpload(hevc: Bool = false) async throws -> (
        TestServer, (token: String, refresh: String, id: String), [UInt8], String
    ) {
        let folder = try temporaryDirectory()
        let workout = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 14).first)
        let path = hevc ? try Self.hevc(of: workout.path) : workout.path
        let video = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let server = try await TestServer.start()
        do {
            let user = try await server.user()
            return (server, user, video, workout.rim.map { String($0) }.joined(separator: ","))
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test("an uploaded workout's tips fit how each miss went: short → legs, long → touch, wide → elbow")
    func workoutTipsFitTheMiss() async throws {
        let (server, user, video, rim) = try await Self.workoutUpload()
        defer { Task { await server.stop() } }
        let posted = try await server.request(.POST, "/api/lebot/workouts?rim=\(rim)", token: user.token, body: video)
        #expect(posted.status == 201, "\(posted.text)")
        let shots = (posted.object["analysis"] as? [String: Any])?["shots"] as? [[String: Any]] ?? []
        let tips = posted.object["tips"] as? [String] ?? []
        #expect(tips.count == shots.count && !shots.isEmpty)
        let words: [String: [String]] = [
            "short": ["legs", "knees"], "long": ["front of the rim", "ease"], "wide": ["elbow"],
        ]
        var sided = 0
        for (shot, tip) in zip(shots, tips) {
            guard let side = shot["missedBy"] as? String, (shot["entryAngle"] as? Double ?? 90) >= 35 else { continue }
            sided += 1
            let fits = words[side]?.contains { tip.lowercased().contains($0) } == true
            #expect(fits, "a miss \(side) (\(shot["reason"] ?? "")) got the tip “\(tip)”")
        }
        #expect(sided >= 1, "no miss said which way it went: \(shots.map { $0["reason"] ?? "" })")
    }

    @Test("a workout's analysis reports its progress and stops when cancelled, keeping nothing")
    func analysisProgressAndCancel() async throws {
        let (server, user, video, rim) = try await Self.workoutUpload()
        defer { Task { await server.stop() } }
        let posted = Task {
            try await server.request(
                .POST, "/api/lebot/workouts?rim=\(rim)", token: user.token, body: video,
                headers: [("X-Analysis-ID", "run-1")])
        }
        var seen: [Double] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, (seen.last ?? 0) < 0.1 {
            let answer = try await server.request(.GET, "/api/lebot/analyses/run-1", token: user.token)
            if answer.status == 200, let fraction = answer.object["progress"] as? Double { seen.append(fraction) }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect((seen.last ?? 0) >= 0.1, "no progress seen: \(seen)")
        #expect(seen == seen.sorted(), "progress went backwards: \(seen)")
        // Another user cannot see or stop it.
        let other = try await server.user()
        #expect(try await server.request(.DELETE, "/api/lebot/analyses/run-1", token: other.token).status == 404)
        #expect(try await server.request(.DELETE, "/api/lebot/analyses/run-1", token: user.token).status == 204)
        let answer = try await posted.value
        #expect(answer.status == 409 && answer.text.contains("cancelled"), "\(answer.status) \(answer.text)")
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
        #expect(try await server.request(.GET, "/api/lebot/analyses/run-1", token: user.token).status == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)").isEmpty)
    }

    @Test(
        "an H.265 workout cancelled while the copy for the replay is made stops there and keeps nothing: no workout, no video, no half-made copy"
    )
    func cancelledWhileTheReplayCopyIsMade() async throws {
        let (server, user, video, rim) = try await Self.workoutUpload(hevc: true)
        defer { Task { await server.stop() } }
        let posted = Task {
            try await server.request(
                .POST, "/api/lebot/workouts?rim=\(rim)", token: user.token, body: video,
                headers: [("X-Analysis-ID", "run-2")])
        }
        // The analysis runs first; then the progress route says how far the copy is.
        var copying: [Double] = []
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, copying.isEmpty {
            let answer = try await server.request(.GET, "/api/lebot/analyses/run-2", token: user.token)
            if answer.status == 200, let fraction = answer.object["copying"] as? Double {
                copying.append(fraction)
                #expect(answer.object["progress"] as? Double == 1, "\(answer.text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(copying.count == 1 && copying[0] < 1, "the copy was not seen under way: \(copying)")
        #expect(try await server.request(.DELETE, "/api/lebot/analyses/run-2", token: user.token).status == 204)
        let answer = try await posted.value
        #expect(answer.status == 409 && answer.text.contains("cancelled"), "\(answer.status) \(answer.text)")
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// A saved workout of `user` (the generated H.264 `video`), its stored video then swapped
    /// for `replacement` as a workout kept before copies were made: its id and stored path.
    static func savedWorkout(
        _ server: TestServer, _ user: (token: String, refresh: String, id: String), video: [UInt8], rim: String,
        storedAs replacement: String
    ) async throws -> (id: String, stored: String) {
        let saved = try await server.request(.POST, "/api/lebot/workouts?rim=\(rim)", token: user.token, body: video)
        let id = try #require(saved.object["id"] as? String, "\(saved.text.prefix(300))")
        let stored = server.directory + "/workouts/\(user.id)/\(id).mp4"
        try FileManager.default.removeItem(atPath: stored)
        try FileManager.default.copyItem(atPath: replacement, toPath: stored)
        return (id, stored)
    }

    @Test(
        "a workout deleted while the copy for its replay is made is gone with its copy: 404, nothing left in the user's folder"
    )
    func deletedWhileTheReplayCopyIsMade() async throws {
        let (server, user, video, rim) = try await Self.workoutUpload()
        defer { Task { await server.stop() } }
        let folder = try temporaryDirectory()
        let original = folder + "/workout.mp4"
        try Data(video).write(to: URL(fileURLWithPath: original))
        let (id, _) = try await Self.savedWorkout(
            server, user, video: video, rim: rim, storedAs: try Self.hevc(of: original))
        let asked = Task {
            try await server.request(
                .POST, "/api/lebot/workouts/\(id)/playable", token: user.token, headers: [("X-Analysis-ID", "copy-1")])
        }
        var copying: Double?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, copying == nil {
            let answer = try await server.request(.GET, "/api/lebot/analyses/copy-1", token: user.token)
            if answer.status == 200 { copying = answer.object["copying"] as? Double }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect((copying ?? 1) < 1, "the copy was not seen under way: \(String(describing: copying))")
        #expect(try await server.request(.DELETE, "/api/lebot/workouts/\(id)", token: user.token).status == 204)
        let answer = try await asked.value
        #expect(answer.status == 404 && answer.text.contains("no such workout"), "\(answer.status) \(answer.text)")
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test(
        "what a server stopped mid-way left in users' folders an hour ago (an upload, a half-made copy, a kept video past its hour) is removed when it starts, and a kept video past its hour while it serves; saved workouts and clips, and a kept video of this hour, stay"
    )
    func leftoversRemovedWhenTheServerStarts() async throws {
        let directory = try temporaryDirectory()
        let (workouts, clips) = (directory + "/workouts/user-1", directory + "/clips/user-1")
        let hourAgo = Date().addingTimeInterval(-3700)
        var kept: [String: Date] = [
            workouts + "/w1.json": hourAgo, workouts + "/w1.mp4": hourAgo, workouts + "/.sent-new.mp4": Date(),
            clips + "/c1.mp4": hourAgo, workouts + "/.upload-recent": Date(),
        ]
        let left = [
            workouts + "/.upload-1f2e", workouts + "/.copy-9a8b-w1.mp4", workouts + "/.sent-old.mp4",
            workouts + "/.read-77", clips + "/.c2.mp4.tmp-4821-1.mp4",
        ]
        for path in left { kept[path] = hourAgo }
        for (path, date) in kept {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
        }
        let server = try await TestServer.start {
            $0.dataDirectory = directory
            $0.leftoverSweepSeconds = 0.2
        }
        defer { Task { await server.stop() } }
        for path in left { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there") }
        for path in kept.keys where !left.contains(path) {
            #expect(FileManager.default.fileExists(atPath: path), "\(path) was removed")
        }
        // While it serves: a video kept for its first frame by a user who never came back goes
        // once it is an hour old.
        let forgotten = workouts + "/.sent-forgotten.mp4"
        try Data("x".utf8).write(to: URL(fileURLWithPath: forgotten))
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: forgotten)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, FileManager.default.fileExists(atPath: forgotten) {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!FileManager.default.fileExists(atPath: forgotten), "not removed while serving")
        #expect(FileManager.default.fileExists(atPath: workouts + "/.sent-new.mp4"))
    }

    @Test(
        "a connection test says in words what is wrong: login refused, login needed, nothing listening; or what works")
    func connectionTestSaysWhy() async throws {
        let camera = RTSPTestServer(auth: .digest, pattern: "ball", width: 640, height: 360)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        func test(_ body: [String: Any]) async throws -> [String: Any] {
            let reply = try await server.request(.POST, "/api/cameras/test", token: user.token, json: body)
            #expect(reply.status == 200, "\(reply.text)")
            return reply.object
        }
        let wrong = try await test(["rtspURL": camera.url(), "username": camera.user, "password": "not-it"])
        #expect(wrong["ok"] as? Bool == false)
        #expect((wrong["summary"] as? String)?.hasPrefix("login refused") == true, "\(wrong)")
        #expect(!"\(wrong)".contains("not-it"))
        let none = try await test(["rtspURL": camera.url()])
        #expect((none["summary"] as? String)?.contains("asks for a login") == true, "\(none)")
        let right = try await test(["rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        #expect(right["ok"] as? Bool == true, "\(right)")
        #expect(right["summary"] as? String == "works: H264 640×360, login accepted", "\(right)")
        let path = try await test([
            "rtspURL": camera.url().replacingOccurrences(of: "/stream", with: "/nothing-here"), "username": camera.user,
            "password": camera.password,
        ])
        #expect(path["ok"] as? Bool == false)
        #expect((path["summary"] as? String)?.hasSuffix("check the path in the URL") == true, "\(path)")
        let closed = try LoopbackPort.free()
        let nobody = try await test(["rtspURL": "rtsp://127.0.0.1:\(closed)/stream"])
        #expect((nobody["summary"] as? String)?.hasPrefix("cannot reach 127.0.0.1:\(closed)") == true, "\(nobody)")

        // A saved camera is tested with its stored password when none is typed.
        let saved = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Gate", "rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        let id = saved.object["id"] as? String ?? ""
        let stored = try await test(["cameraID": id])
        #expect(stored["ok"] as? Bool == true, "\(stored)")

        // The policy holds here too: the test never connects where cameras may not be.
        let metadata = try await server.request(
            .POST, "/api/cameras/test", token: user.token, json: ["rtspURL": "rtsp://169.254.169.254/"])
        #expect(metadata.status == 403, "\(metadata.text)")
    }

    @Test("stream profiles come with a discovered camera, only on its own device; the grid names the small one")
    func streamProfiles() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        var body: [String: Any] = [
            "name": "Porch", "rtspURL": "rtsp://127.0.0.1:8554/main",
            "profiles": [
                ["name": "Main", "rtspURL": "rtsp://127.0.0.1:8554/main", "width": 1920, "height": 1080, "fps": 25],
                ["name": "Sub", "rtspURL": "rtsp://127.0.0.2:8554/sub", "width": 640, "height": 360, "fps": 15],
            ],
        ]
        let elsewhere = try await server.request(.POST, "/api/cameras", token: user.token, json: body)
        #expect(elsewhere.status == 400 && elsewhere.text.contains("profiles[1].rtspURL"), "\(elsewhere.text)")
        #expect(try await server.request(.GET, "/api/cameras", token: user.token).array.isEmpty)
        body["profiles"] = [
            ["name": "Sub", "rtspURL": "rtsp://127.0.0.1:8554/sub", "width": 640, "height": 360, "fps": 15],
            ["name": "Main", "rtspURL": "rtsp://127.0.0.1:8554/main", "width": 1920, "height": 1080, "fps": 25],
        ]
        let made = try await server.request(.POST, "/api/cameras", token: user.token, json: body)
        #expect(made.status == 201, "\(made.text)")
        let id = made.object["id"] as? String ?? ""
        let profiles = try await server.request(.GET, "/api/cameras/\(id)/profiles", token: user.token).array
        #expect(profiles.compactMap { $0["name"] as? String } == ["Main", "Sub"])
        #expect(profiles.compactMap { $0["isDefault"] as? Bool } == [true, false])
        let grid = try await server.request(.GET, "/api/grid?width=800&height=600", token: user.token).object
        let cell = (grid["cells"] as? [[String: Any]])?.first ?? [:]
        #expect(cell["gridProfileID"] as? String == (profiles.last?["id"] as? String)?.lowercased())
        let health = try await server.request(
            .GET, "/api/cameras/\(id)/health?profile=\(UUID().uuidString)", token: user.token)
        #expect(health.status == 404)
    }

    @Test(
        "health in words: a watched camera that dies reads 'no picture' within 3 s, and 'playing' within 3 s of its return"
    )
    func healthFollowsTheCamera() async throws {
        let camera = RTSPTestServer(auth: .digest, pattern: "ball", width: 320, height: 240)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        let made = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Yard", "rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        let id = made.object["id"] as? String ?? ""
        func status() async throws -> [String: Any] {
            try await server.request(.GET, "/api/cameras/\(id)/health", token: user.token).object["status"]
                as? [String: Any] ?? [:]
        }
        func wait(seconds: Double, for check: ([String: Any]) -> Bool) async throws -> (Double, [String: Any]) {
            let started = ContinuousClock.now
            var last: [String: Any] = [:]
            while (ContinuousClock.now - started) < .milliseconds(Int(seconds * 1000)) {
                last = try await status()
                if check(last) { return ((ContinuousClock.now - started).seconds, last) }
                try await Task.sleep(for: .milliseconds(100))
            }
            return (.infinity, last)
        }
        #expect((try await status())["summary"] as? String == "not streaming (opens when someone watches)")
        // Someone watches for the whole test.
        let viewer = Task {
            try await watch(base: server.base, cameraID: id, token: user.token, fragments: 100_000, seconds: 25)
        }
        defer { viewer.cancel() }
        let (_, playing) = try await wait(seconds: 15) { $0["summary"] as? String == "playing" }
        #expect(playing["level"] as? String == "ok", "\(playing)")

        camera.stop()
        let (lostAfter, lost) = try await wait(seconds: 6) {
            ($0["summary"] as? String)?.hasPrefix("no picture") == true
        }
        #expect(lostAfter < 3, "'no picture' after \(lostAfter) s: \(lost)")
        #expect(lost["level"] as? String == "bad" && lost["since"] != nil)

        try camera.start()
        let (backAfter, back) = try await wait(seconds: 6) { $0["summary"] as? String == "playing" }
        #expect(backAfter < 3, "'playing' again after \(backAfter) s: \(back)")
    }

    @Test("the grid order is saved: distinct positions, unknown or repeated ids refused")
    func gridOrder() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user()
        var ids: [String] = []
        for index in 1...3 {
            let made = try await server.request(
                .POST, "/api/cameras", token: user.token,
                json: ["name": "Camera \(index)", "rtspURL": "rtsp://127.0.0.1:\(8550 + index)/s"])
            ids.append(made.object["id"] as? String ?? "")
        }
        let wanted = [ids[2], ids[0], ids[1]]
        let ordered = try await server.request(.PUT, "/api/cameras/order", token: user.token, json: ["ids": wanted])
        #expect(ordered.status == 200, "\(ordered.text)")
        let list = try await server.request(.GET, "/api/cameras", token: user.token).array
        #expect(list.compactMap { $0["id"] as? String } == wanted)
        #expect(list.compactMap { $0["gridPosition"] as? Int } == [0, 1, 2])
        let grid = try await server.request(.GET, "/api/grid?width=1200&height=800", token: user.token).object
        #expect((grid["cells"] as? [[String: Any]])?.compactMap { $0["cameraID"] as? String } == wanted)
        let repeated = try await server.request(
            .PUT, "/api/cameras/order", token: user.token, json: ["ids": [ids[0], ids[0]]])
        #expect(repeated.status == 400)
        let unknown = try await server.request(
            .PUT, "/api/cameras/order", token: user.token, json: ["ids": [UUID().uuidString]])
        #expect(unknown.status == 404)
    }

    @Test("change password ends the other sessions; delete account needs the password and removes everything")
    func passwordAndAccountDeletion() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("mover")
        let other = try await server.request(
            .POST, "/api/auth/login", json: ["email": "mover@example.com", "password": "password-mover"])
        let otherToken = other.object["accessToken"] as? String ?? ""
        let wrong = try await server.request(
            .POST, "/api/auth/password", token: user.token,
            json: ["currentPassword": "guess", "newPassword": "another-password"])
        #expect(wrong.status == 403 && wrong.text.contains("currentPassword"), "\(wrong.text)")
        let short = try await server.request(
            .POST, "/api/auth/password", token: user.token,
            json: ["currentPassword": "password-mover", "newPassword": "short"])
        #expect(short.status == 400 && short.text.contains("newPassword"), "\(short.text)")
        let changed = try await server.request(
            .POST, "/api/auth/password", token: user.token,
            json: ["currentPassword": "password-mover", "newPassword": "another-password"])
        #expect(changed.status == 204, "\(changed.text)")
        #expect(try await server.request(.GET, "/api/me", token: user.token).status == 200)
        #expect(try await server.request(.GET, "/api/me", token: otherToken).status == 401)
        let old = try await server.request(
            .POST, "/api/auth/login", json: ["email": "mover@example.com", "password": "password-mover"])
        #expect(old.status == 401)

        // Things to delete: a clip with its file, a camera with its password.
        #expect(try await server.request(.PUT, "/api/clips/c1", token: user.token, json: clipMetadata).status == 200)
        let clip = try ServerMedia.clip.get()
        #expect(try await server.request(.PUT, "/api/clips/c1/file", token: user.token, body: clip).status == 200)
        let camera = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Yard", "rtspURL": "rtsp://127.0.0.1:8554/s", "username": "admin", "password": "cam-secret"])
        let cameraID = try #require(UUID(uuidString: camera.object["id"] as? String ?? ""))
        #expect(try server.server.cameras.credentials.password(for: cameraID) == "cam-secret")

        let refused = try await server.request(
            .DELETE, "/api/me", token: user.token, json: ["password": "password-mover"])
        #expect(refused.status == 403)
        #expect(try await server.request(.GET, "/api/clips/c1", token: user.token).status == 200)
        let deleted = try await server.request(
            .DELETE, "/api/me", token: user.token, json: ["password": "another-password"])
        #expect(deleted.status == 204, "\(deleted.text)")
        #expect(deleted.headers.contains { $0.name.lowercased() == "set-cookie" && $0.value.contains("Max-Age=0") })
        #expect(try await server.request(.GET, "/api/me", token: user.token).status == 401)
        let login = try await server.request(
            .POST, "/api/auth/login", json: ["email": "mover@example.com", "password": "another-password"])
        #expect(login.status == 401)
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/clips/\(user.id)"))
        #expect(try server.server.cameras.credentials.password(for: cameraID) == nil)
        // The address is free again.
        let again = try await server.request(
            .POST, "/api/auth/signup", json: ["email": "mover@example.com", "password": "a-new-start"])
        #expect(again.status == 201)
    }
}
