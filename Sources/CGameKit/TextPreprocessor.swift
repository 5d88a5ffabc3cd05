import CameraCommon

/// Prepares a frame's region for OCR: crop, find the text's pixels, upscale small text, and hand
/// Tesseract black text on white.
///
/// Game text sits on moving pictures with an outline, a shadow or a backing box so players can read
/// it anywhere. Tesseract's own global threshold fails there (it keeps bright scenery), and so does
/// a morphological top-hat once letters are packed closer than the filter is wide (the background
/// between letters passes with them). What works is what makes the text readable to players: text
/// pixels have something dark within a stroke's width (the outline), so only pixels near a dark
/// pixel are candidates, and Otsu's threshold over the candidates' brightness splits the text from
/// the bits of background that also touch the outline. A region with (almost) no text pixels is
/// reported as empty, so the recogniser is not even called. The steps and what each one changed on
/// the detection corpus are in BENCHMARKS.md.
public enum TextPreprocessor {
    /// Local contrast (0...255) below which nothing counts as text; noise and compression stay under
    /// it, outlined text is far above.
    public static let minimumContrast = 64

    /// The region of `frame` as a black-on-white image ready for a ``TextRecognizer``, or nil when the
    /// region shows nothing text-like.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when the region is empty or outside the frame.
    public static func prepare(
        _ frame: VideoFrame, region: NormalizedRect, options: RecognitionOptions
    ) throws(MediaError) -> VideoFrame? {
        guard region.isValid else {
            throw MediaError(.invalidArgument, operation: "prepare text region", message: "region \(region) is empty")
        }
        let (x, y, width, height) = pixels(of: region, in: frame)
        guard x >= 0, y >= 0, width >= 4, height >= 4 else {
            throw MediaError(
                .invalidArgument, operation: "prepare text region",
                message: "region \(region) is outside a \(frame.width)x\(frame.height) frame or under 4 px")
        }
        let bright = luma(of: frame, x: x, y: y, width: width, height: height)
        let light: Bool
        switch options.polarity {
        case .light: light = true
        case .dark: light = false
        case .automatic: light = textIsLight(bright)
        }
        let intensity = light ? bright : bright.map { 255 - $0 }
        // Game text scales with the screen: a stroke plus its outline is ~8 px at 1080p, so the
        // window is ~1 % of the frame height (11 px at 1080p), always odd.
        let size = max(5, Int((Double(frame.height) * 0.01).rounded())) | 1
        var mask = textMask(intensity, width: width, height: height, size: size, contrast: options.threshold)
        let textPixels = mask.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        guard textPixels * 500 >= width * height else { return nil }
        // Text is sized for the screen: ~20 px high at 1080p. Smaller captures are scaled back to
        // about 1080p, and tiny crops to the minimum height, since Tesseract misreads small glyphs.
        // Text already drawn large (a centre print is ~30 px high at 720p) is left as it is: scaling
        // it up only makes Tesseract slower.
        let large = tallestLine(mask, width: width, height: height) >= 20
        let forScreen = frame.height < 1000 && !large ? Int((1080.0 / Double(frame.height)).rounded()) : 1
        let forCrop = height < options.minimumHeight ? (options.minimumHeight + height - 1) / height : 1
        let factor = min(4, max(forScreen, forCrop))
        if factor > 1 { mask = upscale(mask, width: width, height: height, factor: factor) }
        let outWidth = width * factor
        let outHeight = height * factor
        return VideoFrame(
            format: .gray8, width: outWidth, height: outHeight,
            planes: [Plane(width: outWidth, height: outHeight, bytesPerRow: outWidth, bytes: mask)], pts: frame.pts)
    }

    /// The pixel rectangle of a normalised region of `frame` (its width and height cut at the frame's
    /// edges; negative or tiny when the region lies outside).
    static func pixels(of region: NormalizedRect, in frame: VideoFrame) -> (x: Int, y: Int, width: Int, height: Int) {
        let x = Int((region.x * Double(frame.width)).rounded(.down))
        let y = Int((region.y * Double(frame.height)).rounded(.down))
        let width = min(frame.width - x, Int((region.width * Double(frame.width)).rounded()))
        let height = min(frame.height - y, Int((region.height * Double(frame.height)).rounded()))
        return (x, y, width, height)
    }

