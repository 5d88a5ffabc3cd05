// Live training (LeBot James on the phone): the rear camera is recorded (getUserMedia +
// MediaRecorder) and sent to the server, which finds the rim, follows the ball and decides each
// shot; this page shows the count, each shot with its tip, and speaks the tip. The session is
// saved to the workout history when it ends. A rim the server does not find (one that is not
// painted orange, seen from the side where the board's square does not show) is tapped in the
// picture: the session starts again with the ring there fitted.
import { sendRecording, webmType } from "./recording.js";
import { RimZoom } from "./rimzoom.js";
import { $, el, fractionAt, placeOver, still, toast } from "./ui.js";

let session = null;
let saved = () => {};
/** The point tapped on the rim ({x, y} fractions of the picture), for the sessions that follow. */
let tapped = null;
/** Whether the camera is being opened (a second tap or click meanwhile would start a second session). */
let opening = false;
/** The camera's picture when the rim was tapped or found (a canvas): the moving picture cannot be
 * enlarged, so this still of it is, below the picture (only taps there: the session takes a point). */
let shot = null;
const zoom = new RimZoom({ step: "live-zoom-step", canvas: "live-zoom", caption: "live-zoom-caption" }, () => shot, { boxes: false });

export function supported() {
  return !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia) && webmType() !== null;
}

function status(text) { $("live-status").textContent = text; }

function speak(text) {
  if (!$("live-speak").checked || !text || !("speechSynthesis" in window)) return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.rate = 1.05;
  window.speechSynthesis.speak(utterance);
}

async function start() {
  if (opening || session) return;
  opening = true;
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 }, frameRate: { ideal: 30, max: 30 } },
      audio: false,
    });
  } catch (error) {
    toast(error.name === "NotAllowedError"
      ? "LeBot needs the camera: allow it for this site in the browser's settings, then start again."
      : `This browser could not open the camera (${error.message}).`, 6);
    return;
  } finally {
    opening = false;
  }
  const current = { done: false, failed: false, recording: null, restart: false };
  session = current;
  const preview = $("live-preview");
  preview.removeAttribute("poster");
  // A rim tapped stays enlarged for the sessions that follow; one found is found again.
  if (!tapped) zoom.hide();
  preview.srcObject = stream;
  preview.play().catch(() => {});
  $("live-area").hidden = false;
  $("live-shots").textContent = "";
  $("live-error").textContent = "";
  $("live-cue").textContent = "";
  $("live-tip").textContent = "";
  $("live-count").textContent = "0 of 0 made";
  $("live-start").hidden = true;
  $("live-stop").hidden = false;
  $("live-stop").disabled = false;
  status("Connecting to the server…");
  const query = tapped ? `?rim=${encodeURIComponent(`${tapped.x.toFixed(4)},${tapped.y.toFixed(4)}`)}` : "";
  current.recording = sendRecording(stream, `/api/lebot/live${query}`, {
    bitrate: 2_500_000,
    note: (note) => handle(current, note),
    slow: () => fail("Your connection is too slow to send the camera's picture, so the session stopped."),
    closed: () => finish(current),
  });
}

/** Ends `current` (the running session) with `text` under the picture. */
function fail(text, current = session) {
  if (!current) return;
  current.failed = true;
  status("");
  $("live-error").textContent = text;
}

