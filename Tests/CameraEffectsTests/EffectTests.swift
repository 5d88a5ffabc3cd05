import CameraCommon
import CameraEffects
import CameraIO
import CameraTesting
import CameraTransform
import Testing

/// A solid RGBA frame.
func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8, width: Int = 64, height: Int = 48) -> VideoFrame {
    var frame = VideoFrame(format: .rgba, width: width, height: height, fill: [0])
    for index in 0..<(width * height) {
        frame.planes[0].bytes[index * 4] = r
        frame.planes[0].bytes[index * 4 + 1] = g
        frame.planes[0].bytes[index * 4 + 2] = b
        frame.planes[0].bytes[index * 4 + 3] = 255
    }
    return frame
}

let context = RenderContext(renderSize: (64, 48), time: .zero)

func render(_ layer: any TransformLayer, _ frame: VideoFrame, time: MediaTime = .zero) -> VideoFrame {
    let stack = LayerStack(updateMode: .inline)
    stack.add(layer)
    return stack.render(frame, time: time)
}

@Suite("Filters")
struct FilterTests {
    @Test("grayscale gives R = G = B with Rec. 601 luma")
    func grayscale() throws {
        var random = SeededGenerator(seed: 5)
        var frame = solid(0, 0, 0)
        for index in frame.planes[0].bytes.indices where index % 4 != 3 {
            frame.planes[0].bytes[index] = UInt8.random(in: 0...255, using: &random)
        }
        let gray = render(try FilterEffect(.init(kind: .grayscale, amount: 1)), frame)
        for y in 0..<48 {
            for x in 0..<64 {
                let p = gray.rgba(x: x, y: y)
                #expect(p.r == p.g && p.g == p.b)
                let o = frame.rgba(x: x, y: y)
                let luma = 0.299 * Double(o.r) + 0.587 * Double(o.g) + 0.114 * Double(o.b)
                #expect(abs(Double(p.r) - luma) <= 1.5)
            }
        }
    }

    @Test("brightness, contrast, invert, sepia and saturation move pixels the expected way")
    func tones() throws {
        let base = solid(100, 150, 200)
        #expect(render(try FilterEffect(.init(kind: .brightness, amount: 0.2)), base).rgba(x: 5, y: 5).r == 151)
        let contrast = render(try FilterEffect(.init(kind: .contrast, amount: 2)), base).rgba(x: 5, y: 5)
        #expect(contrast.r == 73 && contrast.b == 255)  // (100 − 127.5)·2 + 127.5 = 72.5
        let inverted = render(try FilterEffect(.init(kind: .invert, amount: 1)), base).rgba(x: 5, y: 5)
        #expect(inverted.r == 155 && inverted.g == 105 && inverted.b == 55 && inverted.a == 255)
        let sepia = render(try FilterEffect(.init(kind: .sepia, amount: 1)), base).rgba(x: 5, y: 5)
        #expect(sepia.r > sepia.g && sepia.g > sepia.b, "sepia is warm")
        let vivid = render(try FilterEffect(.init(kind: .saturation, amount: 2)), base).rgba(x: 5, y: 5)
        #expect(vivid.b - vivid.r > 100, "more saturated spreads the channels")
    }

    @Test("blur spreads an edge; vignette darkens corners but not the centre")
    func blurAndVignette() throws {
        var frame = solid(0, 0, 0, width: 200, height: 100)
        for y in 0..<100 {
            for x in 100..<200 { for c in 0..<3 { frame.planes[0].bytes[(y * 200 + x) * 4 + c] = 255 } }
        }
        let blurred = render(try FilterEffect(.init(kind: .blur, amount: 100)), frame)
        #expect(blurred.rgba(x: 97, y: 50).r > 20 && blurred.rgba(x: 102, y: 50).r < 235)
        #expect(blurred.rgba(x: 5, y: 50).r == 0 && blurred.rgba(x: 195, y: 50).r == 255)

        let vignette = render(
            try FilterEffect(.init(kind: .vignette, amount: 0.8)), solid(200, 200, 200, width: 200, height: 100))
        #expect(vignette.rgba(x: 100, y: 50).r == 200)
        #expect(vignette.rgba(x: 0, y: 0).r < 80)
    }

    @Test("filters work on YUV frames too")
    func yuv() throws {
        var frame = VideoFrame(format: .yuv420p, width: 64, height: 48, fill: [100, 90, 200])
        frame = render(try FilterEffect(.init(kind: .grayscale, amount: 1)), frame)
        #expect(frame.planes[1].bytes.allSatisfy { $0 == 128 } && frame.planes[2].bytes.allSatisfy { $0 == 128 })
        #expect(frame.planes[0].bytes.allSatisfy { $0 == 100 }, "luma untouched")
    }

    @Test("an amount out of range is refused, naming the filter")
    func badAmount() {
        #expect { try FilterEffect(.init(kind: .contrast, amount: 9)) } throws: {
            "\($0)".contains("contrast") && "\($0)".contains("9")
        }
    }
}

