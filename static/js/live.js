// The header's live indicator: a WebSocket to the server, proven with ping/pong and reconnected with backoff.
(function () {
  "use strict";
  var PING_EVERY_MS = 25000;
  var MAX_BACKOFF_MS = 15000;
  var LABELS = { connecting: "Connecting…", live: "Live", offline: "Offline" };

  var path = document.body.dataset.liveUrl;
  if (!path || !("WebSocket" in window)) return;

  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  var backoff = 500;
  var pingTimer = null;
  var sentAt = 0;

  function show(state) {
    document.querySelectorAll("#live-status, [data-live-mirror]").forEach(function (el) {
      el.dataset.state = state;
      var label = el.querySelector(".live-label");
      if (label) label.textContent = LABELS[state];
    });
  }

  function showRoundTrip(ms) {
    var el = document.getElementById("live-rtt");
    if (el) el.textContent = ms + " ms";
    var status = document.getElementById("live-status");
    if (status) status.title = "WebSocket connected, round trip " + ms + " ms";
  }

  function connect() {
    var socket = new WebSocket(url);
    function ping() {
      sentAt = performance.now();
      socket.send(JSON.stringify({ type: "ping" }));
    }
    socket.addEventListener("open", function () {
      backoff = 500;
      ping();
      pingTimer = setInterval(ping, PING_EVERY_MS);
    });
    socket.addEventListener("message", function (event) {
      var message = JSON.parse(event.data);
      if (message.type === "pong") {
        show("live");
        showRoundTrip(Math.max(1, Math.round(performance.now() - sentAt)));
      }
    });
    socket.addEventListener("close", function (event) {
      clearInterval(pingTimer);
      show("offline");
      // Signed out (here or in another tab) or access withdrawn: the next page load asks to sign in again.
      if (event.code === 4403) { location.reload(); return; }
      setTimeout(function () {
        show("connecting");
        connect();
      }, backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    });
  }

  connect();
})();
