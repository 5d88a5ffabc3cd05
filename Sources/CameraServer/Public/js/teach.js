// Teach CGame a game: a screenshot or short recording and the words the game writes go to the
// server, which finds where they appear (POST /api/profiles/calibrate); the page draws that place
// on the picture, lets the user draw another, and saves the game (POST /api/profiles).
import { api, upload } from "./api.js";
import { $, clearErrors, confirm, el, fieldError, fractionAt, placeOver, toast, words } from "./ui.js";

let file = null;
let fileURL = null;
let found = null;
let region = null;
let onChange = () => {};

/** Lists the games the user taught, each with Delete. */
export function render(games) {
  const mine = games.filter((game) => game.id);
  $("teach-mine-title").hidden = mine.length === 0;
  const list = $("teach-mine");
  list.textContent = "";
  for (const game of mine) {
    const remove = el("button", { class: "danger small", text: "Delete", "aria-label": `Delete ${game.name}` });
    remove.addEventListener("click", async () => {
      const yes = await confirm({ title: `Delete ${game.name}?`, text: "CGame stops watching for it. Clips already saved stay.", action: "Delete" });
      if (!yes) return;
      try {
        await api(`/api/profiles/${encodeURIComponent(game.id)}`, { method: "DELETE" });
        toast(`${game.name} deleted.`);
        onChange();
      } catch (error) { toast(words(error)); }
    });
    list.append(el("li", {}, el("span", { class: "grow", text: `${game.name} — watches for “${(game.keywords || []).join("”, “")}”` }), remove));
  }
}

function picked() {
  file = $("teach-file").files[0] || null;
  $("teach-result").hidden = true;
  $("teach-status").textContent = "";
  clearErrors($("teach"));
}

async function find(event) {
  event.preventDefault();
  clearErrors($("teach"));
  const keyword = $("teach-keyword").value.trim();
  if (!file) return fieldError("teach-file", "Choose a screenshot or a recording first.");
  if (!/^(image\/(png|jpeg)|video\/)/.test(file.type)) return fieldError("teach-file", "Choose a PNG or JPEG screenshot, or an MP4 or WebM recording.");
  if (keyword.length < 2) return fieldError("teach-keyword", "Type the words the game writes when you get a kill, e.g. “you fragged”.");
  $("teach-find").disabled = true;
  $("teach-status").textContent = "Uploading…";
  try {
    const sending = upload(`/api/profiles/calibrate?keyword=${encodeURIComponent(keyword)}`, file, {
      method: "POST",
      onProgress: (fraction, sent) => {
        $("teach-status").textContent = sent ? "Reading the picture…" : `Uploading… ${Math.round(fraction * 100)} %`;
      },
    });
    found = await sending.done;
    $("teach-status").textContent = "";
    await showPicture(found.sightings[0]?.time || 0);
    region = found.region;
    drawRegion();
    const best = found.sightings.reduce((a, b) => (b.confidence > a.confidence ? b : a), found.sightings[0]);
    const more = found.sightings.length > 1 ? ` (seen ${found.sightings.length} times)` : "";
    $("teach-read").textContent = `CGame read “${best.text}” — ${Math.round(best.confidence * 100)} % sure${more}.`;
    if (!$("teach-name").value) $("teach-name").value = file.name.replace(/\.[^.]+$/, "").replace(/[-_]+/g, " ").slice(0, 40);
  } catch (error) {
    $("teach-status").textContent = "";
    fieldError(error.status === 422 ? "teach-keyword" : "teach-file", words(error));
  } finally {
    $("teach-find").disabled = false;
  }
}

/** Shows the screenshot, or the recording at the moment the words were read. */
function showPicture(time) {
  if (fileURL) URL.revokeObjectURL(fileURL);
  fileURL = URL.createObjectURL(file);
  const isVideo = file.type.startsWith("video/");
  const picture = isVideo ? $("teach-video") : $("teach-picture");
  $("teach-video").hidden = !isVideo;
  $("teach-picture").hidden = isVideo;
  $("teach-result").hidden = false;
  return new Promise((resolve) => {
    if (isVideo) {
      picture.onloadeddata = () => { picture.currentTime = time; };
      picture.onseeked = () => resolve();
      picture.onerror = () => resolve();
    } else {
      picture.onload = () => resolve();
      picture.onerror = () => resolve();
    }
    picture.src = fileURL;
  });
}

function shownPicture() { return $("teach-video").hidden ? $("teach-picture") : $("teach-video"); }

function drawRegion() {
  $("teach-box").hidden = !region;
  if (region) placeOver($("teach-box"), shownPicture(), region);
}

/** A box dragged on the picture replaces the proposed one. */
function drawing() {
  const stage = $("teach-stage");
  let start = null;
  const point = (event) => fractionAt(shownPicture(), event);
  const rectangle = (a, b) => ({ x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(a.x - b.x), height: Math.abs(a.y - b.y) });
  stage.addEventListener("pointerdown", (event) => { start = point(event); stage.setPointerCapture(event.pointerId); });
  stage.addEventListener("pointermove", (event) => {
    if (!start) return;
    const r = rectangle(start, point(event));
    if (r.width > 0.01 && r.height > 0.01) { region = r; drawRegion(); }
  });
  stage.addEventListener("pointerup", () => { start = null; });
}

async function save(event) {
  event.preventDefault();
  clearErrors($("teach"));
  const name = $("teach-name").value.trim();
  if (!name) return fieldError("teach-name", "Give the game a name.");
  if (!region || region.width < 0.01 || region.height < 0.01) return fieldError("teach-name", "Draw a box on the picture where the words appear.");
  try {
    const saved = await api("/api/profiles", { method: "POST", json: { name, keyword: found.keyword, region } });
    toast(`${saved.name} saved. Choose it as your game above, or when you capture.`);
    $("teach-result").hidden = true;
    $("teach-form").reset();
    file = null;
    onChange(saved.name);
  } catch (error) { fieldError("teach-name", words(error)); }
}

export function wire({ changed }) {
  onChange = changed;
  $("teach-file").addEventListener("change", picked);
  $("teach-form").addEventListener("submit", find);
  $("teach-save-form").addEventListener("submit", save);
  window.addEventListener("resize", drawRegion);
  drawing();
}