@Suite("Overlays, text and pen")
struct OverlayTests {
    @Test("an overlay's alpha blends as computed")
    func alphaBlend() throws {
        // A 50 %-transparent red image over blue: 0.5·red + 0.5·blue.
        var image = solid(255, 0, 0, width: 8, height: 8)
        for index in 0..<64 { image.planes[0].bytes[index * 4 + 3] = 128 }
        let overlay = BitmapOverlayEffect(
            image: try OverlayImage(image), placement: Placement(centerX: 0.5, centerY: 0.5, width: 0.5))
        let out = render(overlay, solid(0, 0, 255))
        let middle = out.rgba(x: 32, y: 24)
        #expect(abs(Int(middle.r) - 128) <= 2 && abs(Int(middle.b) - 127) <= 2 && middle.g == 0)
        #expect(out.rgba(x: 2, y: 2) == solid(0, 0, 255).rgba(x: 2, y: 2), "outside the overlay: untouched")
    }

    @Test("rotation by 90° turns a wide overlay tall")
    func rotation() throws {
        let bar = try OverlayImage(solid(255, 255, 255, width: 40, height: 4))
        let out = render(
            BitmapOverlayEffect(image: bar, placement: Placement(centerX: 0.5, centerY: 0.5, width: 0.5, rotation: 90)),
            solid(0, 0, 0))
        #expect(out.rgba(x: 32, y: 24 - 15).r > 200, "the bar now runs vertically")
        #expect(out.rgba(x: 32 - 15, y: 24).r == 0)
    }

    @Test("text puts ink inside its box and nowhere else")
    func text() throws {
        let effect = TextEffect(.init(text: "Hi", size: 0.2, color: .white, outlineColor: nil, x: 0.25, y: 0.25))
        let out = render(effect, solid(0, 0, 0, width: 320, height: 240))
        let box = try #require(effect.boundingBox(width: 320, height: 240))
        var inside = 0
        var outside = 0
        for y in 0..<240 {
            for x in 0..<320 where out.rgba(x: x, y: y).r > 64 {
                let margin = 3
                if x >= box.x - margin && x < box.x + box.width + margin && y >= box.y - margin
                    && y < box.y + Int(0.2 * 240 * 1.3)
                {
                    inside += 1
                } else {
                    outside += 1
                }
            }
        }
        #expect(inside > 200, "the letters are drawn (\(inside) px)")
        #expect(outside == 0)
    }

    @Test("pen strokes replay: only the points drawn by the current time show")
    func penReplay() throws {
        let stroke = PenEffect.Stroke(
            color: .white, width: 0.025,
            points: [.init(x: 0.1, y: 0.5, time: 0), .init(x: 0.5, y: 0.5, time: 1), .init(x: 0.9, y: 0.5, time: 2)])
        let pen = PenEffect(.init(strokes: [stroke]))
        let early = render(pen, solid(0, 0, 0, width: 200, height: 100), time: MediaTime(seconds: 1.5))
        let late = render(pen, solid(0, 0, 0, width: 200, height: 100), time: MediaTime(seconds: 2.5))
        #expect(early.rgba(x: 60, y: 50).r > 200 && early.rgba(x: 150, y: 50).r == 0)
        #expect(late.rgba(x: 150, y: 50).r > 200)
        // Anti-aliased: the stroke's edge has intermediate values.
        let column = (44...56).map { Int(late.rgba(x: 150, y: $0).r) }
        #expect(column.contains { $0 > 10 && $0 < 245 })
    }

    @Test("a sticker follows its keyframes")
    func sticker() throws {
        let dot = try OverlayImage(solid(255, 255, 255, width: 4, height: 4))
        let sticker = try StickerEffect(
            .init(
                path: "dot.png",
                keyframes: [
                    .init(time: 0, placement: Placement(centerX: 0.2, centerY: 0.5, width: 0.1)),
                    .init(time: 2, placement: Placement(centerX: 0.8, centerY: 0.5, width: 0.1)),
                ]), image: dot)
        #expect(abs(sticker.placement(at: 1).centerX - 0.5) < 1e-9)
        #expect(sticker.placement(at: 5).centerX == 0.8)
        let out = render(sticker, solid(0, 0, 0, width: 100, height: 50), time: MediaTime(seconds: 1))
        #expect(out.rgba(x: 50, y: 25).r == 255 && out.rgba(x: 20, y: 25).r == 0)
    }

    @Test("a board shows its colour around the video inset")
    func board() throws {
        let board = try BoardEffect(
            .init(
                color: RGBAColor(red: 0, green: 255, blue: 0),
                inset: NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)))
        let out = render(board, solid(255, 0, 0, width: 100, height: 80))
        #expect(out.rgba(x: 5, y: 5).g == 255 && out.rgba(x: 5, y: 5).r == 0)
        #expect(out.rgba(x: 50, y: 40).r == 255 && out.rgba(x: 50, y: 40).g == 0)
    }

    @Test("photo and frame images load from PNG; a missing file is named")
    func imagesFromFiles() throws {
        let folder = try WorkingDirectory.temporary()
        var border = solid(255, 255, 0, width: 20, height: 20)
        for y in 4..<16 { for x in 4..<16 { border.planes[0].bytes[(y * 20 + x) * 4 + 3] = 0 } }
        try ImageEncoder.write(border, to: folder.file("border.png"))
        let out = render(
            try FrameEffect(.init(path: folder.file("border.png"))), solid(0, 0, 255, width: 100, height: 100))
        #expect(out.rgba(x: 2, y: 50).r == 255 && out.rgba(x: 2, y: 50).b == 0, "border drawn")
        #expect(out.rgba(x: 50, y: 50).b == 255, "video shows through the middle")
        #expect { try PhotoEffect(.init(path: folder.file("missing.png"))) } throws: { "\($0)".contains("missing.png") }
    }
}
