// The app shell: the first screen (sign in / sign up), tabs routed by the URL's hash, and signing
// out, which reloads the page so nothing of the previous user stays in memory or storage.
import { api, whenSignedOut } from "./api.js";
import { $, clearErrors, fieldError, showError, toast, words } from "./ui.js";
import * as highlights from "./highlights.js";
import * as coach from "./coach.js";
import * as cameras from "./cameras.js";
import * as settings from "./settings.js";

const views = { highlights, coach, cameras, settings };
let user = null;
let current = null;
let signingUp = false;

function setMode(up) {
  signingUp = up;
  $("auth-title").textContent = up ? "Create your account" : "Sign in";
  $("auth-submit").textContent = up ? "Create account" : "Sign in";
  $("auth-switch").textContent = up ? "Have an account? Sign in" : "New here? Create an account";
  $("auth-password").autocomplete = up ? "new-password" : "current-password";
  $("auth-password-hint").hidden = !up;
  clearErrors($("auth-form"));
}

async function submitAuth(event) {
  event.preventDefault();
  const form = $("auth-form");
  clearErrors(form);
  const email = $("auth-email").value.trim();
  const password = $("auth-password").value;
  if (!email) return fieldError("auth-email", "Enter your e-mail address.");
  if (!password) return fieldError("auth-password", "Enter your password.");
  if (signingUp && password.length < 8) return fieldError("auth-password", "Use at least 8 characters.");
  $("auth-submit").disabled = true;
  try {
    const tokens = await api(signingUp ? "/api/auth/signup" : "/api/auth/login", { method: "POST", json: { email, password } });
    enter(tokens.user, signingUp ? "Account created. We sent a confirmation link to " + tokens.user.email + "." : null);
  } catch (error) {
    showError(error, { email: "auth-email", password: "auth-password" }, "auth-error");
  } finally {
    $("auth-submit").disabled = false;
  }
}

function enter(signedIn, message) {
  user = signedIn;
  document.body.classList.remove("signed-out");
  $("welcome").hidden = true;
  $("tabs").hidden = false;
  $("who").hidden = false;
  $("email").textContent = user.email;
  settings.setUser(user);
  if (message) toast(message, 6);
  route();
}

function showWelcome() {
  user = null;
  document.body.classList.add("signed-out");
  for (const name of Object.keys(views)) $(name).hidden = true;
  $("tabs").hidden = true;
  $("who").hidden = true;
  $("welcome").hidden = false;
}

/** Shows the tab the hash names (Highlights by default). */
function route() {
  if (!user) return;
  const name = views[location.hash.slice(1)] ? location.hash.slice(1) : "highlights";
  if (current && current !== name) views[current].hide?.();
  for (const key of Object.keys(views)) $(key).hidden = key !== name;
  for (const link of document.querySelectorAll("#tabs a")) {
    if (link.dataset.tab === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  current = name;
  document.title = `${name.charAt(0).toUpperCase() + name.slice(1)} — CameraCore`;
  views[name].show().catch((error) => toast(words(error)));
}

/** Forgets everything of this user: storage, caches of API answers, and the page itself. */
export async function signOut(path = "/api/auth/logout") {
  try { await api(path, { method: "POST" }); } catch (_) { /* signed out either way */ }
  leave();
}

export function leave() {
  try { localStorage.clear(); sessionStorage.clear(); } catch (_) { /* private mode */ }
  location.replace("/");
}

// ---- Sign in with Apple on the web: Apple's page returns here with the identity token in the
// fragment; `state` ties the return to the click that started it in this browser.

async function offerApple() {
  let options = {};
  try { options = await api("/api/auth/options"); } catch (_) { return; }
  if (!options.apple) return;
  $("apple-area").hidden = false;
  // A link, so it works like one (and can be inspected); the state it carries is kept for the return.
  const state = crypto.randomUUID();
  sessionStorage.setItem("apple-state", state);
  const query = new URLSearchParams({
    client_id: options.apple.clientID, redirect_uri: options.apple.redirectURI,
    response_type: "code id_token", response_mode: "fragment", state,
  });
  $("apple-button").href = `https://appleid.apple.com/auth/authorize?${query}`;
}

/** True when the page was opened by Apple's return (signed in, or the error shown). */
async function returnFromApple() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has("id_token") && !fragment.has("error")) return false;
  history.replaceState(null, "", "/");
  const expected = sessionStorage.getItem("apple-state");
  sessionStorage.removeItem("apple-state");
  showWelcome();
  if (fragment.has("error")) {
    $("auth-error").textContent = fragment.get("error") === "user_cancelled_authorize" ? "Sign in with Apple was cancelled." : "Sign in with Apple failed. Try again.";
    return true;
  }
  if (!expected || fragment.get("state") !== expected) {
    $("auth-error").textContent = "That Sign in with Apple answer was not started from this page. Try again.";
    return true;
  }
  try {
    const tokens = await api("/api/auth/apple", { method: "POST", json: { identityToken: fragment.get("id_token") } });
    enter(tokens.user);
  } catch (error) {
    $("auth-error").textContent = /verif/i.test(error.message)
      ? "An account with this e-mail exists but has not confirmed its address. Sign in with its password and confirm the e-mail first."
      : words(error);
  }
  return true;
}

async function verifyFromLink() {
  const match = location.hash.match(/^#verify=([0-9a-f]{64})$/);
  if (!match) return;
  history.replaceState(null, "", "/");
  try {
    await api("/api/auth/verify", { method: "POST", json: { token: match[1] } });
    toast("Your e-mail address is confirmed.", 6);
  } catch (error) { toast(words(error), 8); }
}

document.addEventListener("DOMContentLoaded", async () => {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  whenSignedOut(() => { if (user) leave(); });
  $("auth-form").addEventListener("submit", submitAuth);
  $("auth-switch").addEventListener("click", () => setMode(!signingUp));
  $("logout").addEventListener("click", () => signOut());
  window.addEventListener("hashchange", route);
  settings.wire({ signOut, leave });
  highlights.wire();
  coach.wire();
  cameras.wire();
  await verifyFromLink();
  const returned = await returnFromApple();
  offerApple();
  if (returned) return;
  try { enter(await api("/api/me")); } catch (_) { showWelcome(); }
});
