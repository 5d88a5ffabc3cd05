// Recordings (WatchBox): turn continuous recording on or off for a camera, and a timeline of the
// last hours — recorded spans, health events as marks — to tap or drag through. Playback comes from
// the server cut at the keyframe before the chosen time; a chosen span downloads as one MP4.
import { api } from "./api.js";
import { $, el, megabytes, toast, words } from "./ui.js";

let camera = null;
let timeline = null;
let hours = 3;
let chosen = null;

const clock = (date) => date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const kindWords = {
  online: "picture", offline: "lost picture", loginRefused: "login refused", failed: "cannot connect",
  frozen: "frozen picture", noData: "no data", timestampJump: "timestamps jumped", recovered: "recovered",
  moved: "new address", moveRefused: "not followed",
};
const badKinds = new Set(["offline", "loginRefused", "failed", "frozen", "noData", "moveRefused"]);

export async function open(target) {
  camera = target;
  chosen = null;
  $("recordings-title").textContent = `Recordings — ${camera.name}`;
  $("recording-video").removeAttribute("src");
  $("recording-video").load();
  $("recording-chosen").textContent = "Tap the timeline to play from that moment.";
  $("recording-download").hidden = true;
  $("recordings").showModal();
  await refresh();
}

async function refresh() {
  if (!camera) return;
  const to = new Date();
  const from = new Date(to - hours * 3600e3);
  try {
    timeline = await api(`/api/cameras/${camera.id}/timeline?from=${+from}&to=${+to}`);
  } catch (error) { $("recording-status").textContent = words(error); return; }
  const status = timeline.recording;
  $("recording-enabled").checked = status.enabled;
  const kept = status.bytes ? ` · ${megabytes(status.bytes)} kept` : "";
  $("recording-status").textContent = status.failure
    ? status.failure
    : status.enabled
      ? `Recording continuously; the last ${status.keepHours} h are kept${kept}.`
      : `Not recording${kept}. Turn it on to keep the last ${status.keepHours} h of this camera.`;
  $("recording-status").className = status.failure ? "bad" : "muted";
  draw();
}

function draw() {
  const bar = $("timeline");
  bar.textContent = "";
  const from = Date.parse(timeline.from), to = Date.parse(timeline.to);
  const x = (time) => `${((time - from) / (to - from)) * 100}%`;
  for (const segment of timeline.segments) {
    const start = Math.max(Date.parse(segment.start), from), end = Math.min(Date.parse(segment.end), to);
    bar.append(place(el("div", { class: "recorded" }), x(start), `${((end - start) / (to - from)) * 100}%`));
  }
  for (const event of timeline.events) {
    const at = Date.parse(event.at);
    bar.append(place(el("div", { class: `mark ${badKinds.has(event.kind) ? "bad" : "ok"}`, title: `${clock(new Date(at))} ${kindWords[event.kind] || event.kind}: ${event.reason}` }), x(at)));
  }
  if (chosen) bar.append(place(el("div", { class: "playhead" }), x(+chosen)));
  // Hour labels under the bar.
  const scale = $("timeline-scale");
  scale.textContent = "";
  const step = hours <= 1 ? 15 * 60e3 : hours <= 3 ? 30 * 60e3 : hours <= 12 ? 2 * 3600e3 : 4 * 3600e3;
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) {
    scale.append(place(el("span", { text: new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) }), x(t)));
  }
  $("timeline-empty").hidden = timeline.segments.length > 0;
  $("timeline-empty").textContent = `Nothing recorded in the last ${hours} h.` + (timeline.recording.enabled ? " The first minute appears once it is written." : "");
  const list = $("timeline-events");
  list.textContent = "";
  for (const event of timeline.events.slice(-20).reverse()) {
    list.append(el("li", {}, el("span", { class: `pill ${badKinds.has(event.kind) ? "bad" : "ok"}`, text: kindWords[event.kind] || event.kind }),
      ` ${clock(new Date(event.at))} — ${event.reason}`));
  }
  $("timeline-events-title").hidden = timeline.events.length === 0;
}

/** Positions a timeline piece (through the style object: the page's CSP refuses style attributes). */
function place(node, left, width = null) {
  node.style.left = left;
  if (width) node.style.width = width;
  return node;
}

