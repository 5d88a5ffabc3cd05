// The offline page reloads the app when the network comes back.
window.addEventListener("online", () => location.replace("/"));
