import CGameKit
import CameraCommon
import CameraIO
import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Synchronization
import Testing

@testable import CameraServer

/// The web app as a person uses it, in headless Chromium at a phone's size (390×844, touch) and a
/// desktop's (1280×800): the real pages, scripts, cookies, media elements and Media Source
/// Extensions, against a real server and a real RTSP camera (GStreamer, Digest).
@Suite("Web app in Chromium", .serialized)
struct WebUITests {
    /// Where screenshots go: `$CAMERACORE_SCREENSHOTS` (how the README's pictures are made) or a temp folder.
    static let screenshots: String = {
        let folder = ProcessInfo.processInfo.environment["CAMERACORE_SCREENSHOTS"] ?? NSTemporaryDirectory()
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Signs in through the first screen's form.
    static func signIn(_ browser: Browser, _ server: TestServer, as name: String, password: String? = nil) async throws
    {
        try await browser.open(server.base)
        try await browser.wait(for: "the first screen", "return !document.getElementById('welcome').hidden")
        try await browser.type("#auth-email", "\(name)@example.com")
        try await browser.type("#auth-password", password ?? "password-\(name)")
        try await browser.click("#auth-submit")
        try await browser.wait(for: "the signed-in app", "return !document.getElementById('tabs').hidden")
    }

    static func tab(_ browser: Browser, _ name: String) async throws {
        try await browser.click("#tabs a[data-tab=\(name)]")
        try await browser.wait(for: "the \(name) tab", "return !document.getElementById('\(name)').hidden")
    }

    /// The 3D court's first tuning seed, rendered with `options` into a fresh folder.
    static func courtWorkout(_ options: CourtCorpus.Options) throws -> BasketballCorpus.Video {
        try #require(
            try CourtCorpus.generate(
                in: try temporaryDirectory(), seeds: [CourtCorpus.tuningSeeds[0]], options: options
            ).first)
    }

    /// On the coach tab: chooses the video at `path`, analyses it with the rim found by itself, and
    /// waits until the result shows (and `also`, when given, holds).
    static func analyse(_ browser: Browser, _ path: String, timeout: Int = 120, also: String = "true") async throws {
        try await browser.type("#workout-file", path)
        try await browser.wait(for: "the first frame", "return !document.getElementById('rim-step').hidden")
        try await browser.click("#analyse")
        try await browser.wait(
            for: "the result", timeout: .seconds(timeout),
            "return !document.getElementById('workout-result').hidden && \(also)")
    }

    /// Whether a box drawn at (centre, width) is ``TestMedia/greyRing(at:seconds:frameRate:)``'s
    /// ring: centred within a quarter of its width, 0.85–1.2 of it wide (the 7 % box a tap stood
    /// for before a fit is 1.4 of it).
    static func onTheGreyRing(_ drawn: (x: Double, y: Double, width: Double)?) -> Bool {
        let ring = TestMedia.greyRingBox
        guard let drawn else { return false }
        return abs(drawn.x - (ring[0] + ring[2] / 2)) < ring[2] / 4
            && (0.85 * ring[2]...1.2 * ring[2]).contains(drawn.width)
    }

    /// The part of the picture the coach page shows enlarged under it (fractions of the picture),
    /// once that is shown: the video's (`rim-zoom`) or the live camera's (`live-zoom`).
    static func zoomCrop(_ browser: Browser, canvas: String = "rim-zoom") async throws -> (
        x: Double, y: Double, width: Double, height: Double
    ) {
        try await browser.wait(
            for: "the rim enlarged", "return !document.getElementById('\(canvas)').parentElement.hidden")
        let crop = try await browser.run("return document.getElementById('\(canvas)').dataset.crop || ''") as? String
        let values = (crop ?? "").split(separator: ",").compactMap { Double($0) }
        try #require(values.count == 4, "data-crop: \(crop ?? "none")")
        return (values[0], values[1], values[2], values[3])
    }

    /// The paths (and queries) of the page's XMLHttpRequests so far (its uploads, with progress)
    /// whose path matches the regular expression `pattern`, oldest first.
    static func uploads(_ browser: Browser, matching pattern: String) async throws -> [String] {
        try await browser.run(
            "const p = new RegExp(arguments[0]); return performance.getEntriesByType('resource').filter(e => e.initiatorType === 'xmlhttprequest' && p.test(new URL(e.name).pathname)).map(e => e.name.replace(location.origin, ''))",
            [pattern]) as? [String] ?? []
    }

    static func text(_ browser: Browser, _ css: String) async throws -> String {
        try await browser.run("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", [css])
            as? String ?? ""
    }

