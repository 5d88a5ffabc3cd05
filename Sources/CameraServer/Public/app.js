// CameraCore web UI: plain JavaScript, no build step. The session lives in HttpOnly cookies set by
// the server; every write carries X-CameraCore: 1 (the server refuses cookie writes without it).
"use strict";

const $ = (id) => document.getElementById(id);

async function api(path, options = {}, retried = false) {
  const headers = Object.assign({ "X-CameraCore": "1" }, options.headers || {});
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, Object.assign({}, options, { headers, credentials: "same-origin" }));
  if (response.status === 401 && !retried && !path.startsWith("/api/auth/")) {
    const refreshed = await fetch("/api/auth/refresh", { method: "POST", headers: { "X-CameraCore": "1" } });
    if (refreshed.ok) return api(path, options, true);
    showLogin();
    throw new Error("signed out");
  }
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response;
}

// ---- Sign-in ----

function showLogin() {
  $("login").hidden = false;
  $("tabs").hidden = true;
  $("who").hidden = true;
  for (const id of ["clips", "settings", "lebot", "cameras"]) $(id).hidden = true;
  stopGrid();
}

async function signIn(path) {
  $("login-error").textContent = "";
  try {
    const tokens = await api(path, { method: "POST", json: { email: $("login-email").value, password: $("login-password").value } });
    enter(tokens.user);
  } catch (error) {
    $("login-error").textContent = error.message;
  }
}

function enter(user) {
  $("login").hidden = true;
  $("tabs").hidden = false;
  $("who").hidden = false;
  $("email").textContent = user.email;
  show("clips");
}

function show(tab) {
  for (const button of document.querySelectorAll("#tabs button")) button.classList.toggle("active", button.dataset.tab === tab);
  for (const id of ["clips", "settings", "lebot", "cameras"]) $(id).hidden = id !== tab;
  if (tab !== "cameras") stopGrid();
  ({ clips: loadClips, settings: loadSettings, lebot: () => {}, cameras: loadGrid })[tab]();
}

// ---- Clips ----

const selected = new Set();

async function loadClips() {
  const clips = await api("/api/clips");
  const gallery = $("gallery");
  gallery.textContent = "";
  $("clips-empty").hidden = clips.length > 0;
  for (const clip of clips) {
    const card = document.createElement("article");
    card.className = "clip";
    card.dataset.clipId = clip.id;
    const picture = clip.thumbnailURL ? document.createElement("img") : document.createElement("div");
    if (clip.thumbnailURL) { picture.src = clip.thumbnailURL; picture.alt = clip.name; } else picture.className = "placeholder";
    picture.addEventListener("click", () => play(clip));
    const box = document.createElement("input");
    box.type = "checkbox";
    box.disabled = !clip.uploadedAt;
    box.checked = selected.has(clip.id);
    box.addEventListener("change", () => { box.checked ? selected.add(clip.id) : selected.delete(clip.id); $("compile").disabled = selected.size === 0; });
    const meta = document.createElement("div");
    meta.className = "meta";
    const when = new Date(clip.timestamp).toLocaleString();
    meta.innerHTML = "<div class=name></div><div class=muted></div>";
    meta.firstChild.textContent = clip.name;
    meta.lastChild.textContent = `${clip.game} · ${clip.duration.toFixed(1)} s · ${when}${clip.uploadedAt ? "" : " · uploading"}`;
    card.append(picture, box, meta);
    gallery.append(card);
  }
}

function play(clip) {
  if (!clip.uploadedAt) return;
  $("player-video").src = `/api/clips/${clip.id}/file`;
  $("player").showModal();
  $("player-video").play().catch(() => {});
}

async function compileReel() {
  const status = $("reel-status");
  status.textContent = "Compiling…";
  try {
    let reel = await api("/api/reels", { method: "POST", json: { clipIDs: [...selected], title: $("reel-title").value || null } });
    while (reel.status === "compiling") {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      reel = await api(`/api/reels/${reel.id}`);
    }
    if (reel.status === "ready") {
      status.innerHTML = "";
      const link = document.createElement("a");
      link.href = `/api/reels/${reel.id}/file`;
      link.textContent = "Reel ready — download";
      status.append(link);
    } else status.textContent = "Failed: " + (reel.message || "unknown");
  } catch (error) { status.textContent = error.message; }
}

