// Cameras (WatchBox): the live grid laid out by the server's GridLayoutCalculator, live video over
// a WebSocket into Media Source Extensions, health in words, full screen, and managing cameras:
// add (with a connection test first), edit, delete, reorder, and ONVIF discovery.
import { api } from "./api.js";
import * as recordings from "./recordings.js";
import { $, ago, clearErrors, confirm, count, el, fieldError, showError, toast, words } from "./ui.js";

let players = [];
let healthTimer = null;
let cameras = [];
let editing = null;
let tested = null;
let visible = false;

export async function show() {
  visible = true;
  cameras = await api("/api/cameras");
  renderList();
  await loadGrid();
}

export function hide() {
  visible = false;
  stopGrid();
  $("discovery").hidden = true;
}

function stopGrid() {
  for (const player of players) player.close();
  players = [];
  clearInterval(healthTimer);
  healthTimer = null;
}

// ---- Grid and live view ----

async function loadGrid() {
  stopGrid();
  const grid = $("grid");
  grid.textContent = "";
  $("cameras-empty").hidden = cameras.length > 0;
  if (!cameras.length) return;
  const width = Math.max(100, Math.round(grid.parentElement.clientWidth));
  const height = Math.max(240, Math.round(window.innerHeight - grid.getBoundingClientRect().top - 120));
  const layout = await api(`/api/grid?width=${width}&height=${height}`);
  let bottom = 0;
  const labels = {};
  const profiles = {};
  for (const cell of layout.cells) {
    const frame = cell.frame;
    bottom = Math.max(bottom, frame.y + frame.height);
    // The poster (a recent picture of the camera) shows while the live video connects.
    const video = el("video", { muted: true, autoplay: true, playsInline: true, poster: `/api/cameras/${cell.cameraID}/thumbnail?at=${Date.now()}`, "data-camera-id": cell.cameraID, "aria-label": `${cell.name}, live` });
    const health = el("span", { class: "health warn", role: "status", text: "connecting" });
    labels[cell.cameraID] = health;
    const box = el("div", { class: "cell", "data-camera-id": cell.cameraID },
      video, health, el("span", { class: "label", text: cell.name }));
    const full = el("button", { class: "full-button", type: "button", "aria-label": `Full screen: ${cell.name}`, title: "Full screen" }, fullscreenIcon());
    full.addEventListener("click", (event) => { event.stopPropagation(); toggleFullscreen(box); });
    // On phones a tap on the picture opens full screen.
    video.addEventListener("click", () => { if (matchMedia("(pointer: coarse)").matches) toggleFullscreen(box); });
    box.append(full);
    Object.assign(box.style, { left: `${frame.x}px`, top: `${frame.y}px`, width: `${frame.width}px`, height: `${frame.height}px` });
    grid.append(box);
    // The grid plays the small stream when the camera has one; full screen the main one.
    const show = (profile) => livePlayer(video, cell.cameraID, profile, (text, level, sticky) => setHealth(health, text, level, sticky));
    let player = show(cell.gridProfileID);
    players.push({ close: () => player.close() });
    if (cell.gridProfileID) {
      box.addEventListener("fullscreenchange", () => {
        player.close();
        player = show(document.fullscreenElement === box ? null : cell.gridProfileID);
      });
    }
    profiles[cell.cameraID] = cell.gridProfileID;
  }
  grid.style.height = `${Math.ceil(bottom + 8)}px`;
  const poll = async () => {
    for (const [id, label] of Object.entries(labels)) {
      try {
        const profile = document.fullscreenElement ? null : profiles[id];
        const health = await api(`/api/cameras/${id}/health${profile ? `?profile=${profile}` : ""}`);
        const status = health.status;
        let text = status.summary;
        if (status.level === "bad" && status.since) text += ` (${ago(status.since)})`;
        setHealth(label, text, status.level);
      } catch (_) { /* next time */ }
    }
  };
  poll();
  healthTimer = setInterval(poll, 3000);
}

/** Four corners, drawn (the ⛶ character is missing from many fonts). */
function fullscreenIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", "M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5");
  svg.append(path);
  return svg;
}

