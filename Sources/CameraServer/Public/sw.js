// CameraCore's service worker: keeps the app shell (pages, styles, scripts, icons) so the app opens
// at once and shows an offline page without a network. API answers are never cached: they belong
// to one user, and signing out must leave nothing behind.
const SHELL = "cameracore-shell-v11";
const FILES = [
  "/", "/index.html", "/offline.html", "/style.css", "/manifest.json", "/icon.svg", "/icon-192.png", "/icon-512.png",
  "/js/app.js", "/js/api.js", "/js/ui.js", "/js/highlights.js", "/js/capture.js", "/js/recording.js", "/js/live.js", "/js/rimzoom.js", "/js/coach.js", "/js/cameras.js", "/js/recordings.js", "/js/settings.js", "/js/teach.js", "/js/offline.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  // The network first, so a new version shows at once; the cache when offline.
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok && FILES.includes(url.pathname)) {
          const copy = response.clone();
          caches.open(SHELL).then((cache) => cache.put(event.request, copy));
        }
        return response;
      })
      .catch(async () => {
        const cached = await caches.match(event.request);
        if (cached) return cached;
        if (event.request.mode === "navigate") return caches.match("/offline.html");
        return Response.error();
      }));
});
