// Coach (LeBot James): choose a workout video; the server finds the rim itself, and the user marks
// it on the first frame (tap it, or drag a box) only when that fails or lands elsewhere; upload and
// analyse with progress, then the shots: a list, the shot chart, the rim that was used, and the
// video jumping to a shot when it is tapped. Workouts stay in the account's history.
import { api, upload } from "./api.js";
import * as live from "./live.js";
import { RimZoom } from "./rimzoom.js";
import { $, clearErrors, confirm, count, el, fieldError, fractionAt, megabytes, placeOver, sizeOf, still, toast, words } from "./ui.js";

let file = null;
let fileURL = null;
let rim = null;
let sending = null;
// The chosen video's id on the server when it was sent for its first frame (a browser that cannot
// show it): the analysis names it instead of sending the video again.
let sent = null;

export async function show() { await loadHistory(); }

async function loadHistory() {
  const workouts = await api("/api/lebot/workouts");
  const list = $("workouts");
  list.textContent = "";
  $("workouts-empty").hidden = workouts.length > 0;
  for (const workout of workouts) {
    const when = workout.createdAt ? new Date(workout.createdAt).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "Earlier";
    const rate = workout.shots ? ` (${Math.round((100 * workout.made) / workout.shots)} %)` : "";
    list.append(el("li", { "data-workout-id": workout.id },
      el("span", { class: "grow" }, el("strong", { text: when }), " ", el("span", { class: "muted", text: `${workout.made} of ${workout.shots} made${rate}` })),
      el("button", { class: "small", type: "button", text: "Open", onclick: () => open(workout.id) }),
      el("button", { class: "secondary small", type: "button", text: "Delete", onclick: () => remove(workout.id, when) })));
  }
}

async function open(id) {
  try { showResult(await api(`/api/lebot/workouts/${id}`)); } catch (error) { toast(words(error)); }
}

async function remove(id, when) {
  if (!(await confirm({ title: `Delete the workout of ${when}?`, text: "Its video and analysis are deleted from the server." }))) return;
  try { await api(`/api/lebot/workouts/${id}`, { method: "DELETE" }); $("workout-result").hidden = true; loadHistory(); }
  catch (error) { toast(words(error)); }
}

// ---- Choosing the video and the rim ----

function choose() {
  clearErrors($("coach"));
  file = $("workout-file").files[0] || null;
  rim = null;
  sent = null;
  $("rim-box").hidden = true;
  zoom.hide();
  $("analyse").disabled = true;
  if (fileURL) URL.revokeObjectURL(fileURL);
  fileURL = null;
  if (!file) { $("rim-step").hidden = true; return; }
  fileURL = URL.createObjectURL(file);
  const video = $("workout-video");
  const chosen = file;
  video.hidden = false;
  $("workout-still").hidden = true;
  $("workout-still").removeAttribute("src");
  const ready = () => {
    $("rim-step").hidden = false;
    $("analyse").disabled = false;
    $("rim-help").textContent = "LeBot finds the rim by itself. Only if it gets it wrong: tap the rim in the picture (or drag a box around it).";
  };
  // A video whose picture this browser cannot decode (H.265, as iPhones record, in Chromium or
  // Firefox on Linux) plays its sound only, or not at all: the server sends its first frame.
  // Anything else is not a video: said at once, nothing sent.
  const named = /^video\//.test(chosen.type) || /\.(mp4|m4v|mov|webm)$/i.test(chosen.name);
  video.onerror = () => {
    if (file !== chosen) return;
    if (named) { stillFromServer(chosen, ready); return; }
    $("rim-step").hidden = true;
    fieldError("workout-file", "That file is not a video: choose an MP4, MOV or WebM video.");
  };
  video.onloadeddata = () => {
    if (!video.videoWidth) { stillFromServer(chosen, ready); return; }
    video.currentTime = 0;
    ready();
  };
  video.src = fileURL;
}