/** Says a camera's health on its tile and in its row of the list below, so both give one answer. */
function setHealth(label, text, level, sticky = false) {
  // A problem only the browser knows (a codec it cannot play) is not overwritten by the server's "playing".
  if (label.dataset.sticky && !sticky) return;
  if (sticky) label.dataset.sticky = "1";
  label.textContent = text;
  label.className = `health ${level}`;
  const id = label.closest(".cell")?.dataset.cameraId?.toLowerCase();
  const row = id && document.querySelector(`#camera-list li[data-camera-id="${id}"] .pill`);
  if (row) { row.textContent = text; row.className = `pill ${level}`; }
}

async function toggleFullscreen(box) {
  try {
    if (document.fullscreenElement) await document.exitFullscreen();
    else await box.requestFullscreen();
  } catch (_) {
    toast("This browser does not allow full screen here.");
  }
}

/** Plays a camera's live view: JSON text messages (init, state, error) and binary fMP4 fragments. */
function livePlayer(video, cameraID, profileID, onHealth) {
  let socket = null, source = null, buffer = null, queue = [], closed = false, retry = null;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const query = profileID ? `?profile=${profileID}` : "";
  function connect() {
    socket = new WebSocket(`${scheme}${location.host}/api/cameras/${cameraID}/live${query}`);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data);
        if (message.type === "init") setup(message.codec);
        else if (message.type === "state") onHealth(message.words, message.level);
        else if (message.type === "error") { onHealth(message.message, "bad"); closed = message.message === "signed out"; }
        return;
      }
      queue.push(event.data);
      pump();
    };
    socket.onclose = () => { if (!closed && visible) retry = setTimeout(connect, 3000); };
  }
  function setup(codec) {
    queue = [];
    buffer = null;
    if (!window.MediaSource || !MediaSource.isTypeSupported(`video/mp4; codecs="${codec}"`)) {
      const family = codec.startsWith("hvc1") || codec.startsWith("hev1") ? "H.265" : codec.split(".")[0];
      onHealth(`this browser cannot play ${family} live — choose H.264 in the camera's settings (recording still works)`, "bad", true);
      return;
    }
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
  return { close() { closed = true; clearTimeout(retry); if (socket) socket.close(); } };
}

// ---- The list: edit, delete, reorder ----

function renderList() {
  const list = $("camera-list");
  list.textContent = "";
  $("manage-title").hidden = $("manage-hint").hidden = cameras.length === 0;
  cameras.forEach((camera, index) => {
    const item = el("li", { class: "camera-row", draggable: "true", "data-camera-id": camera.id.toLowerCase() },
      el("span", { class: "handle", "aria-hidden": "true", text: "⠿" }),
      el("img", { class: "thumb", alt: "", src: `/api/cameras/${camera.id}/thumbnail`, loading: "lazy", onerror: (event) => { event.target.hidden = true; } }),
      el("span", { class: "grow" }, el("strong", { text: camera.name }), " ", el("span", { class: "pill", text: camera.isActive === false ? "off" : "…" }),
        camera.lastConnected ? el("span", { class: "muted", text: ` last seen ${new Date(camera.lastConnected).toLocaleString([], { dateStyle: "short", timeStyle: "short" })}` }) : null),
      el("button", { class: "secondary small icon-button", type: "button", text: "↑", "aria-label": `Move ${camera.name} up`, disabled: index === 0, onclick: () => move(index, -1) }),
      el("button", { class: "secondary small icon-button", type: "button", text: "↓", "aria-label": `Move ${camera.name} down`, disabled: index === cameras.length - 1, onclick: () => move(index, 1) }),
      el("button", { class: "secondary small", type: "button", text: "Recordings", "aria-label": `Recordings of ${camera.name}`, onclick: () => recordings.open(camera) }),
      el("button", { class: "secondary small", type: "button", text: "Edit", onclick: () => openEditor(camera) }),
      el("button", { class: "secondary small", type: "button", text: "Delete", onclick: () => remove(camera) }));
    item.addEventListener("dragstart", (event) => { event.dataTransfer.setData("text/plain", String(index)); item.classList.add("dragging"); });
    item.addEventListener("dragend", () => item.classList.remove("dragging"));
    item.addEventListener("dragover", (event) => event.preventDefault());
    item.addEventListener("drop", (event) => {
      event.preventDefault();
      const from = Number(event.dataTransfer.getData("text/plain"));
      if (from !== index) reorder(from, index);
    });
    list.append(item);
  });
}