/** The recorded time nearest to a fraction of the bar (a tap in a gap jumps to the next recording). */
function timeAt(fraction) {
  const from = Date.parse(timeline.from), to = Date.parse(timeline.to);
  let time = from + fraction * (to - from);
  const spans = timeline.segments.map((s) => [Date.parse(s.start), Date.parse(s.end)]);
  if (!spans.length) return null;
  if (spans.some(([a, b]) => time >= a && time < b)) return time;
  const next = spans.find(([a]) => a > time);
  return next ? next[0] : spans[spans.length - 1][1] - 60e3;
}

function play(time) {
  if (time == null) { toast("Nothing recorded there."); return; }
  chosen = new Date(time);
  const span = 5 * 60e3;
  const video = $("recording-video");
  video.src = `/api/cameras/${camera.id}/playback?from=${Math.round(time)}&to=${Math.round(time + span)}`;
  video.play().catch(() => {});
  $("recording-chosen").textContent = `Playing from ${clock(chosen)}.`;
  $("download-from").value = clock(chosen).slice(0, 8);
  $("download-to").value = clock(new Date(time + 60e3)).slice(0, 8);
  $("recording-download").hidden = false;
  updateDownload();
  draw();
}

/** The download link for the span in the two time fields (on the chosen day). */
function updateDownload() {
  const link = $("download-link");
  const day = chosen || new Date();
  const at = (value) => {
    const [h, m, s = "0"] = value.split(":");
    const date = new Date(day);
    date.setHours(+h, +m, +s, 0);
    return date;
  };
  const from = at($("download-from").value || "00:00");
  let to = at($("download-to").value || "00:00");
  if (to <= from) to = new Date(+to + 86400e3);
  const seconds = (to - from) / 1000;
  const tooLong = seconds > 3600;
  $("download-error").textContent = tooLong ? "A download covers at most one hour." : "";
  link.toggleAttribute("aria-disabled", tooLong);
  link.href = tooLong ? "#" : `/api/cameras/${camera.id}/playback?from=${+from}&to=${+to}&download=1`;
  link.textContent = tooLong ? "Download" : `Download ${Math.round(seconds / 60) || "<1"} min`;
}

async function toggle() {
  const enabled = $("recording-enabled").checked;
  try {
    await api(`/api/cameras/${camera.id}/recording`, { method: "PUT", json: { enabled } });
    toast(enabled ? `Recording ${camera.name}.` : `Stopped recording ${camera.name}; what was recorded stays until it ages out.`);
  } catch (error) {
    $("recording-enabled").checked = !enabled;
    toast(words(error));
  }
  await refresh();
}

export function wire() {
  $("recording-enabled").addEventListener("change", toggle);
  $("recordings-close").addEventListener("click", () => $("recordings").close());
  $("recordings").addEventListener("close", () => { const video = $("recording-video"); video.pause(); video.removeAttribute("src"); video.load(); camera = null; });
  for (const button of document.querySelectorAll("#timeline-range button")) {
    button.addEventListener("click", async () => {
      hours = Number(button.dataset.hours);
      for (const other of document.querySelectorAll("#timeline-range button")) other.setAttribute("aria-pressed", String(other === button));
      await refresh();
    });
  }
  const bar = $("timeline");
  const pick = (event) => {
    if (!timeline) return;
    const box = bar.getBoundingClientRect();
    play(timeAt(Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1)));
  };
  bar.addEventListener("click", pick);
  bar.addEventListener("keydown", (event) => {
    if (!timeline || !["ArrowLeft", "ArrowRight", "Enter", " "].includes(event.key)) return;
    event.preventDefault();
    const step = event.key === "ArrowLeft" ? -60e3 : event.key === "ArrowRight" ? 60e3 : 0;
    const base = chosen ? +chosen : Date.parse(timeline.segments.at(-1)?.start ?? timeline.to);
    const from = Date.parse(timeline.from), to = Date.parse(timeline.to);
    play(timeAt((base + step - from) / (to - from)));
  });
  $("download-from").addEventListener("input", updateDownload);
  $("download-to").addEventListener("input", updateDownload);
  $("download-link").addEventListener("click", (event) => { if ($("download-link").hasAttribute("aria-disabled")) event.preventDefault(); });
}