    /// The height in rows of the tallest run of rows that hold text pixels (a line of text, or
    /// several lines run together).
    static func tallestLine(_ mask: [UInt8], width: Int, height: Int) -> Int {
        var tallest = 0
        var run = 0
        for row in 0..<height {
            var count = 0
            let start = row * width
            for index in start..<(start + width) where mask[index] == 0 {
                count += 1
                if count >= 2 { break }
            }
            run = count >= 2 ? run + 1 : 0
            tallest = max(tallest, run)
        }
        return tallest
    }

    /// 0 for text pixels, 255 elsewhere (see the type's description).
    static func textMask(_ intensity: [UInt8], width: Int, height: Int, size: Int, contrast: Int?) -> [UInt8] {
        var low = intensity
        extremeFilter(&low, width: width, height: height, size: size, minimum: true)
        let darkOutline = 96
        // Candidates: not dark themselves, but with something dark (an outline, a shadow, a box)
        // within the window. Their brightness splits into the text and the background next to it.
        var histogram = [Int](repeating: 0, count: 256)
        for index in intensity.indices where low[index] <= darkOutline && intensity[index] > darkOutline {
            histogram[Int(intensity[index])] += 1
        }
        let threshold = contrast ?? max(darkOutline + Self.minimumContrast / 2, otsuThreshold(histogram))
        var mask = [UInt8](repeating: 255, count: intensity.count)
        for index in intensity.indices
        where low[index] <= darkOutline && Int(intensity[index]) > threshold
            && Int(intensity[index]) - Int(low[index]) >= Self.minimumContrast
        {
            mask[index] = 0
        }
        return mask
    }

    /// Full-range luma of a rectangle, tightly packed.
    static func luma(of frame: VideoFrame, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        let plane = frame.planes[0]
        // One loop per pixel format, so the per-pixel work carries no format test.
        func fill(_ value: (UnsafeBufferPointer<UInt8>, Int) -> Int, bytesPerPixel: Int) {
            out.withUnsafeMutableBufferPointer { destination in
                plane.bytes.withUnsafeBufferPointer { source in
                    for row in 0..<height {
                        let from = (y + row) * plane.bytesPerRow + x * bytesPerPixel
                        for column in 0..<width {
                            destination[row * width + column] = UInt8(
                                clamping: value(source, from + column * bytesPerPixel))
                        }
                    }
                }
            }
        }
        switch frame.format {
        case .gray8:
            fill({ Int($0[$1]) }, bytesPerPixel: 1)
        case .rgba:
            // BT.601 luma in integers.
            fill({ (77 * Int($0[$1]) + 150 * Int($0[$1 + 1]) + 29 * Int($0[$1 + 2])) >> 8 }, bytesPerPixel: 4)
        case .yuv420p, .nv12:
            // Video luma is limited range (16...235).
            fill({ ((Int($0[$1]) - 16) * 298 + 128) >> 8 }, bytesPerPixel: 1)
        }
        return out
    }

    /// A `size`×`size` min or max filter, separable, with the van Herk/Gil-Werman algorithm: three
    /// comparisons per pixel whatever the size.
    static func extremeFilter(_ pixels: inout [UInt8], width: Int, height: Int, size: Int, minimum: Bool) {
        let radius = size / 2
        let pad: UInt8 = minimum ? 255 : 0
        let longest = max(width, height) + 2 * radius + size
        var line = [UInt8](repeating: pad, count: longest)
        var forward = [UInt8](repeating: pad, count: longest)
        var backward = [UInt8](repeating: pad, count: longest)
        func pass(count: Int, lines: Int, index: (Int, Int) -> Int) {
            let padded = count + 2 * radius
            let blocks = (padded + size - 1) / size * size
            for l in 0..<lines {
                for i in 0..<blocks { line[i] = pad }
                for i in 0..<count { line[i + radius] = pixels[index(l, i)] }
                for start in stride(from: 0, to: blocks, by: size) {
                    forward[start] = line[start]
                    for i in (start + 1)..<(start + size) {
                        forward[i] = minimum ? min(forward[i - 1], line[i]) : max(forward[i - 1], line[i])
                    }
                    backward[start + size - 1] = line[start + size - 1]
                    for i in stride(from: start + size - 2, through: start, by: -1) {
                        backward[i] = minimum ? min(backward[i + 1], line[i]) : max(backward[i + 1], line[i])
                    }
                }
                for i in 0..<count {
                    let a = backward[i]
                    let b = forward[i + size - 1]
                    pixels[index(l, i)] = minimum ? min(a, b) : max(a, b)
                }
            }
        }
        pass(count: width, lines: height) { row, column in row * width + column }
        pass(count: height, lines: width) { column, row in row * width + column }
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
}