function move(index, step) { reorder(index, index + step); }

async function reorder(from, to) {
  const ids = cameras.map((camera) => camera.id);
  const [moved] = ids.splice(from, 1);
  ids.splice(to, 0, moved);
  try {
    cameras = await api("/api/cameras/order", { method: "PUT", json: { ids } });
    renderList();
    await loadGrid();
    document.querySelector(`#camera-list li[data-camera-id="${moved.toLowerCase()}"] button`)?.focus();
  } catch (error) { toast(words(error)); }
}

async function remove(camera) {
  if (!(await confirm({ title: `Delete “${camera.name}”?`, text: "The camera and its saved password are removed. The camera itself is not changed." }))) return;
  try { await api(`/api/cameras/${camera.id}`, { method: "DELETE" }); toast(`${camera.name} deleted.`); await show(); }
  catch (error) { toast(words(error)); }
}

// ---- Add / edit with a connection test ----

let foundProfiles = null;
// A discovered camera's identity, kept so the server can follow it to a new address.
let foundIdentity = null;

function openEditor(camera = null, found = null) {
  editing = camera;
  foundProfiles = found && found.profiles ? found.profiles : null;
  foundIdentity = found && found.identity ? found.identity : null;
  tested = null;
  const form = $("camera-form");
  form.reset();
  clearErrors(form);
  $("camera-test-result").textContent = "";
  $("camera-test-result").className = "test-result";
  $("camera-save").textContent = "Save";
  $("camera-dialog-title").textContent = camera ? `Edit ${camera.name}` : "Add camera";
  $("camera-password-hint").hidden = !(camera && camera.hasPassword);
  if (camera) {
    $("camera-name").value = camera.name;
    $("camera-url").value = camera.rtspURL;
    $("camera-user").value = camera.username || "";
  } else if (found) {
    $("camera-name").value = found.name;
    $("camera-url").value = found.url;
    $("camera-user").value = found.username || "";
    $("camera-password").value = found.password || "";
  }
  $("camera-dialog").showModal();
  $("camera-name").focus();
}

function formValues() {
  const values = { name: $("camera-name").value.trim(), rtspURL: $("camera-url").value.trim(), username: $("camera-user").value.trim() || null };
  const password = $("camera-password").value;
  if (password || !editing) values.password = password || null;
  return values;
}

function checkForm(values) {
  clearErrors($("camera-form"));
  if (!values.name) { fieldError("camera-name", "Give the camera a name."); return false; }
  if (!/^rtsps?:\/\/[^/\s]+/i.test(values.rtspURL)) { fieldError("camera-url", "Enter the camera's address as rtsp://host:port/path."); return false; }
  return true;
}

const cameraFields = { name: "camera-name", rtspURL: "camera-url", username: "camera-user", password: "camera-password" };

async function test() {
  const values = formValues();
  if (!checkForm(values)) return null;
  const line = $("camera-test-result");
  line.className = "test-result";
  line.textContent = "Testing the connection…";
  $("camera-test").disabled = true;
  try {
    const result = await api("/api/cameras/test", { method: "POST", json: Object.assign({ cameraID: editing ? editing.id : null }, values) });
    line.textContent = result.summary.charAt(0).toUpperCase() + result.summary.slice(1);
    line.className = `test-result ${result.ok ? "ok" : "bad"}`;
    tested = { values: JSON.stringify(values), ok: result.ok };
    $("camera-save").textContent = result.ok ? "Save" : "Save anyway";
    return result;
  } catch (error) {
    line.textContent = "";
    showError(error, cameraFields, "camera-test-result");
    $("camera-test-result").className = "test-result bad";
    return null;
  } finally {
    $("camera-test").disabled = false;
  }
}

async function save(event) {
  event.preventDefault();
  const values = formValues();
  if (!checkForm(values)) return;
  // Test first; a failed test asks for a second press ("Save anyway").
  if (!tested || tested.values !== JSON.stringify(values)) {
    const result = await test();
    if (!result || !result.ok) return;
  }
  try {
    if (editing) await api(`/api/cameras/${editing.id}`, { method: "PUT", json: values });
    else await api("/api/cameras", { method: "POST", json: Object.assign(foundProfiles ? { profiles: foundProfiles } : {}, foundIdentity || {}, values) });
    $("camera-dialog").close();
    toast(`${values.name} saved.`);
    await show();
  } catch (error) {
    showError(error, cameraFields, "camera-test-result");
  }
}

