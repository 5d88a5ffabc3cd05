// A camera or screen recorded in the browser and sent to the server as it is made: MediaRecorder
// WebM in quarter-second chunks over a WebSocket; the server answers with JSON notes. Used by the
// game capture (getDisplayMedia) and by live training (getUserMedia).

/** The WebM type this browser records, or null. */
export function webmType() {
  if (typeof MediaRecorder === "undefined") return null;
  return ["video/webm;codecs=vp8", "video/webm;codecs=vp9", "video/webm"].find((t) => MediaRecorder.isTypeSupported(t)) || null;
}

/**
 * Starts sending `stream` to the WebSocket at `path`. Handlers: `note(object)` for each message,
 * `slow()` when the connection cannot carry the stream, `closed()` when the connection ends.
 * Returns `{ stop }`: stop recording; the last chunk and `{"type":"stop"}` are sent.
 */
export function sendRecording(stream, path, { bitrate, note, slow, closed }) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}${path}`);
  const recorder = new MediaRecorder(stream, { mimeType: webmType(), videoBitsPerSecond: bitrate });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    stream.getTracks().forEach((track) => track.stop());
    if (recorder.state !== "inactive") recorder.stop();
    else if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "stop" }));
  };
  recorder.addEventListener("dataavailable", (event) => {
    if (!event.data.size || socket.readyState !== WebSocket.OPEN) return;
    // More than a few seconds of video waiting to go out: the connection cannot carry it.
    if (socket.bufferedAmount > 2_000_000) {
      slow();
      stop();
      return;
    }
    socket.send(event.data);
  });
  // The last chunk comes before `stop`; then the server finishes and says done.
  recorder.addEventListener("stop", () => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "stop" }));
  });
  // The browser's own "Stop sharing", a closed window, a camera taken away.
  stream.getVideoTracks()[0].addEventListener("ended", stop);
  socket.addEventListener("open", () => recorder.start(250));
  socket.addEventListener("message", (message) => {
    let parsed = null;
    try { parsed = JSON.parse(message.data); } catch (_) { return; }
    note(parsed);
  });
  socket.addEventListener("close", () => {
    stream.getTracks().forEach((track) => track.stop());
    if (recorder.state !== "inactive") recorder.stop();
    closed();
  });
  return { stop };
}
