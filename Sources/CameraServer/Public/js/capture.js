// Capture from the browser (the spec's broadcast extension): the screen or window a person picks
// (getDisplayMedia) is recorded as WebM (MediaRecorder) in quarter-second chunks and sent over a
// WebSocket; the server watches it for the game's kills and saves each highlight to the gallery as
// it happens, telling this page what it saw.
import { sendRecording, webmType } from "./recording.js";
import { $, count, el, toast } from "./ui.js";

let session = null;
let clipSaved = () => {};

/** Whether this browser can capture a screen and record it (desktop browsers; not phones). */
export function supported() {
  return !!(navigator.mediaDevices && navigator.mediaDevices.getDisplayMedia) && webmType() !== null;
}

/** Fills in the capture card for the user's settings. */
export function describe(settings) {
  const running = session !== null;
  $("capture-status").textContent = running
    ? `Capturing ${settings.gameProfileName}: each kill becomes a clip (${settings.preRollDuration} s before, ${settings.postRollDuration} s after).`
    : `Watching for ${settings.gameProfileName} kills: capture a game window here, or run cgame on your PC (${settings.preRollDuration} s before, ${settings.postRollDuration} s after each kill).`;
  $("capture-unsupported").hidden = supported();
  $("capture-start").hidden = !supported() || running;
  $("capture-stop").hidden = !running;
}

function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function progress(text) { $("capture-progress").textContent = text; }

/** The running line: media captured, kills seen, clips saved. */
function running(note) {
  progress(`${clock(note.seconds)} captured · ${count(note.events, "kill")} seen · ${count(note.clips, "clip")} saved`);
}

async function start() {
  let stream;
  try {
    stream = await navigator.mediaDevices.getDisplayMedia({
      video: { frameRate: { ideal: 30, max: 30 }, width: { max: 1920 }, height: { max: 1080 } }, audio: false,
    });
  } catch (error) {
    toast(error.name === "NotAllowedError"
      ? "Nothing captured: choose the game's window or screen to start."
      : `This browser could not capture the screen (${error.message}).`, 6);
    return;
  }
  if (!webmType()) {
    stream.getTracks().forEach((track) => track.stop());
    toast("This browser cannot record WebM video; use Chrome, Edge or Firefox.", 6);
    return;
  }
  const current = { stopping: false, done: false, failed: false, recording: null };
  session = current;
  $("capture-live").hidden = false;
  $("capture-events").textContent = "";
  $("capture-error").textContent = "";
  $("capture-start").hidden = true;
  $("capture-stop").hidden = false;
  $("capture-stop").disabled = false;
  progress("Connecting to the server…");
  current.recording = sendRecording(stream, "/api/highlights/capture", {
    bitrate: 4_000_000,
    note: (note) => handle(current, note),
    slow: () => fail("Your connection to the server is too slow for this capture, so it stopped. Clips made so far are saved."),
    closed: () => finish(current),
  });
}

function fail(text) {
  if (!session) return;
  session.failed = true;
  $("capture-error").textContent = text;
}

/**
 * A kill or clip just shown in the list, counted in the running line at once: the server's counts
 * come every half second of video, each counting all the kills and clips it sent before it.
 */
function counted(current, key) {
  if (!current.last) return;
  current.last = { ...current.last, [key]: current.last[key] + 1 };
  running(current.last);
}

/** Shows what the server says during a capture (exported for the page's test). */
export function handle(current, note) {
  switch (note.type) {
    case "started":
      progress(`Capturing ${note.game}. Play: each kill becomes a clip as it happens.`);
      break;
    case "progress":
      current.last = note;
      running(note);
      break;
    case "event":
      counted(current, "events");
      $("capture-events").prepend(el("li", { "data-event": note.event, "data-time": String(note.time) },
        el("span", { class: "time", text: clock(note.time) }), " ",
        el("strong", { text: note.event }), " ",
        el("span", { class: "grow", text: `“${note.text}”` })));
      break;
    case "correction": {
      // The line read better a moment later (a name misread while the video sharpened it).
      const item = [...$("capture-events").children].find((li) =>
        li.dataset.event === note.event && li.dataset.time === String(note.time));
      if (item) item.querySelector(".grow").textContent = `“${note.text}”`;
      break;
    }
    case "clip":
      counted(current, "clips");
      $("capture-events").prepend(el("li", { class: "saved", "data-clip-id": note.clip.id },
        el("span", { class: "pill ok", text: "Saved" }), " ",
        el("span", { class: "grow", text: `${note.clip.name} (${note.clip.duration.toFixed(1)} s) is in your clips below.` })));
      clipSaved();
      break;
    case "warning":
      toast(note.message, 6);
      break;
    case "error":
      fail(`The capture stopped: ${note.message}.`);
      break;
    case "done":
      current.done = true;
      progress(`Stopped after ${clock(note.seconds)}: ${count(note.events, "kill")} seen, ${count(note.clips, "clip")} saved.`);
      break;
  }
}

/** Stops recording; the server finishes the open highlight and closes the connection. */
function stop() {
  const current = session;
  if (!current || current.stopping) return;
  current.stopping = true;
  $("capture-stop").disabled = true;
  if (!current.failed) progress("Saving the last highlight…");
  current.recording.stop();
}

function finish(current) {
  if (session !== current) return;
  session = null;
  if (!current.done && !current.failed) fail("The connection to the server was lost. Clips made before that are saved.");
  $("capture-start").hidden = !supported();
  $("capture-stop").hidden = true;
  clipSaved();
}

/** `onClip` runs when a clip is saved and when a capture ends (to refresh the gallery). */
export function wire(onClip) {
  clipSaved = onClip;
  $("capture-start").addEventListener("click", start);
  $("capture-stop").addEventListener("click", stop);
}
