import CameraCommon
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// The per-pixel kernels effects are built from. Loops run over raw buffers with integer maths so
/// the compiler vectorises them (SIMD); each is one pass over the plane.
enum PixelOps {
    /// Splits rows into one contiguous band per core and runs them in parallel (per-pixel work is
    /// independent, and a 1080p frame is worth the few microseconds of dispatch).
    static func parallelRows(_ height: Int, _ body: (Range<Int>) -> Void) {
        let bands = min(Scheduling.coreCount, max(1, height / 64))
        guard bands > 1 else { return body(0..<height) }
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                shared.value((height * band / bands)..<(height * (band + 1) / bands))
            }
        }
    }

    /// Applies a 256-entry table to every colour byte of an RGBA plane (alpha untouched), or to
    /// every byte of a single-channel plane.
    static func applyTable(_ table: [UInt8], to plane: inout Plane, channels: Int) {
        let width = plane.width
        let height = plane.height
        let stride = plane.bytesPerRow
        table.withUnsafeBufferPointer { lut in
            plane.bytes.withUnsafeMutableBufferPointer { bytes in
                let base = bytes.baseAddress!
                parallelRows(height) { rows in
                    for row in rows {
                        let line = base + row * stride
                        if channels == 4 {
                            for x in 0..<width {
                                let pixel = line + x * 4
                                pixel[0] = lut[Int(pixel[0])]
                                pixel[1] = lut[Int(pixel[1])]
                                pixel[2] = lut[Int(pixel[2])]
                            }
                        } else {
                            for x in 0..<(width * channels) { line[x] = lut[Int(line[x])] }
                        }
                    }
                }
            }
        }
    }

    /// A table for `value · contrast + brightness` around mid-grey, clamped.
    static func toneTable(brightness: Double, contrast: Double, invert: Bool = false) -> [UInt8] {
        (0..<256).map { index in
            var value = (Double(index) - 127.5) * contrast + 127.5 + brightness * 255
            if invert { value = 255 - value }
            return UInt8(clamping: Int(value.rounded()))
        }
    }

    /// Multiplies RGB by a 3×3 matrix in 8.8 fixed point (saturation, grayscale, sepia).
    static func colorMatrix(_ matrix: [Double], mix: Double, on plane: inout Plane) {
        // Blend the matrix with identity by `mix` so effects have an intensity.
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let m = zip(matrix, identity).map {
            SIMD4<Int32>(repeating: Int32((($0 * mix + $1 * (1 - mix)) * 256).rounded()))
        }
        let width = plane.width
        let height = plane.height
        let stride = plane.bytesPerRow
        // Four pixels at a time as SIMD4<Int32> lanes (little-endian RGBA words: red is the low
        // byte); the tail of each row goes through the same maths one pixel at a time.
        let low = SIMD4<Int32>(repeating: 0)
        let high = SIMD4<Int32>(repeating: 255)
        let byteMask = SIMD4<Int32>(repeating: 0xFF)
        let half = SIMD4<Int32>(repeating: 128)
        let alphaMask = SIMD4<Int32>(repeating: Int32(bitPattern: 0xFF00_0000))
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        @inline(__always) func clamp(_ v: SIMD4<Int32>) -> SIMD4<Int32> {
            pointwiseMin(pointwiseMax(v, low), high)
        }
        @inline(__always) func transform(_ word: SIMD4<Int32>) -> SIMD4<Int32> {
            let r = word & byteMask
            let g = (word &>> 8) & byteMask
            let b = (word &>> 16) & byteMask
            let nr = clamp((m0 &* r &+ m1 &* g &+ m2 &* b &+ half) &>> 8)
            let ng = clamp((m3 &* r &+ m4 &* g &+ m5 &* b &+ half) &>> 8)
            let nb = clamp((m6 &* r &+ m7 &* g &+ m8 &* b &+ half) &>> 8)
            return (word & alphaMask) | (nb &<< 16) | (ng &<< 8) | nr
        }
        plane.bytes.withUnsafeMutableBytes { raw in
            parallelRows(height) { rows in
                for row in rows {
                    let line = raw.baseAddress! + row * stride
                    var x = 0
                    if Int(bitPattern: line) % MemoryLayout<SIMD4<Int32>>.alignment == 0 {
                        let vectors = line.assumingMemoryBound(to: SIMD4<Int32>.self)
                        for index in 0..<(width / 4) { vectors[index] = transform(vectors[index]) }
                        x = width / 4 * 4
                    }
                    while x < width {
                        var lanes = SIMD4<Int32>(repeating: 0)
                        lanes[0] = line.loadUnaligned(fromByteOffset: x * 4, as: Int32.self)
                        line.storeBytes(of: transform(lanes)[0], toByteOffset: x * 4, as: Int32.self)
                        x += 1
                    }
                }
            }
        }
    }

    /// Saturation matrix (Rec. 601 luma weights): 0 is grey, 1 unchanged, above 1 more vivid.
    static func saturationMatrix(_ s: Double) -> [Double] {
        let (lr, lg, lb) = (0.299, 0.587, 0.114)
        return [
            lr * (1 - s) + s, lg * (1 - s), lb * (1 - s),
            lr * (1 - s), lg * (1 - s) + s, lb * (1 - s),
            lr * (1 - s), lg * (1 - s), lb * (1 - s) + s,
        ]
    }

    static let sepiaMatrix: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]

    /// Box blur of `radius` pixels, three passes (close to a Gaussian), separable, with running
    /// sums so the cost does not grow with the radius.
    static func blur(_ plane: inout Plane, channels: Int, radius: Int, passes: Int = 3) {
        guard radius > 0, plane.width > 1, plane.height > 1 else { return }
        var rowBuffer = [UInt8](repeating: 0, count: plane.width * channels)
        for _ in 0..<passes {
            blurRows(&plane, channels: channels, radius: radius, rowBuffer: &rowBuffer)
            blurColumns(&plane, channels: channels, radius: radius)
        }
    }

    private static func blurRows(_ plane: inout Plane, channels: Int, radius: Int, rowBuffer: inout [UInt8]) {
        let width = plane.width
        let stride = plane.bytesPerRow
        let height = plane.height
        let window = Int32(2 * radius + 1)
        rowBuffer.withUnsafeMutableBufferPointer { temp in
            plane.bytes.withUnsafeMutableBufferPointer { bytes in
                for row in 0..<height {
                    let line = bytes.baseAddress! + row * stride
                    for channel in 0..<channels {
                        // Edges repeat the border pixel.
                        var sum = Int32(0)
                        for k in -radius...radius { sum += Int32(line[min(max(k, 0), width - 1) * channels + channel]) }
                        for x in 0..<width {
                            temp[x * channels + channel] = UInt8((sum + window / 2) / window)
                            let add = min(x + radius + 1, width - 1)
                            let drop = max(x - radius, 0)
                            sum += Int32(line[add * channels + channel]) - Int32(line[drop * channels + channel])
                        }
                    }
                    line.update(from: temp.baseAddress!, count: width * channels)
                }
            }
        }
    }

    private static func blurColumns(_ plane: inout Plane, channels: Int, radius: Int) {
        let width = plane.width
        let stride = plane.bytesPerRow
        let height = plane.height
        let window = Int32(2 * radius + 1)
        // Columns one at a time would thrash the cache; keep a running sum per byte of a row.
        var sums = [Int32](repeating: 0, count: width * channels)
        var output = [UInt8](repeating: 0, count: stride * height)
        plane.bytes.withUnsafeBufferPointer { source in
            sums.withUnsafeMutableBufferPointer { sum in
                output.withUnsafeMutableBufferPointer { out in
                    let rowBytes = width * channels
                    for k in -radius...radius {
                        let line = source.baseAddress! + min(max(k, 0), height - 1) * stride
                        for i in 0..<rowBytes { sum[i] += Int32(line[i]) }
                    }
                    for row in 0..<height {
                        let target = out.baseAddress! + row * stride
                        for i in 0..<rowBytes { target[i] = UInt8((sum[i] + window / 2) / window) }
                        let add = source.baseAddress! + min(row + radius + 1, height - 1) * stride
                        let drop = source.baseAddress! + max(row - radius, 0) * stride
                        for i in 0..<rowBytes { sum[i] += Int32(add[i]) - Int32(drop[i]) }
                    }
                }
            }
        }
        if channels == 4 {
            // Blur colour only: alpha keeps its values.
            let original = plane.bytes
            var index = 3
            while index < output.count {
                output[index] = original[index]
                index += 4
            }
        }
        plane.bytes = output
    }

    /// Darkens towards the corners: factor 1 inside `radius` (fraction of the half-diagonal), falling
    /// smoothly to `1 - strength` at the corners. Returns a per-pixel 8.8 factor map, cached by size.
    static func vignetteMap(width: Int, height: Int, strength: Double, radius: Double) -> [UInt16] {
        var map = [UInt16](repeating: 256, count: width * height)
        let cx = Double(width) / 2
        let cy = Double(height) / 2
        let maxDistance = (cx * cx + cy * cy).squareRoot()
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) + 0.5 - cx
                let dy = Double(y) + 0.5 - cy
                let d = (dx * dx + dy * dy).squareRoot() / maxDistance
                var t = (d - radius) / max(1e-6, 1 - radius)
                t = min(1, max(0, t))
                let smooth = t * t * (3 - 2 * t)
                map[y * width + x] = UInt16(((1 - strength * smooth) * 256).rounded())
            }
        }
        return map
    }

    static func applyFactorMap(_ map: [UInt16], to plane: inout Plane, channels: Int, colorChannels: Int) {
        let width = plane.width
        let stride = plane.bytesPerRow
        let height = plane.height
        map.withUnsafeBufferPointer { factors in
            if channels == 4 {
                plane.bytes.withUnsafeMutableBytes { raw in
                    parallelRows(height) { rows in
                        for row in rows {
                            let line = (raw.baseAddress! + row * stride).assumingMemoryBound(to: UInt32.self)
                            let rowFactors = factors.baseAddress! + row * width
                            for x in 0..<width {
                                let word = line[x]
                                let f = UInt32(rowFactors[x])
                                let r = ((word & 0xFF) &* f) >> 8
                                let g = (((word >> 8) & 0xFF) &* f) >> 8
                                let b = (((word >> 16) & 0xFF) &* f) >> 8
                                line[x] = (word & 0xFF00_0000) | b << 16 | g << 8 | r
                            }
                        }
                    }
                }
                return
            }
            plane.bytes.withUnsafeMutableBufferPointer { bytes in
                parallelRows(height) { rows in
                    for row in rows {
                        let line = bytes.baseAddress! + row * stride
                        let rowFactors = factors.baseAddress! + row * width
                        for x in 0..<width {
                            line[x] = UInt8((UInt32(line[x]) &* UInt32(rowFactors[x])) >> 8)
                        }
                    }
                }
            }
        }
    }
}

/// Wraps a non-Sendable value whose concurrent use the caller has made safe (disjoint row bands).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

enum Scheduling {
    static let coreCount: Int = {
        let count = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return count > 0 ? count : 1
    }()
}
