import CameraTestPeers
import CameraTesting
import Foundation
import NIOHTTP1
import Networking
import Testing

/// Headless Chromium driven through chromedriver's W3C WebDriver API on a loopback port: the browser
/// a person would use, loading the real web UI from the test server.
final class Browser: @unchecked Sendable {
    // @unchecked: `driver` and `session` are set in `start` and read afterwards from one test task.
    private var driver: Process?
    private var base = ""
    private var session = ""

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A phone (390×844 CSS pixels, touch, like an iPhone 14; pictures at 2× to keep them small) and a desktop window.
    enum Screen: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case phone, desktop
        var size: (width: Int, height: Int) { self == .phone ? (390, 844) : (1280, 800) }
        var testDescription: String { "\(rawValue) \(size.width)×\(size.height)" }
    }

    /// Starts chromedriver and one headless Chromium window of `width`×`height`. Below 500 px
    /// (Chromium's smallest window) the page is emulated as a touch phone of that size.
    static func start(width: Int = 1280, height: Int = 860, arguments: [String] = []) async throws -> Browser {
        let browser = Browser()
        try await browser.launch(width: width, height: height, arguments: arguments)
        return browser
    }

    private func launch(width: Int, height: Int, arguments: [String]) async throws {
        guard
            let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { throw Failure(description: "chromedriver is missing (apt-get install chromium-driver)") }
        let port = try LoopbackPort.free()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        driver = process
        base = "http://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let status = try? await call(.GET, "/status"), (status["ready"] as? Bool) == true { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        var options: [String: Any] = [
            "binary": "/usr/bin/chromium",
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=\(width),\(height)", "--autoplay-policy=no-user-gesture-required",
                "--no-first-run", "--mute-audio",
            ] + arguments,
        ]
        if width < 500 {
            options["mobileEmulation"] = [
                "deviceMetrics": ["width": width, "height": height, "pixelRatio": 2, "touch": true]
            ]
        }
        let created = try await call(
            .POST, "/session",
            ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        guard let id = created["sessionId"] as? String else {
            throw Failure(description: "chromedriver gave no session: \(created)")
        }
        session = "/session/\(id)"
    }

    /// Ends the session (Chromium exits) and stops chromedriver: its `/shutdown`, then SIGKILL,
    /// since it ignores SIGTERM. No `waitUntilExit()`: Foundation's `Process` learns of an exit
    /// through a socket that Chromium's processes inherit too, so that wait can last forever.
    func quit() async {
        if !session.isEmpty { _ = try? await call(.DELETE, session) }
        session = ""
        _ = try? await call(.GET, "/shutdown")
        if let driver { kill(driver.processIdentifier, SIGKILL) }
        driver = nil
    }

    /// A browser dropped without `quit()` still takes chromedriver down with it.
    deinit {
        if let driver { kill(driver.processIdentifier, SIGKILL) }
    }

    /// Runs `body` with a new browser and always quits it afterwards, also when `body` throws.
    static func with<T>(
        _ screen: Screen = .desktop, arguments: [String] = [], _ body: (Browser) async throws -> T
    ) async throws -> T {
        let browser = try await start(width: screen.size.width, height: screen.size.height, arguments: arguments)
        do {
            let result = try await body(browser)
            await browser.quit()
            return result
        } catch {
            await browser.quit()
            throw error
        }
    }

    /// Runs `body` with a browser whose camera (`getUserMedia`) films `video`, looped: Chromium's
    /// fake camera plays a Y4M file, made next to the video. Asking for the camera is allowed.
    static func withFakeCamera<T>(
        playing video: String, _ screen: Screen = .desktop, _ body: (Browser) async throws -> T
    ) async throws -> T {
        let camera = video + ".y4m"
        _ = try Subprocess.run(
            "ffmpeg", ["-v", "error", "-y", "-i", video, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", camera])
        return try await with(
            screen,
            arguments: [
                "--use-fake-device-for-media-stream", "--use-file-for-fake-video-capture=\(camera)",
                "--use-fake-ui-for-media-stream",
            ], body)
    }

    /// Where the element `shown` is drawn over `picture`: its centre and width as fractions of the
    /// picture (nil when either is missing).
    func placed(_ shown: String, over picture: String) async throws -> (x: Double, y: Double, width: Double)? {
        let numbers =
            try await run(
                """
                const v = document.querySelector(arguments[0]), b = document.querySelector(arguments[1]);
                if (!v || !b) return [];
                const p = v.getBoundingClientRect(), r = b.getBoundingClientRect();
                return [(r.left + r.width / 2 - p.left) / p.width, (r.top + r.height / 2 - p.top) / p.height, r.width / p.width];
                """, [picture, shown]) as? [Double] ?? []
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    /// One WebDriver command; returns its `value` (an object, or `{"value": …}` for other shapes).
    @discardableResult
    private func call(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any]
    {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let response = try await HTTPClient.send(
            method, url: HTTPURL(base + path)!, headers: [("Content-Type", "application/json")], body: bytes,
            timeout: .seconds(60), limit: 64 << 20)
        let object =
            (try? JSONSerialization.jsonObject(with: Data(response.body), options: .fragmentsAllowed)) as? [String: Any]
        let value = object?["value"]
        if response.status != 200 {
            let error =
                (value as? [String: Any])?["message"] as? String ?? String(decoding: response.body, as: UTF8.self)
            throw Failure(description: "WebDriver \(method) \(path): \(error.prefix(500))")
        }
        return value as? [String: Any] ?? ["value": value ?? NSNull()]
    }

    func open(_ url: String) async throws { try await call(.POST, session + "/url", ["url": url]) }

    /// The current tab's WebDriver handle.
    func window() async throws -> String {
        try await call(.GET, session + "/window")["value"] as? String ?? ""
    }

    /// Opens a new tab and makes it the current one; returns its handle.
    @discardableResult
    func newTab() async throws -> String {
        let handle = try await call(.POST, session + "/window/new", ["type": "tab"])["handle"] as? String ?? ""
        try await switchTo(handle)
        return handle
    }

    /// Makes the tab with `handle` the one commands go to.
    func switchTo(_ handle: String) async throws { try await call(.POST, session + "/window", ["handle": handle]) }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page and returns its result.
    @discardableResult
    func run(_ script: String, _ args: [Any] = []) async throws -> Any? {
        let value = try await call(.POST, session + "/execute/sync", ["script": script, "args": args])
        return value.count == 1 && value["value"] != nil ? value["value"] : value
    }

    /// Keeps every text the element at `css` shows from now on, as it changes, under `name`; read
    /// them with ``texts(recorded:)``.
    func recordTexts(of css: String, as name: String) async throws {
        _ = try await run(
            """
            const [selector, key] = arguments;
            const element = document.querySelector(selector);
            window[key] = [];
            new MutationObserver(() => window[key].push(element.textContent))
              .observe(element, { childList: true, characterData: true, subtree: true });
            return true
            """, [css, name])
    }

    /// The texts kept under `name` since ``recordTexts(of:as:)``, oldest first.
    func texts(recorded name: String) async throws -> [String] {
        try await run("return window[arguments[0]] || []", [name]) as? [String] ?? []
    }

    private func element(_ css: String) async throws -> String {
        let found = try await call(.POST, session + "/element", ["using": "css selector", "value": css])
        guard let id = found.values.first as? String else { throw Failure(description: "no element \(css)") }
        return id
    }

    func type(_ css: String, _ text: String) async throws {
        try await call(.POST, session + "/element/\(try await element(css))/value", ["text": text])
    }

    /// Clicks the element after scrolling it to the middle of the window, as a person would
    /// before tapping (WebDriver's own scrolling leaves it at the edge, under a phone's tab bar).
    func click(_ css: String) async throws {
        let id = try await element(css)
        try await run(
            "arguments[0].scrollIntoView({block: 'center', inline: 'center'})",
            [["element-6066-11e4-a52e-4f735466cecf": id]])
        try await call(.POST, session + "/element/\(id)/click", [:])
    }

    /// A click (a tap on a phone) at a point of the element, given as fractions of its width and height.
    func click(_ css: String, atFraction x: Double, _ y: Double) async throws {
        try await drag(css, from: (x, y), to: (x, y))
    }

    /// A press at one point of the element and a release at another (the same point: a click),
    /// given as fractions of its width and height; the pointer moves between them in 200 ms.
    func drag(_ css: String, from start: (x: Double, y: Double), to end: (x: Double, y: Double)) async throws {
        let id = try await element(css)
        try await run("arguments[0].scrollIntoView({block: 'center'})", [["element-6066-11e4-a52e-4f735466cecf": id]])
        let rect = try await call(.GET, session + "/element/\(id)/rect")
        let width = rect["width"] as? Double ?? 0
        let height = rect["height"] as? Double ?? 0
        // W3C actions measure from the element's centre.
        let origin = ["element-6066-11e4-a52e-4f735466cecf": id]
        func move(to point: (x: Double, y: Double), duration: Int) -> [String: Any] {
            [
                "type": "pointerMove", "duration": duration, "origin": origin, "x": Int((point.x - 0.5) * width),
                "y": Int((point.y - 0.5) * height),
            ]
        }
        let moved = start.x != end.x || start.y != end.y
        let steps: [[String: Any]] =
            [move(to: start, duration: 0), ["type": "pointerDown", "button": 0]]
            + (moved ? [move(to: end, duration: 200)] : []) + [["type": "pointerUp", "button": 0]]
        try await call(
            .POST, session + "/actions",
            [
                "actions": [
                    ["type": "pointer", "id": "finger", "parameters": ["pointerType": "mouse"], "actions": steps]
                ]
            ])
        _ = try? await call(.DELETE, session + "/actions")
    }

    /// Accepts the page's confirmation dialog (ours, not the browser's).
    func confirm() async throws {
        try await wait(for: "the confirmation dialog", "return document.getElementById('confirm-dialog').open")
        try await click("#confirm-yes")
        try await wait(for: "the dialog to close", "return !document.getElementById('confirm-dialog').open")
    }

    /// The page is no wider than the window: nothing to scroll sideways to.
    func overflow() async throws -> Int {
        // A desktop's vertical scroll bar makes the page narrower than the window: that is no overflow.
        try await run("return Math.max(0, document.documentElement.scrollWidth - window.innerWidth)") as? Int ?? -1
    }

    /// Saves a screenshot as `name`-`screen`.png in the screenshot folder.
    func screenshot(_ name: String, _ screen: Screen) async throws {
        try await screenshot().write(
            to: URL(fileURLWithPath: WebUITests.screenshots + "/\(name)-\(screen.rawValue).png"))
    }

    /// Polls `condition` (a script returning true when done) until it holds or `timeout` passes.
    func wait(for what: String, timeout: Duration = .seconds(20), _ condition: String) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await run(condition)) as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(150))
        }
        let page = (try? await run("return document.body.innerText.slice(0, 600)")) as? String ?? ""
        throw Failure(description: "timed out waiting for \(what); the page shows: \(page)")
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        let value = try await call(.GET, session + "/screenshot")
        guard let text = value["value"] as? String, let data = Data(base64Encoded: text) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }
}