/** Shows the server's still of the video's first frame in place of the video, to mark the rim on. */
async function stillFromServer(chosen, ready) {
  const video = $("workout-video");
  video.onerror = video.onloadeddata = null;
  video.removeAttribute("src");
  video.hidden = true;
  $("rim-step").hidden = false;
  $("analyse").disabled = true;
  $("rim-help").textContent = `This browser cannot show this video's picture (most likely H.265, as iPhones record). Getting its first frame from the server (${megabytes(chosen.size)})…`;
  try {
    const frame = await upload("/api/lebot/first-frame", chosen, { method: "POST" }).done;
    if (file !== chosen) return; // another video was chosen meanwhile
    sent = frame.upload;
    const shown = $("workout-still");
    await new Promise((resolve, reject) => { shown.onload = resolve; shown.onerror = reject; shown.src = frame.picture; });
    shown.hidden = false;
    ready();
    $("rim-help").textContent = "This browser cannot play this video (most likely H.265), so its first frame is shown, from the server. LeBot finds the rim by itself; only if it gets it wrong, tap the rim here (or drag a box around it).";
  } catch (error) {
    if (file !== chosen) return;
    $("rim-step").hidden = true;
    const why = String((error && error.message) || error).replace(/\.$/, "");
    fieldError("workout-file", `This browser cannot show that video, and the server could not read it either (${why}). Choose an MP4, MOV or WebM video.`);
  }
}

/** What the rim is marked on: the video, or the server's still of its first frame. */
function picture() {
  return $("workout-still").hidden ? $("workout-video") : $("workout-still");
}

/** The picture's size in pixels. */
function pictureSize() { return sizeOf(picture()); }

/**
 * The rim as fractions of the picture (x, y, width, height), from a tap or a dragged box on
 * `surface`: the picture's stage, or the rim enlarged. `shown` is what the finger lands on there,
 * and `toPicture` turns a point on it (as fractions of it) into one on the picture.
 */
function markRim(surface, shown, toPicture, fromZoom) {
  let start = null;
  const at = (event) => fractionAt(shown, event);
  surface.addEventListener("pointerdown", (event) => { start = at(event); surface.setPointerCapture(event.pointerId); });
  surface.addEventListener("pointermove", (event) => {
    if (!start) return;
    const dragging = box(toPicture(start), toPicture(at(event)));
    draw(dragging);
    if (fromZoom) zoom.show(dragging);
  });
  surface.addEventListener("pointerup", (event) => {
    if (!start) return;
    const end = at(event);
    // A move of 2 % of what the finger is on is a drag (on the enlarged rim, a fraction of that on the picture).
    const dragged = Math.abs(end.x - start.x) > 0.02 || Math.abs(end.y - start.y) > 0.02;
    const [from, to] = [toPicture(start), toPicture(end)];
    // A tap is a point on the rim: the server fits the ring around it. Until then a box of
    // typical size (7 % by 2.5 % of the picture) shows where it landed.
    const chosen = dragged ? box(from, to) : { x: from.x - 0.035, y: from.y - 0.0125, width: 0.07, height: 0.025, point: from };
    chosen.x = Math.min(Math.max(chosen.x, 0), 1 - chosen.width);
    chosen.y = Math.min(Math.max(chosen.y, 0), 1 - chosen.height);
    start = null;
    setRim(chosen, fromZoom);
  });
}

// ---- The rim enlarged (rimzoom.js): the first frame around the rim, below the picture ----

const zoom = new RimZoom({ step: "rim-zoom-step", canvas: "rim-zoom", caption: "rim-zoom-caption" }, () => picture());

function box(a, b) {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.max(Math.abs(a.x - b.x), 0.01), height: Math.max(Math.abs(a.y - b.y), 0.01) };
}

function draw(r) {
  placeOver($("rim-box"), picture(), r);
}

function setRim(r, fromZoom = false) {
  rim = r;
  draw(r);
  // A mark on the picture frames the enlarged view anew; one in the enlarged view keeps it still.
  zoom.enlarge(r, fromZoom);
  $("analyse").disabled = false;
  $("rim-error").textContent = "";
  $("rim-help").textContent = r.point
    ? "Rim tapped: finding the ring there…"
    : "Rim marked: LeBot uses your box. Tap again to move it, or press Analyse.";
  if (r.point) previewFit(r);
}

/**
 * Shows the ring LeBot fits at a tap before the video is sent: a still of the first frame (at most
 * 1280 px wide, the size the fit reads) goes to the server, and the box it fits is drawn. The
 * analysis fits it again on the video itself, so a tap whose preview failed still works.
 */
