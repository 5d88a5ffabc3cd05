// Highlights (CGame): the clip gallery with thumbnails, a player, rename / download / delete,
// a game filter, uploads from the browser (with a thumbnail taken from the video), capture of a
// game window (capture.js), and reels:
// compile selected clips with progress, then play, download or delete them.
import { api, upload } from "./api.js";
import * as capture from "./capture.js";
import { $, clearErrors, confirm, count, el, megabytes, showError, toast, words } from "./ui.js";

const selected = new Set();
let clips = [];
let reelTimer = null;
let uploading = null;

export async function show() {
  const [list, reels, settings] = await Promise.all([api("/api/clips"), api("/api/reels"), api("/api/settings")]);
  clips = list;
  capture.describe(settings);
  fillFilter();
  renderClips();
  renderReels(reels);
}

export function hide() { clearTimeout(reelTimer); reelTimer = null; }

function fillFilter() {
  const filter = $("game-filter");
  const chosen = filter.value;
  const games = [...new Set(clips.map((clip) => clip.game))].sort();
  filter.textContent = "";
  filter.append(el("option", { value: "", text: "All games" }), ...games.map((game) => el("option", { value: game, text: game })));
  filter.value = games.includes(chosen) ? chosen : "";
  filter.parentElement.hidden = games.length < 2;
}

function renderClips() {
  const gallery = $("gallery");
  gallery.textContent = "";
  const game = $("game-filter").value;
  const shown = clips.filter((clip) => !game || clip.game === game);
  $("clips-empty").hidden = clips.length > 0;
  for (const clip of shown) gallery.append(card(clip));
  for (const id of [...selected]) if (!clips.some((clip) => clip.id === id)) selected.delete(id);
  updateReelBar();
}

function card(clip) {
  const ready = !!clip.uploadedAt;
  const when = new Date(clip.timestamp).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  const picture = clip.thumbnailURL
    ? el("img", { class: "picture", src: clip.thumbnailURL, alt: `Play ${clip.name}`, loading: "lazy", tabindex: ready ? "0" : "-1", role: "button" })
    : el("button", { class: "picture placeholder", type: "button", text: ready ? "▶ Play" : "No video yet", "aria-label": `Play ${clip.name}`, disabled: !ready });
  picture.addEventListener("click", () => play(clip));
  picture.addEventListener("keydown", (event) => { if (event.key === "Enter") play(clip); });
  const box = el("input", { type: "checkbox", disabled: !ready, checked: selected.has(clip.id), "aria-label": `Select ${clip.name} for a reel` });
  const article = el("article", { class: "clip" + (selected.has(clip.id) ? " selected" : ""), "data-clip-id": clip.id });
  box.addEventListener("change", () => {
    if (box.checked) selected.add(clip.id); else selected.delete(clip.id);
    article.classList.toggle("selected", box.checked);
    updateReelBar();
  });
  const status = ready ? `${clip.duration.toFixed(1)} s` : "waiting for the video (cgame sync uploads it)";
  article.append(
    picture,
    el("label", { class: "select" }, box, "Select"),
    el("div", { class: "meta" },
      el("div", { class: "name", text: clip.name }),
      el("div", { class: "details", text: `${clip.game} · ${status} · ${when}` })),
    el("div", { class: "tools" },
      el("button", { class: "secondary small", type: "button", text: "Rename", onclick: () => rename(clip) }),
      ready ? el("a", { class: "button secondary small", href: `/api/clips/${clip.id}/file`, download: `${clip.name}.mp4`, text: "Download" }) : null,
      el("button", { class: "secondary small", type: "button", text: "Delete", onclick: () => remove(clip) })));
  return article;
}

function play(clip, url = `/api/clips/${clip.id}/file`, name = clip.name) {
  if (clip && !clip.uploadedAt) return;
  const video = $("player-video");
  video.src = url;
  $("player-download").href = url;
  $("player-download").download = `${name}.mp4`;
  $("player").showModal();
  video.play().catch(() => {});
}

async function rename(clip) {
  const name = await confirm({
    title: "Rename clip", text: "", action: "Save", input: { label: "Name" },
    check: async (value) => {
      if (!value.trim()) throw new Error("Enter a name.");
      await api(`/api/clips/${clip.id}`, { method: "PUT", json: { name: value.trim(), game: clip.game, events: clip.events, timestamp: clip.timestamp, duration: clip.duration } });
    },
  });
  if (name !== null) { toast("Renamed."); show(); }
}

async function remove(clip) {
  const yes = await confirm({ title: `Delete “${clip.name}”?`, text: "The clip and its video are deleted from the server. Reels made from it stay." });
  if (!yes) return;
  try { await api(`/api/clips/${clip.id}`, { method: "DELETE" }); selected.delete(clip.id); toast("Clip deleted."); show(); }
  catch (error) { toast(words(error)); }
}

// ---- Upload from the browser ----

/** The video's length and a JPEG of a frame one second in (or the middle of shorter clips). */
function inspect(file) {
  return new Promise((resolve) => {
    const video = el("video", { muted: true, preload: "auto", playsInline: true });
    const url = URL.createObjectURL(file);
    const done = (result) => { URL.revokeObjectURL(url); resolve(result); };
    video.addEventListener("loadedmetadata", () => { video.currentTime = Math.min(1, video.duration / 2 || 0); }, { once: true });
    video.addEventListener("seeked", () => {
      const canvas = el("canvas", { width: 480, height: Math.round(480 * (video.videoHeight / video.videoWidth || 9 / 16)) });
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      canvas.toBlob((jpeg) => done({ duration: video.duration, jpeg }), "image/jpeg", 0.8);
    }, { once: true });
    video.addEventListener("error", () => done(null), { once: true });
    video.src = url;
  });
}

