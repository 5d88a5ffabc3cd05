// Settings: the CGame settings (game from the server's profiles, quality, pre/post-roll) and the
// account: confirm the e-mail, change the password, sign out everywhere, delete the account.
import { api } from "./api.js";
import * as teach from "./teach.js";
import { $, clearErrors, confirm, el, fieldError, showError, toast, words } from "./ui.js";

let user = null;
let profiles = [];

export function setUser(signedIn) {
  user = signedIn;
  $("verify-banner").hidden = !!user.emailVerified;
  $("password-username").value = user.email;
}

export async function show() {
  const [settings, games] = await Promise.all([api("/api/settings"), api("/api/profiles")]);
  profiles = games;
  const select = $("gameProfileName");
  select.textContent = "";
  const mine = games.filter((game) => game.id);
  const shipped = games.filter((game) => !game.id);
  const group = (label, list) => el("optgroup", { label }, ...list.map((game) => el("option", { value: game.name, text: game.name })));
  if (mine.length) select.append(group("Shipped with CGame", shipped), group("Taught by you", mine));
  else for (const game of shipped) select.append(el("option", { value: game.name, text: game.name }));
  for (const key of ["gameProfileName", "videoQuality", "preRollDuration", "postRollDuration"]) $(key).value = settings[key];
  describeGame();
  teach.render(games);
}

function describeGame() {
  const game = profiles.find((profile) => profile.name === $("gameProfileName").value);
  const watched = game && game.keywords ? ` when the game writes “${game.keywords.join("”, “")}”` : "";
  $("game-events").textContent = game ? `Detects: ${game.events.join(", ")}${watched}.` : "";
}

async function save(event) {
  event.preventDefault();
  const form = $("settings-form");
  clearErrors(form);
  const body = { gameProfileName: $("gameProfileName").value, videoQuality: $("videoQuality").value };
  for (const key of ["preRollDuration", "postRollDuration"]) {
    const value = $(key).valueAsNumber;
    if (!(value >= 0 && value <= 30)) return fieldError(key, "Enter a number of seconds from 0 to 30.");
    body[key] = value;
  }
  try {
    await api("/api/settings", { method: "PUT", json: body });
    toast("Settings saved. cgame uses them the next time it starts.");
  } catch (error) {
    showError(error, { gameProfileName: "gameProfileName", videoQuality: "videoQuality", preRollDuration: "preRollDuration", postRollDuration: "postRollDuration" }, "settings-error");
  }
}

async function changePassword(event) {
  event.preventDefault();
  const form = $("password-form");
  clearErrors(form);
  if (!$("currentPassword").value) return fieldError("currentPassword", "Enter your current password.");
  if ($("newPassword").value.length < 8) return fieldError("newPassword", "Use at least 8 characters.");
  try {
    await api("/api/auth/password", { method: "POST", json: { currentPassword: $("currentPassword").value, newPassword: $("newPassword").value } });
    form.reset();
    toast("Password changed. Your other devices were signed out.");
  } catch (error) {
    showError(error, { currentPassword: "currentPassword", newPassword: "newPassword" });
  }
}

async function verify(event) {
  event.preventDefault();
  clearErrors($("verify-banner"));
  try {
    await api("/api/auth/verify", { method: "POST", json: { token: $("verify-code").value.trim() } });
    $("verify-banner").hidden = true;
    toast("Your e-mail address is confirmed.");
  } catch (error) { fieldError("verify-code", words(error)); }
}

async function resend() {
  clearErrors($("verify-banner"));
  $("verify-resent").textContent = "";
  try {
    const sent = await api("/api/auth/verify/resend", { method: "POST" });
    $("verify-resent").textContent = `Sent again to ${sent.sentTo}: the code in the new mail replaces the old one.`;
  } catch (error) {
    if (error.status === 409) {
      $("verify-banner").hidden = true;
      toast("Your e-mail address is confirmed already.");
    } else {
      fieldError("verify-code", words(error));
    }
  }
}

export function wire({ signOut, leave }) {
  $("settings-form").addEventListener("submit", save);
  teach.wire({ changed: () => show().catch((error) => toast(words(error))) });
  $("gameProfileName").addEventListener("change", describeGame);
  $("password-form").addEventListener("submit", changePassword);
  $("verify-form").addEventListener("submit", verify);
  $("verify-resend").addEventListener("click", resend);
  $("logout-all").addEventListener("click", async () => {
    const yes = await confirm({ title: "Sign out everywhere?", text: "Every phone, computer and cgame login of this account is signed out, this one too.", action: "Sign out everywhere" });
    if (yes) signOut("/api/auth/logout-all");
  });
  $("delete-account").addEventListener("click", async () => {
    const done = await confirm({
      title: "Delete your account?",
      text: "Your clips, reels, workouts and cameras are deleted from the server. This cannot be undone.",
      action: "Delete account", input: { label: "Your password", type: "password" },
      check: async (password) => { await api("/api/me", { method: "DELETE", json: { password, confirm: "delete" } }); },
    });
    if (done !== null) leave();
  });
}
