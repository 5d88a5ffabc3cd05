import Testing

@testable import CameraCommon

@Suite("VideoFrame")
struct VideoFrameTests {
    /// An RGBA frame whose red channel is the x coordinate and green the y coordinate.
    func coordinateFrame(width: Int, height: Int) -> VideoFrame {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                bytes[(y * width + x) * 4] = UInt8(x)
                bytes[(y * width + x) * 4 + 1] = UInt8(y)
            }
        }
        return VideoFrame(
            format: .rgba, width: width, height: height,
            planes: [Plane(width: width, height: height, bytesPerRow: width * 4, bytes: bytes)])
    }

    @Test("crop keeps the pixels inside the rectangle")
    func crop() throws {
        let frame = coordinateFrame(width: 64, height: 48)
        let crop = try frame.cropped(x: 10, y: 20, width: 16, height: 8)
        #expect(crop.width == 16 && crop.height == 8)
        #expect(crop.rgba(x: 0, y: 0).r == 10 && crop.rgba(x: 0, y: 0).g == 20)
        #expect(crop.rgba(x: 15, y: 7).r == 25 && crop.rgba(x: 15, y: 7).g == 27)
    }

    @Test("crop clamps to the frame and rejects rectangles outside it")
    func cropClamps() throws {
        let frame = coordinateFrame(width: 64, height: 48)
        let crop = try frame.cropped(x: 60, y: 40, width: 100, height: 100)
        #expect(crop.width == 4 && crop.height == 8)
        #expect(throws: MediaError.self) { try frame.cropped(x: 70, y: 0, width: 10, height: 10) }
    }

    @Test("YUV crops stay chroma-aligned")
    func yuvCrop() throws {
        var frame = VideoFrame(format: .yuv420p, width: 64, height: 48, fill: [16, 128, 128])
        frame.planes[1].bytes[5 * 32 + 5] = 200  // chroma sample for luma (10...11, 10...11)
        let crop = try frame.cropped(x: 11, y: 11, width: 9, height: 9)
        #expect(crop.width == 10 && crop.height == 10)  // 10...19 covers the asked 11...19
        #expect(crop.planes[1].width == 5)
        #expect(crop.planes[1].bytes[0] == 200)
    }

    @Test("translation moves the picture and repeats the edge into what comes into view")
    func translate() {
        let frame = coordinateFrame(width: 40, height: 30)
        let moved = frame.translated(dx: 3, dy: -2)
        // The pixel that was at (10, 12) is now at (13, 10).
        #expect(moved.rgba(x: 13, y: 10).r == 10 && moved.rgba(x: 13, y: 10).g == 12)
        // Columns 0...2 came into view: they repeat the old left edge; the bottom rows the old bottom.
        #expect(moved.rgba(x: 0, y: 5).r == 0 && moved.rgba(x: 2, y: 5).r == 0)
        #expect(moved.rgba(x: 20, y: 29).g == 29 && moved.rgba(x: 20, y: 27).g == 29)
        #expect(moved.rgba(x: 20, y: 27).a == 255)
        #expect(frame.translated(dx: 0, dy: 0) == frame)
        // A move wider than the frame leaves only the edge.
        #expect(frame.translated(dx: -50, dy: 0).rgba(x: 0, y: 3).r == 39)
    }

    @Test("YUV translation moves chroma by half")
    func yuvTranslate() {
        var frame = VideoFrame(format: .yuv420p, width: 64, height: 48, fill: [16, 128, 128])
        frame.planes[0].bytes[10 * 64 + 10] = 235
        frame.planes[1].bytes[5 * 32 + 5] = 200
        let moved = frame.translated(dx: 4, dy: 2)
        #expect(moved.planes[0].bytes[12 * 64 + 14] == 235)
        #expect(moved.planes[1].bytes[6 * 32 + 7] == 200)
        #expect(moved.planes[1].bytes[5 * 32 + 5] == 128)
    }

    @Test("normalised crop of a region")
    func normalizedCrop() throws {
        let frame = coordinateFrame(width: 100, height: 100)
        let crop = try frame.cropped(normalized: NormalizedRect(x: 0.5, y: 0.25, width: 0.25, height: 0.5))
        #expect(crop.width == 25 && crop.height == 50)
        #expect(crop.rgba(x: 0, y: 0).r == 50 && crop.rgba(x: 0, y: 0).g == 25)
    }

    @Test("downscaling a gradient keeps it a gradient; a flat colour stays flat")
    func scale() throws {
        let frame = coordinateFrame(width: 200, height: 100)
        let half = try frame.scaled(width: 100, height: 50)
        #expect(half.width == 100 && half.height == 50)
        // Pixel x in the half-size frame covers source x ≈ 2x + 0.5.
        for x in stride(from: 0, to: 100, by: 9) {
            #expect(abs(Int(half.rgba(x: x, y: 10).r) - (2 * x)) <= 1)
        }
        let flat = VideoFrame(format: .gray8, width: 33, height: 17, fill: [77])
        let scaled = try flat.scaled(width: 80, height: 40)
        #expect(scaled.planes[0].bytes.allSatisfy { $0 == 77 })
        #expect(throws: MediaError.self) { try flat.scaled(width: 0, height: 10) }
    }

    @Test("a quarter turn clockwise puts the top-left corner at the top right; four turns are the picture")
    func rotation() {
        let frame = coordinateFrame(width: 6, height: 4)
        let turned = frame.rotated(clockwise: 90)
        #expect(turned.width == 4 && turned.height == 6)
        // The top row (y 0) becomes the right-hand column, read top to bottom left to right.
        #expect(turned.rgba(x: 3, y: 0).r == 0 && turned.rgba(x: 3, y: 0).g == 0)
        #expect(turned.rgba(x: 3, y: 5).r == 5 && turned.rgba(x: 0, y: 0).g == 3)
        let half = frame.rotated(clockwise: 180)
        #expect(half.rgba(x: 0, y: 0).r == 5 && half.rgba(x: 0, y: 0).g == 3)
        let back = frame.rotated(clockwise: 270)
        #expect(back.rgba(x: 0, y: 5).r == 0 && back.rgba(x: 0, y: 5).g == 0, "the top-left corner at the bottom left")
        #expect(turned.rotated(clockwise: 270) == frame && half.rotated(clockwise: 180) == frame)
        #expect(frame.rotated(clockwise: 360) == frame && frame.rotated(clockwise: -90) == back)
    }

    @Test("a frame many tiles wide turns pixel for pixel, every pixel size")
    func wideRotation() {
        for format in [PixelFormat.gray8, .rgba, .nv12] {
            let (width, height) = (101, 67)
            var frame = VideoFrame(format: format, width: width, height: height, fill: [0, 0, 0, 0])
            for index in frame.planes.indices {
                for offset in frame.planes[index].bytes.indices {
                    frame.planes[index].bytes[offset] = UInt8(
                        truncatingIfNeeded: offset &* 31 &+ index &* 7 &+ offset >> 8)
                }
            }
            let quarter = frame.rotated(clockwise: 90)
            let threeQuarters = frame.rotated(clockwise: 270)
            for index in frame.planes.indices {
                let (source, turned, back) = (frame.planes[index], quarter.planes[index], threeQuarters.planes[index])
                let pixel = format.bytesPerPixel(plane: index)
                var wrong = 0
                for y in 0..<source.height {
                    for x in 0..<source.width {
                        for byte in 0..<pixel {
                            let value = source.bytes[y * source.bytesPerRow + x * pixel + byte]
                            // Clockwise, (x, y) goes to (h − 1 − y, x); anticlockwise to (y, w − 1 − x).
                            let right = turned.bytes[x * turned.bytesPerRow + (source.height - 1 - y) * pixel + byte]
                            let left = back.bytes[(source.width - 1 - x) * back.bytesPerRow + y * pixel + byte]
                            if right != value || left != value { wrong += 1 }
                        }
                    }
                }
                #expect(wrong == 0, "\(format) plane \(index)")
            }
            #expect(quarter.rotated(clockwise: 270) == frame, "\(format)")
        }
    }

    @Test("every plane of a subsampled frame turns with the picture, odd sizes included")
    func subsampledRotation() {
        for format in [PixelFormat.yuv420p, .nv12] {
            var frame = VideoFrame(format: format, width: 7, height: 5, fill: [16, 128, 128])
            // A bright luma pixel and a red chroma sample in the top-left corner.
            frame.planes[0].bytes[0] = 235
            frame.planes[format == .nv12 ? 1 : 2].bytes[format == .nv12 ? 1 : 0] = 240
            let turned = frame.rotated(clockwise: 90)
            #expect(turned.width == 5 && turned.height == 7, "\(format)")
            for (index, plane) in turned.planes.enumerated() {
                let size = format.planeSize(index, width: 5, height: 7)
                #expect(plane.width == size.width && plane.height == size.height, "\(format) plane \(index)")
            }
            #expect(turned.luma(x: 4, y: 0) == 235, "\(format): luma corner at the top right")
            let chroma = turned.planes[format == .nv12 ? 1 : 2]
            let red = format == .nv12 ? chroma.bytes[(chroma.width - 1) * 2 + 1] : chroma.bytes[chroma.width - 1]
            #expect(red == 240, "\(format): chroma corner at the top right")
            #expect(turned.rotated(clockwise: 270) == frame, "\(format)")
        }
    }

}
