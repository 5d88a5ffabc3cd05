import CameraCommon

/// Prepares a frame's region for OCR: crop, grayscale, upscale small crops, and binarise so Tesseract
/// sees black text on white.
///
/// Game text sits on moving pictures, usually with an outline or shadow. A single global threshold
/// (what Tesseract does itself) often lands between two background tones and keeps them both, so
/// the threshold is found in two steps: Otsu's split of the whole crop, then Otsu's split again of
/// the side the text is on (the brightest pixels for light text). On a crop of white text over a
/// grey test pattern this turned "*‘PlayerOne eliminated|Bot42 / kmocked Jame" into the exact text.
public enum TextPreprocessor {
    /// The region of `frame` as an 8-bit grayscale image ready for a ``TextRecognizer``.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when the region is empty or outside the frame.
    public static func prepare(
        _ frame: VideoFrame, region: NormalizedRect, options: RecognitionOptions
    ) throws(MediaError) -> VideoFrame {
        guard region.isValid else {
            throw MediaError(.invalidArgument, operation: "prepare text region", message: "region \(region) is empty")
        }
        let x = Int((region.x * Double(frame.width)).rounded(.down))
        let y = Int((region.y * Double(frame.height)).rounded(.down))
        let width = min(frame.width - x, Int((region.width * Double(frame.width)).rounded()))
        let height = min(frame.height - y, Int((region.height * Double(frame.height)).rounded()))
        guard x >= 0, y >= 0, width >= 4, height >= 4 else {
            throw MediaError(
                .invalidArgument, operation: "prepare text region",
                message: "region \(region) is outside a \(frame.width)x\(frame.height) frame or under 4 px")
        }
        var gray = luma(of: frame, x: x, y: y, width: width, height: height)
        // Game text is sized for the screen: ~20 px high at 1080p. Smaller captures are scaled back
        // to about 1080p, and tiny crops to the minimum height, since Tesseract misreads small glyphs.
        let forScreen = frame.height < 1000 ? Int((1080.0 / Double(frame.height)).rounded()) : 1
        let forCrop = height < options.minimumHeight ? (options.minimumHeight + height - 1) / height : 1
        let factor = min(4, max(forScreen, forCrop))
        if factor > 1 { gray = upscale(gray, width: width, height: height, factor: factor) }
        let invert: Bool
        switch options.polarity {
        case .light: invert = true
        case .dark: invert = false
        case .automatic: invert = textIsLight(gray)
        }
        binarize(&gray, textIsLight: invert, threshold: options.threshold)
        let outWidth = width * factor
        let outHeight = height * factor
        return VideoFrame(
            format: .gray8, width: outWidth, height: outHeight,
            planes: [Plane(width: outWidth, height: outHeight, bytesPerRow: outWidth, bytes: gray)], pts: frame.pts)
    }

    /// The luma of a rectangle, tightly packed.
    static func luma(of frame: VideoFrame, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        let plane = frame.planes[0]
        var out = [UInt8](repeating: 0, count: width * height)
        out.withUnsafeMutableBufferPointer { destination in
            plane.bytes.withUnsafeBufferPointer { source in
                switch frame.format {
                case .gray8, .yuv420p, .nv12:
                    for row in 0..<height {
                        let from = (y + row) * plane.bytesPerRow + x
                        for column in 0..<width { destination[row * width + column] = source[from + column] }
                    }
                case .rgba:
                    for row in 0..<height {
                        let from = (y + row) * plane.bytesPerRow + x * 4
                        for column in 0..<width {
                            let p = from + column * 4
                            // BT.601 luma in integers.
                            let value = (77 * Int(source[p]) + 150 * Int(source[p + 1]) + 29 * Int(source[p + 2])) >> 8
                            destination[row * width + column] = UInt8(value)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Bilinear upscale by an integer factor.
    static func upscale(_ pixels: [UInt8], width: Int, height: Int, factor: Int) -> [UInt8] {
        let outWidth = width * factor
        let outHeight = height * factor
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let scale = 1.0 / Double(factor)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                for oy in 0..<outHeight {
                    let sy = max(0, (Double(oy) + 0.5) * scale - 0.5)
                    let y0 = min(height - 1, Int(sy))
                    let y1 = min(height - 1, y0 + 1)
                    let fy = sy - Double(y0)
                    for ox in 0..<outWidth {
                        let sx = max(0, (Double(ox) + 0.5) * scale - 0.5)
                        let x0 = min(width - 1, Int(sx))
                        let x1 = min(width - 1, x0 + 1)
                        let fx = sx - Double(x0)
                        let top = Double(source[y0 * width + x0]) * (1 - fx) + Double(source[y0 * width + x1]) * fx
                        let bottom = Double(source[y1 * width + x0]) * (1 - fx) + Double(source[y1 * width + x1]) * fx
                        destination[oy * outWidth + ox] = UInt8((top * (1 - fy) + bottom * fy).rounded())
                    }
                }
            }
        }
        return out
    }

    /// Otsu's threshold of a histogram: the level that best separates two classes of pixels.
    static func otsuThreshold(_ histogram: [Int]) -> Int {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return 128 }
        var sum = 0.0
        for (level, count) in histogram.enumerated() { sum += Double(level * count) }
        var backgroundSum = 0.0
        var backgroundCount = 0
        var best = (threshold: 128, variance: -1.0)
        for level in 0..<256 {
            backgroundCount += histogram[level]
            if backgroundCount == 0 { continue }
            let foregroundCount = total - backgroundCount
            if foregroundCount == 0 { break }
            backgroundSum += Double(level * histogram[level])
            let meanBackground = backgroundSum / Double(backgroundCount)
            let meanForeground = (sum - backgroundSum) / Double(foregroundCount)
            let difference = meanBackground - meanForeground
            let variance = Double(backgroundCount) * Double(foregroundCount) * difference * difference
            if variance > best.variance { best = (level, variance) }
        }
        return best.threshold
    }

    static func histogram(_ pixels: [UInt8]) -> [Int] {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        return histogram
    }

    /// Text covers less of a region than its background, so the smaller side of Otsu's split is
    /// taken to be the text.
    static func textIsLight(_ pixels: [UInt8]) -> Bool {
        let histogram = histogram(pixels)
        let threshold = otsuThreshold(histogram)
        let bright = histogram[(threshold + 1)...].reduce(0, +)
        return bright * 2 < pixels.count
    }

    /// The level separating text from everything else: Otsu's split of the text's side of the
    /// whole crop's Otsu split.
    static func textThreshold(_ histogram: [Int], textIsLight: Bool) -> Int {
        let first = otsuThreshold(histogram)
        var side = histogram
        if textIsLight {
            for level in 0...first { side[level] = 0 }
        } else {
            for level in (first + 1)..<256 { side[level] = 0 }
        }
        // Too few pixels on that side to split again: the first split is the text.
        let count = side.reduce(0, +)
        guard count >= 32 else { return first }
        return otsuThreshold(side)
    }

    /// Black text (0) on white (255). `threshold` overrides the automatic level.
    static func binarize(_ pixels: inout [UInt8], textIsLight: Bool, threshold: Int?) {
        let level = threshold ?? textThreshold(histogram(pixels), textIsLight: textIsLight)
        var table = [UInt8](repeating: 0, count: 256)
        for value in 0..<256 {
            let isText = textIsLight ? value > level : value <= level
            table[value] = isText ? 0 : 255
        }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = table[Int(buffer[index])] }
        }
    }
}