async function previewFit(tapped) {
  const frame = await new Promise((resolve) => still(picture(), 1280).toBlob(resolve, "image/png"));
  const { x, y } = tapped.point;
  try {
    const fit = await api(`/api/lebot/rim-fit?rim=${encodeURIComponent(`${x.toFixed(4)},${y.toFixed(4)}`)}`, {
      method: "POST", body: frame, headers: { "Content-Type": "image/png" },
    });
    if (rim !== tapped) return; // tapped again meanwhile
    rim = Object.assign({}, fit.rim, { point: tapped.point, fitted: fit.fitted });
    draw(rim);
    zoom.enlarge(rim, true);
    $("rim-help").textContent = fit.fitted
      ? "Ring found where you tapped: the box on the picture. Press Analyse, or tap again to move it."
      : "No ring was clear where you tapped, so LeBot will use a box of typical size there. Tap right on the rim, or drag a box around it.";
  } catch (_) {
    if (rim !== tapped) return;
    $("rim-help").textContent = "Rim tapped: LeBot fits the ring around this point when you press Analyse. Tap again to move it, or drag a box around the rim.";
  }
}

// ---- Analysis ----

async function analyse() {
  if (!file) return;
  const numbers = rim && (rim.point ? [rim.point.x, rim.point.y] : [rim.x, rim.y, rim.width, rim.height]);
  const rimQuery = rim ? `rim=${encodeURIComponent(numbers.map((value) => value.toFixed(4)).join(","))}` : "";
  const id = crypto.randomUUID();
  let polling = null;
  $("analyse").disabled = true;
  $("analyse-cancel").hidden = false;
  $("analyse-bar").hidden = false;
  $("analyse-bar").value = 0;
  $("rim-error").textContent = "";
  const analysing = ({ progress, copying }) => {
    const fraction = copying == null ? progress : copying;
    $("analyse-bar").value = fraction;
    $("analyse-text").textContent = copying == null
      ? `Analysing the shots: ${Math.round(fraction * 100)} %`
      : `Making a copy of the video that this browser can play, for the replay: ${Math.round(fraction * 100)} %`;
  };
  // The video itself, or (sent already for its first frame) its id on the server.
  const send = (byID) => {
    const query = [byID ? `upload=${encodeURIComponent(sent)}` : "", rimQuery].filter(Boolean).join("&");
    sending = upload(`/api/lebot/workouts${query ? `?${query}` : ""}`, byID ? null : file, {
      method: "POST",
      headers: { "X-Analysis-ID": id },
      onProgress: (fraction, there) => {
        if (!there) {
          $("analyse-bar").value = fraction;
          $("analyse-text").textContent = `Uploading ${megabytes(file.size)}: ${Math.round(fraction * 100)} %`;
          return;
        }
        // The file is there: the server reports how far the analysis is, and can stop it.
        analysing({ progress: 0 });
        sending.analysisID = id;
        polling = watchJob(id, analysing);
      },
    });
    return sending.done;
  };
  try {
    let result;
    try {
      result = await send(sent != null);
    } catch (error) {
      // Gone from the server (kept an hour, the latest only): sent again.
      if (sent == null || error.status !== 404) throw error;
      sent = null;
      clearInterval(polling);
      result = await send(false);
    }
    // The video on this device when this browser plays it; else the server's copy, made to play.
    showResult(result, $("workout-still").hidden ? fileURL : null, true);
    loadHistory();
  } catch (error) {
    if (error.name === "AbortError" || error.status === 409) toast("Analysis cancelled.");
    else if (error.status === 422) {
      // No hoop found: the user points at it.
      $("rim-error").textContent = "LeBot could not find the hoop in this video. Tap the rim in the picture above (or drag a box around it), then press Analyse again.";
      $("rim-stage").scrollIntoView({ behavior: "smooth", block: "center" });
    } else $("rim-error").textContent = words(error);
  } finally {
    clearInterval(polling);
    sending = null;
    $("analyse").disabled = false;
    $("analyse-cancel").hidden = true;
    $("analyse-bar").hidden = true;
    $("analyse-text").textContent = "";
  }
}

/** Stops the upload, or asks the server to stop the analysis once the file is there. */
function cancel() {
  if (!sending) return;
  if (sending.analysisID) api(`/api/lebot/analyses/${sending.analysisID}`, { method: "DELETE" }).catch(() => {});
  else sending.cancel();
}

