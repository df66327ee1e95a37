// The chat's live stream: one WebSocket per conversation, frames rendered as they arrive.
// Saved state is server-rendered (htmx partials); this file only draws what is still in flight, and asks the
// server for the saved version when a run ends. Frame types are documented in docs/websocket.md.
(function () {
  "use strict";
  var root = document.getElementById("chat");
  if (!root) return;

  var state = { socket: null, backoff: 500, running: root.dataset.running === "1", rts: {}, cards: {}, outbox: [],
    waiting: {}, readOnly: root.dataset.canEdit !== "1" };
  var live = document.getElementById("live");
  var livePanes = document.getElementById("live-panes");
  var composer = document.getElementById("composer");
  var sendButton = document.getElementById("send");
  var stopButton = document.getElementById("stop");
  var retryForm = document.getElementById("retry-form");
  var connection = document.getElementById("chat-connection");
  var attach = window.CrosswireAttach; // attach.js: the images waiting in the composer

  // ---- small DOM helpers -------------------------------------------------------------------------------------
  var el = window.CrosswireDom.el, testid = window.CrosswireDom.testid, pretty = window.CrosswireDom.pretty;
  function jsonBlock(value) {
    var pre = el("pre", "json");
    if (window.JsonView) window.JsonView.render(pre, value); else pre.textContent = JSON.stringify(value, null, 2);
    return pre;
  }
  var cards = window.CrosswireCards(state, send, function () { return document.getElementById("transcript"); }); // cards.js: the tool call cards and the questions on them
  // follow.js: the page keeps the newest of the chat in sight, and the panes each new round trip, while the reader
  // has not scrolled away; a page opened at a link to one message stays there.
  var chatColumn = root.querySelector(".chat-main");
  var panesColumn = root.querySelector(".chat-panes");
  var pageFollow = window.CrosswireFollow(null, chatColumn, !location.hash);
  var panesFollow = window.CrosswireFollow(panesColumn, null, !location.hash);
  panesFollow.show(document.querySelector("#panes > .rt:last-of-type")); // the latest round trip, as the chat's end
  pageFollow.watch(chatColumn);

  // ---- socket ------------------------------------------------------------------------------------------------
  function connect() {
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.wsUrl;
    var socket = new WebSocket(url);
    state.socket = socket;
    socket.addEventListener("open", function () {
      state.backoff = 500;
      // Whatever was sent while (re)connecting goes now, in order.
      state.outbox.splice(0).forEach(function (text) { socket.send(text); });
    });
    socket.addEventListener("message", function (event) { receive(JSON.parse(event.data)); });
    socket.addEventListener("close", function (event) {
      root.dataset.connected = "0";
      if (connection) connection.hidden = false; // until the next snapshot: the page may be behind meanwhile
      if (event.code === 4403) { // access lost (removed from the team, signed out): reconnecting cannot help
        if (connection) connection.hidden = true;
        showError("You no longer have access to this conversation. Reload the page to sign in again.");
        return;
      }
      if (!navigator.onLine) return; // the "online" event reconnects
      var closed = state.socket;
      setTimeout(function () { if (state.socket === closed) connect(); }, state.backoff);
      state.backoff = Math.min(state.backoff * 2, 10000);
    });
  }
  // A socket can outlive the network silently (the connection is only found dead much later): when the browser
  // says it is offline, drop it and show it; when it is back, reconnect at once and catch up from the snapshot.
  window.addEventListener("offline", function () {
    if (connection) connection.hidden = false;
    if (state.socket && state.socket.readyState <= WebSocket.OPEN) state.socket.close();
  });
  window.addEventListener("online", function () {
    state.backoff = 500;
    if (!state.socket || state.socket.readyState === WebSocket.CLOSED) connect();
  });
  function send(message) {
    outgoing(JSON.stringify(message)).forEach(function (text) {
      if (state.socket && state.socket.readyState === WebSocket.OPEN) {
        state.socket.send(text);
      } else {
        state.outbox.push(text); // sent as soon as the socket opens
      }
    });
    return true;
  }
  // daphne closes a socket whose incoming message passes 1 MiB: a bigger one (a message with images) goes as parts
  // the server puts back together, the envelope it uses the other way (docs/websocket.md). 64 Ki characters stay
  // under the server's limit for one message even if every character needs a 6-byte JSON escape.
  var PART_CHARS = 64 * 1024;
  function outgoing(text) {
    if (text.length <= PART_CHARS) return [text];
    var id = Math.random().toString(16).slice(2, 14), count = Math.ceil(text.length / PART_CHARS), list = [];
    for (var seq = 0; seq < count; seq++) {
      var data = text.slice(seq * PART_CHARS, (seq + 1) * PART_CHARS);
      list.push(JSON.stringify({ type: "part", id: id, seq: seq, last: seq === count - 1, data: data }));
    }
    return list;
  }

  // A message too big for one WebSocket frame comes as parts (docs/websocket.md): put it back together, then draw it.
  var parts = {};
  function receive(data) {
    if (Array.isArray(data) || data.type !== "part") { handleMessage(data); return; }
    var pieces = parts[data.id] = parts[data.id] || [];
    pieces[data.seq] = data.data;
    if (!data.last) return;
    delete parts[data.id];
    handleMessage(JSON.parse(pieces.join("")));
  }

  var handlers = {
    "snapshot": onSnapshot,
    "turn.started": function () {
      state.pendingText = null; state.pendingImages = null; refresh("transcript"); showHistoryActions();
    },
    "rt.start": onRoundTripStart,
    "rt.wire": onWire,
    "rt.delta": onDelta,
    "tool.check": cards.onCheck,
    "tool.fields": cards.onFields,
    "tool.awaiting": cards.onAwaiting,
    "tool.result": cards.onToolResult,
    "rt.end": onRoundTripEnd,
    "message.saved": function () {},
    "status": onStatus,
    "run.end": onRunEnd,
    "error": onError,
    "pong": function () {},
    "access": onAccess,
    // The server lost its link to other processes (Redis); a snapshot follows when it is back.
    "connection": function (frame) { if (connection) connection.hidden = frame.state !== "reconnecting"; }
  };
  function handle(frame) {
    var handler = handlers[frame.type];
    if (handler) handler(frame);
  }
  // A run's frames come as an array (one message per step of the run); other replies as one object. A frame that
  // fails to draw is reported and the ones after it are still drawn.
  function handleMessage(data) {
    (Array.isArray(data) ? data : [data]).forEach(function (frame) {
      try { handle(frame); } catch (error) { console.error("could not draw a " + frame.type + " frame", error); }
    });
  }

  // ---- run state -----------------------------------------------------------------------------------------------
  function setRunning(running) {
    state.running = running;
    if (sendButton) sendButton.disabled = running || state.readOnly;
    if (stopButton) {
      stopButton.hidden = !running;
      if (!running) stopButton.disabled = false;
    }
  }
  function onStatus(frame) {
    var box = document.querySelector("[data-testid=run-status]");
    if (!box) return;
    box.dataset.status = frame.status;
    box.querySelector(".run-label").textContent = frame.label || frame.status;
    box.querySelector(".run-message").textContent = frame.message || "";
    setRunning(frame.status === "running" || frame.status === "waiting");
    showRetry(frame.status);
  }
  // Retry from here, beside the status and beside Send (where the error was just read): after a failure only.
  var retryComposer = document.getElementById("retry-composer");
  function showRetry(status) {
    var offered = !!retryForm && retryForm.dataset.statuses.split(" ").indexOf(status) >= 0;
    if (retryForm) retryForm.hidden = !offered;
    if (retryComposer) retryComposer.hidden = !offered;
  }
  function onSnapshot(frame) {
    root.dataset.connected = "1";
    if (connection) connection.hidden = true;
    onStatus(frame);
    setRunning(frame.running);
    if (frame.message_count) showHistoryActions(); // a first message sent from another tab
    var rendered = parseInt(document.getElementById("transcript").dataset.messageCount, 10);
    if (rendered !== frame.message_count) {
      refresh("transcript"); // the page is behind what is saved: fetch both saved views again
      refresh("panes");
    }
    live.textContent = "";
    livePanes.textContent = "";
    state.rts = {};
    state.cards = {};
    state.waiting = {};
    frame.frames.forEach(handle);
    frame.waiting.forEach(cards.onAwaiting);
  }
  function onRunEnd(frame) {
    onStatus({ status: frame.status, label: statusLabel(frame.status), message: frame.message });
    setRunning(false);
    // A run that ended (a Stop while a call waited for a person) has no question left open: its forms go with it,
    // and the refreshes below must not draw them again on the saved cards.
    state.waiting = {};
    document.querySelectorAll("#chat .tool-answer").forEach(function (form) { form.remove(); });
    // The saved, server-rendered version replaces the live drawing.
    refresh("transcript", function () { live.textContent = ""; state.cards = {}; });
    refresh("panes", function () { livePanes.textContent = ""; state.rts = {}; });
  }
  // Review, Export, Fork and Replay wait for a first message (a new chat has nothing for them).
  function showHistoryActions() {
    document.querySelectorAll("#chat [data-needs-messages][hidden]").forEach(function (el) { el.hidden = false; });
  }
  function statusLabel(status) {
    return { done: "Done", error: "Error", stopped: "Stopped", limit: "Stopped at a limit",
      interrupted: "Interrupted" }[status] || status;
  }
  // One refresher per saved view: a refresh asked for while the last is on its way (a run that ends just after it
  // began) runs after it, instead of being dropped by htmx with its callback clearing the live drawing too early.
  var refreshers = {};
  function refresh(which, then) {
    if (!refreshers[which]) {
      var url = which === "transcript" ? root.dataset.transcriptUrl : root.dataset.panesUrl;
      var target = "#" + which;
      refreshers[which] = window.CrosswireDom.refresher(function () { return url; }, target, function () {
        if (window.JsonView) window.JsonView.renderAll(document.querySelector(target));
        // Questions still open belong on the saved cards the refresh just drew.
        if (which === "transcript") Object.keys(state.waiting).forEach(function (id) { cards.drawQuestion(state.waiting[id]); });
        if (which === "transcript") pageFollow.keep();
        if (which === "panes" && state.running) Object.keys(state.rts).forEach(dropSavedCopy);
        if (which === "panes") panesFollow.show(document.querySelector("#panes > .rt:last-of-type")); // as drawn now
      });
    }
    refreshers[which](then);
  }

  // ---- one round trip: a live message on the left, a live pane on the right -----------------------------------
  function onRoundTripStart(frame) {
    var rt = { index: frame.rt, calls: {}, text: null, reasoning: null, strategy: frame.strategy };
    state.rts[frame.rt] = rt;
    rt.message = testid(el("article", "msg msg-assistant is-live"), "message");
    var head = el("header", "msg-head");
    head.appendChild(el("span", "msg-role", "assistant"));
    rt.stage = head.appendChild(el("span", "small muted", "round trip " + (frame.rt + 1) + " · streaming"));
    rt.message.appendChild(head);
    live.appendChild(rt.message);
    rt.pane = buildPane(frame);
    livePanes.appendChild(rt.pane);
    dropSavedCopy(frame.rt);
    panesFollow.show(rt.pane);
  }
  // A page loaded mid-run has the round trip in flight saved as far as it got (its request, no answer yet); the
  // live pane draws it whole, so the saved copy goes (two panes, two ids "rt-N"). The saved one comes back, whole,
  // with the refresh at the run's end.
  function dropSavedCopy(index) {
    var saved = document.querySelector("#panes #rt-" + index);
    if (saved) saved.remove();
  }
  function buildPane(frame) {
    var pane = el("article", "rt is-live");
    pane.id = "rt-" + frame.rt;
    var head = el("header", "rt-head");
    head.appendChild(el("strong", null, "Round trip " + (frame.rt + 1)));
    if (frame.format) head.appendChild(el("span", "badge", frame.format)); // as the saved pane's head reads
    head.appendChild(el("span", "mono small", frame.request.model || ""));
    pane.metrics = head.appendChild(el("span", "rt-metrics small", "waiting for the first byte…"));
    pane.appendChild(head);
    if (frame.notes.length) {
      var notes = pane.appendChild(el("ul", "notes"));
      frame.notes.forEach(function (n) { notes.appendChild(testid(el("li", null, n), "translation-note")); });
    }
    var cols = pane.appendChild(el("div", "rt-cols"));
    var internal = testid(cols.appendChild(el("div", "pane")), "pane-internal");
    internal.appendChild(paneTitle("Internal", "request"));
    internal.appendChild(jsonBlock(frame.request));
    internal.appendChild(paneTitle("Internal", "events"));
    pane.internalEvents = internal.appendChild(eventList("Internal events"));
    var wire = testid(cols.appendChild(el("div", "pane")), "pane-wire");
    wire.appendChild(paneTitle("Wire", "request"));
    wire.appendChild(el("div", "wire-line mono small", frame.wire_request.method + " " + frame.wire_request.url));
    wire.appendChild(jsonBlock(frame.wire_request.body));
    wire.appendChild(paneTitle("Wire", "raw events"));
    pane.wireEvents = wire.appendChild(eventList("Raw events"));
    pane.started = performance.now();
    return pane;
  }
  // One tab stop per list, read with the arrow keys and Enter (events.js), as the saved panes' lists are.
  function eventList(label) {
    var list = el("ol", "wire-events mono");
    list.tabIndex = 0;
    list.setAttribute("aria-label", label + ": arrow keys to move, Enter to read one whole");
    return list;
  }
  function paneTitle(side, what) {
    var title = el("h3", "pane-title", side + " ");
    title.appendChild(el("span", "muted", what));
    return title;
  }
  function onWire(frame) {
    var rt = state.rts[frame.rt];
    if (!rt) return;
    if (!rt.pane.wireEvents.firstChild) rt.pane.metrics.textContent = "TTFB " + Math.round(frame.t_ms) + " ms · streaming…";
    var line = testid(el("li"), "wire-event");
    line.appendChild(el("span", "t", "+" + Math.round(frame.t_ms) + "ms"));
    if (frame.event) line.appendChild(el("span", "ev", frame.event));
    line.appendChild(el("code", null, frame.data));
    rt.pane.wireEvents.appendChild(line);
  }
  function internalLine(rt, frame) {
    var copy = Object.assign({}, frame);
    delete copy.type;
    delete copy.rt;
    var line = el("li");
    line.appendChild(el("span", "ev", copy.kind));
    delete copy.kind;
    line.appendChild(el("code", null, JSON.stringify(copy)));
    rt.pane.internalEvents.appendChild(line);
  }
  function onDelta(frame) {
    var rt = state.rts[frame.rt];
    if (!rt) return;
    internalLine(rt, frame);
    switch (frame.kind) {
      case "text":
        if (!rt.text) rt.text = rt.message.appendChild(el("div", "msg-text"));
        rt.text.textContent += frame.text;
        break;
      case "reasoning":
        if (!rt.reasoning) {
          var details = el("details", "reasoning");
          details.open = true;
          details.appendChild(el("summary", null, "Reasoning"));
          rt.reasoning = details.appendChild(el("div", "reasoning-text"));
          rt.message.insertBefore(details, rt.message.children[1] || null);
        }
        rt.reasoning.textContent += frame.text;
        break;
      case "tool_call_start": cards.startCard(rt, frame); break;
      case "tool_call_delta": cards.growCard(rt, frame); break;
      case "tool_call_end": cards.endCard(rt, frame); break;
      case "finish":
        rt.pane.metrics.textContent = "stop " + (frame.raw_reason || "–") + " → " + frame.reason;
        break;
      case "error": showError(frame.error.message); break;
    }
  }

  function onRoundTripEnd(frame) {
    var rt = state.rts[frame.rt];
    if (!rt) return;
    var parts = [];
    if (frame.ttfb_ms !== null) parts.push("TTFB " + Math.round(frame.ttfb_ms) + " ms");
    if (frame.total_ms !== null) parts.push("total " + Math.round(frame.total_ms) + " ms");
    if (frame.usage) parts.push("tokens " + (frame.usage.prompt_tokens || 0) + " in · " + (frame.usage.completion_tokens || 0) + " out");
    parts.push("stop " + (frame.raw_finish_reason || "–") + " → " + (frame.finish_reason || "–"));
    rt.pane.metrics.textContent = parts.join(" · ");
    rt.stage.textContent = "round trip " + (rt.index + 1); // streamed: what follows (its calls) says itself
    if (!frame.complete) rt.message.classList.add("msg-incomplete");
    if (frame.error) rt.message.appendChild(window.CrosswireDom.errorCard(frame.error));
  }

  function onError(frame) {
    showError(frame.error, frame.fields);
    if (state.pendingText !== null && state.pendingText !== undefined) {
      // The turn was refused: give the text back and let the person fix the settings and send again.
      if (!composer.value) composer.value = state.pendingText;
      if (attach) attach.restore(state.pendingImages);
      state.pendingText = null;
      state.pendingImages = null;
      setRunning(false);
    }
  }
  // This person's role in the team changed while the page was open (docs/teams.md): say so, offer a reload that
  // draws the page for the new role, and stop offering a send the server would now refuse.
  function onAccess(frame) {
    var old = document.querySelector("[data-testid=access-changed]");
    if (old) old.remove();
    var card = testid(el("div", "notice-card"), "access-changed");
    card.setAttribute("role", "status");
    card.appendChild(el("span", "", frame.can_edit
      ? "You can now run this conversation. Reload the page to get its controls."
      : "Your role in this team changed: you can read this conversation but no longer run it."));
    var reload = testid(el("button", "button button-small", "Reload"), "access-reload");
    reload.type = "button";
    reload.addEventListener("click", function () { location.reload(); });
    card.appendChild(reload);
    // On top of the composer, which stays in sight at the bottom of the window (a viewer's page has none).
    var form = document.getElementById("composer-form");
    if (form) form.insertBefore(card, form.firstChild); else live.appendChild(card);
    state.readOnly = !frame.can_edit;
    cards.redrawQuestions(); // a form for an editor, a note for a viewer
    setRunning(state.running); // Send follows both: a run going, and the role
    if (composer) composer.disabled = state.readOnly;
    var attachInput = document.getElementById("attach-input");
    if (attachInput) attachInput.disabled = state.readOnly;
    if (!form) card.scrollIntoView({ block: "nearest" });
  }

  function showError(message, fields) {
    var card = testid(el("div", "error-card"), "error");
    card.textContent = message;
    if (fields) {
      Object.keys(fields).forEach(function (name) { card.appendChild(el("div", "small", name + ": " + fields[name].join(" "))); });
    }
    live.appendChild(card);
    // In sight, above the composer, which stays at the bottom of the window and would cover a card just under it.
    var form = document.getElementById("composer-form");
    card.style.scrollMarginBottom = (form ? form.offsetHeight : 0) + 16 + "px";
    card.scrollIntoView({ block: "nearest" });
  }

  // ---- composer and settings ---------------------------------------------------------------------------------
  function options() {
    var form = document.getElementById("chat-options");
    var data = new FormData(form);
    var number = function (name) { var v = data.get(name); return v === "" || v === null ? null : Number(v); };
    return {
      endpoint_id: number("endpoint_id"),
      model: data.get("model"),
      system: data.get("system") || "",
      tools: data.getAll("tools"),
      tool_choice: data.get("tool_choice"),
      parallel_tool_calls: data.get("parallel_tool_calls") === "on",
      temperature: number("temperature"),
      max_tokens: number("max_tokens"),
      reasoning: data.get("reasoning") === "on",
      stream: data.get("stream") === "on",
      approve: data.get("approve") === "on",
      max_round_trips: number("max_round_trips"),
      max_invalid_retries: number("max_invalid_retries"),
      strategy: data.get("strategy") || "auto"
    };
  }
  function submit() {
    var images = attach ? attach.images() : [];
    if (state.running || (!composer.value.trim() && !images.length) || (attach && attach.busy())) return;
    var size = new TextEncoder().encode(composer.value).length;
    var limit = parseInt(root.dataset.maxMessageBytes, 10);
    if (size > limit) { // refused here, text kept: the server would refuse it, and daphne drop it past 1 MiB
      showError("This message is " + kib(size) + "; the limit is " + kib(limit) + ". Shorten it and send again.");
      return;
    }
    state.pendingText = composer.value;
    state.pendingImages = images;
    var message = { type: "send", text: composer.value, options: options() };
    if (images.length) message.images = images;
    send(message);
    composer.value = "";
    if (attach) attach.clear();
    setRunning(true);
    pageFollow.resume(); // the answer to what was just sent is what the reader wants to see
    panesFollow.resume();
    pageFollow.keep();
  }
  function kib(bytes) { return bytes >= 1048576 ? (bytes / 1048576).toFixed(1) + " MiB" : Math.ceil(bytes / 1024) + " KiB"; }
  function fillModels() {
    var select = document.getElementById("opt-endpoint");
    var list = document.getElementById("opt-models");
    if (!select || !list) return;
    var option = select.options[select.selectedIndex];
    list.textContent = "";
    (option.dataset.models || "").split(",").filter(Boolean).forEach(function (name) {
      var item = document.createElement("option");
      item.value = name;
      list.appendChild(item);
    });
  }

  if (composer) {
    document.getElementById("composer-form").addEventListener("submit", function (event) {
      event.preventDefault();
      submit();
    });
    window.CrosswireDom.submitOnCtrlEnter(composer, document.getElementById("composer-form"));
    stopButton.addEventListener("click", function () {
      stopButton.disabled = true; // one Stop is enough; the status line says when it has taken effect
      send({ type: "stop" });
    });
  }
  var optionsForm = document.getElementById("chat-options");
  // The settings are sent with each message; the form itself is never submitted (Enter in a field must not reload).
  if (optionsForm) optionsForm.addEventListener("submit", function (event) { event.preventDefault(); });
  // Saved as they change, not only with the next message: a new chat starts from them. One save at a time, and a
  // change made meanwhile is saved once it lands, so the last state wins. A form caught half-typed is refused by the
  // server and the last valid settings stay; the drawer's summary says what now differs.
  var saving = false, dirty = false;
  if (optionsForm && !optionsForm.querySelector("fieldset:disabled")) {
    optionsForm.addEventListener("change", function () {
      dirty = true;
      if (!saving) saveOptions();
    });
  }
  // Retry runs with the saved settings: a change still being saved goes first, then the retry.
  var retryAfterSave = false;
  if (retryForm) {
    retryForm.addEventListener("submit", function (event) {
      if (!saving && !dirty) return;
      event.preventDefault();
      retryAfterSave = true;
    });
  }
  function saveOptions() {
    saving = true;
    dirty = false;
    var token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
    fetch(root.dataset.settingsUrl, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(options()),
      headers: { "Content-Type": "application/json", "X-CSRFToken": token }
    }).then(function (response) { return response.ok ? response.json() : null; }).then(function (saved) {
      if (saved && saved.saved && !dirty) showChanged(saved.changed);
    }).catch(function () {}).then(function () { // offline: the settings still go with the next message
      saving = false;
      if (dirty) saveOptions();
      else if (retryAfterSave) { retryAfterSave = false; retryForm.requestSubmit(); }
    });
  }
  function showChanged(changed) {
    var summary = optionsForm.querySelector("details.more-options > summary");
    var said = summary && summary.querySelector("[data-testid=options-changed]");
    if (!summary) return;
    if (!changed.length) { if (said) said.remove(); return; }
    if (!said) {
      summary.appendChild(document.createTextNode(" "));
      said = summary.appendChild(testid(el("span", "muted small"), "options-changed"));
    }
    said.textContent = "· " + changed.join(" · ");
  }
  var endpointSelect = document.getElementById("opt-endpoint");
  function showFormat() {
    var label = document.getElementById("wire-format");
    if (label && endpointSelect) label.textContent = endpointSelect.options[endpointSelect.selectedIndex].dataset.format;
  }
  if (endpointSelect) {
    showFormat();
    endpointSelect.addEventListener("change", function () {
      showFormat();
      fillModels();
      var model = document.getElementById("opt-model");
      model.value = endpointSelect.options[endpointSelect.selectedIndex].dataset.defaultModel || model.value;
    });
  }
  // Replay on…: picking an endpoint proposes its default model, as the chat's own endpoint picker does.
  var replayEndpoint = document.querySelector("[data-testid=replay-endpoint]");
  if (replayEndpoint) {
    replayEndpoint.addEventListener("change", function () {
      var model = document.querySelector("[data-testid=replay-model]");
      model.value = replayEndpoint.options[replayEndpoint.selectedIndex].dataset.defaultModel || model.value;
    });
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest("[data-show-rt]");
    if (!link) return;
    var pane = document.getElementById("rt-" + link.dataset.showRt);
    if (pane) {
      pane.scrollIntoView({ behavior: "smooth", block: "start" });
      pane.classList.add("is-highlighted");
      setTimeout(function () { pane.classList.remove("is-highlighted"); }, 1500);
    }
  });
  fillModels();
  setRunning(state.running);
  connect();
})();
