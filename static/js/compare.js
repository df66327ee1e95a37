// Compare: the form that sets up the columns, and a comparison's columns streaming live, one WebSocket each.
// Each column is an ordinary conversation, so its socket speaks the chat protocol (docs/websocket.md) and its tool
// call cards and questions are the chat's own (cards.js); saved state is server-rendered and refreshed with htmx when
// a run ends, as on the chat page.
(function () {
  "use strict";

  var el = window.CrosswireDom.el, testid = window.CrosswireDom.testid;
  var submitOnCtrlEnter = window.CrosswireDom.submitOnCtrlEnter;
  // JSON-equal arguments compare equal whatever their key order or spacing.
  function canonical(text) {
    function sort(value) {
      if (Array.isArray(value)) return value.map(sort);
      if (value && typeof value === "object") {
        var out = {};
        Object.keys(value).sort().forEach(function (k) { out[k] = sort(value[k]); });
        return out;
      }
      return value;
    }
    try { return JSON.stringify(sort(JSON.parse(text || "{}"))); } catch (e) { return text; }
  }

  // ---- the set-up form: add and remove columns, models offered per endpoint ---------------------------------
  function setupBuilder(form) {
    var holder = document.getElementById("compare-setup-columns");
    var addButton = document.getElementById("compare-add-column");
    var template = document.getElementById("compare-column-template");
    var max = parseInt(form.dataset.maxColumns, 10);
    function columns() { return holder.querySelectorAll(".compare-setup"); }
    function fillModels(fieldset, pickDefault) {
      var select = fieldset.querySelector(".compare-endpoint");
      var option = select.options[select.selectedIndex];
      var list = fieldset.querySelector(".compare-model-list");
      list.textContent = "";
      (option && option.dataset.models || "").split(",").filter(Boolean).forEach(function (name) {
        var item = document.createElement("option");
        item.value = name;
        list.appendChild(item);
      });
      var model = fieldset.querySelector(".compare-model");
      if (pickDefault || !model.value) model.value = option ? option.dataset.defaultModel || "" : "";
    }
    function renumber() {
      var all = columns();
      all.forEach(function (fieldset, i) {
        fieldset.querySelector(".compare-setup-number").textContent = String(i + 1);
        fieldset.querySelector(".compare-remove").hidden = all.length < 2;
      });
      addButton.hidden = all.length >= max;
    }
    function wire(fieldset) {
      fieldset.querySelector(".compare-endpoint").addEventListener("change", function () { fillModels(fieldset, true); });
      fieldset.querySelector(".compare-remove").addEventListener("click", function () { fieldset.remove(); renumber(); });
      fillModels(fieldset, false);
    }
    // Ctrl/Cmd+Enter in the message runs every column, as it sends in the chat's composer.
    submitOnCtrlEnter(form.querySelector("[data-testid=compare-composer]"), form);
    var next = columns().length;
    columns().forEach(wire);
    addButton.addEventListener("click", function () {
      if (columns().length >= max) return;
      var html = template.innerHTML.replace(/__i__/g, String(next++));
      var box = document.createElement("div");
      box.innerHTML = html;
      var fieldset = box.querySelector(".compare-setup");
      holder.insertBefore(fieldset, addButton);
      wire(fieldset);
      renumber();
    });
    renumber();
  }

  // ---- a comparison's columns ----------------------------------------------------------------------------------
  function Column(section, page) {
    this.section = section;
    this.page = page;
    this.live = section.querySelector(".compare-live");
    this.stopButton = section.querySelector(".compare-stop");
    this.runLabel = section.querySelector(".compare-column-run");
    // Its place in its repeats (run 3 of 10): the socket speaks for its first run only, the results for the rest.
    this.active = section.dataset.active === "1";
    this.run = parseInt(section.dataset.run, 10);
    this.runs = parseInt(section.dataset.runs, 10);
    this.rts = {};
    // The cards' own state (cards.js), replaced when a snapshot redraws; a viewer's cards say what a run waits for
    // instead of offering the forms the server would refuse.
    this.state = { cards: {}, waiting: {}, readOnly: page.root.dataset.canEdit !== "1" };
    this.backoff = 500;
    var self = this;
    this.cards = window.CrosswireCards(this.state, function (message) { self.send(message); },
      function () { return self.section; }, function () { self.page.waitingChanged(); });
    if (this.stopButton) {
      this.stopButton.addEventListener("click", function () {
        self.stopButton.disabled = true;
        self.stop();
      });
    }
    this.connect();
  }
  Column.prototype.connect = function () {
    var self = this;
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + this.section.dataset.wsUrl;
    var socket = new WebSocket(url);
    this.socket = socket;
    socket.addEventListener("message", function (event) { self.receive(JSON.parse(event.data)); });
    socket.addEventListener("close", function (event) {
      if (event.code === 4403) return; // access lost: reconnecting cannot help
      setTimeout(function () { if (self.socket === socket) self.connect(); }, self.backoff);
      self.backoff = Math.min(self.backoff * 2, 10000);
    });
    socket.addEventListener("open", function () { self.backoff = 500; });
  };
  // Through the server, not the first run's socket: the repeat to stop may be any of the column's, and the ones after
  // it are marked not run there.
  Column.prototype.stop = function () {
    var self = this;
    var token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
    fetch(this.section.dataset.stopUrl, { method: "POST", headers: { "X-CSRFToken": token }, credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error("HTTP " + response.status); })
      .catch(function (error) { console.error("could not stop the column", error); self.stopButton.disabled = false; })
      .then(function () { self.page.changed(); });
  };
  Column.prototype.progress = function (active, run) {
    this.active = active;
    this.run = run;
    if (this.runLabel) {
      this.runLabel.hidden = !active || this.runs < 2;
      this.runLabel.textContent = "run " + run + " of " + this.runs;
    }
    this.offerStop();
  };
  // Stop is offered while the first run goes on or a later repeat runs or is still to start.
  Column.prototype.offerStop = function () {
    if (!this.stopButton) return;
    var show = this.section.dataset.running === "1" || this.active;
    this.stopButton.hidden = !show;
    if (!show) this.stopButton.disabled = false;
  };
  Column.prototype.send = function (message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  };
  Column.prototype.receive = function (data) {
    var self = this;
    if (!Array.isArray(data) && data.type === "part") { this.part(data); return; }
    (Array.isArray(data) ? data : [data]).forEach(function (frame) {
      try { self.handle(frame); } catch (error) { console.error("could not draw a " + frame.type + " frame", error); }
    });
  };
  Column.prototype.part = function (data) {
    this.parts = this.parts || {};
    var pieces = this.parts[data.id] = this.parts[data.id] || [];
    pieces[data.seq] = data.data;
    if (!data.last) return;
    delete this.parts[data.id];
    this.receive(JSON.parse(pieces.join("")));
  };
  Column.prototype.handle = function (frame) {
    switch (frame.type) {
      case "snapshot": this.onSnapshot(frame); break;
      case "rt.start": this.onRoundTripStart(frame); break;
      case "rt.delta": this.onDelta(frame); break;
      case "tool.fields": this.cards.onFields(frame); break;
      case "tool.check": this.cards.onCheck(frame); break;
      case "tool.result": this.cards.onToolResult(frame); break;
      case "tool.awaiting": this.cards.onAwaiting(frame); break;
      case "rt.end": this.onRoundTripEnd(frame); break;
      case "status": this.onStatus(frame); break;
      case "run.end": this.onRunEnd(frame); break;
      case "error": this.showError(frame.error); break;
    }
  };
  Column.prototype.onStatus = function (frame) {
    var box = this.section.querySelector("[data-testid=run-status]");
    var running = frame.status === "running" || frame.status === "waiting";
    if (box) {
      // An ended run's message is the server's to give (compare/_column_body.html): it leaves out the error its
      // cards already show. It is left as drawn, or blank until the redraw that an end brings.
      if (running || box.dataset.status !== frame.status) {
        box.querySelector(".run-message").textContent = running ? frame.message || "" : "";
      }
      box.dataset.status = frame.status;
      box.querySelector(".run-label").textContent = frame.label || frame.status;
    }
    this.section.dataset.running = running ? "1" : "0";
    this.status = frame.status;
    this.labelRoundTrips();
    this.offerStop();
  };
  // A round trip streams until it ends; a run then waiting for a person says so on its last one.
  Column.prototype.labelRoundTrips = function () {
    var self = this, status = this.status, numbers = Object.keys(this.rts).map(Number);
    var last = Math.max.apply(null, numbers);
    numbers.forEach(function (n) {
      var rt = self.rts[n];
      var doing = !rt.ended ? " · streaming" : status === "waiting" && n === last ? " · waiting for an answer" : "";
      rt.head.textContent = "round trip " + (n + 1) + doing;
    });
  };
  Column.prototype.onSnapshot = function (frame) {
    var body = this.section.querySelector(".compare-column-body");
    var box = this.section.querySelector("[data-testid=run-status]");
    var running = frame.status === "running" || frame.status === "waiting";
    // Drawn again when it lacks messages, or its run ended differently since it was drawn (its status line with it).
    var stale = body && (parseInt(body.dataset.messageCount, 10) !== frame.message_count ||
      (!running && box && box.dataset.status !== frame.status));
    this.onStatus(frame);
    if (stale) this.refresh();
    this.live.textContent = "";
    this.rts = {};
    this.state.cards = {};
    this.state.waiting = {};
    var self = this;
    frame.frames.forEach(function (f) { self.handle(f); });
    frame.waiting.forEach(function (f) { self.cards.onAwaiting(f); });
    this.page.waitingChanged();
  };
  Column.prototype.refresh = function (then) {
    var self = this;
    if (!this.refresher) {
      // By id, not by element: the body a refresh replaces is the one the previous refresh put in.
      var target = "#compare-column-body-" + this.section.dataset.position;
      this.refresher = window.CrosswireDom.refresher(function () { return self.section.dataset.columnUrl; }, target,
        function () { Object.keys(self.state.waiting).forEach(function (id) { self.cards.drawQuestion(self.state.waiting[id]); }); });
    }
    this.refresher(then);
  };
  Column.prototype.onRunEnd = function (frame) {
    var self = this;
    // The first run's end: a Stop (or the run's process gone) ends the column, any other end starts its next repeat
    // (the results, read again below, say so too, a moment later).
    var last = this.runs < 2 || frame.status === "stopped" || frame.status === "interrupted";
    this.progress(!last, last ? this.run : Math.max(this.run, 2));
    this.onStatus({ status: frame.status, label: frame.label || frame.status, message: frame.message });
    // A run that ended has no question left open: its forms go with it (a Stop while a call waited).
    this.state.waiting = {};
    this.section.querySelectorAll(".tool-answer").forEach(function (form) { form.remove(); });
    this.page.waitingChanged();
    this.refresh(function () { self.live.textContent = ""; self.rts = {}; self.state.cards = {}; });
    // A card's "differs" mark weighs every column's calls: a column that ended before this one drew its marks
    // without this one's calls, so it is drawn again too (a running column is drawn again at its own end).
    this.page.columns.forEach(function (other) {
      if (other !== self && other.section.dataset.running !== "1") other.refresh();
    });
    this.page.changed();
  };
  Column.prototype.onRoundTripStart = function (frame) {
    var message = testid(el("article", "msg msg-assistant is-live"), "message");
    var head = message.appendChild(el("header", "msg-head"));
    head.appendChild(el("span", "msg-role", "assistant"));
    var label = head.appendChild(el("span", "small muted", "round trip " + (frame.rt + 1) + " · streaming"));
    this.live.appendChild(message);
    this.rts[frame.rt] = { message: message, head: label, ended: false, calls: {}, text: null, reasoning: null,
      strategy: frame.strategy };
  };
  Column.prototype.onDelta = function (frame) {
    var rt = this.rts[frame.rt];
    if (!rt) return;
    if (frame.kind === "text") {
      if (!rt.text) rt.text = rt.message.appendChild(el("div", "msg-text"));
      rt.text.textContent += frame.text;
    } else if (frame.kind === "reasoning") {
      if (!rt.reasoning) {
        var details = rt.message.insertBefore(el("details", "reasoning"), rt.message.children[1] || null);
        details.appendChild(el("summary", null, "Reasoning"));
        rt.reasoning = details.appendChild(el("div", "reasoning-text"));
      }
      rt.reasoning.textContent += frame.text;
    } else if (frame.kind === "tool_call_start") {
      this.cards.startCard(rt, frame);
    } else if (frame.kind === "tool_call_delta") {
      this.cards.growCard(rt, frame);
    } else if (frame.kind === "tool_call_end") {
      this.cards.endCard(rt, frame);
    } else if (frame.kind === "error") {
      this.showError(frame.error.message);
    }
  };
  Column.prototype.onRoundTripEnd = function (frame) {
    var rt = this.rts[frame.rt];
    if (rt) { rt.ended = true; this.labelRoundTrips(); }
    if (rt && !frame.complete) rt.message.classList.add("msg-incomplete");
    if (rt && frame.error) rt.message.appendChild(window.CrosswireDom.errorCard(frame.error));
    this.page.changed();
  };
  Column.prototype.showError = function (message) {
    this.live.appendChild(testid(el("div", "error-card", message), "error"));
  };

  // ---- one answer for every column waiting on the same call ---------------------------------------------------
  function Page(root) {
    var self = this;
    this.root = root;
    this.bar = document.getElementById("compare-answer-all");
    this.columns = Array.prototype.map.call(root.querySelectorAll("[data-testid=compare-column]"), function (section) {
      return new Column(section, self);
    });
    // While a column runs, the summary is read every 3 s too (what it has so far). Through the one element that
    // reads it (see comparison.html), so no read overtakes another.
    // Stop all is offered while something runs: it goes as soon as the summary, read again, says all is done.
    var stopAll = document.querySelector("[data-testid=compare-stop-all]");
    function offerStop() {
      var results = document.getElementById("compare-results-body");
      if (stopAll && results) stopAll.hidden = results.dataset.busy !== "1";
    }
    document.body.addEventListener("htmx:afterSettle", offerStop);
    // Each read of the results says where every column is in its repeats; a column's own redraw says nothing of it.
    document.body.addEventListener("htmx:afterSettle", function (event) {
      var holder = document.getElementById("compare-results");
      if (holder && holder.contains(event.target)) self.progress();
    });
    window.setInterval(function () {
      var results = document.getElementById("compare-results-body");
      if (results && results.dataset.busy === "1") document.body.dispatchEvent(new CustomEvent("compare:poll"));
    }, 3000);
  }
  Page.prototype.progress = function () {
    var marks = {};
    document.querySelectorAll("#compare-results-body .compare-progress [data-position]").forEach(function (mark) {
      marks[mark.dataset.position] = mark;
    });
    this.columns.forEach(function (column) {
      var mark = marks[column.section.dataset.position];
      if (mark) column.progress(mark.dataset.active === "1", parseInt(mark.dataset.run, 10));
    });
  };
  Page.prototype.changed = function () { document.body.dispatchEvent(new CustomEvent("compare:changed")); };
  Page.prototype.waitingChanged = function () {
    var groups = {};
    this.columns.forEach(function (column) {
      Object.keys(column.state.waiting).forEach(function (id) {
        var frame = column.state.waiting[id];
        if (frame.kind !== "manual") return;
        var key = frame.name + " " + canonical(frame.arguments);
        (groups[key] = groups[key] || { name: frame.name, args: frame.arguments, waits: [] }).waits.push([column, id]);
      });
    });
    // One answer for all is an editor's to give: a viewer is offered none.
    var shared = this.root.dataset.canEdit !== "1" ? []
      : Object.keys(groups).filter(function (k) { return groups[k].waits.length > 1; });
    // Drawn again whenever a column starts or stops waiting: what was typed for a call stays, and so does the focus.
    var typed = {}, focused = null;
    this.bar.querySelectorAll("form").forEach(function (form) {
      var input = form.querySelector("textarea");
      typed[form.dataset.key] = input.value;
      if (document.activeElement === input) focused = form.dataset.key;
    });
    this.bar.textContent = "";
    this.bar.hidden = !shared.length;
    var bar = this.bar;
    shared.forEach(function (key) {
      var group = groups[key];
      var form = bar.appendChild(el("form", "compare-answer-group"));
      form.dataset.key = key;
      var head = form.appendChild(el("div"));
      head.appendChild(el("strong", null, group.waits.length + " columns wait for "));
      head.appendChild(el("span", "mono", group.name + " " + canonical(group.args)));
      var input = testid(form.appendChild(el("textarea")), "compare-answer-all-input");
      input.rows = 2;
      input.placeholder = "One result, sent to each of them…";
      input.value = typed[key] || "";
      var button = testid(form.appendChild(el("button", "button button-primary button-small", "Answer all " + group.waits.length)),
        "compare-answer-all-send");
      button.type = "submit";
      submitOnCtrlEnter(input, form);
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        group.waits.forEach(function (wait) {
          wait[0].send({ type: "tool_result", call_id: wait[1], content: input.value, is_error: false });
        });
        button.disabled = true;
      });
      if (focused === key) input.focus();
    });
  };

  var builder = document.getElementById("compare-builder");
  if (builder) setupBuilder(builder);
  var page = document.getElementById("comparison");
  if (page) new Page(page);
})();