// ---- Settings ----

async function loadSettings() {
  const settings = await api("/api/settings");
  for (const key of ["gameProfileName", "videoQuality", "preRollDuration", "postRollDuration"]) $(key).value = settings[key];
}

async function saveSettings(event) {
  event.preventDefault();
  const body = {
    gameProfileName: $("gameProfileName").value, videoQuality: $("videoQuality").value,
    preRollDuration: Number($("preRollDuration").value), postRollDuration: Number($("postRollDuration").value),
  };
  try { await api("/api/settings", { method: "PUT", json: body }); $("settings-status").textContent = "Saved."; }
  catch (error) { $("settings-status").textContent = error.message; }
}

// ---- LeBot ----

async function analyseWorkout(event) {
  event.preventDefault();
  const file = $("workout-file").files[0];
  if (!file) return;
  $("lebot-status").textContent = `Uploading and analysing ${(file.size / 1e6).toFixed(1)} MB…`;
  try {
    const result = await api(`/api/lebot/workouts?rim=${encodeURIComponent($("rim").value)}`, { method: "POST", body: file });
    const a = result.analysis;
    const made = a.shots.filter((s) => s.outcome === "MAKE").length;
    $("lebot-summary").textContent = `${a.shots.length} shots, ${made} made` + (a.shots.length ? ` (${Math.round(100 * made / a.shots.length)} %)` : "");
    $("chart").src = result.chartURL;
    const body = $("shots").querySelector("tbody");
    body.textContent = "";
    a.shots.forEach((shot, index) => {
      const row = body.insertRow();
      const cells = [shot.number, shot.releaseTime.toFixed(1) + " s", shot.outcome, shot.entryAngle != null ? Math.round(shot.entryAngle) + "°" : "—", result.tips[index] || ""];
      cells.forEach((text) => { row.insertCell().textContent = text; });
      row.cells[2].className = shot.outcome;
    });
    $("lebot-result").hidden = false;
    $("lebot-status").textContent = "";
  } catch (error) { $("lebot-status").textContent = error.message; }
}

// ---- Cameras: grid, live view over MSE, health ----

let players = [];
let healthTimer = null;

function stopGrid() {
  for (const player of players) player.close();
  players = [];
  clearInterval(healthTimer);
  healthTimer = null;
}

async function loadGrid() {
  stopGrid();
  const grid = $("grid");
  grid.textContent = "";
  const rect = grid.getBoundingClientRect();
  const layout = await api(`/api/grid?width=${Math.max(100, Math.round(rect.width))}&height=${Math.max(100, Math.round(rect.height))}`);
  if (!layout.cells.length) {
    grid.innerHTML = "<p class=muted>No cameras yet: add one or discover them on your network.</p>";
    return;
  }
  const badges = {};
  for (const cell of layout.cells) {
    const box = document.createElement("div");
    box.className = "cell";
    Object.assign(box.style, { left: cell.frame.x + "px", top: cell.frame.y + "px", width: cell.frame.width + "px", height: cell.frame.height + "px" });
    const video = document.createElement("video");
    video.muted = true;
    video.autoplay = true;
    video.playsInline = true;
    video.dataset.cameraId = cell.cameraID;
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = cell.name;
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "connecting";
    badges[cell.cameraID] = badge;
    box.append(video, label, badge);
    box.addEventListener("dblclick", () => box.classList.toggle("full"));
    grid.append(box);
    players.push(livePlayer(video, cell.cameraID, (state) => setBadge(badge, state)));
  }
  healthTimer = setInterval(async () => {
    for (const id of Object.keys(badges)) {
      try {
        const health = await api(`/api/cameras/${id}/health`);
        const last = health.events[health.events.length - 1];
        setBadge(badges[id], last && last.kind !== "recovered" ? last.kind : health.state);
      } catch (_) { /* next time */ }
    }
  }, 3000);
}

