import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Testing

@testable import CameraServer

/// The web UI as a person uses it, in headless Chromium: the real pages, scripts, cookies, media
/// elements and Media Source Extensions, against a real server and a real RTSP camera.
@Suite("Web UI in Chromium", .serialized)
struct WebUITests {
    /// Where screenshots go: `$CAMERACORE_SCREENSHOTS` (how the README's pictures are made) or a temp folder.
    static let screenshots: String = {
        let folder = ProcessInfo.processInfo.environment["CAMERACORE_SCREENSHOTS"] ?? NSTemporaryDirectory()
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    @Test("sign in, see the synced clip in the gallery and play it, watch live video in the camera grid")
    func signInGalleryPlayerAndLiveGrid() async throws {
        let camera = RTSPTestServer(auth: .digest, pattern: "ball", width: 640, height: 360)
        try camera.start()
        defer { camera.stop() }
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }

        // What `cgame sync` leaves on the server: a clip with its file and thumbnail. And a camera.
        let user = try await server.user("player")
        #expect(try await server.request(.PUT, "/api/clips/c1", token: user.token, json: clipMetadata).status == 200)
        let clip = try ServerMedia.clip.get()
        #expect(try await server.request(.PUT, "/api/clips/c1/file", token: user.token, body: clip).status == 200)
        let thumbnail = try ServerMedia.jpeg.get()
        #expect(
            try await server.request(.PUT, "/api/clips/c1/thumbnail", token: user.token, body: thumbnail).status == 200)
        let added = try await server.request(
            .POST, "/api/cameras", token: user.token,
            json: ["name": "Driveway", "rtspURL": camera.url(), "username": camera.user, "password": camera.password])
        #expect(added.status == 201, "\(added.text)")
        let cameraID = added.object["id"] as? String ?? ""

        // Quit even when a step fails: a chromedriver left behind outlives the test process.
        try await Browser.with { browser in
            try await browser.open(server.base)
            try await browser.wait(for: "the sign-in form", "return !!document.getElementById('login-email')")
            // A wrong password first: the form says so and stays.
            try await browser.type("#login-email", "player@example.com")
            try await browser.type("#login-password", "not-the-password")
            try await browser.click("#login-button")
            try await browser.wait(
                for: "the sign-in error", "return document.getElementById('login-error').textContent.length > 0")
            #expect(try await browser.run("return document.getElementById('tabs').hidden") as? Bool == true)

            try await browser.run("document.getElementById('login-password').value = ''")
            try await browser.type("#login-password", "password-player")
            try await browser.click("#login-button")
            try await browser.wait(
                for: "the gallery with the clip's thumbnail",
                """
                const image = document.querySelector('article.clip[data-clip-id="c1"] img');
                return !document.getElementById('tabs').hidden && !!image && image.complete && image.naturalWidth > 0
                """)
            let card = try await browser.run("return document.querySelector('article.clip').innerText") as? String ?? ""
            #expect(card.contains("Double Kill"), "\(card)")
            #expect(card.contains("Fortnite"), "\(card)")
            try await browser.screenshot().write(to: URL(fileURLWithPath: Self.screenshots + "/clips.png"))

            // The player: clicking the thumbnail plays the uploaded file (through Range requests).
            try await browser.click("article.clip img")
            try await browser.wait(
                for: "the clip to play", "return document.getElementById('player-video').currentTime > 0.3")
            try await browser.run("document.getElementById('player').close()")

            // The camera grid: live fMP4 over the WebSocket into Media Source Extensions.
            try await browser.click("#tabs button[data-tab=cameras]")
            let video = "document.querySelector('video[data-camera-id=\"\(cameraID)\"]')"
            try await browser.wait(
                for: "live video in the grid", timeout: .seconds(30),
                "const v = \(video); return !!v && v.currentTime > 0.2"
            )
            let first = try await browser.run("return \(video).currentTime") as? Double ?? 0
            try await Task.sleep(for: .seconds(2))
            let second = try await browser.run("return \(video).currentTime") as? Double ?? 0
            #expect(second - first > 1.0, "live video stalled: currentTime \(first) → \(second)")
            let size = try await browser.run("return [\(video).videoWidth, \(video).videoHeight]") as? [Int]
            #expect(size == [640, 360])
            try await browser.wait(
                for: "the health badge", "return document.querySelector('#grid .badge').textContent === 'playing'")
            try await browser.screenshot().write(to: URL(fileURLWithPath: Self.screenshots + "/cameras.png"))
        }
    }
}