async function uploadClip() {
  const file = $("clip-file").files[0];
  $("clip-file").value = "";
  if (!file) return;
  const info = await inspect(file);
  if (!info || !isFinite(info.duration)) { toast("That file is not a video this browser can read (MP4, MOV or WebM)."); return; }
  const settings = await api("/api/settings");
  const id = crypto.randomUUID();
  const name = file.name.replace(/\.[^.]+$/, "").slice(0, 100) || "Uploaded clip";
  const row = $("upload-progress");
  row.hidden = false;
  $("upload-bar").value = 0;
  $("upload-text").textContent = `Uploading ${name} (${megabytes(file.size)})…`;
  try {
    await api(`/api/clips/${id}`, { method: "PUT", json: { name, game: settings.gameProfileName, events: [], timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"), duration: Math.min(info.duration, 3600) } });
    uploading = upload(`/api/clips/${id}/file`, file, {
      onProgress: (fraction, sent) => {
        $("upload-bar").value = fraction;
        $("upload-text").textContent = sent ? "Checking the video…" : `Uploading ${name}: ${Math.round(fraction * 100)} %`;
      },
    });
    await uploading.done;
    if (info.jpeg) await api(`/api/clips/${id}/thumbnail`, { method: "PUT", body: info.jpeg, headers: { "Content-Type": "image/jpeg" } });
    toast(`${name} uploaded.`);
  } catch (error) {
    // A clip without its video is not worth keeping.
    await api(`/api/clips/${id}`, { method: "DELETE" }).catch(() => {});
    toast(error.name === "AbortError" ? "Upload cancelled." : words(error), 6);
  } finally {
    uploading = null;
    row.hidden = true;
    show();
  }
}

// ---- Reels ----

function updateReelBar() {
  const chosen = selected.size;
  $("reel-bar").hidden = chosen === 0;
  $("reel-count").textContent = `${count(chosen, "clip")} selected`;
}

async function compile(event) {
  event.preventDefault();
  clearErrors($("reel-bar"));
  const length = $("reel-length").value ? Number($("reel-length").value) : null;
  $("compile").disabled = true;
  try {
    await api("/api/reels", { method: "POST", json: { clipIDs: [...selected], title: $("reel-title").value || null, transition: $("reel-transition").value, targetDuration: length } });
    selected.clear();
    $("reel-bar").reset();
    toast("Compiling your reel…");
    await show();
  } catch (error) {
    showError(error, { targetDuration: "reel-length", title: "reel-title" }, "reel-error");
  } finally {
    $("compile").disabled = false;
  }
}

function renderReels(reels) {
  const list = $("reels");
  list.textContent = "";
  $("reels-empty").hidden = reels.length > 0;
  for (const reel of reels) {
    const title = reel.title || `Reel of ${count(reel.clipIDs.length, "clip")}`;
    const item = el("li", { "data-reel-id": reel.id, "data-status": reel.status },
      el("span", { class: "grow" }, el("strong", { text: title }), " ",
        el("span", { class: "muted", text: new Date(reel.createdAt).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) })));
    if (reel.status === "compiling") {
      const fraction = reel.progress || 0;
      item.append(el("progress", { max: 1, value: fraction, "aria-label": `${title}: compiling` }), el("span", { class: "pill warn", text: `Compiling ${Math.round(fraction * 100)} %` }));
    } else if (reel.status === "ready") {
      const url = `/api/reels/${reel.id}/file`;
      item.append(
        el("button", { class: "small", type: "button", text: "Play", onclick: () => play(null, url, title) }),
        el("a", { class: "button secondary small", href: url, download: `${title}.mp4`, text: "Download" }));
    } else {
      item.append(el("span", { class: "pill bad", text: reel.message || "Failed" }));
    }
    if (reel.status !== "compiling") {
      item.append(el("button", { class: "secondary small", type: "button", text: "Delete", "aria-label": `Delete ${title}`, onclick: async () => {
        if (!(await confirm({ title: `Delete “${title}”?`, text: "The reel's video is deleted from the server." }))) return;
        try { await api(`/api/reels/${reel.id}`, { method: "DELETE" }); show(); } catch (error) { toast(words(error)); }
      } }));
    }
    list.append(item);
  }
  clearTimeout(reelTimer);
  if (reels.some((reel) => reel.status === "compiling")) {
    reelTimer = setTimeout(async () => { try { renderReels(await api("/api/reels")); } catch (_) { /* next time */ } }, 1000);
  }
}

export function wire() {
  capture.wire(() => { show().catch(() => {}); });
  $("game-filter").addEventListener("change", renderClips);
  $("clip-file").addEventListener("change", uploadClip);
  $("upload-cancel").addEventListener("click", () => uploading && uploading.cancel());
  $("reel-bar").addEventListener("submit", compile);
  $("reel-clear").addEventListener("click", () => { selected.clear(); renderClips(); });
  $("player-close").addEventListener("click", () => $("player").close());
  $("player").addEventListener("close", () => { const video = $("player-video"); video.pause(); video.removeAttribute("src"); video.load(); });
}