function setBadge(badge, state) {
  const word = String(state).split(/[ (]/)[0];
  badge.textContent = word;
  badge.className = "badge " + word;
}

function livePlayer(video, cameraID, onState) {
  let socket = null, source = null, buffer = null, queue = [], closed = false;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  function connect() {
    socket = new WebSocket(`${scheme}${location.host}/api/cameras/${cameraID}/live`);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data);
        if (message.type === "init") setup(message.codec);
        else if (message.type === "state") onState(message.state);
        return;
      }
      queue.push(event.data);
      pump();
    };
    socket.onclose = () => { if (!closed) setTimeout(connect, 2000); };
  }
  function setup(codec) {
    queue = [];
    buffer = null;
    source = new MediaSource();
    video.src = URL.createObjectURL(source);
    source.addEventListener("sourceopen", () => {
      buffer = source.addSourceBuffer(`video/mp4; codecs="${codec}"`);
      buffer.addEventListener("updateend", pump);
      pump();
    }, { once: true });
  }
  function pump() {
    if (!buffer || buffer.updating || !queue.length) return;
    const ranges = video.buffered;
    if (ranges.length) {
      const start = ranges.start(0), end = ranges.end(ranges.length - 1);
      // Stay at the live edge; drop what is far behind.
      if (video.currentTime < start || end - video.currentTime > 3) video.currentTime = Math.max(start, end - 0.3);
      if (video.currentTime - start > 30) { buffer.remove(start, video.currentTime - 10); return; }
    }
    try { buffer.appendBuffer(queue.shift()); } catch (_) { queue = []; }
    video.play().catch(() => {});
  }
  connect();
  return { close() { closed = true; if (socket) socket.close(); } };
}

async function addCamera(event) {
  event.preventDefault();
  try {
    await api("/api/cameras", { method: "POST", json: { name: $("camera-name").value, rtspURL: $("camera-url").value, username: $("camera-user").value || null, password: $("camera-password").value || null } });
    $("add-camera").reset();
    $("add-camera").hidden = true;
    loadGrid();
  } catch (error) { $("camera-status").textContent = error.message; }
}

async function discover() {
  $("camera-status").textContent = "Looking for ONVIF cameras…";
  const list = $("discovered");
  list.textContent = "";
  try {
    const devices = await api("/api/discovery", { method: "POST", json: { timeout: 3 } });
    $("camera-status").textContent = devices.length ? `${devices.length} found` : "None found on the allowed networks.";
    for (const found of devices) {
      const device = found.device;
      const stream = (found.profiles || []).find((profile) => profile.streamURL);
      const item = document.createElement("li");
      item.textContent = `${device.name || "Camera"} ${device.hardware || ""} at ${device.address} `;
      const use = document.createElement("button");
      use.className = "secondary";
      use.textContent = "Add";
      use.addEventListener("click", () => {
        $("add-camera").hidden = false;
        $("camera-name").value = device.name || "Camera " + device.address;
        $("camera-url").value = stream ? stream.streamURL : `rtsp://${device.address}:554/`;
      });
      item.append(use);
      list.append(item);
    }
  } catch (error) { $("camera-status").textContent = error.message; }
}

// ---- Wiring ----

document.addEventListener("DOMContentLoaded", async () => {
  $("login-form").addEventListener("submit", (event) => { event.preventDefault(); signIn("/api/auth/login"); });
  $("signup-button").addEventListener("click", () => { if ($("login-form").reportValidity()) signIn("/api/auth/signup"); });
  $("logout").addEventListener("click", async () => { try { await api("/api/auth/logout", { method: "POST" }); } finally { showLogin(); } });
  for (const button of document.querySelectorAll("#tabs button")) button.addEventListener("click", () => show(button.dataset.tab));
  $("compile").addEventListener("click", compileReel);
  $("settings-form").addEventListener("submit", saveSettings);
  $("lebot-form").addEventListener("submit", analyseWorkout);
  $("add-camera").addEventListener("submit", addCamera);
  $("show-add").addEventListener("click", () => { $("add-camera").hidden = !$("add-camera").hidden; });
  $("discover").addEventListener("click", discover);
  $("player").addEventListener("close", () => { $("player-video").pause(); $("player-video").removeAttribute("src"); });
  try { enter(await api("/api/me")); } catch (_) { showLogin(); }
});
