// The rim enlarged. On a phone a real rim, 3–5 % of the picture wide, is 12–20 px across: too
// small to see whether the box sits on the ring, or to tap the ring exactly. Once a rim is marked
// or found, the picture around it is drawn enlarged below the picture, with the box and the tap; a
// tap or a drag there places the rim as one on the picture does, several times finer. The coach's
// video and the live camera each have one.
import { $, sizeOf } from "./ui.js";

export class RimZoom {
  /**
   * `ids`: the figure, its canvas and its caption. `source()` is what is enlarged: the picture
   * the rim is marked on (an <img>, a <video>, or a <canvas> holding a still of it). `boxes`:
   * whether a box may be dragged there too (else only tapped).
   */
  constructor({ step, canvas, caption }, source, { boxes = true } = {}) {
    this.ids = { step, canvas, caption };
    this.source = source;
    this.boxes = boxes;
    /** The part of the picture shown enlarged, as fractions of it (x, y, width, height); null: none. */
    this.crop = null;
  }

  /** Frames the view on `r`: about four rims wide (a tap: 20 % of the picture), 2:1. */
  frame(r) {
    const [pictureWidth, pictureHeight] = sizeOf(this.source());
    if (!pictureWidth || !pictureHeight) return;
    const centre = r.point || { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    const width = r.point ? 0.2 : Math.min(Math.max(4 * r.width, 0.15), 0.6);
    const height = Math.min((width * pictureWidth) / (2 * pictureHeight), 1);
    const clamp = (value, size) => Math.min(Math.max(value - size / 2, 0), 1 - size);
    this.crop = { x: clamp(centre.x, width), y: clamp(centre.y, height), width, height };
  }

  /** Whether `r` lies inside the view. */
  contains(r) {
    const c = this.crop;
    return c && r.x >= c.x && r.y >= c.y && r.x + r.width <= c.x + c.width && r.y + r.height <= c.y + c.height;
  }

  /** Shows `r` enlarged: framed anew unless `keep` and it is inside the view already. */
  enlarge(r, keep) {
    if (!keep || !this.contains(r)) this.frame(r);
    this.show(r);
  }

  /** A point on the view (fractions of it) as one on the picture. */
  toPicture(point) {
    const c = this.crop;
    return { x: c.x + point.x * c.width, y: c.y + point.y * c.height };
  }

  hide() {
    this.crop = null;
    $(this.ids.step).hidden = true;
  }

  /** Draws the view with the rim `r` on it (its box, and the tap as a red cross). */
  show(r) {
    const picture = this.source();
    const [w, h] = sizeOf(picture);
    const c = this.crop;
    if (!c || !r || !w) { $(this.ids.step).hidden = true; return; }
    $(this.ids.step).hidden = false;
    const canvas = $(this.ids.canvas);
    const scale = window.devicePixelRatio || 1;
    canvas.width = Math.round((canvas.clientWidth || 640) * scale);
    canvas.height = Math.round(canvas.width / 2);
    const context = canvas.getContext("2d");
    context.drawImage(picture, c.x * w, c.y * h, c.width * w, c.height * h, 0, 0, canvas.width, canvas.height);
    const [sx, sy] = [canvas.width / c.width, canvas.height / c.height];
    context.lineWidth = 2 * scale;
    context.setLineDash([6 * scale, 4 * scale]);
    context.strokeStyle = "#00e5ff";
    context.strokeRect((r.x - c.x) * sx, (r.y - c.y) * sy, r.width * sx, r.height * sy);
    if (r.point) {
      const [px, py, arm] = [(r.point.x - c.x) * sx, (r.point.y - c.y) * sy, 6 * scale];
      context.setLineDash([]);
      context.strokeStyle = "#ff3b30";
      context.beginPath();
      context.moveTo(px - arm, py); context.lineTo(px + arm, py);
      context.moveTo(px, py - arm); context.lineTo(px, py + arm);
      context.stroke();
    }
    canvas.dataset.crop = [c.x, c.y, c.width, c.height].map((value) => value.toFixed(5)).join(",");
    $(this.ids.caption).textContent = `The rim ${Math.round(1 / c.width)}× larger, dashed box: the rim LeBot uses${r.point ? ", red cross: your tap" : ""}. If the box is not on the ring, tap the ring here${this.boxes ? " (or drag a box around it)" : ""}.`;
  }
}
