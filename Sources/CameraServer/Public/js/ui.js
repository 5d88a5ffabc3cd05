// Small helpers shared by the views: elements, errors next to their fields, a status line and a
// confirmation dialog.

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`text` sets textContent, `on*` functions become listeners). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

let toastTimer = null;
/** A short message in the status line (read out by screen readers). */
export function toast(text, seconds = 4) {
  const line = $("status");
  line.textContent = text;
  line.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { line.hidden = true; }, seconds * 1000);
}

// Server messages name API fields ("rtspURL: must be …"); people see them under the field, in words.
const friendly = [
  [/wrong e-mail or password/i, "That e-mail and password do not match an account."],
  [/too many sign-in attempts/i, "Too many attempts. Wait a minute, then try again."],
  [/an account with this e-mail already exists/i, "There is already an account with this e-mail. Sign in instead."],
  [/a camera with this URL already exists/i, "This camera is already in your list. Edit it there to change its login."],
  [/^rate limit reached$/i, "Too many requests. Wait a minute, then try again."],
];

/** The words a person should read for an API error. */
export function words(error) {
  const message = (error && error.message) || String(error);
  for (const [pattern, text] of friendly) if (pattern.test(message)) return text;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * Shows `error` next to the field it names. `fields` maps API field names to input ids; the
 * message goes to `#{id}-error` and the input is marked invalid. Anything else goes to `fallback`.
 */
export function showError(error, fields, fallback) {
  const message = (error && error.message) || String(error);
  for (const [name, id] of Object.entries(fields)) {
    const at = message.indexOf(name + ": ");
    if (at < 0) continue;
    const text = message.slice(at + name.length + 2);
    fieldError(id, text.charAt(0).toUpperCase() + text.slice(1));
    return;
  }
  if (fallback) $(fallback).textContent = words(error);
  else toast(words(error));
}

export function fieldError(id, text) {
  const input = $(id);
  const line = $(id + "-error");
  if (line) line.textContent = text;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    if (line) input.setAttribute("aria-describedby", line.id);
    input.focus();
  }
}

/** Clears every error inside `root`. */
export function clearErrors(root) {
  for (const line of root.querySelectorAll(".field-error, .form-error")) line.textContent = "";
  for (const input of root.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

/**
 * Asks before something that cannot be undone. With `input` ({label, type}), the answer is the
 * text typed; `check(value)` may throw to keep the dialog open with the error shown.
 */
export function confirm({ title, text, action = "Delete", input = null, check = async () => {} }) {
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = action;
  $("confirm-field").hidden = !input;
  $("confirm-input").value = "";
  $("confirm-error").textContent = "";
  if (input) { $("confirm-label").textContent = input.label; $("confirm-input").type = input.type || "text"; }
  return new Promise((resolve) => {
    const form = $("confirm-form");
    const finish = (value) => {
      form.removeEventListener("submit", submit);
      $("confirm-no").removeEventListener("click", cancel);
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const submit = async (event) => {
      event.preventDefault();
      const value = input ? $("confirm-input").value : true;
      try { await check(value); finish(value); } catch (error) { $("confirm-error").textContent = words(error); }
    };
    const cancel = (event) => { if (event) event.preventDefault(); finish(null); };
    form.addEventListener("submit", submit);
    $("confirm-no").addEventListener("click", cancel);
    dialog.addEventListener("cancel", cancel);
    dialog.showModal();
    (input ? $("confirm-input") : $("confirm-no")).focus();
  });
}

/** "12 s ago", "4 min ago", or the time of day. */
export function ago(date) {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(date).getTime()) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return "since " + new Date(date).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** "1 clip", "3 clips": a count with its noun. */
export const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

export function megabytes(bytes) { return (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0) + " MB"; }

/** The frame `video` shows, drawn on a canvas at most `maxWidth` wide. */
export function still(video, maxWidth = Infinity) {
  const [width, height] = sizeOf(video);
  const scale = Math.min(1, maxWidth / width);
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** The size in pixels of a picture (an <img>: its own; a <canvas>: its own) or a video (its frames'). */
export function sizeOf(picture) {
  if (!picture) return [0, 0];
  if (picture.tagName === "CANVAS") return [picture.width, picture.height];
  return picture.tagName === "IMG" ? [picture.naturalWidth, picture.naturalHeight] : [picture.videoWidth, picture.videoHeight];
}

/** Where a pointer event lands on `picture`, as fractions of it (0…1, clamped). */
export function fractionAt(picture, event) {
  const box = picture.getBoundingClientRect();
  return { x: Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1), y: Math.min(Math.max((event.clientY - box.top) / box.height, 0), 1) };
}

/** Shows `shown` (absolutely placed over `picture`) on the rectangle `r`, given as fractions of the picture. */
export function placeOver(shown, picture, r) {
  shown.hidden = false;
  Object.assign(shown.style, {
    left: `${r.x * picture.clientWidth}px`, top: `${r.y * picture.clientHeight}px`,
    width: `${r.width * picture.clientWidth}px`, height: `${r.height * picture.clientHeight}px`,
  });
}