/** Where the ball came down at the rim, as the view gives it: how deep or short from the side,
 * how far left or right from behind the shooter; a dash when the view gives neither. */
function atTheRim(shot) {
  const inches = (value) => Math.abs(Math.round(value));
  if (shot.depth != null) return `${inches(shot.depth)} in ${shot.depth < 0 ? "short" : "deep"}`;
  if (shot.leftRight != null) return `${inches(shot.leftRight)} in ${shot.leftRight < 0 ? "left" : "right"}`;
  return "—";
}

/** How high the ball went: feet over (or under) the rim when the rim gave the scale. */
function arc(shot) {
  if (shot.arcFeet == null) return `${Math.round(shot.apexHeight * 100)} % of frame`;
  return `${Math.abs(shot.arcFeet).toFixed(1)} ft ${shot.arcFeet < 0 ? "under" : "over"} the rim`;
}

function showResult(result, localURL = null, justAnalysed = false) {
  const analysis = result.analysis;
  const shots = analysis.shots;
  const made = shots.filter((shot) => shot.outcome === "MAKE").length;
  const unclear = shots.filter((shot) => shot.outcome === "INDETERMINATE").length;
  $("workout-summary").textContent = shots.length
    ? `${count(shots.length, "shot")}, ${made} made (${Math.round((100 * made) / shots.length)} %)${unclear ? `, ${unclear} unclear` : ""}`
    : "No shots found. Check that the rim box sits on the rim and the ball is visible, then try again.";
  const used = analysis.rim;
  const found = analysis.rimFound;
  const fitted = analysis.rimFitted;
  // A session trained live keeps no video: no picture to show the rim on, nothing to analyse again.
  const source = localURL || result.videoURL || null;
  const again = (advice) => (source ? ` ${advice}` : "");
  const shown = (label) => (source ? `shown as the box${label} on the picture` : "the orange bar on the chart");
  // How it was found, in a few words (the finder's full evidence is in the analysis).
  const how = !found
    ? ""
    : found.underBoard
      ? (String(found.evidence || "").includes("seen from the side") ? " beside the backboard's square" : " under the backboard's square")
      : " by its orange";
  $("workout-rim").textContent = found
    ? `Rim found automatically${how} (${Math.round(found.confidence * 100)} % sure), ${shown(" labelled “rim”")}.${again("If it is not on the rim, tap the rim and analyse again.")}`
    : fitted && fitted.fitted
      ? `Rim fitted to the ring you tapped, ${shown("")}.${again("If it is not on the rim, drag a box around the rim and analyse again.")}`
      : fitted
        ? `No ring was clear where you tapped, so LeBot used a box of typical size there.${again("If the shots look wrong, drag a box around the rim and analyse again.")}`
        : "Rim: the box you marked.";
  for (const move of analysis.rimMoves || []) {
    $("workout-rim").textContent += ` The camera moved at ${move.time.toFixed(1)} s: LeBot found the rim again and judged the later shots against it.`;
  }
  // A phone held by hand: every frame was held still before the shots were looked for.
  if (analysis.cameraMovement >= 0.005) {
    $("workout-rim").textContent += ` The camera moved (held by hand): the picture wandered up to ${(analysis.cameraMovement * 100).toFixed(1)} % of its width, and LeBot held every frame still before looking for shots.`;
  }
  if (analysis.ballCue === "brightness") {
    $("workout-rim").textContent += " The ball did not look orange, so LeBot followed it by its brightness against the background.";
  }
  if (used && !$("rim-step").hidden && justAnalysed) {
    draw(used);
    zoom.enlarge(Object.assign({}, used, rim && rim.point ? { point: rim.point } : {}), true);
  }
  $("chart").src = result.chartURL;
  // No video, no player (an empty src would be the page's own URL, a broken player).
  const replay = $("replay");
  if (source) {
    replay.src = source;
  } else {
    replay.removeAttribute("src");
    replay.load();
  }
  replay.parentElement.hidden = !source;
  $("replay-hint").textContent = source ? "Tap a shot to watch it."
    : "Trained live: the camera's video is not kept, so there is no replay; the shots are below.";
  // A video this browser plays the sound of only, or not at all (H.265 in Chromium or Firefox on
  // Linux): no black player, and the reason.
  const unplayable = () => {
    if (replay.getAttribute("src") !== source) return;
    replay.parentElement.hidden = true;
    // The server's video of a workout saved before it kept copies every browser plays: one can be made now.
    const copyable = source === result.videoURL;
    $("replay-hint").textContent = `This browser cannot play this video (most likely H.265, as iPhones record), so its shots cannot be watched here${copyable ? ". The server can make a copy that it plays." : "; Safari plays it."}`;
    $("replay-copy").hidden = !copyable;
    $("replay-copy").onclick = () => copyForReplay(result);
  };
  $("replay-copy").hidden = true;
  replay.onloadeddata = () => { if (!replay.videoWidth) unplayable(); };
  replay.onerror = unplayable;
  const body = $("shots").querySelector("tbody");
  body.textContent = "";
  shots.forEach((shot, index) => {
    const outcome = { MAKE: "Make", MISS: "Miss", INDETERMINATE: "Unclear" }[shot.outcome] || shot.outcome;
    const row = el("tr", { tabindex: "0", "data-time": shot.releaseTime, "aria-label": `Shot ${shot.number} at ${shot.releaseTime.toFixed(1)} seconds: ${outcome}.${source ? " Play it." : ""}` },
      el("td", { text: String(shot.number) }),
      el("td", { text: `${shot.releaseTime.toFixed(1)} s` }),
      el("td", { class: shot.outcome, text: outcome }),
      el("td", { text: shot.entryAngle != null ? `${Math.round(shot.entryAngle)}°` : "—" }),
      el("td", { text: atTheRim(shot) }),
      el("td", { text: arc(shot) }),
      // An unclear shot says why LeBot could not tell (else it reads as a fault), before the tip.
      el("td", {},
        shot.outcome === "INDETERMINATE" && shot.reason ? el("span", { class: "reason", text: `Could not tell: ${shot.reason}. ` }) : "",
        result.tips[index] || ""));
    const seek = () => { if (!source) return; replay.currentTime = Math.max(0, shot.releaseTime - 1); replay.play().catch(() => {}); };
    row.addEventListener("click", seek);
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") seek(); });
    body.append(row);
  });
  $("workout-result").hidden = false;
  $("workout-result").scrollIntoView({ behavior: "smooth", block: "start" });
}

