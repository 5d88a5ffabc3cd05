import CCairo
import CameraCommon

/// A transparent Cairo surface the size of a frame: draw with Cairo (anti-aliased text and paths),
/// then blend onto the frame.
// @unchecked Sendable: a canvas is drawn on by one thread; the cached text canvas is only read
// (blended) after it has been drawn, under the layer's lock.
final class CairoCanvas: @unchecked Sendable {
    let surface: OpaquePointer
    let context: OpaquePointer
    let width: Int
    let height: Int

    init?(width: Int, height: Int) {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { return nil }
        guard let context = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        self.surface = surface
        self.context = context
        self.width = width
        self.height = height
        cairo_set_antialias(context, CAIRO_ANTIALIAS_GOOD)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    func setColor(_ color: RGBAColor) {
        cairo_set_source_rgba(
            context, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255,
            Double(color.alpha) / 255)
    }

    /// Blends what was drawn onto `frame` (RGBA, same size), limited to `region` when given (the
    /// only part that has ink, so a caption does not cost a full-frame pass).
    func composite(onto frame: inout VideoFrame, region: (x: Int, y: Int, width: Int, height: Int)? = nil) {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return }
        Compositor.blendCairo(data, stride: Int(cairo_image_surface_get_stride(surface)), on: &frame, region: region)
    }

    /// The smallest rectangle holding every pixel with ink (non-zero alpha); nil when empty.
    func inkBounds() -> (x: Int, y: Int, width: Int, height: Int)? {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var (minX, minY, maxX, maxY) = (width, height, -1, -1)
        for y in 0..<height {
            let row = data + y * stride
            for x in 0..<width where row[x * 4 + 3] != 0 {
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? nil : (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }
}