    @Test(
        "first screen, sign-up errors next to the field, every tab fits the screen, the synced clip plays",
        arguments: Browser.Screen.allCases)
    func firstScreenAndEveryTab(screen: Browser.Screen) async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // What `cgame sync` leaves on the server: a clip with its file and thumbnail.
        let user = try await server.user("player")
        #expect(try await server.request(.PUT, "/api/clips/c1", token: user.token, json: clipMetadata).status == 200)
        #expect(
            try await server.request(.PUT, "/api/clips/c1/file", token: user.token, body: try ServerMedia.clip.get())
                .status == 200)
        #expect(
            try await server.request(
                .PUT, "/api/clips/c1/thumbnail", token: user.token, body: try ServerMedia.jpeg.get()
            ).status == 200)

        try await Browser.with(screen) { browser in
            try await browser.open(server.base)
            try await browser.wait(for: "the first screen", "return !document.getElementById('welcome').hidden")
            let welcome = try await Self.text(browser, "#welcome")
            #expect(welcome.contains("Highlights") && welcome.contains("Coach") && welcome.contains("Cameras"))
            #expect(try await browser.overflow() == 0, "the first screen scrolls sideways")
            try await browser.screenshot("welcome", screen)

            // Sign up with a short password: our words under the field, not the browser's bubble.
            try await browser.click("#auth-switch")
            try await browser.type("#auth-email", "newcomer@example.com")
            try await browser.type("#auth-password", "short")
            try await browser.click("#auth-submit")
            #expect(try await Self.text(browser, "#auth-password-error") == "Use at least 8 characters.")
            // An address already taken: the server's answer, in words, and still on the first screen.
            try await browser.run("document.getElementById('auth-email').value = ''")
            try await browser.run("document.getElementById('auth-password').value = ''")
            try await browser.type("#auth-email", "player@example.com")
            try await browser.type("#auth-password", "long-enough-password")
            try await browser.click("#auth-submit")
            try await browser.wait(
                for: "the taken-address error", "return document.getElementById('auth-error').innerText.length > 0")
            #expect(try await Self.text(browser, "#auth-error").contains("already an account"))
            // Sign in with the wrong password.
            try await browser.click("#auth-switch")
            try await browser.click("#auth-submit")
            try await browser.wait(
                for: "the sign-in error", "return document.getElementById('auth-error').innerText.length > 0")
            #expect(try await Self.text(browser, "#auth-error") == "That e-mail and password do not match an account.")
            #expect(try await browser.run("return document.getElementById('tabs').hidden") as? Bool == true)

            try await Self.signIn(browser, server, as: "player")
            try await browser.wait(
                for: "the gallery with the clip's thumbnail",
                """
                const image = document.querySelector('article.clip[data-clip-id="c1"] img');
                return !!image && image.complete && image.naturalWidth > 0
                """)
            let card = try await Self.text(browser, "article.clip")
            #expect(card.contains("Double Kill") && card.contains("Fortnite"), "\(card)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("highlights", screen)
            // The player: the thumbnail plays the uploaded file (through Range requests).
            try await browser.click("article.clip img")
            try await browser.wait(
                for: "the clip to play", "return document.getElementById('player-video').currentTime > 0.3")
            let box =
                try await browser.run(
                    "const r = document.getElementById('player').getBoundingClientRect(); return [r.left, r.right, window.innerWidth]"
                ) as? [Double] ?? []
            #expect(box.count == 3 && box[0] >= 0 && box[1] <= box[2], "the player is off-screen: \(box)")
            try await browser.click("#player-close")

            for name in ["coach", "cameras", "settings"] {
                try await Self.tab(browser, name)
                try await Task.sleep(for: .milliseconds(400))
                #expect(try await browser.overflow() == 0, "the \(name) tab scrolls sideways at \(screen)")
                // The tabs stay in reach: on a phone at the bottom of the screen, on a desktop in the header.
                let tabs =
                    try await browser.run(
                        "const r = document.getElementById('tabs').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]"
                    ) as? [Double] ?? []
                if screen == .phone {
                    #expect(tabs.count == 3 && abs(tabs[1] - tabs[2]) < 2, "tab bar not at the bottom: \(tabs)")
                } else {
                    #expect(tabs.count == 3 && tabs[0] < 80, "tabs not in the header: \(tabs)")
                }
                try await browser.screenshot(name, screen)
            }

            // Settings: the game is chosen from the server's list and reaches the account's settings.
            try await browser.wait(
                for: "the game list", "return document.querySelectorAll('#gameProfileName option').length >= 3")
            try await browser.run(
                "const s = document.getElementById('gameProfileName'); s.value = 'Valorant'; s.dispatchEvent(new Event('change'))"
            )
            try await browser.run("document.getElementById('preRollDuration').value = '40'")
            try await browser.click("#settings-form button[type=submit]")
            #expect(
                try await Self.text(browser, "#preRollDuration-error") == "Enter a number of seconds from 0 to 30.")
            try await browser.run("document.getElementById('preRollDuration').value = '6'")
            try await browser.click("#settings-form button[type=submit]")
            try await browser.wait(
                for: "the saved message",
                "return document.getElementById('status').innerText.startsWith('Settings saved')")
            let saved = try await server.request(.GET, "/api/settings", token: user.token).object
            #expect(saved["gameProfileName"] as? String == "Valorant" && saved["preRollDuration"] as? Double == 6)
        }
    }

    @Test(
        "cameras: test → save → live → edit → reorder → full screen → delete; a wrong password reads 'login refused'",
        arguments: Browser.Screen.allCases)
    func cameraLifecycle(screen: Browser.Screen) async throws {
        let camera = RTSPTestServer(auth: .digest, pattern: "ball", width: 640, height: 360)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("watcher")

        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "watcher")
            try await Self.tab(browser, "cameras")
            try await browser.wait(
                for: "the empty state", "return !document.getElementById('cameras-empty').hidden")

            // Add: a wrong password first. The test says why, in words, before anything is saved.
            try await browser.click("#add-camera")
            try await browser.type("#camera-name", "Driveway")
            try await browser.type("#camera-url", camera.url())
            try await browser.type("#camera-user", camera.user)
            try await browser.type("#camera-password", "wrong-password")
            try await browser.click("#camera-test")
            try await browser.wait(
                for: "the test result",
                "return document.getElementById('camera-test-result').innerText.startsWith('Login refused')")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("camera-test", screen)
            #expect(try await server.request(.GET, "/api/cameras", token: user.token).array.isEmpty)
            // The right password: Save tests again, then saves.
            try await browser.run("document.getElementById('camera-password').value = ''")
            try await browser.type("#camera-password", camera.password)
            try await browser.click("#camera-save")
            try await browser.wait(
                for: "the dialog to close", "return !document.getElementById('camera-dialog').open")
            let saved = try await server.request(.GET, "/api/cameras", token: user.token).array
            let firstID = try #require(saved.first?["id"] as? String)

            // Live video in the grid, with its health in words.
            let video = "document.querySelector('video[data-camera-id=\"\(firstID)\"]')"
            try await browser.wait(
                for: "live video in the grid", timeout: .seconds(30),
                "const v = \(video); return !!v && v.currentTime > 0.2")
            let first = try await browser.run("return \(video).currentTime") as? Double ?? 0
            try await Task.sleep(for: .seconds(2))
            let second = try await browser.run("return \(video).currentTime") as? Double ?? 0
            #expect(second - first > 1.0, "live video stalled: currentTime \(first) → \(second)")
            #expect(
                try await browser.run("return [\(video).videoWidth, \(video).videoHeight]") as? [Int] == [640, 360])
            try await browser.wait(
                for: "the health line", "return document.querySelector('.cell .health').innerText === 'playing'")

            // Edit: a new name, the password kept.
            try await browser.click("#camera-list li[data-camera-id=\"\(firstID)\"] button:nth-of-type(4)")
            try await browser.wait(for: "the editor", "return document.getElementById('camera-dialog').open")
            #expect(
                try await browser.run("return document.getElementById('camera-url').value") as? String == camera.url())
            try await browser.run("document.getElementById('camera-name').value = ''")
            try await browser.type("#camera-name", "Front gate")
            try await browser.click("#camera-save")
            try await browser.wait(
                for: "the renamed camera",
                "return document.getElementById('camera-list').innerText.includes('Front gate')")
            let edited = try await server.request(.GET, "/api/cameras/\(firstID)", token: user.token).object
            #expect(edited["name"] as? String == "Front gate" && edited["hasPassword"] as? Bool == true)
            #expect(edited["lastConnected"] is String, "lastConnected was not kept: \(edited)")

            // A second camera with a wrong password: its tile says so in words.
            let bad = try await server.request(
                .POST, "/api/cameras", token: user.token,
                json: [
                    "name": "Garage", "rtspURL": camera.url().replacingOccurrences(of: "127.0.0.1", with: "localhost"),
                    "username": camera.user, "password": "nope",
                ])
            let secondID = try #require(bad.object["id"] as? String)
            try await Self.tab(browser, "highlights")
            try await Self.tab(browser, "cameras")
            try await browser.wait(
                for: "'login refused' on the Garage tile", timeout: .seconds(30),
                "const c = document.querySelector('.cell[data-camera-id=\"\(secondID)\"] .health'); return !!c && c.innerText.startsWith('login refused')"
            )
            let said = try await browser.run(
                "return document.querySelector('.cell[data-camera-id=\"\(secondID)\"] .health').innerText")
            #expect(
                (said as? String)?.hasPrefix("login refused — check the user name and password") == true,
                "the Garage tile says: \(said ?? "nothing")")
            // The list under the grid gives the same answer as the tiles, at once (not at the next poll).
            for id in [firstID, secondID] {
                let both =
                    try await browser.run(
                        """
                        const tile = document.querySelector('.cell[data-camera-id="\(id)"] .health').innerText;
                        const row = document.querySelector('#camera-list li[data-camera-id="\(id.lowercased())"] .pill').innerText;
                        return [tile, row]
                        """) as? [String] ?? []
                #expect(both.count == 2 && both[0] == both[1], "tile and list disagree: \(both)")
            }
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("cameras", screen)

            // Reorder: Garage up. The order is saved and the positions stay distinct.
            try await browser.click(
                "#camera-list li[data-camera-id=\"\(secondID)\"] button[aria-label^='Move Garage up']")
            try await browser.wait(
                for: "Garage first",
                "return document.querySelector('#camera-list li').dataset.cameraId === '\(secondID)'")
            let order = try await server.request(.GET, "/api/cameras", token: user.token).array
            #expect(order.compactMap { $0["id"] as? String } == [secondID, firstID])
            #expect(order.compactMap { $0["gridPosition"] as? Int } == [0, 1])

            // Full screen, through the Fullscreen API: the tile fills the screen.
            try await browser.wait(
                for: "the Front gate tile",
                "return !!document.querySelector('.cell[data-camera-id=\"\(firstID)\"] .full-button')")
            try await browser.click(".cell[data-camera-id=\"\(firstID)\"] .full-button")
            try await browser.wait(
                for: "full screen",
                "const f = document.fullscreenElement; return !!f && f.dataset.cameraId === '\(firstID)'")
            let size =
                try await browser.run(
                    "const r = document.fullscreenElement.getBoundingClientRect(); return [r.width, r.height, window.innerWidth, window.innerHeight]"
                ) as? [Double] ?? []
            #expect(size.count == 4 && size[0] == size[2] && size[1] == size[3], "not full screen: \(size)")
            try await browser.run("document.exitFullscreen()")

            // Delete, after a confirmation.
            try await browser.click("#camera-list li[data-camera-id=\"\(secondID)\"] button:nth-of-type(5)")
            try await browser.confirm()
            try await browser.wait(
                for: "Garage gone", "return !document.querySelector('#camera-list li[data-camera-id=\"\(secondID)\"]')")
            #expect(try await server.request(.GET, "/api/cameras", token: user.token).array.count == 1)
        }
    }

    @Test(
        "highlights: upload a clip → thumbnail → rename → compile a reel → it plays → delete",
        arguments: Browser.Screen.allCases)
    func uploadRenameReelDelete(screen: Browser.Screen) async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("uploader")
        let file = server.directory + "/Ace round.mp4"
        try Data(try ServerMedia.clip.get()).write(to: URL(fileURLWithPath: file))

        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "uploader")
            try await browser.wait(for: "the empty gallery", "return !document.getElementById('clips-empty').hidden")
            try await browser.type("#clip-file", file)
            try await browser.wait(
                for: "the uploaded clip with its thumbnail", timeout: .seconds(30),
                """
                const card = [...document.querySelectorAll('article.clip')].find(c => c.innerText.includes('Ace round'));
                const image = card && card.querySelector('img');
                return !!image && image.complete && image.naturalWidth > 0
                """)
            let clips = try await server.request(.GET, "/api/clips", token: user.token).array
            #expect(clips.count == 1 && clips.first?["uploadedAt"] != nil && clips.first?["thumbnailURL"] != nil)
            let id = try #require(clips.first?["id"] as? String)

            // Rename.
            try await browser.click("article.clip[data-clip-id=\"\(id)\"] .tools button")
            try await browser.wait(for: "the rename dialog", "return document.getElementById('confirm-dialog').open")
            try await browser.type("#confirm-input", "Clutch")
            try await browser.click("#confirm-yes")
            try await browser.wait(
                for: "the new name", "return document.querySelector('article.clip .name').innerText === 'Clutch'")

            // Select, compile with a title, wait for it, play it.
            try await browser.click("article.clip .select input")
            try await browser.wait(for: "the reel bar", "return !document.getElementById('reel-bar').hidden")
            #expect(try await browser.overflow() == 0)
            try await browser.type("#reel-title", "Best of")
            try await browser.click("#compile")
            try await browser.wait(
                for: "the finished reel", timeout: .seconds(60),
                "const r = document.querySelector('#reels li'); return !!r && r.dataset.status === 'ready'")
            #expect(try await Self.text(browser, "#reels li").contains("Best of"))
            try await browser.screenshot("reels", screen)
            try await browser.click("#reels li button")
            try await browser.wait(
                for: "the reel to play", "return document.getElementById('player-video').currentTime > 0.3")
            try await browser.click("#player-close")

            // Delete the clip.
            try await browser.click("article.clip[data-clip-id=\"\(id)\"] .tools button:last-child")
            try await browser.confirm()
            try await browser.wait(for: "the empty gallery", "return !document.getElementById('clips-empty').hidden")
            #expect(try await server.request(.GET, "/api/clips", token: user.token).array.isEmpty)
        }
    }

    @Test(
        "capture a game window: each kill is shown as it happens, highlights land in the gallery, Stop saves the open one"
    )
    func captureAGameWindow() async throws {
        // The "game": a generated gameplay video in a tab of its own, titled so that Chromium's
        // screen-share picker picks it (a real tab capture: the page's pixels, not a fake source).
        let folder = try temporaryDirectory()
        let profile = ProfileLibrary.builtIn[0]
        _ = try GameplayCorpus.make(
            in: folder, name: "game.mp4", region: profile.region,
            feed: [
                .init(type: "Kill", text: "Ninja eliminated Bot42", start: 8, end: 11.5),
                .init(type: "Kill", text: "Ninja eliminated Raven", start: 10, end: 13.5),
                .init(type: "Kill", text: "Ninja eliminated Quill", start: 20, end: 23.5),
            ], seconds: 45)
        try """
        <!doctype html><title>Gameplay</title>
        <style>html,body{margin:0;height:100%;background:#000;overflow:hidden}
        video{position:fixed;inset:0;width:100%;height:100%;object-fit:fill}</style>
        <video src="game.mp4" muted playsinline preload="auto"></video>
        """.write(toFile: folder + "/game.html", atomically: true, encoding: .utf8)

        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("streamer")
        try await Browser.with(.desktop, arguments: ["--auto-select-tab-capture-source-by-title=Gameplay"]) {
            browser in
            try await browser.open("file://\(folder)/game.html")
            try await browser.wait(
                for: "the game video", "return document.querySelector('video').readyState >= 3")
            let game = try await browser.window()
            let app = try await browser.newTab()
            try await Self.signIn(browser, server, as: "streamer")
            try await browser.wait(for: "the capture button", "return !document.getElementById('capture-start').hidden")
            #expect(try await Self.text(browser, "#capture-status").contains("Fortnite"))
            // A kill first read with a misread name, corrected when its line reads better: the
            // page shows the corrected name in the kill's row, and no second row.
            let corrected = try await browser.run(
                """
                return import('/js/capture.js').then((capture) => {
                  capture.handle({}, {type: 'event', event: 'Kill', text: 'Ninis eliminated Raven', time: 9.6});
                  capture.handle({}, {type: 'event', event: 'Kill', text: 'Ninja eliminated Bot42', time: 9.6 + 1e-9});
                  capture.handle({}, {type: 'correction', event: 'Kill', text: 'Ninja eliminated Raven', time: 9.6});
                  const rows = [...document.querySelectorAll('#capture-events li[data-event]')].map(li => li.innerText);
                  document.getElementById('capture-events').replaceChildren();
                  return rows;
                });
                """)
            #expect(
                (corrected as? [String])?.map { $0.replacingOccurrences(of: "\n", with: " ") } == [
                    "0:09 Kill “Ninja eliminated Bot42”", "0:09 Kill “Ninja eliminated Raven”",
                ], "\(String(describing: corrected))")
            // The running line counts a kill or a saved clip as its row appears, not with the
            // server's next count half a second of video later (a screenshot once showed "2 kills
            // seen" above three kill rows).
            let counts = try await browser.run(
                """
                return import('/js/capture.js').then((capture) => {
                  const state = {}, line = () => document.getElementById('capture-progress').textContent;
                  capture.handle(state, {type: 'progress', seconds: 9.5, events: 1, clips: 0});
                  capture.handle(state, {type: 'event', event: 'Kill', text: 'Ninja eliminated Raven', time: 9.6});
                  const afterKill = line();
                  capture.handle(state, {type: 'clip', clip: {id: 'c1', name: 'Double Kill', duration: 11.4}});
                  const afterClip = line();
                  capture.handle(state, {type: 'progress', seconds: 10.1, events: 2, clips: 1});
                  const lines = [afterKill, afterClip, line()];
                  document.getElementById('capture-events').replaceChildren();
                  return lines;
                });
                """)
            #expect(
                counts as? [String] == [
                    "0:09 captured · 2 kills seen · 0 clips saved", "0:09 captured · 2 kills seen · 1 clip saved",
                    "0:10 captured · 2 kills seen · 1 clip saved",
                ], "\(String(describing: counts))")
            try await browser.click("#capture-start")
            try await browser.wait(
                for: "the capture to start", timeout: .seconds(20),
                "return document.getElementById('capture-progress').innerText.startsWith('Capturing')")
            #expect(try await browser.run("return document.getElementById('capture-start').hidden") as? Bool == true)

            // The game starts; each kill appears in the page as the server sees it.
            try await browser.switchTo(game)
            try await browser.run("document.querySelector('video').play()")
            try await browser.switchTo(app)
            try await browser.wait(
                for: "the double kill saved as one clip", timeout: .seconds(40),
                "return document.querySelectorAll('#capture-events li[data-clip-id]').length >= 1")
            try await browser.wait(
                for: "the third kill", timeout: .seconds(30),
                "return document.querySelectorAll('#capture-events li[data-event]').length >= 3")
            let events = try await Self.text(browser, "#capture-events")
            #expect(events.contains("Bot42") && events.contains("Raven") && events.contains("Quill"), "\(events)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("capture", .desktop)

            // Stop within the last kill's post-roll: that highlight is saved too.
            try await browser.click("#capture-stop")
            try await browser.wait(
                for: "the capture to end", timeout: .seconds(30),
                "return document.getElementById('capture-progress').innerText.startsWith('Stopped')")
            #expect(try await Self.text(browser, "#capture-progress").contains("2 clips saved"))
            #expect(try await Self.text(browser, "#capture-error").isEmpty)
            try await browser.wait(
                for: "both clips in the gallery", timeout: .seconds(10),
                "return document.querySelectorAll('#gallery article.clip').length === 2")
            let names =
                try await browser.run(
                    "return [...document.querySelectorAll('#gallery article.clip .name')].map(n => n.innerText).sort()")
                as? [String]
            #expect(names == ["Double Kill", "Kill"])
            #expect(try await browser.run("return document.getElementById('capture-start').hidden") as? Bool == false)
        }
        // On the server: two playable clips of this user with their thumbnails, the double kill
        // spanning its pre-roll, both kills and its post-roll (5 + 2 + 3 s, from a keyframe).
        let clips = try await server.request(.GET, "/api/clips", token: user.token).array
        #expect(clips.count == 2)
        for clip in clips {
            let id = try #require(clip["id"] as? String)
            #expect(clip["uploadedAt"] != nil && clip["thumbnailURL"] != nil, "\(clip)")
            let file = try await server.request(.GET, "/api/clips/\(id)/file", token: user.token)
            #expect(file.status == 200)
            let path = server.directory + "/\(id).mp4"
            try Data(file.body).write(to: URL(fileURLWithPath: path))
            let probe = try FFprobeReport.read(path)
            let seconds = probe.formatDuration ?? 0
            // A tab's capture rate is the machine's (30 fps idle here, 12–23 with both cores busy;
            // a CI machine gave under 20): this asks for moving video, not a rate. That every frame
            // received is kept is CaptureAttackTests.captureKeepsEveryFrame's, at a fixed 30 fps.
            let (frames, longestStill) = (probe.videoFrames.count, probe.longestVideoGap)
            #expect(
                probe.videoCodec == "h264" && frames >= Int(seconds * 8) && longestStill <= 0.5,
                "\(frames) frames in \(seconds) s, longest still \(longestStill) s: \(clip)")
            if clip["name"] as? String == "Double Kill" {
                #expect((9.5...12.5).contains(seconds), "double kill clip: \(seconds) s")
            } else {
                #expect(seconds >= 3, "the stopped kill's clip: \(seconds) s")
            }
        }
    }

    @Test(
        "coach: choose a workout, analyse (the rim is found and shown) → shots listed → tapping a shot plays it; history survives a reload",
        arguments: Browser.Screen.allCases)
    func coachRimShotsAndReplay(screen: Browser.Screen) async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(
            try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 4, seed: 11).first)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("shooter")

        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "shooter")
            try await Self.tab(browser, "coach")
            try await browser.type("#workout-file", workout.path)
            try await browser.wait(
                for: "the first frame", "return !document.getElementById('rim-step').hidden")
            // Nothing to mark: LeBot finds the rim itself.
            #expect(try await browser.run("return document.getElementById('analyse').disabled") as? Bool == false)
            #expect(try await Self.text(browser, "#rim-help").contains("finds the rim by itself"))
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the shots", timeout: .seconds(90),
                "return !document.getElementById('workout-result').hidden && document.querySelectorAll('#shots tbody tr').length > 0"
            )
            let shots = workout.events.filter { ![.dribble, .pass].contains($0.kind) }
            let rows = try await browser.run("return document.querySelectorAll('#shots tbody tr').length") as? Int ?? 0
            #expect(rows == shots.count, "\(rows) shots listed, \(shots.count) taken")
            let summary = try await Self.text(browser, "#workout-summary")
            #expect(summary.hasPrefix("\(shots.count) shots, \(shots.filter(\.made).count) made"), "\(summary)")
            // Noah's numbers, as a side view gives them: how deep or short each shot came down at
            // the rim (a dash for one that never reached it) and its arc over the rim in feet.
            let numbers =
                try await browser.run(
                    "return [...document.querySelectorAll('#shots tbody tr')].map(r => [r.cells[4].textContent, r.cells[5].textContent])"
                ) as? [[String]] ?? []
            let atRim = numbers.map { $0[0] }.filter {
                $0.range(of: #"^\d+ in (deep|short)$"#, options: .regularExpression) != nil
            }
            #expect(atRim.count >= shots.count / 2, "at the rim: \(numbers)")
            #expect(
                numbers.allSatisfy {
                    $0[1].range(of: #"^\d+\.\d ft (over|under) the rim$"#, options: .regularExpression) != nil
                },
                "arc: \(numbers)")
            // The rim it found is said and drawn on the picture, on the true rim.
            #expect(try await Self.text(browser, "#workout-rim").hasPrefix("Rim found automatically by its orange"))
            let drawn = try await browser.placed("#rim-box", over: "#workout-video")
            #expect(drawn != nil)
            if let drawn {
                #expect(abs(drawn.x - (workout.rim[0] + workout.rim[2] / 2)) < workout.rim[2] / 3, "\(drawn)")
                #expect(abs(drawn.y - (workout.rim[1] + workout.rim[3] / 2)) < 0.03, "\(drawn)")
            }
            // The rim found, enlarged under the picture, the true rim inside what is shown.
            let crop = try await Self.zoomCrop(browser)
            #expect(workout.rim[2] / crop.width >= 0.2, "the rim fills \(workout.rim[2] / crop.width) of it")
            #expect(
                crop.x <= workout.rim[0] && workout.rim[0] + workout.rim[2] <= crop.x + crop.width
                    && crop.y <= workout.rim[1] && workout.rim[1] + workout.rim[3] <= crop.y + crop.height,
                "\(crop) against \(workout.rim)")
            #expect(try await Self.text(browser, "#rim-zoom-caption").contains("dashed box: the rim LeBot uses"))
            try await browser.screenshot("coach-rim", screen)
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach", screen)

            // Tap the second shot: the video jumps to a second before its release.
            let release =
                try await browser.run(
                    "return Number(document.querySelectorAll('#shots tbody tr')[1].dataset.time)") as? Double ?? -1
            try await browser.click("#shots tbody tr:nth-child(2)")
            try await browser.wait(
                for: "the replay at the shot",
                "const v = document.getElementById('replay'); return Math.abs(v.currentTime - \(max(0, release - 1))) < 0.6 && !v.paused"
            )

            // After a reload the workout is in the history and opens again, video included.
            try await browser.open(server.base + "/#coach")
            try await browser.wait(for: "the history", "return document.querySelectorAll('#workouts li').length === 1")
            try await browser.click("#workouts li button")
            try await browser.wait(
                for: "the stored result",
                "return document.querySelectorAll('#shots tbody tr').length === \(rows) && document.getElementById('replay').src.includes('/video')"
            )
        }
    }

    @Test("coach, a phone held by hand at 45°: the rim is found, the shots counted, and the page says the camera moved")
    func coachHandheldPhone() async throws {
        var options = CourtCorpus.Options(placement: .angledLeft, width: 960, height: 540, events: 4)
        options.handheld = true
        let workout = try Self.courtWorkout(options)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("holder")

        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "holder")
            try await Self.tab(browser, "coach")
            try await Self.analyse(browser, workout.path)
            // How well a handheld phone's shots are counted is the court bench's (BENCHMARKS.md: 1–13
            // extra per 100 at 720p); here, that they are listed: this video gives one extra.
            let shots = workout.events.filter { ![.dribble, .pass].contains($0.kind) }
            let rows = try await browser.run("return document.querySelectorAll('#shots tbody tr').length") as? Int ?? 0
            #expect(abs(rows - shots.count) <= 1 && rows > 0, "\(rows) shots listed, \(shots.count) taken")
            let rim = try await Self.text(browser, "#workout-rim")
            #expect(rim.hasPrefix("Rim found automatically by its orange"), "\(rim)")
            #expect(rim.contains("The camera moved (held by hand): the picture wandered up to "), "\(rim)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-handheld", .phone)
        }
    }

    @Test(
        "coach, a grey rim filmed from the side: found beside the backboard's square, its box on the rim, every shot listed"
    )
    func coachGreyRimFromTheSide() async throws {
        var options = CourtCorpus.Options(placement: .sideLeft, width: 1280, height: 720, events: 6)
        options.steelRim = true
        let workout = try Self.courtWorkout(options)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("side")

        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "side")
            try await Self.tab(browser, "coach")
            try await Self.analyse(browser, workout.path)
            let rim = try await Self.text(browser, "#workout-rim")
            #expect(rim.hasPrefix("Rim found automatically beside the backboard's square"), "\(rim)")
            let shots = workout.events.filter { ![.dribble, .pass].contains($0.kind) }
            let rows = try await browser.run("return document.querySelectorAll('#shots tbody tr').length") as? Int ?? 0
            #expect(rows == shots.count, "\(rows) shots listed, \(shots.count) taken")
            let drawn = try #require(try await browser.placed("#rim-box", over: "#workout-video"))
            #expect(abs(drawn.x - (workout.rim[0] + workout.rim[2] / 2)) < workout.rim[2] / 3, "\(drawn)")
            #expect(abs(drawn.y - (workout.rim[1] + workout.rim[3] / 2)) < 0.03, "\(drawn)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-side-steel", .phone)
        }
    }

    /// A phone films in portrait and stores the picture turned, with a display matrix the browser
    /// follows. The page shows the workout upright, so the rim LeBot found must be drawn on the
    /// rim there, and the shots must be the ones the upright picture shows.
    @Test(
        "coach, a portrait video a phone stored turned: the rim box lands on the rim of the picture shown, every shot listed"
    )
    func coachPortraitVideoStoredTurned() async throws {
        let workout = try Self.courtWorkout(.init(placement: .sideLeft, width: 720, height: 1280, events: 4))
        let turned = try TestMedia.storedTurned(
            workout.path, to: try temporaryDirectory() + "/portrait.mp4", degrees: 90)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("upright")

        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "upright")
            try await Self.tab(browser, "coach")
            try await Self.analyse(browser, turned)
            let shown =
                try await browser.run(
                    "const v = document.getElementById('workout-video'); return [v.videoWidth, v.videoHeight]")
                as? [Int] ?? []
            #expect(shown == [720, 1280], "the browser shows the picture upright: \(shown)")
            let rim = try await Self.text(browser, "#workout-rim")
            #expect(rim.hasPrefix("Rim found automatically by its orange"), "\(rim)")
            let drawn = try #require(try await browser.placed("#rim-box", over: "#workout-video"))
            #expect(abs(drawn.x - (workout.rim[0] + workout.rim[2] / 2)) < workout.rim[2] / 3, "\(drawn)")
            #expect(abs(drawn.y - (workout.rim[1] + workout.rim[3] / 2)) < 0.03, "\(drawn)")
            let shots = workout.events.filter { ![.dribble, .pass].contains($0.kind) }
            let rows = try await browser.run("return document.querySelectorAll('#shots tbody tr').length") as? Int ?? 0
            #expect(rows == shots.count, "\(rows) shots listed, \(shots.count) taken")
            // The chart has the picture's shape (arcs as they flew), kept to the screen's height.
            let chart =
                try await browser.run(
                    "const c = document.getElementById('chart'); return [c.naturalWidth, c.naturalHeight, Math.round(c.getBoundingClientRect().height), window.innerHeight]"
                ) as? [Int] ?? []
            #expect(chart.count == 4 && chart[0] == 540 && chart[1] == 960, "chart \(chart)")
            #expect(chart.count == 4 && chart[2] > 0 && Double(chart[2]) <= 0.61 * Double(chart[3]), "chart \(chart)")
            #expect(try await browser.overflow() == 0)
            _ = try await browser.run("document.getElementById('chart').scrollIntoView()")
            try await browser.screenshot("coach-portrait", .phone)
        }
    }

    /// A workout whose video stops a second after the last shot left the hands, before it came
    /// down: that shot is listed as Unclear, and the page says why, so it does not read as LeBot
    /// failing to judge it.
    @Test("coach: a video that ends mid-shot lists that shot as Unclear and says why")
    func coachUnclearShotSaysWhy() async throws {
        let folder = try temporaryDirectory()
        let full = try #require(
            try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 4, seed: 11).first)
        let last = try #require(full.events.last { ![.dribble, .pass].contains($0.kind) })
        let cut = folder + "/cut.mp4"
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", full.path, "-t", String(last.release + 1), "-c:v", "libx264",
                "-preset", "ultrafast", "-pix_fmt", "yuv420p", cut,
            ])
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("cutter")

        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "cutter")
            try await Self.tab(browser, "coach")
            try await Self.analyse(
                browser, cut, timeout: 90, also: "document.querySelectorAll('#shots tbody tr').length > 0")
            let outcomes =
                try await browser.run(
                    "return [...document.querySelectorAll('#shots tbody tr')].map(r => r.cells[2].textContent)"
                ) as? [String] ?? []
            #expect(outcomes.last == "Unclear", "\(outcomes)")
            let why =
                try await browser.run(
                    "return [...document.querySelectorAll('#shots tbody tr')].map(r => r.cells[6].textContent)"
                ) as? [String] ?? []
            #expect(
                why.last?.hasPrefix("Could not tell: the video ended before the shot was decided. ") == true, "\(why)")
            #expect(why.dropLast().allSatisfy { !$0.contains("Could not tell") }, "\(why)")
            #expect(outcomes.dropLast().allSatisfy { $0 == "Make" || $0 == "Miss" }, "\(outcomes)")
            // The count says so too, and the chart's percentage says it is of the shots decided.
            let made = outcomes.filter { $0 == "Make" }.count
            let summary = try await Self.text(browser, "#workout-summary")
            #expect(summary.hasSuffix(", 1 unclear"), "\(summary)")
            let chart =
                try await browser.run(
                    "return fetch(document.getElementById('chart').src).then(r => r.text())") as? String ?? ""
            #expect(chart.contains("\(made) of \(outcomes.count) made, 1 unclear — "), "\(chart.prefix(600))")
            #expect(try await browser.overflow() == 0)
            _ = try await browser.run("document.getElementById('shots').scrollIntoView()")
            try await browser.screenshot("coach-unclear", .phone)
        }
    }

    /// On the Cameras tab: Find cameras, wait for the camera at `address`, and give its ONVIF login
    /// when asked (without it, its streams are hidden). Returns the CSS selector of its list item.
    static func discoverAndLogIn(_ browser: Browser, address: String, user: String, password: String) async throws
        -> String
    {
        try await tab(browser, "cameras")
        try await browser.click("#discover")
        let found = "#discovered li[data-address=\"\(address)\"]"
        try await browser.wait(
            for: "the found camera", timeout: .seconds(15), "return !!document.querySelector('\(found)')")
        try await browser.click("\(found) button")
        try await browser.wait(for: "the user name", "return document.getElementById('confirm-dialog').open")
        try await browser.type("#confirm-input", user)
        try await browser.click("#confirm-yes")
        try await browser.wait(
            for: "the password", "return document.getElementById('confirm-input').type === 'password'")
        try await browser.type("#confirm-input", password)
        try await browser.click("#confirm-yes")
        return found
    }

    /// A camera that lists a profile but refuses its stream address (its second stream turned off
    /// in its own settings): after the login, the page offers the stream it has and names the one
    /// it has not, with the camera's reason, on a phone and a desktop without scrolling sideways.
    @Test(
        "discover a camera with a stream turned off → its reason is shown beside the stream it has",
        .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for a network namespace"),
        arguments: Browser.Screen.allCases)
    func discoveredStreamTurnedOff(screen: Browser.Screen) async throws {
        let link = try NetworkNamespaceLink()
        defer { link.close() }
        let camera = ONVIFTestDevice(
            name: "Half", address: link.deviceAddress, port: 80, namespace: link.device, discovery: true,
            quirks: [.subStreamOff])
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start { $0.allowedNetworks = [link.subnet] }
        defer { Task { await server.stop() } }
        _ = try await server.user("looker")
        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "looker")
            let found = try await Self.discoverAndLogIn(
                browser, address: link.deviceAddress, user: camera.user, password: camera.password)
            try await browser.wait(
                for: "the stream it has", timeout: .seconds(15),
                "return !!document.querySelector('\(found) button[title$=\"/main\"]')")
            let notes =
                try await browser.run(
                    "return [...document.querySelectorAll('\(found) .stream-missing, \(found) .pill.bad')].map(p => p.innerText)"
                ) as? [String] ?? []
            #expect(
                notes == ["SubStream 640×360: no stream address. The camera says: “The sub stream is turned off”."],
                "\(notes)")
            #expect(!notes.joined().contains(camera.password), "\(notes)")
            let offered =
                try await browser.run(
                    "return document.querySelectorAll('\(found) button[title^=\"rtsp:\"]').length") as? Int
            #expect(offered == 1, "only the main stream is offered: \(String(describing: offered))")
            #expect(try await browser.overflow() == 0, "the discovered list scrolls sideways at \(screen)")
            try await browser.screenshot("discovered-stream-off", screen)
        }
    }

    @Test(
        "discover ipycam (a virtual camera from PyPI) → log in to read its streams → Add uses its stream URI → live video",
        .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for a network namespace"))
    func discoverAndAdd() async throws {
        // The camera lives in a namespace of its own, joined to this one by a veth pair: WS-Discovery
        // multicast goes there and nowhere else.
        let link = try NetworkNamespaceLink()
        defer { link.close() }
        let camera = IPyCam(namespace: link.device, address: link.deviceAddress)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start { $0.allowedNetworks = [link.subnet] }
        defer { Task { await server.stop() } }
        let user = try await server.user("finder")
        let stream = camera.mainStream

        try await Browser.with(.desktop) { browser in
            try await Self.signIn(browser, server, as: "finder")
            let found = try await Self.discoverAndLogIn(
                browser, address: link.deviceAddress, user: "admin", password: "secret")
            try await browser.wait(
                for: "the stream buttons", timeout: .seconds(15),
                "return !!document.querySelector('\(found) button[title=\"\(stream)\"]')")
            try await browser.screenshot("discovered", .desktop)
            try await browser.click("\(found) button[title=\"\(stream)\"]")
            try await browser.wait(for: "the editor", "return document.getElementById('camera-dialog').open")
            #expect(try await browser.run("return document.getElementById('camera-url').value") as? String == stream)
            try await browser.click("#camera-save")
            try await browser.wait(
                for: "the dialog to close", timeout: .seconds(15),
                "return !document.getElementById('camera-dialog').open")
            let saved = try await server.request(.GET, "/api/cameras", token: user.token).array
            #expect(saved.first?["rtspURL"] as? String == stream)
            // The page kept the camera's identity, so the server can follow it to a new address.
            #expect((saved.first?["endpoint"] as? String)?.isEmpty == false, "\(saved)")
            let id = try #require(saved.first?["id"] as? String)
            try await browser.wait(
                for: "live video from the discovered camera", timeout: .seconds(30),
                "const v = document.querySelector('video[data-camera-id=\"\(id)\"]'); return !!v && v.currentTime > 0.5"
            )

            // Record it, then play back a chosen minute from the timeline.
            try await browser.click("#camera-list li[data-camera-id=\"\(id)\"] button[aria-label^='Recordings']")
            try await browser.wait(for: "the recordings", "return document.getElementById('recordings').open")
            try await browser.click("#recording-enabled")
            try await browser.wait(
                for: "recording on",
                "return document.getElementById('recording-status').innerText.startsWith('Recording continuously')")
            let (minute, spans) = try await Self.waitForRecording(
                server, id, token: user.token, seconds: 66, timeout: 110)
            // ipycam closes a session its client has not spoken on for 30 s although it announces a
            // 60 s session timeout, so FFmpeg's keep-alive (sent at half the announced timeout) races
            // it and the stream drops every 30–60 s. We reconnect at once; ipycam then starts a new
            // encoder for the session, so each drop still costs about 3 s. The minute may hold such
            // gaps, but only short ones.
            let span = (minute.addingTimeInterval(2), minute.addingTimeInterval(62))
            let covered = spans.reduce(0.0) { total, piece in
                total + max(0, min(piece.1, span.1).timeIntervalSince(max(piece.0, span.0)))
            }
            #expect(covered >= 50, "only \(covered) s of the minute recorded: \(spans)")
            for (previous, next) in zip(spans, spans.dropFirst()) {
                #expect(
                    next.0.timeIntervalSince(previous.1) <= 4.5,
                    "a \(next.0.timeIntervalSince(previous.1)) s gap: \(spans)")
            }
            try await browser.click("#timeline-range button[data-hours='1']")
            try await browser.wait(for: "the recorded span", "return !!document.querySelector('#timeline .recorded')")
            // A tap near "now", at the right end of the bar.
            try await browser.click("#timeline", atFraction: 0.995, 0.5)
            try await browser.wait(
                for: "the recording to play", timeout: .seconds(30),
                "return document.getElementById('recording-video').currentTime > 1")
            try await browser.screenshot("recordings-ipycam", .desktop)
            // The chosen minute: from two seconds after recording began, to a minute later.
            let clock = { (date: Date) in
                let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
                return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            }
            let from = minute.addingTimeInterval(2)
            try await browser.run(
                """
                for (const [id, value] of [['download-from', arguments[0]], ['download-to', arguments[1]]]) {
                  const input = document.getElementById(id); input.value = value; input.dispatchEvent(new Event('input'));
                }
                """, [clock(from), clock(from.addingTimeInterval(60))])
            let link =
                try await browser.run("return document.getElementById('download-link').getAttribute('href')") as? String
                ?? ""
            #expect(try await Self.text(browser, "#download-link") == "Download 1 min")
            let file = try await server.request(.GET, link, token: user.token)
            #expect(file.status == 200, "\(link): \(file.text.prefix(200))")
            let path = try temporaryDirectory() + "/minute.mp4"
            try Data(file.body).write(to: URL(fileURLWithPath: path))
            let probe = try FFprobeReport.read(path)
            let duration = probe.formatDuration ?? 0
            // A minute (a reconnect gap at its end shortens it by up to 4.5 s), plus up to one GOP
            // before it (playback starts at the keyframe before).
            #expect(duration >= 55 && duration <= 64, "the chosen minute lasts \(duration) s")
            #expect(probe.videoFrames.first?.isKeyframe == true)
        }
    }

    /// Waits until the camera's timeline reaches `seconds` past its first recorded moment; returns
    /// that moment and the recorded spans (gaps between them are time the camera was not recorded).
    static func waitForRecording(_ server: TestServer, _ id: String, token: String, seconds: Double, timeout: Double)
        async throws -> (start: Date, spans: [(Date, Date)])
    {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try await server.request(.GET, "/api/cameras/\(id)/timeline", token: token).object
            let spans = (last["segments"] as? [[String: Any]] ?? []).compactMap { segment -> (Date, Date)? in
                guard let start = (segment["start"] as? String).flatMap(RecordingRoutesTests.parse),
                    let end = (segment["end"] as? String).flatMap(RecordingRoutesTests.parse)
                else { return nil }
                return (start, end)
            }
            if let first = spans.first, let end = spans.last?.1, end.timeIntervalSince(first.0) >= seconds {
                return (first.0, spans)
            }
            try await Task.sleep(for: .seconds(1))
        }
        throw Browser.Failure(description: "no \(seconds) s of recording after \(timeout) s: \(last)")
    }

    @Test("an H.265 camera: the tile plays it, or says this browser cannot and what to do, and the word stays")
    func h265CameraSaysWhatToDo() async throws {
        let camera = RTSPTestServer(auth: .digest, codec: .h265, width: 640, height: 360)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("hevc")
        let added = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Attic", "rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        let id = try #require(added.object["id"] as? String)

        try await Browser.with(.desktop) { browser in
            try await Self.signIn(browser, server, as: "hevc")
            try await Self.tab(browser, "cameras")
            let label = ".cell[data-camera-id=\"\(id)\"] .health"
            try await browser.wait(
                for: "the live header", timeout: .seconds(30),
                "const l = document.querySelector('\(label)'); const v = document.querySelector('video[data-camera-id=\"\(id)\"]'); return !!l && (l.innerText.startsWith('this browser cannot play') || v.currentTime > 0.5)"
            )
            let plays =
                try await browser.run(
                    "return !!window.MediaSource && MediaSource.isTypeSupported('video/mp4; codecs=\"hvc1.1.6.L90.B0\"')"
                )
                as? Bool ?? false
            // Two health polls later (every 3 s), the server's "playing" has not replaced the browser's reason.
            try await Task.sleep(for: .seconds(7))
            let text = try await Self.text(browser, label)
            if plays {
                #expect(text == "playing", "\(text)")
            } else {
                #expect(
                    text
                        == "this browser cannot play H.265 live — choose H.264 in the camera's settings (recording still works)",
                    "\(text)")
            }
            try await browser.screenshot("h265", .desktop)
        }
    }

    @Test(
        "recordings: switch on, the timeline fills, a tap plays from there, the span downloads; fits a phone",
        arguments: Browser.Screen.allCases)
    func recordingsTimeline(screen: Browser.Screen) async throws {
        let camera = RTSPTestServer(auth: .digest, pattern: "ball", width: 640, height: 360)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start { $0.recordingSegmentSeconds = 2 }
        defer { Task { await server.stop() } }
        let user = try await server.user("recorder")
        let added = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Porch", "rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        let id = try #require(added.object["id"] as? String)

        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "recorder")
            try await Self.tab(browser, "cameras")
            try await browser.click("#camera-list li[data-camera-id=\"\(id)\"] button[aria-label^='Recordings']")
            try await browser.wait(for: "the recordings", "return document.getElementById('recordings').open")
            // The empty state says what to do.
            try await browser.wait(
                for: "the empty timeline",
                "return document.getElementById('timeline-empty').innerText.startsWith('Nothing recorded')")
            #expect(try await Self.text(browser, "#recording-status").contains("Turn it on"))
            try await browser.click("#recording-enabled")
            let (_, spans) = try await Self.waitForRecording(server, id, token: user.token, seconds: 6, timeout: 30)
            #expect(spans.count == 1, "a steady camera records without gaps: \(spans)")
            try await browser.click("#timeline-range button[data-hours='1']")
            try await browser.wait(for: "the recorded span", "return !!document.querySelector('#timeline .recorded')")
            // Drawn where it happened: the last seconds of the hour, at the bar's right end.
            let right =
                try await browser.run(
                    """
                    const bar = document.getElementById('timeline').getBoundingClientRect();
                    const piece = document.querySelector('#timeline .recorded').getBoundingClientRect();
                    return (piece.right - bar.left) / bar.width
                    """) as? Double ?? 0
            #expect(right > 0.97, "the recording is drawn ending at \(right) of the bar, not at 'now'")
            try await browser.click("#timeline .recorded")
            try await browser.wait(
                for: "the recording to play", timeout: .seconds(20),
                "return document.getElementById('recording-video').currentTime > 0.5")
            #expect(
                try await browser.run(
                    "const v = document.getElementById('recording-video'); return [v.videoWidth, v.videoHeight]")
                    as? [Int] == [640, 360])
            #expect(try await Self.text(browser, "#recording-chosen").hasPrefix("Playing from"))
            // A span longer than an hour is refused before asking the server.
            try await browser.run(
                """
                const a = document.getElementById('download-from'), b = document.getElementById('download-to');
                const [h, m, s] = a.value.split(':').map(Number);
                b.value = [(h + 2) % 24, m, s].map((n) => String(n).padStart(2, '0')).join(':');
                b.dispatchEvent(new Event('input'));
                """)
            #expect(try await Self.text(browser, "#download-error") == "A download covers at most one hour.")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("recordings", screen)
        }
    }

    @Test("Sign in with Apple: no button unless configured; Apple's return signs in, a foreign return does not")
    func signInWithAppleOnTheWeb() async throws {
        let apple = AppleKeyServer()
        try await apple.start()
        defer { apple.stop() }
        let key = try rsaKey()
        try apple.publish([("k1", key)])
        let plain = try await TestServer.start()
        defer { Task { await plain.stop() } }
        let server = try await TestServer.start {
            $0.appleJWKSURL = apple.url
            $0.appleWebClientID = "com.cameracore.web"
            $0.appleWebRedirectURI = "https://cameracore.example.com/"
        }
        defer { Task { await server.stop() } }
        let token = try await identityToken(
            key: key, kid: "k1", subject: "web.apple", email: "web@privaterelay.appleid.com",
            audience: "com.cameracore.web")

        try await Browser.with(.phone) { browser in
            try await browser.open(plain.base)
            try await browser.wait(for: "the first screen", "return !document.getElementById('welcome').hidden")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await browser.run("return document.getElementById('apple-area').hidden") as? Bool == true)

            try await browser.open(server.base)
            try await browser.wait(
                for: "the Apple button", "return !document.getElementById('apple-area').hidden")
            // Where the link goes (not followed: the tests reach nothing but loopback).
            let link =
                try await browser.run(
                    "return [document.getElementById('apple-button').href, sessionStorage.getItem('apple-state')]")
                as? [String] ?? []
            #expect(link.count == 2 && link[0].hasPrefix("https://appleid.apple.com/auth/authorize?"), "\(link)")
            #expect(link.count == 2 && link[0].contains("client_id=com.cameracore.web"))
            #expect(link.count == 2 && link[0].contains("redirect_uri=https%3A%2F%2Fcameracore.example.com%2F"))
            #expect(link.count == 2 && link[0].contains("state=\(link[1])"))

            // A return this page did not start: refused, still signed out.
            try await browser.open(server.base)
            try await browser.run("sessionStorage.setItem('apple-state', 'mine')")
            // Apple's return is a new page load (from another site), not a change of the fragment.
            try await browser.open("about:blank")
            try await browser.open(server.base + "/#state=someone-else&id_token=\(token)")
            try await browser.wait(
                for: "the refusal",
                "return document.getElementById('auth-error').innerText.includes('not started from this page')")
            #expect(try await browser.run("return document.getElementById('tabs').hidden") as? Bool == true)
            // Apple's return with the state this page saved: signed in as the Apple account.
            try await browser.run("sessionStorage.setItem('apple-state', 'mine')")
            try await browser.open("about:blank")
            try await browser.open(server.base + "/#state=mine&id_token=\(token)")
            try await browser.wait(for: "the signed-in app", "return !document.getElementById('tabs').hidden")
            #expect(try await browser.run("return location.hash") as? String == "")
            #expect(
                try await browser.run("return document.getElementById('email').textContent") as? String
                    == "web@privaterelay.appleid.com")
        }
        let accounts = try await server.request(
            .POST, "/api/auth/apple", json: ["identityToken": token])
        #expect((accounts.object["user"] as? [String: Any])?["email"] as? String == "web@privaterelay.appleid.com")
    }

    @Test("coach: a long analysis shows the server's progress, and Cancel stops it with nothing saved")
    func coachProgressAndCancel() async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 14).first)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("patient")

        try await Browser.with(.desktop) { browser in
            try await Self.signIn(browser, server, as: "patient")
            try await Self.tab(browser, "coach")
            try await browser.type("#workout-file", workout.path)
            try await browser.wait(for: "the first frame", "return !document.getElementById('rim-step').hidden")
            try await browser.click(
                "#workout-video", atFraction: workout.rim[0] + workout.rim[2] / 2, workout.rim[1] + workout.rim[3] / 2)
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the analysis progress", timeout: .seconds(60),
                """
                const text = document.getElementById('analyse-text').innerText;
                return /Analysing the shots: ([1-9]|[1-9][0-9]) %/.test(text) && document.getElementById('analyse-bar').value > 0
                """)
            try await browser.click("#analyse-cancel")
            try await browser.wait(
                for: "the cancellation", timeout: .seconds(20),
                "return document.getElementById('status').innerText === 'Analysis cancelled.' && document.getElementById('analyse-bar').hidden"
            )
            #expect(try await browser.run("return document.getElementById('workout-result').hidden") as? Bool == true)
        }
        #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
    }

    @Test(
        "live training: the phone's camera (a fake camera playing a workout) → rim found, each shot called with a spoken tip as it happens, saved to the history"
    )
    func liveTrainingFromTheCamera() async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(
            try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 4, seed: 11).first)
        let shots = workout.events.filter(\.kind.isShot)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("hooper")
        try await Browser.withFakeCamera(playing: workout.path, .phone) { browser in
            try await Self.signIn(browser, server, as: "hooper")
            try await Self.tab(browser, "coach")
            // What the page says out loud.
            try await browser.run(
                "window.spoken = []; window.speechSynthesis.speak = (u) => window.spoken.push(u.text);")
            try await browser.click("#live-start")
            try await browser.wait(
                for: "the rim", timeout: .seconds(30),
                "return document.getElementById('live-status').innerText.startsWith('Rim found')")
            // The rim found is shown enlarged under the picture, to be checked (and tapped if wrong).
            let crop = try await Self.zoomCrop(browser, canvas: "live-zoom")
            let rim = workout.rim
            #expect(
                crop.x <= rim[0] && crop.y <= rim[1] && crop.x + crop.width >= rim[0] + rim[2]
                    && crop.y + crop.height >= rim[1] + rim[3] && rim[2] / crop.width >= 0.15,
                "\(crop) against the rim \(rim)")
            try await browser.wait(
                for: "every shot of one pass of the video", timeout: .seconds(workout.duration + 40),
                "return document.querySelectorAll('#live-shots li').length >= \(shots.count)")
            try await browser.screenshot("coach-live", .phone)
            #expect(try await browser.overflow() == 0)
            try await browser.click("#live-stop")
            try await browser.wait(
                for: "the saved session", timeout: .seconds(30),
                "return document.getElementById('live-status').innerText.startsWith('Session saved')")
            // The first pass's shots, oldest first, called as the truth says; each with a tip, spoken.
            let outcomes =
                try await browser.run(
                    "return [...document.querySelectorAll('#live-shots li')].reverse().map(li => li.dataset.outcome)")
                as? [String] ?? []
            #expect(
                Array(outcomes.prefix(shots.count)) == shots.map { $0.made ? "MAKE" : "MISS" },
                "\(outcomes) for \(shots.map(\.kind))")
            let spoken = try await browser.run("return window.spoken") as? [String] ?? []
            #expect(spoken.count == outcomes.count, "\(spoken)")
            #expect(
                spoken.allSatisfy { ($0.hasPrefix("Make. ") || $0.hasPrefix("Miss. ")) && $0.count > 10 }, "\(spoken)")
            // Noah's numbers come first for every make (it came down through the rim line).
            #expect(
                spoken.filter { $0.hasPrefix("Make. ") }.allSatisfy {
                    $0.contains(" degrees, ") && $0.contains(" inches ")
                },
                "\(spoken)")
            // Decided to tip ready: well inside a second (local tips; no Gemini key on this server).
            let waits =
                try await browser.run(
                    "return [...document.querySelectorAll('#live-shots li')].map(li => Number(li.dataset.answerSeconds))"
                )
                as? [Double] ?? []
            #expect(!waits.isEmpty && waits.allSatisfy { $0 <= 1 }, "\(waits)")
            try await browser.wait(
                for: "the session in the history", "return document.querySelectorAll('#workouts li').length === 1")
        }
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        #expect(history.count == 1 && (history.first?["shots"] as? Int ?? 0) >= shots.count, "\(history)")
    }

    @Test(
        "live training at a grey steel rim seen at 45° (an outdoor hoop, no orange): the rim found under the board's square with no tap; the phone knocked halfway, the rim follows the picture and the page says so; the shots counted, saved"
    )
    func liveTrainingAtASteelRim() async throws {
        var options = CourtCorpus.Options(placement: .angledLeft, width: 960, height: 540, events: 4)
        options.steelRim = true
        options.knock = true
        let workout = try Self.courtWorkout(options)
        let shots = workout.events.filter(\.kind.isShot)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("outdoors")
        try await Browser.withFakeCamera(playing: workout.path, .phone) { browser in
            try await Self.signIn(browser, server, as: "outdoors")
            try await Self.tab(browser, "coach")
            try await browser.click("#live-start")
            try await browser.wait(
                for: "the rim, found without a tap", timeout: .seconds(40),
                "return document.getElementById('live-status').innerText.startsWith('Rim found')")
            // Knocked: the rim is moved with the picture (a grey rim's colour cannot tell), and
            // the page says why the box jumped.
            try await browser.wait(
                for: "the rim moved with the picture", timeout: .seconds(workout.duration + 40),
                "return document.getElementById('live-status').innerText.startsWith('The camera moved')")
            try await browser.wait(
                for: "every shot of one pass of the video", timeout: .seconds(workout.duration + 40),
                "return document.querySelectorAll('#live-shots li').length >= \(shots.count)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-live-steel", .phone)
            try await browser.click("#live-stop")
            try await browser.wait(
                for: "the saved session", timeout: .seconds(30),
                "return document.getElementById('live-status').innerText.startsWith('Session saved')")
        }
        // The rim was found under the board's square, where the truth has it.
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        let id = try #require(history.first?["id"] as? String, "\(history)")
        let saved = try await server.request(.GET, "/api/lebot/workouts/\(id)", token: user.token).object
        let analysis = try #require(saved["analysis"] as? [String: Any], "\(saved)")
        let found = try #require(analysis["rimFound"] as? [String: Any], "\(analysis.keys)")
        #expect((found["evidence"] as? String)?.contains("inner square") == true, "\(found)")
        let box = try #require(found["rim"] as? [String: Double])
        let score = RimScore(
            found: [box["x"] ?? 0, box["y"] ?? 0, box["width"] ?? 0, box["height"] ?? 0], truth: workout.rim)
        #expect(score.isFound, "\(box) against \(workout.rim)")
        #expect((history.first?["shots"] as? Int ?? 0) >= shots.count, "\(history)")
        // Where it went: the first move is the knock (the video loops, so more may follow).
        let moves = try #require(analysis["rimMoves"] as? [[String: Any]], "\(analysis.keys)")
        let moved = try #require(moves.first?["found"] as? [String: Any], "\(moves)")
        let after = try #require(workout.rimAfterMove)
        let movedBox = try #require(moved["rim"] as? [String: Double])
        let movedScore = RimScore(
            found: [movedBox["x"] ?? 0, movedBox["y"] ?? 0, movedBox["width"] ?? 0, movedBox["height"] ?? 0],
            truth: after)
        #expect(movedScore.isFound, "\(movedBox) against \(after)")
    }

    @Test(
        "coach: a video where no hoop can be found asks the user to tap the rim; the ring at the tap is fitted, drawn and said"
    )
    func coachNoHoopAsksForATap() async throws {
        let folder = try temporaryDirectory()
        let path = folder + "/no-hoop.mp4"
        // A grey ring 5 % of the picture wide on a white board: no orange, so no hoop is found.
        try TestMedia.greyRing(at: path, seconds: 4, frameRate: 30)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("nohoop")
        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "nohoop")
            try await Self.tab(browser, "coach")
            try await browser.type("#workout-file", path)
            try await browser.wait(for: "the first frame", "return !document.getElementById('rim-step').hidden")
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the request to tap the rim", timeout: .seconds(60),
                "return document.getElementById('rim-error').innerText.includes('could not find the hoop')")
            #expect(try await Self.text(browser, "#rim-error").contains("Tap the rim in the picture"))
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-no-hoop", .phone)
            // A finger lands a little off the ring's centre (0.625, 0.333).
            try await browser.click("#workout-video", atFraction: 0.632, 0.34)
            try await browser.wait(for: "the rim box", "return !document.getElementById('rim-box').hidden")
            // Before anything is uploaded, the ring fitted at the tap is drawn (from a still of the
            // first frame): 5 % of the picture wide, not the 7 % a tap stands for.
            try await browser.wait(
                for: "the ring fitted at the tap", timeout: .seconds(20),
                "return document.getElementById('rim-help').innerText.startsWith('Ring found where you tapped')")
            let previewed = try await browser.placed("#rim-box", over: "#workout-video")
            #expect(Self.onTheGreyRing(previewed), "\(String(describing: previewed))")
            #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
            try await browser.screenshot("coach-ring-previewed", .phone)
            // Below the picture, the rim enlarged: 17 px across on this phone's picture, it fills
            // a fifth or more of the enlarged view, and a tap on it lands that much closer.
            let crop = try await Self.zoomCrop(browser)
            let ring = TestMedia.greyRingBox
            #expect(ring[2] / crop.width >= 0.2, "the ring fills \(ring[2] / crop.width) of it")
            let centre = (x: ring[0] + ring[2] / 2, y: ring[1] + ring[3] / 2)
            try await browser.click(
                "#rim-zoom", atFraction: (centre.x - crop.x) / crop.width, (centre.y - crop.y) / crop.height)
            try await browser.wait(
                for: "the ring fitted at the tap on the enlarged rim", timeout: .seconds(20),
                "return document.getElementById('rim-help').innerText.startsWith('Ring found where you tapped')")
            #expect(Self.onTheGreyRing(try await browser.placed("#rim-box", over: "#workout-video")))
            #expect(try await Self.text(browser, "#rim-zoom-caption").contains("tap the ring here"))
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-rim-zoom", .phone)
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the result with the tapped rim", timeout: .seconds(60),
                "return !document.getElementById('workout-result').hidden")
            #expect(try await Self.text(browser, "#workout-rim").hasPrefix("Rim fitted to the ring you tapped"))
            #expect(try await Self.text(browser, "#workout-summary").hasPrefix("No shots found"))
            // The box drawn is the ring's (5 % of the picture wide), not the 7 % a tap stands for.
            let drawn = try await browser.placed("#rim-box", over: "#workout-video")
            #expect(Self.onTheGreyRing(drawn), "\(String(describing: drawn))")
            try await browser.screenshot("coach-tapped", .phone)
        }
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        #expect(history.count == 1)
        // The point analysed is the tap on the enlarged rim, not the first one 0.007 off the
        // centre on each axis.
        let id = try #require(history.first?["id"] as? String)
        let saved = try await server.request(.GET, "/api/lebot/workouts/\(id)", token: user.token).object
        let fitted = try #require((saved["analysis"] as? [String: Any])?["rimFitted"] as? [String: Any])
        let point = try #require(fitted["point"] as? [String: Double], "\(fitted)")
        let ring = TestMedia.greyRingBox
        #expect(abs((point["x"] ?? 0) - (ring[0] + ring[2] / 2)) < 0.003, "\(point)")
        #expect(abs((point["y"] ?? 0) - (ring[1] + ring[3] / 2)) < 0.003, "\(point)")
    }

    @Test(
        "coach: a file that is not a video is said so at once; junk named .mp4 goes to the server, whose refusal is shown in words"
    )
    func coachRefusesWhatIsNotAVideo() async throws {
        let folder = try temporaryDirectory()
        let notes = folder + "/notes.txt"
        try Data("shots: 10, made: 7".utf8).write(to: URL(fileURLWithPath: notes))
        let junk = folder + "/junk.mp4"
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: junk))
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.user("picker")
        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "picker")
            try await Self.tab(browser, "coach")
            try await browser.type("#workout-file", notes)
            try await browser.wait(
                for: "the words for a file that is not a video",
                "return document.getElementById('workout-file-error').innerText.includes('not a video')")
            #expect(try await browser.run("return document.getElementById('rim-step').hidden") as? Bool == true)
            try await browser.type("#workout-file", junk)
            try await browser.wait(
                for: "the server's refusal", timeout: .seconds(30),
                "return document.getElementById('workout-file-error').innerText.includes('could not read it either')")
            let said = try await Self.text(browser, "#workout-file-error")
            #expect(said.contains("not an MP4, QuickTime or WebM video"), "\(said)")
            #expect(try await browser.run("return document.getElementById('rim-step').hidden") as? Bool == true)
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-not-a-video", .phone)
        }
    }

    @Test(
        "coach on a real gym clip (H.265) whose thin dark rim LeBot neither finds nor fits at a tap: a box dragged on the enlarged rim is the rim analysed, the make is called, the video is sent once and its shot replays from the server's H.264 copy",
        .enabled(if: RealFootage.folder(holding: RealFootage.hooptuber) != nil, Comment(rawValue: RealFootage.missing))
    )
    func coachGymClipBoxDraggedOnTheEnlargedRim() async throws {
        // A five-on-five game filmed from the sideline: the ring is 38 px of 1280, 11 px on this
        // phone. A tap on it fits a bright line beside it (stop 76); the user draws the box.
        let video = try #require(RealFootage.hooptuber.first { $0.name == "hooptuber-make009.mp4" })
        let truth = try #require(video.rim)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("gym")
        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "gym")
            try await Self.tab(browser, "coach")
            let file = URL(fileURLWithPath: "\(RealFootage.place)/\(video.name)").standardizedFileURL.path
            try await browser.type("#workout-file", file)
            // The clip is H.265, as iPhones record: this Chromium plays its sound but cannot show
            // its picture, so the server sends the first frame, and the rim is marked on that.
            try await browser.wait(
                for: "the first frame from the server", timeout: .seconds(30),
                "return !document.getElementById('workout-still').hidden && document.getElementById('workout-still').naturalWidth > 0"
            )
            #expect(try await Self.text(browser, "#rim-help").contains("cannot play this video"))
            #expect(try await browser.run("return document.getElementById('workout-video').hidden") as? Bool == true)
            // A finger on the rim, a little off its centre.
            try await browser.click(
                "#workout-still", atFraction: truth[0] + truth[2] / 2 + 0.004, truth[1] + truth[3] / 2 + 0.004)
            try await browser.wait(
                for: "the fit at the tap", timeout: .seconds(20),
                "const t = document.getElementById('rim-help').innerText; return t.startsWith('Ring found') || t.startsWith('No ring was clear')"
            )
            // Around the rim on its enlarged picture, corner to corner.
            let crop = try await Self.zoomCrop(browser)
            #expect(truth[2] / crop.width >= 0.1, "the rim fills \(truth[2] / crop.width) of the enlarged view")
            func inZoom(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
                ((x - crop.x) / crop.width, (y - crop.y) / crop.height)
            }
            try await browser.drag(
                "#rim-zoom", from: inZoom(truth[0], truth[1]), to: inZoom(truth[0] + truth[2], truth[1] + truth[3]))
            #expect(try await Self.text(browser, "#rim-help").hasPrefix("Rim marked: LeBot uses your box"))
            let marked = try #require(try await browser.placed("#rim-box", over: "#workout-still"))
            #expect(
                abs(marked.x - (truth[0] + truth[2] / 2)) < 0.003 && abs(marked.width - truth[2]) < 0.003, "\(marked)")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-gym-zoom", .phone)
            // Every line the page shows under its progress bar, as it changes.
            try await browser.recordTexts(of: "#analyse-text", as: "analyseWords")
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the result", timeout: .seconds(90), "return !document.getElementById('workout-result').hidden")
            #expect(try await Self.text(browser, "#workout-summary").hasPrefix("1 shot, 1 made"))
            // The shots were analysed, then the copy for the replay made, and the page said which.
            let said = try await browser.texts(recorded: "analyseWords")
            let analysing = said.firstIndex { $0.hasPrefix("Analysing the shots: ") }
            let copying = said.firstIndex {
                $0.hasPrefix("Making a copy of the video that this browser can play, for the replay: ")
            }
            let order = [analysing, copying].compactMap { $0 }
            #expect(order.count == 2 && order[0] < order[1], "\(said)")
            #expect(try await Self.text(browser, "#workout-rim").hasPrefix("Rim: the box you marked"))
            // Sent once: the analysis named the video sent for the first frame instead of sending it again.
            let posts = try await Self.uploads(browser, matching: "/api/lebot/(workouts|first-frame)")
            #expect(
                posts.count == 2 && posts[0] == "/api/lebot/first-frame" && posts[1].contains("upload="), "\(posts)")
            // The replay is the server's H.264 copy: a picture, and a tap on the shot plays it.
            try await browser.wait(
                for: "the replay's picture", timeout: .seconds(20),
                "const v = document.getElementById('replay'); return !v.parentElement.hidden && v.videoWidth > 0")
            #expect(try await Self.text(browser, "#replay-hint") == "Tap a shot to watch it.")
            try await browser.click("#shots tbody tr")
            try await browser.wait(
                for: "the shot playing", timeout: .seconds(10),
                "const v = document.getElementById('replay'); return !v.paused && v.currentTime > 0")
            try await browser.screenshot("coach-gym", .phone)
            // Gone from the server (an hour later, or replaced from another tab): Analyse again
            // sends the video itself, and the result comes as before.
            let folder = server.directory + "/workouts/\(user.id)"
            let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".sent-") }
            #expect(kept.count == 1, "\(kept)")
            for name in kept { try FileManager.default.removeItem(atPath: folder + "/" + name) }
            try await browser.run("document.getElementById('workout-result').hidden = true; return true")
            try await browser.click("#analyse")
            try await browser.wait(
                for: "the result again", timeout: .seconds(90),
                "return !document.getElementById('workout-result').hidden")
            #expect(try await Self.text(browser, "#workout-summary").hasPrefix("1 shot, 1 made"))
            // The id first (answered 404), then the file.
            let again = try await Self.uploads(browser, matching: "/api/lebot/(workouts|first-frame)")
            #expect(
                again.count == 4 && again[2].contains("upload=") && !again[3].contains("upload="), "\(again)")
        }
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        let id = try #require(history.first?["id"] as? String)
        let saved = try await server.request(.GET, "/api/lebot/workouts/\(id)", token: user.token).object
        let rim = try #require((saved["analysis"] as? [String: Any])?["rim"] as? [String: Double], "\(saved)")
        let analysed = [rim["x"] ?? 0, rim["y"] ?? 0, rim["width"] ?? 0, rim["height"] ?? 0]
        #expect(zip(analysed, truth).allSatisfy { abs($0 - $1) < 0.003 }, "\(analysed) against \(truth)")
    }

    @Test(
        "coach, a workout saved with its H.265 video before copies were made: the replay says this browser cannot play it, a button has the server copy it with the progress shown, and the copy plays; another user cannot, a second ask copies nothing"
    )
    func coachOldH265WorkoutCopiedForTheReplay() async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 3).first)
        let hevc = try AppRoutesTests.hevc(of: workout.path)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("oldvideo")
        let rim = workout.rim.map { String($0) }.joined(separator: ",")
        // As a workout from an iPhone was kept before the server made copies: its H.265 video.
        let (id, stored) = try await AppRoutesTests.savedWorkout(
            server, user, video: Array(try Data(contentsOf: URL(fileURLWithPath: workout.path))), rim: rim,
            storedAs: hevc)
        let other = try await server.user()
        let stolen = try await server.request(.POST, "/api/lebot/workouts/\(id)/playable", token: other.token)
        #expect(stolen.status == 404, "\(stolen.status) \(stolen.text)")
        #expect(try FFprobeReport.read(stored).videoCodec == "hevc")
        try await Browser.with(.phone) { browser in
            try await Self.openOldWorkout(browser, server, as: "oldvideo")
            #expect(
                try await Self.text(browser, "#replay-hint").hasSuffix("The server can make a copy that it plays."))
            #expect(
                try await browser.run("return document.getElementById('replay').parentElement.hidden") as? Bool == true)
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-old-workout", .phone)
            try await browser.recordTexts(of: "#replay-hint", as: "hintWords")
            try await browser.click("#replay-copy")
            try await browser.wait(
                for: "the copy's picture", timeout: .seconds(60),
                "const v = document.getElementById('replay'); return !v.parentElement.hidden && v.videoWidth > 0")
            #expect(try await Self.text(browser, "#replay-hint") == "Tap a shot to watch it.")
            let said = try await browser.texts(recorded: "hintWords")
            #expect(
                said.first == "Making a copy of the video that this browser can play: 0 %"
                    && said.last == "Tap a shot to watch it.", "\(said)")
            #expect(try await browser.run("return document.getElementById('replay-copy').hidden") as? Bool == true)
            try await browser.click("#shots tbody tr")
            try await browser.wait(
                for: "the shot playing", timeout: .seconds(10),
                "const v = document.getElementById('replay'); return !v.paused && v.currentTime > 0")
        }
        #expect(try FFprobeReport.read(stored).videoCodec == "h264")
        let again = try await server.request(.POST, "/api/lebot/workouts/\(id)/playable", token: user.token)
        #expect(again.status == 200 && again.object["copied"] as? Bool == false, "\(again.text)")
        let none = try await server.request(.POST, "/api/lebot/workouts/no-such-one/playable", token: user.token)
        #expect(none.status == 404 && none.text.contains("no such workout"), "\(none.text)")
        let left = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        #expect(Set(left) == ["\(id).json", "\(id).svg", "\(id).mp4"], "\(left)")
    }

    /// Signs in as `name`, opens their one workout in the coach tab and waits for the offer of a
    /// copy the browser can play (the workout's video is one it does not).
    static func openOldWorkout(_ browser: Browser, _ server: TestServer, as name: String) async throws {
        try await signIn(browser, server, as: name)
        try await tab(browser, "coach")
        try await browser.wait(for: "the history", "return document.querySelectorAll('#workouts li').length === 1")
        try await browser.click("#workouts li button")
        try await browser.wait(
            for: "the offer of a copy", timeout: .seconds(20),
            "return !document.getElementById('replay-copy').hidden")
    }

    @Test(
        "coach at 1280 px, an older workout whose H.265 video no picture of decodes: the copy is offered, fails with the server's words, the button goes, and the video is kept byte for byte"
    )
    func coachNoCopyOfAnUndecodableVideo() async throws {
        let folder = try temporaryDirectory()
        let workout = try #require(try BasketballCorpus.generate(in: folder, videos: 1, eventsPerVideo: 3).first)
        let broken = try AppRoutesTests.hevc(of: workout.path)
        try TestMedia.blankMediaData(broken)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("lostvideo")
        let (id, stored) = try await AppRoutesTests.savedWorkout(
            server, user, video: Array(try Data(contentsOf: URL(fileURLWithPath: workout.path))),
            rim: workout.rim.map { String($0) }.joined(separator: ","), storedAs: broken)
        try await Browser.with(.desktop) { browser in
            try await Self.openOldWorkout(browser, server, as: "lostvideo")
            try await browser.screenshot("coach-old-workout", .desktop)
            try await browser.click("#replay-copy")
            try await browser.wait(
                for: "the copy to fail", timeout: .seconds(30),
                "return document.getElementById('replay-copy').hidden")
            #expect(
                try await Self.text(browser, "#replay-hint")
                    == "A copy this browser can play could not be made of this video: its pictures could not be decoded (the file may be damaged); the video is kept as it was"
            )
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-no-copy", .desktop)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == Data(contentsOf: URL(fileURLWithPath: broken)))
        let left = try FileManager.default.contentsOfDirectory(atPath: server.directory + "/workouts/\(user.id)")
        #expect(Set(left) == ["\(id).json", "\(id).svg", "\(id).mp4"], "\(left)")
    }

    @Test(
        "live training at a rim LeBot cannot find: the page says to tap it, the last picture stays, a tap starts again with the ring there fitted and drawn, and shows the rim enlarged, where a tap on the ring is the point the next session fits"
    )
    func liveTrainingTapTheRim() async throws {
        let folder = try temporaryDirectory()
        // The fake camera films a grey ring on a white board (no orange: no hoop found).
        let ring = folder + "/ring.mp4"
        try TestMedia.greyRing(at: ring, seconds: 3, frameRate: 30)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("greyhoop")
        try await Browser.withFakeCamera(playing: ring, .phone) { browser in
            try await Self.signIn(browser, server, as: "greyhoop")
            try await Self.tab(browser, "coach")
            try await browser.click("#live-start")
            try await browser.wait(
                for: "the request to tap the rim", timeout: .seconds(40),
                "return document.getElementById('live-error').innerText.includes('could not find the hoop')")
            #expect(try await Self.text(browser, "#live-error").contains("tap the rim in the picture"))
            // The camera is off, its last picture stays to be tapped.
            #expect(
                try await browser.run(
                    "const v = document.getElementById('live-preview'); return v.srcObject === null && v.poster.startsWith('data:image/jpeg')"
                ) as? Bool == true)
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-live-no-hoop", .phone)
            // A finger lands a little off the ring's centre (0.625, 0.333).
            try await browser.click("#live-preview", atFraction: 0.632, 0.34)
            try await browser.wait(
                for: "the ring fitted", timeout: .seconds(40),
                "return document.getElementById('live-status').innerText.startsWith('Rim fitted to the ring you tapped')"
            )
            #expect(try await Self.text(browser, "#live-error").isEmpty)
            // The box drawn is the ring's (5 % of the picture wide), on the live picture.
            let drawn = try await browser.placed("#live-rim-box", over: "#live-preview")
            #expect(Self.onTheGreyRing(drawn), "\(String(describing: drawn))")
            try await browser.screenshot("coach-live-tapped", .phone)
            // Below the picture, the still of the tap enlarged 5× around it; a tap on the ring there
            // starts again with that point, several times finer (what the session is asked to fit).
            try await browser.run(
                "const W = window.WebSocket; window.sockets = []; window.WebSocket = class extends W { constructor(u, p) { super(u, p); window.sockets.push(String(u)); } }; return true"
            )
            let crop = try await Self.zoomCrop(browser, canvas: "live-zoom")
            #expect(abs(crop.width - 0.2) < 0.001 && crop.x < 0.632 && crop.x + crop.width > 0.632, "\(crop)")
            let centre = (x: 0.625, y: 115.0 / 360 + 5.0 / 360)
            try await browser.click(
                "#live-zoom", atFraction: (centre.x - crop.x) / crop.width, (centre.y - crop.y) / crop.height)
            try await browser.wait(
                for: "the session started again from the enlarged tap", timeout: .seconds(40),
                "return window.sockets.length > 0 && document.getElementById('live-status').innerText.startsWith('Rim fitted to the ring you tapped')"
            )
            let socket = try await browser.run("return window.sockets[0]") as? String ?? ""
            let point = (URLComponents(string: socket)?.queryItems?.first { $0.name == "rim" }?.value ?? "")
                .split(separator: ",").compactMap { Double($0) }
            #expect(
                point.count == 2 && abs(point[0] - centre.x) < 0.003 && abs(point[1] - centre.y) < 0.003,
                "\(socket): the tap on the enlarged ring, not the first tap (0.632, 0.34)")
            #expect(try await Self.zoomCrop(browser, canvas: "live-zoom") == crop, "the view moved")
            #expect(try await browser.overflow() == 0)
            try await browser.screenshot("coach-live-zoom", .phone)
            try await browser.click("#live-stop")
            try await browser.wait(
                for: "the end", timeout: .seconds(30),
                "return document.getElementById('live-status').innerText.startsWith('Session ended: no shots')")
            #expect(try await server.request(.GET, "/api/lebot/workouts", token: user.token).array.isEmpty)
            // The tap is kept for the next session; a server gone mid-session is said under the picture.
            try await browser.click("#live-start")
            try await browser.wait(
                for: "the ring fitted again", timeout: .seconds(40),
                "return document.getElementById('live-status').innerText.startsWith('Rim fitted to the ring you tapped')"
            )
            await server.stop()
            try await browser.wait(
                for: "the connection lost", timeout: .seconds(30),
                "return document.getElementById('live-error').innerText.includes('connection to the server was lost')")
        }
    }

    @Test(
        "live training with a worn grey ball at a grey rim: no hoop found, the rim tapped, every throw counted by the ball's brightness and saved"
    )
    func liveTrainingGreyBallAndTappedRim() async throws {
        let folder = try temporaryDirectory()
        // Neither ball nor rim is orange: live training found no hoop, and followed no ball, before.
        let video = folder + "/grey-ball.mp4"
        try TestMedia.threeThrows(at: video, ball: "504a48")
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("outdoors")
        try await Browser.withFakeCamera(playing: video, .phone) { browser in
            try await Self.signIn(browser, server, as: "outdoors")
            try await Self.tab(browser, "coach")
            try await browser.run(
                "window.spoken = []; window.speechSynthesis.speak = (u) => window.spoken.push(u.text);")
            try await browser.click("#live-start")
            try await browser.wait(
                for: "the request to tap the rim", timeout: .seconds(40),
                "return document.getElementById('live-error').innerText.includes('could not find the hoop')")
            let rim = TestMedia.threeThrowsRimMiddle
            try await browser.click("#live-preview", atFraction: rim.x, rim.y)
            try await browser.wait(
                for: "the rim tapped", timeout: .seconds(40),
                "return document.getElementById('live-status').innerText.includes('Shoot!')")
            // The camera loops the 6.5-s video: its three throws, each called and spoken.
            try await browser.wait(
                for: "three throws", timeout: .seconds(60),
                "return document.querySelectorAll('#live-shots li').length >= 3")
            try await browser.click("#live-stop")
            try await browser.wait(
                for: "the saved session", timeout: .seconds(30),
                "return document.getElementById('live-status').innerText.startsWith('Session saved')")
            let spoken = try await browser.run("return window.spoken") as? [String] ?? []
            #expect(spoken.count >= 3, "\(spoken)")
            // The page says how the ball was followed, and why.
            let cue = try await browser.run("return document.getElementById('live-cue').innerText") as? String ?? ""
            #expect(cue.contains("does not look orange") && cue.contains("brightness"), "\(cue)")
            try await browser.screenshot("live-grey-ball", .phone)
            #expect(try await browser.overflow() == 0)
            // Opened again from the history, the workout says it too.
            try await browser.wait(
                for: "the workout in the history", timeout: .seconds(10),
                "return document.querySelectorAll('#workouts li button').length >= 1")
            try await browser.click("#workouts li button")
            try await browser.wait(
                for: "the saved workout's words on the ball", timeout: .seconds(10),
                "return document.getElementById('workout-rim').innerText.includes('followed it by its brightness')")
            // No video is kept of a live session: no empty player (it showed a broken one).
            let player =
                try await browser.run(
                    "return [document.getElementById('replay').parentElement.hidden, document.getElementById('replay').hasAttribute('src'), document.getElementById('replay-hint').innerText]"
                ) as? [Any] ?? []
            #expect(
                player.first as? Bool == true && player.dropFirst().first as? Bool == false
                    && (player.last as? String ?? "").contains("not kept"), "\(player)")
            let rimWords = try await browser.run("return document.getElementById('workout-rim').innerText") as? String
            #expect(rimWords?.contains("analyse again") == false, "nothing to analyse again: \(rimWords ?? "")")
            try await browser.screenshot("live-grey-ball-saved", .phone)
        }
        let history = try await server.request(.GET, "/api/lebot/workouts", token: user.token).array
        #expect(history.count == 1 && (history.first?["shots"] as? Int ?? 0) >= 3, "\(history)")
        let id = history.first?["id"] as? String ?? ""
        let saved = try await server.request(.GET, "/api/lebot/workouts/\(id)", token: user.token).object
        #expect((saved["analysis"] as? [String: Any])?["ballCue"] as? String == "brightness", "\(saved)")
    }

    @Test(
        "teach CGame a game from a screenshot: a wrong word is named, the place is found and drawn, the saved game is the user's own and finds the kill",
        arguments: [Browser.Screen.phone, .desktop])
    func teachAGameFromAScreenshot(_ screen: Browser.Screen) async throws {
        let folder = try temporaryDirectory()
        // A game no shipped profile knows: its kill message bottom right.
        let truth = NormalizedRect(x: 0.55, y: 0.68, width: 0.4, height: 0.16)
        let video = try GameplayCorpus.make(
            in: folder, name: "unknown.mp4", region: truth,
            feed: [GameplayCorpus.Line(type: "Kill", text: "Ninja eliminated Bot42", start: 1, end: 4)], seconds: 5)
        let screenshot = folder + "/my-game.png"
        _ = try Subprocess.run(
            "ffmpeg", ["-v", "error", "-y", "-ss", "2", "-i", video.path, "-frames:v", "1", screenshot])
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.user("teacher")
        let other = try await server.user("other")
        try await Browser.with(screen) { browser in
            try await Self.signIn(browser, server, as: "teacher")
            try await Self.tab(browser, "settings")
            // Words the picture does not show: said next to the words, nothing saved.
            try await browser.type("#teach-file", screenshot)
            try await browser.type("#teach-keyword", "headshot")
            try await browser.click("#teach-find")
            try await browser.wait(
                for: "the word not found", timeout: .seconds(60),
                "return document.getElementById('teach-keyword-error').innerText.includes('was not read')")
            #expect(
                try await Self.text(browser, "#teach-keyword-error").contains(
                    "\"headshot\" was not read in the picture"))
            #expect(try await browser.run("return document.getElementById('teach-result').hidden") as? Bool == true)

            _ = try await browser.run("document.getElementById('teach-keyword').value = 'eliminated'")
            try await browser.click("#teach-find")
            try await browser.wait(
                for: "the place found", timeout: .seconds(60),
                "return !document.getElementById('teach-box').hidden && document.getElementById('teach-picture').naturalWidth > 0"
            )
            #expect(try await Self.text(browser, "#teach-read").contains("Bot42"))
            // The box is drawn around the message (which starts half a font size right of `truth.x`,
            // ~20 % of the width long, 2.6 % of the height tall), and is not the whole picture: as
            // fractions of the picture on the screen.
            let drawn =
                try await browser.run(
                    """
                    const p = document.getElementById('teach-picture').getBoundingClientRect();
                    const b = document.getElementById('teach-box').getBoundingClientRect();
                    return [(b.left - p.left) / p.width, (b.top - p.top) / p.height, b.width / p.width, b.height / p.height];
                    """) as? [Double] ?? []
            try #require(drawn.count == 4)
            #expect(drawn[0] <= truth.x + 0.01 && drawn[0] + drawn[2] >= truth.x + 0.21, "box at \(drawn)")
            #expect(drawn[1] <= truth.y + 0.013 && drawn[1] + drawn[3] >= truth.y + 0.039, "box at \(drawn)")
            // (Read band by band over this busy picture, the line is as tall as its band: a quarter
            // of the picture's height, not the whole picture.)
            #expect(drawn[2] * drawn[3] < 0.25, "box at \(drawn)")
            #expect(try await browser.overflow() == 0, "the calibration scrolls sideways")
            try await browser.screenshot("teach-game", screen)

            // Saved under the file's name; it is offered as a game and listed as the user's.
            #expect(try await browser.run("return document.getElementById('teach-name').value") as? String == "my game")
            _ = try await browser.run("document.getElementById('teach-name').value = 'Unknown Game'")
            try await browser.click("#teach-save-form button")
            try await browser.wait(
                for: "the game in the list",
                "return document.getElementById('teach-mine').innerText.includes('Unknown Game')")
            try await browser.wait(
                for: "the game offered in the settings",
                "return [...document.querySelectorAll('#gameProfileName option')].some((o) => o.value === 'Unknown Game')"
            )
            _ = try await browser.run("document.getElementById('gameProfileName').value = 'Unknown Game'")
            try await browser.click("#settings-form button[type=submit]")
            try await browser.wait(
                for: "the settings saved", "return document.body.innerText.includes('Settings saved')")
        }
        #expect(
            try await server.request(.GET, "/api/settings", token: user.token).object["gameProfileName"] as? String
                == "Unknown Game")
        let games = try await server.request(.GET, "/api/profiles", token: user.token).array
        let taught = try #require(games.first { $0["id"] as? String == "unknown-game" })
        // Nobody else sees it or can choose it.
        #expect(
            try await server.request(.GET, "/api/profiles", token: other.token).array.allSatisfy { $0["id"] == nil })
        #expect(
            try await server.request(
                .PUT, "/api/settings", token: other.token,
                json: [
                    "gameProfileName": "Unknown Game", "videoQuality": "720p", "preRollDuration": 5,
                    "postRollDuration": 3,
                ]
            ).status == 400)
        // The saved game finds the kill in the recording.
        let region = try #require(taught["region"] as? [String: Double])
        let profile = GameProfile(
            name: "Unknown Game",
            region: NormalizedRect(
                x: region["x"] ?? 0, y: region["y"] ?? 0, width: region["width"] ?? 0, height: region["height"] ?? 0),
            events: [.init(type: "Kill", keywords: (taught["keywords"] as? [String]) ?? [])])
        let summary = try HighlightPipeline(
            configuration: .init(source: .file(video.path), profile: profile, exportClips: false)
        ).run(store: nil)
        #expect(summary.events.map(\.text).contains { $0.contains("Bot42") }, "\(summary.events.map(\.text))")
    }

    @Test("sign out leaves nothing of the first user; the second changes the password and deletes the account")
    func signOutThenAccount() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let first = try await server.user("first")
        _ = try await server.user("second")
        #expect(try await server.request(.PUT, "/api/clips/mine", token: first.token, json: clipMetadata).status == 200)
        _ = try await server.request(
            .POST, "/api/cameras", token: first.token, json: ["name": "Secret Shed", "rtspURL": "rtsp://127.0.0.1:9/x"])
        _ = try await server.request(
            .POST, "/api/lebot/workouts?rim=0.4,0.2,0.1,0.03", token: first.token, body: try ServerMedia.clip.get())

        try await Browser.with(.phone) { browser in
            try await Self.signIn(browser, server, as: "first")
            try await browser.wait(for: "the first user's clip", "return !!document.querySelector('article.clip')")
            try await Self.tab(browser, "cameras")
            try await browser.wait(
                for: "the first user's camera", "return document.body.innerText.includes('Secret Shed')")
            try await Self.tab(browser, "coach")
            try await browser.wait(for: "the first user's workout", "return !!document.querySelector('#workouts li')")
            try await browser.click("#logout")
            try await browser.wait(for: "the first screen", "return !document.getElementById('welcome').hidden")
            #expect(try await browser.run("return localStorage.length + sessionStorage.length") as? Int == 0)

            try await Self.signIn(browser, server, as: "second")
            for name in ["highlights", "coach", "cameras", "settings"] {
                try await Self.tab(browser, name)
                try await Task.sleep(for: .milliseconds(500))
                let page = try await browser.run("return document.body.innerText") as? String ?? ""
                #expect(
                    !page.contains("Secret Shed") && !page.contains("Double Kill") && !page.contains("first@"),
                    "the \(name) tab shows the first user's things")
            }
            #expect(
                try await browser.run(
                    "return document.querySelectorAll('article.clip, #workouts li, #camera-list li').length") as? Int
                    == 0)

            // Confirm the e-mail with the code the server mailed. The first mail is "lost": the
            // code is sent again, the page says where, and the first code no longer works.
            #expect(try await browser.run("return document.getElementById('verify-banner').hidden") as? Bool == false)
            let lost = try server.mailedCode(to: "second@example.com")
            try await browser.click("#verify-resend")
            try await browser.wait(
                for: "the code sent again", "return document.getElementById('verify-resent').innerText.length > 0")
            #expect(
                try await Self.text(browser, "#verify-resent").hasPrefix("Sent again to second@example.com"))
            #expect(try server.mail(to: "second@example.com").count == 2)
            let code = try server.mailedCode(to: "second@example.com")
            #expect(code != lost)
            try await browser.screenshot("verify-resent", .phone)
            try await browser.type("#verify-code", lost)
            try await browser.click("#verify-form button")
            try await browser.wait(
                for: "the wrong-code error", "return document.getElementById('verify-code-error').innerText.length > 0")
            try await browser.run("document.getElementById('verify-code').value = ''")
            try await browser.type("#verify-code", code)
            try await browser.click("#verify-form button")
            try await browser.wait(for: "the banner to go", "return document.getElementById('verify-banner').hidden")

            // Change the password: a wrong current one is named; then it works.
            try await browser.type("#currentPassword", "not-my-password")
            try await browser.type("#newPassword", "second-new-password")
            try await browser.click("#password-form button[type=submit]")
            try await browser.wait(
                for: "the current-password error",
                "return document.getElementById('currentPassword-error').innerText.length > 0")
            #expect(try await Self.text(browser, "#currentPassword-error") == "That is not your current password")
            try await browser.run("document.getElementById('currentPassword').value = ''")
            try await browser.type("#currentPassword", "password-second")
            try await browser.click("#password-form button[type=submit]")
            try await browser.wait(
                for: "the changed message",
                "return document.getElementById('status').innerText.startsWith('Password changed')")

            // Delete the account: the dialog asks for the password and keeps the account on a wrong one.
            try await browser.click("#delete-account")
            try await browser.wait(for: "the delete dialog", "return document.getElementById('confirm-dialog').open")
            try await browser.type("#confirm-input", "password-second")
            try await browser.click("#confirm-yes")
            try await browser.wait(
                for: "the wrong-password error", "return document.getElementById('confirm-error').innerText.length > 0")
            try await browser.run("document.getElementById('confirm-input').value = ''")
            try await browser.type("#confirm-input", "second-new-password")
            try await browser.click("#confirm-yes")
            try await browser.wait(for: "the first screen", "return !document.getElementById('welcome').hidden")
        }
        let gone = try await server.request(
            .POST, "/api/auth/login", json: ["email": "second@example.com", "password": "second-new-password"])
        #expect(gone.status == 401)
        #expect(try await server.request(.GET, "/api/clips", token: first.token).array.count == 1)
        #expect(try await server.request(.GET, "/api/me", token: first.token).object["emailVerified"] as? Bool == false)
    }
}