/** Hands `report` how far the server's job named `id` is ({progress, copying}) every half
 * second; returns the interval to clear. */
function watchJob(id, report) {
  return setInterval(async () => {
    try { report(await api(`/api/lebot/analyses/${id}`)); } catch (_) { /* finished or not begun */ }
  }, 500);
}

/** Asks the server for a copy of `result`'s video that every browser plays (a workout saved
 * before the server made them), says how far it is, and replays the copy. */
async function copyForReplay(result) {
  const button = $("replay-copy");
  const id = crypto.randomUUID();
  let finished = false;
  // (A poll answered after the copy is done says nothing.)
  const say = (fraction) => {
    if (!finished) $("replay-hint").textContent = `Making a copy of the video that this browser can play: ${Math.round(fraction * 100)} %`;
  };
  button.disabled = true;
  say(0);
  const polling = watchJob(id, ({ copying }) => { if (copying != null) say(copying); });
  try {
    await api(`/api/lebot/workouts/${result.id}/playable`, { method: "POST", headers: { "X-Analysis-ID": id } });
    finished = true;
    // The same address, a new file: asked for anew, not taken from the cache.
    showResult(result, `${result.videoURL}?copy=${id}`);
  } catch (error) {
    finished = true;
    $("replay-hint").textContent = words(error);
    // No copy can be made of this video (422): asking again would fail the same way.
    if (error.status === 422) button.hidden = true;
  } finally {
    clearInterval(polling);
    button.disabled = false;
  }
}

export function hide() { $("replay").pause(); }

export function wire() {
  $("workout-file").addEventListener("change", choose);
  $("analyse").addEventListener("click", analyse);
  $("analyse-cancel").addEventListener("click", cancel);
  markRim($("rim-stage"), { getBoundingClientRect: () => picture().getBoundingClientRect() }, (point) => point, false);
  markRim($("rim-zoom"), $("rim-zoom"), (point) => zoom.toPicture(point), true);
  live.wire(() => loadHistory().catch(() => {}));
}