function handle(current, note) {
  switch (note.type) {
    case "started":
      status(note.rim ? "Shoot! LeBot is watching."
        : tapped ? "Fitting the rim you tapped…" : "Finding the rim: keep the hoop in view for a few seconds…");
      break;
    case "rim": {
      const [x, y, width, height] = String(note.rim).split(",").map(Number);
      placeOver($("live-rim-box"), $("live-preview"), { x, y, width, height });
      // Enlarged below: the still of the tap, or (found by the server) of now.
      if (note.fitted === undefined || !shot) shot = picture();
      if (shot) zoom.enlarge(Object.assign({ x, y, width, height }, note.fitted === undefined ? {} : { point: tapped }), note.fitted !== undefined);
      const moved = String(note.evidence || "").startsWith("the picture around the rim went");
      status(note.fitted === true ? "Rim fitted to the ring you tapped (the box on the picture). Shoot! LeBot is watching."
        : note.fitted === false ? "No ring was clear where you tapped, so LeBot uses a box of typical size there. Shoot! If it is not on the rim, tap the rim again."
          : moved ? "The camera moved, so LeBot moved the rim with the picture (the box). If it is not on the rim, tap the rim."
            : `Rim found (${Math.round(note.confidence * 100)} % sure), shown as the box on the picture. Shoot! LeBot is watching.`);
      break;
    }
    case "shot": {
      const outcome = { MAKE: "Make", MISS: "Miss", INDETERMINATE: "Unclear" }[note.outcome] || note.outcome;
      $("live-count").textContent = `${note.makes} of ${note.attempts} made`;
      $("live-tip").textContent = note.tip || "";
      $("live-shots").prepend(el("li", { class: note.outcome, "data-outcome": note.outcome, "data-answer-seconds": String(note.answerSeconds) },
        el("strong", { text: `Shot ${note.number}: ${outcome}` }), " ",
        el("span", { class: "muted", text: note.numbers ? `(${note.numbers})` : "" }), " ",
        // Why LeBot could not say (the ball lost at the rim, the video ended…): otherwise an
        // unclear shot reads as a fault.
        note.outcome === "INDETERMINATE" && note.reason ? el("span", { class: "muted reason", text: `Could not tell: ${note.reason}.` }) : "",
        " ", el("span", { class: "grow", text: note.tip || "" })));
      // The numbers first (short), then the coach's tip.
      speak(`${outcome}. ${note.numbers ? `${note.numbers}. ` : ""}${note.tip || ""}`);
      break;
    }
    case "ball":
      $("live-cue").textContent = "The ball does not look orange, so LeBot follows it by its brightness against the background. Keep the sky, wall or board behind the shot plain if you can.";
      break;
    case "warning":
      toast(note.message, 6);
      break;
    case "error":
      keepPicture();
      fail(`The session stopped: ${note.message}.`);
      break;
    case "done":
      current.done = true;
      status(note.workoutID
        ? `Session saved: ${note.makes} of ${note.attempts} made. It is in Your workouts below.`
        : "Session ended: no shots were seen, so nothing was saved.");
      break;
  }
}

/** The camera's last picture stays on the page when the session ends, for a tap on the rim. */
let lastPicture = null;
function keepPicture() {
  const preview = $("live-preview");
  if (!preview.videoWidth) return;
  lastPicture = still(preview);
  preview.poster = lastPicture.toDataURL("image/jpeg", 0.85);
}

/** A still of the camera's picture now (or its last one, when the session has ended); null: none. */
function picture() {
  const preview = $("live-preview");
  return preview.videoWidth ? still(preview) : lastPicture;
}

/** A tap on the picture is a point on the rim: the session starts (again) with the ring there fitted. */
function tap(event) {
  const preview = $("live-preview");
  if (opening || (!preview.srcObject && !preview.poster)) return;
  shot = picture();
  mark(fractionAt(preview, event), false);
}

/** A tap on the enlarged picture: the same, several times finer, and the view stays still. */
function tapZoom(event) {
  if (opening || !zoom.crop) return;
  mark(zoom.toPicture(fractionAt($("live-zoom"), event)), true);
}

function mark(point, fromZoom) {
  const preview = $("live-preview");
  tapped = point;
  // Until the server has fitted it, a box of typical size (7 % by 2.5 % of the picture) shows where it landed.
  const typical = {
    x: Math.min(Math.max(tapped.x - 0.035, 0), 0.93), y: Math.min(Math.max(tapped.y - 0.0125, 0), 0.975), width: 0.07, height: 0.025,
  };
  placeOver($("live-rim-box"), preview, typical);
  if (shot) zoom.enlarge(Object.assign(typical, { point: tapped }), fromZoom);
  $("live-help").textContent = "Rim tapped: each session fits the ring around this point. Tap again to move it.";
  if (session) {
    // Start again with the rim tapped (shots so far are saved, as with Stop).
    keepPicture();
    session.restart = true;
    status("Starting again with the rim you tapped…");
    session.recording.stop();
  } else {
    start();
  }
}

function stop() {
  const current = session;
  if (!current) return;
  keepPicture();
  $("live-stop").disabled = true;
  if (!current.failed) status("Finishing the last shot…");
  current.recording.stop();
}

function finish(current) {
  if (session !== current) return;
  session = null;
  $("live-preview").srcObject = null;
  if (current.restart) {
    saved();
    start();
    return;
  }
  // (The session is no longer running: it is named, or the words would not be shown.)
  if (!current.done && !current.failed) fail("The connection to the server was lost.", current);
  $("live-start").hidden = !supported();
  $("live-stop").hidden = true;
  saved();
}

/** `onSaved` runs when a session ends (to refresh the history). */
export function wire(onSaved) {
  saved = onSaved;
  $("live-unsupported").hidden = supported();
  $("live-start").hidden = !supported();
  $("live-start").addEventListener("click", start);
  $("live-stop").addEventListener("click", stop);
  $("live-stage").addEventListener("click", tap);
  $("live-zoom").addEventListener("click", tapZoom);
}
