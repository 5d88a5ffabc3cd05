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

    /// Blends what was drawn onto `frame` (RGBA, same size).
    func composite(onto frame: inout VideoFrame) {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return }
        Compositor.blendCairo(data, stride: Int(cairo_image_surface_get_stride(surface)), on: &frame)
    }
}
