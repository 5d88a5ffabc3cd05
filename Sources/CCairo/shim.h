// CCairo: Cairo's 2D drawing API (libcairo2-dev), used to rasterise text and pen strokes with
// anti-aliasing. Nothing here needs a wrapper; the header exists so SwiftPM can find Cairo.
#include <cairo/cairo.h>
