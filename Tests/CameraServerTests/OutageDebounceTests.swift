import Foundation
import Synchronization
import Testing

@testable import CameraServer

@Suite("Timeline: a hiccup is not an outage")
struct OutageDebounceTests {
    @Test("a short loss of picture leaves no mark; one that lasts is marked from the moment it began, and its end too")
    func hiccupsAreNotAlarms() async throws {
        let debounce = OutageDebounce(grace: 0.5)
        let camera = UUID()
        let marked = Mutex<[Date]>([])
        let mark: @Sendable (Date) -> Void = { lost in marked.withLock { $0.append(lost) } }
        let offline = (kind: "offline", reason: "the stream ended")
        let online = (kind: "online", reason: "picture back")

        // The first picture of a camera is marked at once.
        #expect(debounce.filter(online, camera: camera, later: mark)?.kind == "online")
        // Lost for 0.2 s: neither the loss nor the return is marked.
        #expect(debounce.filter(offline, camera: camera, later: mark) == nil)
        try await Task.sleep(for: .milliseconds(200))
        #expect(debounce.filter(online, camera: camera, later: mark) == nil)
        try await Task.sleep(for: .milliseconds(600))
        #expect(marked.withLock { $0 }.isEmpty)

        // Lost for longer than the grace: marked at the moment it was lost, and the return marked.
        let lost = Date()
        #expect(debounce.filter(offline, camera: camera, at: lost, later: mark) == nil)
        try await Task.sleep(for: .milliseconds(800))
        #expect(marked.withLock { $0 } == [lost])
        #expect(debounce.filter(online, camera: camera, later: mark)?.kind == "online")
        // Other kinds (login refused, frozen) pass straight through.
        #expect(
            debounce.filter((kind: "loginRefused", reason: "x"), camera: camera, later: mark)?.kind == "loginRefused")
    }
}
