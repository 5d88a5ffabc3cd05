// Talking to the CameraCore server. The session lives in HttpOnly cookies; every write carries
// X-CameraCore: 1, which the server requires of cookie-authenticated writes (a cross-site form
// cannot send it).

/** An error answer: HTTP status, the server's words, and the field they are about (if any). */
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let onSignedOut = () => {};
/** What to do when the session is gone and cannot be refreshed. */
export function whenSignedOut(handler) { onSignedOut = handler; }

async function refresh() {
  const answer = await fetch("/api/auth/refresh", { method: "POST", headers: { "X-CameraCore": "1" }, credentials: "same-origin" });
  return answer.ok;
}

async function errorOf(response) {
  let message = `${response.status} ${response.statusText}`;
  try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
  return new APIError(response.status, message);
}

/**
 * Calls the API. `json` is sent as JSON; the answer is parsed JSON, null for 204, or the Response
 * for other content. Throws APIError with the server's message.
 */
export async function api(path, options = {}, retried = false) {
  const headers = Object.assign({ "X-CameraCore": "1" }, options.headers || {});
  const init = { method: options.method || "GET", headers, credentials: "same-origin", signal: options.signal };
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  } else if (options.body !== undefined) init.body = options.body;
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new APIError(0, "The server cannot be reached. Check your connection and try again.");
  }
  if (response.status === 401 && !retried && !path.startsWith("/api/auth/")) {
    if (await refresh()) return api(path, options, true);
    onSignedOut();
    throw new APIError(401, "You were signed out. Sign in again.");
  }
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response;
}

/**
 * Sends a file with progress (XMLHttpRequest: fetch cannot report upload progress). Returns
 * { done: Promise, cancel() }; `done` resolves to the parsed JSON answer. A null `file` sends
 * an empty body (the request names what the server has already).
 */
export function upload(path, file, { method = "PUT", headers = {}, onProgress = () => {} } = {}) {
  const request = new XMLHttpRequest();
  const done = new Promise((resolve, reject) => {
    request.open(method, path);
    request.setRequestHeader("X-CameraCore", "1");
    if (file && file.type) request.setRequestHeader("Content-Type", file.type);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.upload.onload = () => onProgress(1, true);
    request.onload = () => {
      let body = null;
      try { body = JSON.parse(request.responseText); } catch (_) { /* empty or not JSON */ }
      if (request.status >= 200 && request.status < 300) resolve(body);
      else if (request.status === 401) { onSignedOut(); reject(new APIError(401, "You were signed out. Sign in again.")); }
      else reject(new APIError(request.status, (body && body.error) || `${request.status} ${request.statusText}`));
    };
    request.onerror = () => reject(new APIError(0, "The upload failed: the connection to the server broke."));
    request.onabort = () => reject(Object.assign(new Error("cancelled"), { name: "AbortError" }));
    request.send(file);
    // Nothing to send (the server has the file already): sent, once the caller holds the answer.
    if (!file) setTimeout(() => onProgress(1, true));
  });
  return { done, cancel: () => request.abort() };
}
