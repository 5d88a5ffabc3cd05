import CameraCommon
import Foundation
import Testing

@testable import LeBotKit

/// The stabilizer on a made-up gym seen through a window that moves the way a hand does: the
/// picture's measured movement matches the window's, a tripod's picture is left alone even with
/// people walking through it, and a slow pan wider than the search range is followed.
@Suite struct FrameStabilizerTests {
    // Half the analysis size (the tests run unoptimised); the search range scales with the width.
    static let width = 320
    static let height = 180
    /// Room around the window for the camera to wander in.
    static let margin = 48

    /// A gym's luma: a floor, a wall with pads and a banner, stands in rows, lines on the floor,
    /// speckle — rectangles and gradients, some texture everywhere.
    static let scene: [UInt8] = {
        let (w, h) = (width + 2 * margin, height + 2 * margin)
        var pixels = [UInt8](repeating: 0, count: w * h)
        var state: UInt64 = 7
        func random(_ range: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(range))
        }
        for y in 0..<h {
            for x in 0..<w {
                let wall = y < h / 2
                var value = wall ? 120 + (x * 40) / w : 150 - (y - h / 2) / 6
                if wall, y > h / 8, y < h / 4, (x / 23) % 3 == 0 { value = 60 }  // stands
                if !wall, (x + y) % 97 < 3 { value = 230 }  // floor lines
                value += random(9) - 4
                pixels[y * w + x] = UInt8(max(16, min(235, value)))
            }
        }
        for _ in 0..<60 {  // pads, banners, doors
            let (x0, y0) = (random(w - 40), random(h / 2))
            let (bw, bh, shade) = (8 + random(60), 8 + random(40), 30 + random(200))
            for y in y0..<min(h, y0 + bh) {
                for x in x0..<min(w, x0 + bw) { pixels[y * w + x] = UInt8(shade) }
            }
        }
        return pixels
    }()

    /// The camera's view with its picture moved by (`dx`, `dy`) (right and down positive: the
    /// window onto the scene moved the other way), with a dark player of 20×55 px standing at
    /// scene column `playerX` when given.
    static func view(dx: Int, dy: Int, playerX: Int? = nil) -> VideoFrame {
        let sceneWidth = width + 2 * margin
        var frame = VideoFrame(format: .yuv420p, width: width, height: height, fill: [16, 128, 128])
        scene.withUnsafeBufferPointer { scene in
            frame.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
                for row in 0..<height {
                    let sy = row + margin - dy
                    (luma.baseAddress! + row * width).update(
                        from: scene.baseAddress! + sy * sceneWidth + margin - dx, count: width)
                    guard let playerX, (90..<145).contains(sy) else { continue }
                    for sx in playerX..<(playerX + 20) where (0..<width).contains(sx - margin + dx) {
                        luma[row * width + sx - margin + dx] = 35
                    }
                }
            }
        }
        return frame
    }

    @Test func aHandheldPictureIsMeasuredAndMovedBack() {
        let stabilizer = FrameStabilizer()
        var worst = 0.0
        var wrong: [String] = []
        // A hand's wander: up to ~10 px (about a degree at a phone's focal length), two rhythms.
        func wander(_ time: Double) -> (x: Int, y: Int) {
            (
                Int((7 * sin(time * 1.3) + 3 * sin(time * 3.1 + 1)).rounded()),
                Int((5 * sin(time * 1.7 + 2) + 2.5 * sin(time * 2.3)).rounded())
            )
        }
        let start = wander(0)
        for index in 0..<90 {
            let time = Double(index) / 30
            let now = wander(time)
            // Measured from the first frame.
            let (dx, dy) = (now.x - start.x, now.y - start.y)
            let frame = Self.view(dx: now.x, dy: now.y, playerX: 100 + index * 2)
            let held = stabilizer.stabilize(frame, time: time)
            worst = max(worst, abs(stabilizer.offset.x - Double(dx)), abs(stabilizer.offset.y - Double(dy)))
            // The held frame shows the scene where the first frame showed it, to the even pixel
            // (an odd move may go either way).
            let evens = Set([dx - dx % 2, dx + dx % 2]).flatMap { x in Set([dy - dy % 2, dy + dy % 2]).map { (x, $0) } }
            if !evens.contains(where: { held == frame.translated(dx: -$0.0, dy: -$0.1) }) {
                wrong.append("frame \(index): moved \(dx), \(dy), measured \(stabilizer.offset)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) frames not moved back: \(wrong.prefix(8))")
        #expect(worst <= 0.75, "measured movement off by up to \(worst) px")
        #expect(stabilizer.largestMove > 0.02)
    }

    @Test func aTripodPictureIsLeftAlone() {
        let stabilizer = FrameStabilizer()
        for index in 0..<90 {
            // A player walks right across the picture; the camera does not move.
            let frame = Self.view(dx: 0, dy: 0, playerX: 20 + index * 4)
            let untouched = stabilizer.stabilize(frame, time: Double(index) / 30) == frame
            #expect(untouched, "frame \(index) moved by \(stabilizer.offset)")
        }
        #expect(stabilizer.largestMove < 0.002)
    }

    @Test func aSlowPanWiderThanTheSearchIsFollowed() {
        // 2 px a frame for 45 frames: 88 px, five times the 16 px searched between a frame and its
        // reference.
        let stabilizer = FrameStabilizer()
        for index in 0..<45 {
            _ = stabilizer.stabilize(Self.view(dx: 44 - index * 2, dy: 0), time: Double(index) / 30)
        }
        #expect(abs(stabilizer.offset.x - -88) <= 2, "followed to \(stabilizer.offset.x) px")
        #expect(abs(stabilizer.offset.y) <= 1)
    }

    @Test func aKnockIsNotFollowed() {
        // Still for a second, then knocked 40 px sideways and 12 down in one frame: no hand does
        // that, so the picture is left where the knock put it (the rim is found again there).
        let stabilizer = FrameStabilizer()
        for index in 0..<30 { _ = stabilizer.stabilize(Self.view(dx: 0, dy: 0), time: Double(index) / 30) }
        for index in 30..<60 {
            let frame = Self.view(dx: -40, dy: 12)
            let untouched = stabilizer.stabilize(frame, time: Double(index) / 30) == frame
            #expect(untouched, "frame \(index) moved by \(stabilizer.offset)")
        }
    }
}
