import CGameKit
import CameraCommon
import Testing

@Suite struct HighlightSessionTests {
    let settings = HighlightSettings(preRoll: 2, postRoll: 3, cooldown: 4, maximumDuration: 40)

    func event(_ seconds: Double, _ type: String = "Kill") -> DetectedEvent {
        DetectedEvent(type: type, text: "\(type) at \(seconds)", confidence: 0.9, time: MediaTime(seconds: seconds))
    }

    func buffered(_ start: Double, _ end: Double) -> TimeRange {
        TimeRange(start: MediaTime(seconds: start), end: MediaTime(seconds: end))
    }

    @Test func singleDoubleAndTripleKillsAreGroupedAndNamed() {
        var manager = HighlightSessionManager(settings: settings)
        for time in [10.0, 12.5, 15.0] { manager.handleEvent(event(time)) }  // 2.5 s apart: one triple
        manager.handleEvent(event(30))  // 15 s later: a new session
        manager.handleEvent(event(33))  // 3 s later: double
        manager.handleEvent(event(50))
        let all = manager.takeReady(analyzedThrough: MediaTime(seconds: 100), buffered: buffered(0, 100))
        #expect(all.map(\.name) == ["Triple Kill", "Double Kill", "Kill"])
        #expect(all[0].range == buffered(8, 18))
        #expect(all[1].range == buffered(28, 36))
        #expect(all[2].range == buffered(48, 53))
    }

    @Test func eventsFurtherApartThanTheCooldownGiveSeparateClips() {
        var manager = HighlightSessionManager(settings: settings)
        manager.handleEvent(event(10))
        manager.handleEvent(event(14.5))  // 4.5 s > 4 s cooldown
        let ready = manager.takeReady(analyzedThrough: MediaTime(seconds: 30), buffered: buffered(0, 30))
        #expect(ready.map(\.events.count) == [1, 1])
    }

    @Test func aSessionWaitsForTheCooldownAndThePostRoll() {
        var manager = HighlightSessionManager(settings: settings)
        manager.handleEvent(event(10))
        // Detection has only reached 13 s: another kill could still join.
        #expect(manager.takeReady(analyzedThrough: MediaTime(seconds: 13), buffered: buffered(0, 13)).isEmpty)
        #expect(manager.isActive && manager.eventCount == 1)
        // Detection reached 14.5 s (cooldown over) but the buffer only holds up to 12.9 s.
        #expect(manager.takeReady(analyzedThrough: MediaTime(seconds: 14.5), buffered: buffered(0, 12.9)).isEmpty)
        #expect(!manager.isActive)
        // A late event arriving now starts a new session, not the closed one.
        manager.handleEvent(event(16))
        let ready = manager.takeReady(analyzedThrough: MediaTime(seconds: 16), buffered: buffered(0, 13))
        #expect(ready.count == 1 && ready[0].range == buffered(8, 13))
        #expect(manager.eventCount == 1)
    }

    /// A kill first reported with a misread name, corrected before its highlight is handed out:
    /// the clip's events carry the corrected text, in an open session and in a closed one waiting
    /// for its post-roll; another event at another time is left alone.
    @Test func aCorrectionReachesTheHighlightNotYetHandedOut() {
        var manager = HighlightSessionManager(settings: settings)
        manager.handleEvent(event(10))
        manager.handleEvent(event(20))
        var correction = event(10)
        correction.text = "Ninja eliminated Raven"
        correction.corrects = true
        manager.correct(correction)  // the first session closed on the second event
        var late = event(20)
        late.text = "Ninja eliminated Echo"
        manager.correct(late)  // the open one
        let ready = manager.flush(buffered: buffered(0, 30))
        #expect(ready.map { $0.events.map(\.text) } == [["Ninja eliminated Raven"], ["Ninja eliminated Echo"]])
        var other = event(11)
        other.text = "nothing"
        var untouched = HighlightSessionManager(settings: settings)
        untouched.handleEvent(event(10))
        untouched.correct(other)
        #expect(untouched.flush(buffered: buffered(0, 30)).first?.events.map(\.text) == ["Kill at 10.0"])
    }

    @Test func rangesAreClampedToWhatTheBufferHolds() {
        var manager = HighlightSessionManager(settings: settings)
        manager.handleEvent(event(1))
        let ready = manager.takeReady(analyzedThrough: MediaTime(seconds: 10), buffered: buffered(0.5, 10))
        #expect(ready.first?.range == buffered(0.5, 4))
    }

    @Test func endOfStreamFlushesTheOpenSession() {
        var manager = HighlightSessionManager(settings: settings)
        manager.handleEvent(event(20))
        manager.handleEvent(event(21))
        #expect(manager.takeReady(analyzedThrough: MediaTime(seconds: 21.5), buffered: buffered(0, 21.5)).isEmpty)
        let flushed = manager.flush(buffered: buffered(0, 22))
        #expect(flushed.count == 1)
        #expect(flushed[0].name == "Double Kill")
        #expect(flushed[0].range == buffered(18, 22))
        #expect(manager.flush(buffered: buffered(0, 22)).isEmpty)
    }

    @Test func aFightLongerThanTheMaximumIsSplit() {
        var manager = HighlightSessionManager(settings: settings)
        for time in stride(from: 0.0, through: 60, by: 3) { manager.handleEvent(event(time + 5)) }
        let ready = manager.flush(buffered: buffered(0, 100))
        #expect(ready.count == 2)
        #expect(ready.allSatisfy { $0.range.duration.seconds <= 40 })
        #expect(ready.map(\.events.count).reduce(0, +) == 21)
    }

    @Test func multiKillNames() {
        var manager = HighlightSessionManager(settings: settings)
        for index in 0..<6 { manager.handleEvent(event(Double(index))) }
        manager.handleEvent(event(2.5, "Knock"))
        #expect(manager.flush(buffered: buffered(0, 20)).first?.name == "6x Kill")
    }
}
