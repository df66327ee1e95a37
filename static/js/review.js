// The review page (and its read-only shared twin): keyboard navigation, jumps to errors / invalid / unanswered
// calls, label colours, htmx form chores, and the live socket that fetches comments and verdicts others post.
(function () {
  "use strict";
  var PING_EVERY_MS = 25000;
  var MAX_BACKOFF_MS = 15000;
  var SEQUENCE_TIMEOUT_MS = 1200; // app.js's "g <key>" sequences: the second key is not ours
  var FLASH_MS = 1600;
  var STICKY_GAP_PX = 8;  // between the jump bar and what a jump brings into view
  var COLOR = /^#[0-9a-fA-F]{6}$/;

  var root = document.getElementById("review");
  if (!root) return;
  var readonly = root.dataset.readonly === "1";
  var current = -1; // index of the current message among the timeline's items

  // --- helpers ---------------------------------------------------------------------------------------------------

  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("#review-entries [data-review-item]"));
  }

  function isTyping(target) {
    return Boolean(target && target.closest && target.closest("input, textarea, select, [contenteditable]"));
  }

  function flash(el) {
    el.classList.add("is-flashing");
    setTimeout(function () { el.classList.remove("is-flashing"); }, FLASH_MS);
  }

  // Where the jump bar's bottom is once it sticks: its offset from the top of the window plus its height.
  function stickyBottom() {
    var bar = root.querySelector(".review-jumps");
    if (!bar) return 0;
    return (parseFloat(getComputedStyle(bar).top) || 0) + bar.offsetHeight;
  }

  // Unfold every <details> around (and at) the element, bring it into view and give it the focus.
  function reveal(el) {
    for (var node = el; node && node !== root; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    // Below the sticky jump bar, however many rows it wraps to: centred if it fits beside the bar's height on both
    // sides, else its top just under the bar (a tall round trip, centred, began above the window).
    var clear = stickyBottom() + STICKY_GAP_PX;
    el.style.scrollMarginTop = clear + "px";
    var fits = el.getBoundingClientRect().height <= window.innerHeight - 2 * clear;
    el.scrollIntoView({ block: fits ? "center" : "start", behavior: "smooth" });
    el.focus({ preventScroll: true });
    flash(el);
    var item = el.closest("[data-review-item]");
    if (item) current = items().indexOf(item);
  }

  // --- label colours: set through the CSSOM, since the policy forbids style attributes --------------------------

  function paintLabels(scope) {
    (scope || document).querySelectorAll("[data-color]").forEach(function (el) {
      if (COLOR.test(el.dataset.color)) el.style.setProperty("--label-color", el.dataset.color);
    });
  }

  // --- moving around ---------------------------------------------------------------------------------------------

  function step(delta) {
    var list = items();
    if (!list.length) return;
    current = Math.max(0, Math.min(list.length - 1, current + delta));
    reveal(list[current]);
  }

  // The next (or previous) element marked data-jump="<kind>" after (before) where the reader is; wraps around.
  function jump(kind, backwards) {
    var targets = Array.prototype.slice.call(document.querySelectorAll('[data-jump~="' + kind + '"]'));
    if (!targets.length) return;
    var active = document.activeElement;
    var here = active && root.contains(active) && active !== document.body ? active : items()[current];
    var target;
    if (!here) {
      target = backwards ? targets[targets.length - 1] : targets[0];
    } else if (backwards) {
      var before = targets.filter(function (t) {
        return t !== here && !t.contains(here) && (t.compareDocumentPosition(here) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      target = before.length ? before[before.length - 1] : targets[targets.length - 1];
    } else {
      target = targets.filter(function (t) {
        return t !== here && !t.contains(here) && (here.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
      })[0] || targets[0];
    }
    reveal(target);
  }

  function toggleRoundTrip() {
    var item = items()[current];
    var panes = item && item.querySelector("details.review-rt");
    if (panes) { panes.open = !panes.open; if (panes.open) panes.scrollIntoView({ block: "nearest" }); }
  }

  function commentOnCurrent() {
    var item = items()[current];
    var button = item && item.querySelector(':scope > .review-comment-action [data-action="comment"]');
    if (button) button.click();
  }

  var KEYS = {
    j: function () { step(1); },
    k: function () { step(-1); },
    e: function () { jump("error", false); },
    E: function () { jump("error", true); },
    i: function () { jump("invalid", false); },
    I: function () { jump("invalid", true); },
    u: function () { jump("unanswered", false); },
    U: function () { jump("unanswered", true); },
    o: toggleRoundTrip,
    c: function () { if (!readonly) commentOnCurrent(); },
  };
  var afterG = false;
  var gTimer = null;

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var dialog = document.getElementById("help-dialog");
    if (dialog && dialog.open) return;
    if (afterG) { afterG = false; clearTimeout(gTimer); return; }
    if (event.key === "g") {
      afterG = true;
      gTimer = setTimeout(function () { afterG = false; }, SEQUENCE_TIMEOUT_MS);
      return;
    }
    var action = KEYS[event.key];
    if (action) { event.preventDefault(); action(); }
  });

  // Ctrl/⌘+Enter sends a comment, as in the playground's composer.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    var form = event.target.closest && event.target.closest("form.comment-form");
    if (form) { event.preventDefault(); form.requestSubmit(); }
  });

  document.addEventListener("click", function (event) {
    var jumpButton = event.target.closest("[data-jump-to]");
    if (jumpButton) { jump(jumpButton.dataset.jumpTo, event.shiftKey); return; }
    var cancel = event.target.closest('[data-action="cancel-composer"]');
    if (cancel) cancel.closest("form").remove();
    var item = event.target.closest("#review-entries [data-review-item]");
    if (item) current = items().indexOf(item);
  });

  // --- htmx chores -----------------------------------------------------------------------------------------------

  function formError(form, text) {
    var slot = form && form.querySelector(".form-error");
    if (slot) slot.textContent = text;
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (!form || !event.detail.successful) return;
    formError(form, "");
    if (form.hasAttribute("data-reset-on-success")) form.reset();
    if (form.hasAttribute("data-remove-on-success")) form.remove();
    refreshStale();
  });

  // A refused action answers with plain text (a 4xx): shown beside the form, as text only.
  document.addEventListener("htmx:responseError", function (event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    var text = (event.detail.xhr.responseText || "").slice(0, 300) || "That did not work; reload and try again.";
    if (form && form.querySelector(".form-error")) formError(form, text);
    else window.alert(text);
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target.classList && target.classList.contains("composer-slot")) {
      var box = target.querySelector("textarea");
      if (box) box.focus();
    }
    if (target.id && target.id.indexOf("comment-body-") === 0) {
      var edit = target.querySelector("textarea");
      if (edit) { edit.focus(); edit.setSelectionRange(edit.value.length, edit.value.length); }
    }
  });

  if (window.htmx) window.htmx.onLoad(function (el) { paintLabels(el); });

  // --- live: fetch what others changed ---------------------------------------------------------------------------

  // Someone typing inside the part to replace (a reply, an edit, a new label) keeps it until they leave it.
  function busy(el) {
    var active = document.activeElement;
    return Boolean(active && el.contains(active) && isTyping(active));
  }

  function refresh(el, highlight) {
    if (!el || !el.dataset.refreshUrl || !window.htmx) return;
    if (busy(el)) { el.dataset.stale = "1"; return; }
    delete el.dataset.stale;
    // The part is its own source: parts refreshed together must not queue behind (and drop) each other on the body.
    window.htmx.ajax("GET", el.dataset.refreshUrl, { source: el, target: el, swap: "outerHTML" }).then(function () {
      var fresh = highlight && document.getElementById("comment-" + highlight);
      if (fresh) flash(fresh);
    });
  }

  function refreshStale() {
    document.querySelectorAll("[data-stale]").forEach(function (el) { if (!busy(el)) refresh(el); });
    if (timelineStale) refreshTimeline();
  }

  document.addEventListener("focusout", function () { setTimeout(refreshStale, 0); });

  function refreshAll() {
    document.querySelectorAll("#review [data-refresh-url]").forEach(function (el) { refresh(el); });
  }

  // A run of this conversation saved where it stands (it asked a question, was answered, or ended): the timeline
  // and the jump bar are read again from the page. Text being typed in the timeline holds it until it is left.
  var timelineStale = false;
  // Parallel calls' results come in a burst: one read at a time, and one more after it if any came meanwhile, so
  // an older page never lands over a newer one.
  var timelineReading = false;
  var timelineAgain = false;

  function refreshTimeline() {
    var entries = document.getElementById("review-entries");
    if (!entries || !root.dataset.wsUrl) return;
    if (busy(entries)) { timelineStale = true; return; }
    if (timelineReading) { timelineAgain = true; return; }
    timelineStale = false;
    timelineReading = true;
    fetch(location.pathname, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) { swapTimeline(new DOMParser().parseFromString(html, "text/html")); })
      .catch(function () { timelineStale = true; }) // tried again when the socket or the focus next moves
      .then(function () {
        timelineReading = false;
        if (timelineAgain) { timelineAgain = false; refreshTimeline(); }
      });
  }

  function swapTimeline(fresh) {
    var focused = document.activeElement && document.activeElement.id;
    var open = Array.prototype.map.call(root.querySelectorAll("#review-entries details[open][id]"), function (d) {
      return d.id;
    });
    [".review-jumps", "#review-entries"].forEach(function (selector) {
      var old = root.querySelector(selector);
      var next = fresh.querySelector("#review " + selector);
      if (!old || !next) return;
      next = document.importNode(next, true);
      old.replaceWith(next);
      if (window.htmx) window.htmx.process(next);
      if (window.JsonView) window.JsonView.renderAll(next);
      paintLabels(next);
    });
    open.forEach(function (id) { var details = document.getElementById(id); if (details) details.open = true; });
    var again = focused && document.getElementById(focused);
    if (again && root.contains(again)) again.focus({ preventScroll: true });
  }

  function onFrame(frame) {
    if (frame.type === "review.comments") refresh(document.getElementById("comments-" + frame.dom), frame.comment);
    else if (frame.type === "review.verdicts") refresh(document.getElementById("verdicts-" + frame.dom));
    else if (frame.type === "review.labels") refresh(document.getElementById("review-labels"));
    else if (frame.type === "review.timeline") refreshTimeline();
    else if (frame.type === "review.resync") { refreshAll(); refreshTimeline(); }
  }

  function connect() {
    var path = root.dataset.wsUrl;
    if (!path || !("WebSocket" in window)) return;
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    var backoff = 500;
    var opened = false;
    var pingTimer = null;
    var badge = document.getElementById("review-connection");

    function open() {
      var socket = new WebSocket(url);
      socket.addEventListener("open", function () {
        backoff = 500;
        root.dataset.connected = "1";
        if (badge) badge.hidden = true;
        if (opened) { refreshAll(); refreshTimeline(); } // back after a drop: what changed meanwhile was missed
        opened = true;
        pingTimer = setInterval(function () { socket.send(JSON.stringify({ type: "ping" })); }, PING_EVERY_MS);
      });
      socket.addEventListener("message", function (event) {
        var frame;
        try { frame = JSON.parse(event.data); } catch (e) { return; }
        if (frame && typeof frame.type === "string") onFrame(frame);
      });
      socket.addEventListener("close", function (event) {
        clearInterval(pingTimer);
        root.dataset.connected = "0";
        if (event.code === 4403) { location.reload(); return; } // access withdrawn: the next load says so
        if (badge && opened) badge.hidden = false;
        setTimeout(open, backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      });
    }
    open();
  }

  // --- start -----------------------------------------------------------------------------------------------------

  // "?" opens the help dialog (app.js): the review's keys go at its top.
  var keys = document.getElementById("review-keys");
  var help = document.querySelector("#help-dialog .dialog-body");
  if (keys && help) { help.insertBefore(keys, help.firstChild); keys.hidden = false; }

  paintLabels(document);
  if (location.hash) {
    var linked = document.getElementById(location.hash.slice(1));
    if (linked && root.contains(linked)) reveal(linked);
  }
  if (!readonly) connect();
})();