// ---- Discovery ----

async function discover() {
  const section = $("discovery");
  section.hidden = false;
  const list = $("discovered");
  list.textContent = "";
  $("discovery-text").textContent = "Looking for ONVIF cameras on your network (3 s)…";
  $("discover").disabled = true;
  try {
    render(await api("/api/discovery", { method: "POST", json: { timeout: 3 } }));
  } catch (error) {
    $("discovery-text").textContent = words(error);
  } finally {
    $("discover").disabled = false;
  }
}

function render(devices, login = null) {
  const list = $("discovered");
  list.textContent = "";
  $("discovery-text").textContent = devices.length
    ? `${count(devices.length, "camera")} found.`
    : "No ONVIF cameras answered. Check that they are on the same network, or add one by its address.";
  for (const found of devices) {
    const device = found.device;
    const info = found.information || {};
    const title = [info.manufacturer, info.model || device.hardware].filter(Boolean).join(" ") || device.name || "Camera";
    const item = el("li", { "data-address": device.address },
      el("span", { class: "grow" }, el("strong", { text: title }), " ", el("span", { class: "muted", text: `at ${device.address}` })));
    const profiles = (found.profiles || []).filter((profile) => profile.streamURL);
    if (profiles.length) {
      // Every profile is stored with the camera (the grid plays the smallest); the one chosen is its address.
      const all = profiles.map(({ profile, streamURL }) => ({ name: profile.name || profile.token, rtspURL: streamURL, width: profile.width, height: profile.height, fps: profile.frameRate ? Math.round(profile.frameRate) : null }));
      for (const { profile, streamURL } of profiles) {
        const size = profile.width && profile.height ? ` ${profile.width}×${profile.height}` : "";
        item.append(el("button", { class: "small", type: "button", text: `Add ${profile.name || "stream"}${size}`, title: streamURL,
          onclick: () => openEditor(null, { name: device.name || title, url: streamURL, username: login && login.username, password: login && login.password, profiles: all,
            identity: { endpoint: device.endpoint, serialNumber: info.serialNumber || undefined } }) }));
      }
    } else {
      if (found.error) item.append(el("span", { class: "pill bad", text: found.error }));
      item.append(el("button", { class: "secondary small", type: "button", text: "Log in to read its streams", onclick: () => readProfiles(device) }));
    }
    // A profile the camera gave no address for is named, with the camera's own reason (the
    // protocol's words stay in the tooltip).
    for (const { profile, streamError, streamRefusal } of (found.profiles || []).filter((p) => !p.streamURL)) {
      const size = profile.width && profile.height ? ` ${profile.width}×${profile.height}` : "";
      const reason = streamRefusal || streamError;
      item.append(el("p", { class: "stream-missing", title: streamError || "",
        text: `${profile.name || profile.token}${size}: no stream address. ${reason ? `The camera says: “${reason}”.` : "The camera gave none."}` }));
    }
    list.append(item);
  }
}

/** Reads the cameras' stream addresses with their ONVIF login (they hide them from strangers). */
async function readProfiles(device) {
  const username = await confirm({ title: `Log in to ${device.address}`, text: "The camera's user name (often admin).", action: "Next", input: { label: "User name" } });
  if (username === null) return;
  const password = await confirm({ title: `Log in to ${device.address}`, text: "The camera's password, to read its stream addresses. It is not saved until you add the camera.", action: "Read streams", input: { label: "Password", type: "password" } });
  if (password === null) return;
  $("discovery-text").textContent = "Reading the cameras' streams…";
  try {
    render(await api("/api/discovery", { method: "POST", json: { timeout: 3, username, password } }), { username, password });
  } catch (error) { $("discovery-text").textContent = words(error); }
}

export function wire() {
  recordings.wire();
  $("add-camera").addEventListener("click", () => openEditor());
  $("camera-test").addEventListener("click", test);
  $("camera-form").addEventListener("submit", save);
  $("camera-cancel").addEventListener("click", () => $("camera-dialog").close());
  $("discover").addEventListener("click", discover);
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(() => { if (visible && !document.fullscreenElement) loadGrid(); }, 400); });
}
