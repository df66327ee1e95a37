// JSON in the panes: highlighted, foldable (objects and arrays are <details>), with a copy button.
// Images are never dumped as base64: a data: URL string (the internal image_url, Responses input_image), and a
// base64 "data" string beside a media type key in the same object (Gemini inlineData, an Anthropic image source),
// show as a thumbnail and a label ("image/png · 70 B (base64)"). The copy button still copies the JSON whole.
(function () {
  "use strict";
  var OPEN_DEPTH = 3; // deeper levels start folded so long requests stay readable
  var MEDIA_KEYS = ["mimeType", "mime_type", "media_type", "mediaType"];

  function span(cls, text) {
    var el = document.createElement("span");
    el.className = cls;
    el.textContent = text;
    return el;
  }

  // The thumbnail and label standing for a base64 payload (info from CrosswireImages.dataUrl).
  function image(info) {
    var box = span("j-image", "");
    var label = info.mediaType + " · " + window.CrosswireImages.humanSize(info.size) + " (base64)";
    if (info.drawable) box.appendChild(window.CrosswireImages.thumb(info.url, label, "pane-image"));
    box.appendChild(span("j-image-label", label));
    return box;
  }

  function imageInfo(value) {
    return window.CrosswireImages ? window.CrosswireImages.dataUrl(value) : null;
  }

  // An object's base64 "data" with a media type beside it, as an image; null for any other key.
  function siblingImage(object, key) {
    if (key !== "data" || !window.CrosswireImages) return null;
    var keys = MEDIA_KEYS.filter(function (k) { return typeof object[k] === "string"; });
    return keys.length ? window.CrosswireImages.fromBase64(object[keys[0]], object.data) : null;
  }

  function scalar(value) {
    if (value === null) return span("j-null", "null");
    var info = imageInfo(value);
    if (info) return image(info);
    if (typeof value === "string") return span("j-str", JSON.stringify(value));
    if (typeof value === "number") return span("j-num", String(value));
    if (typeof value === "boolean") return span("j-bool", String(value));
    return span("j-str", String(value));
  }

  function node(value, depth) {
    if (value === null || typeof value !== "object") return scalar(value);
    var isArray = Array.isArray(value);
    var keys = isArray ? value.map(function (_, i) { return i; }) : Object.keys(value);
    var open = isArray ? "[" : "{", close = isArray ? "]" : "}";
    if (keys.length === 0) return span("j-punct", open + close);
    var details = document.createElement("details");
    details.open = depth < OPEN_DEPTH;
    var summary = document.createElement("summary");
    if (depth > 0) summary.tabIndex = -1; // one tab stop per tree, its root: the arrow keys move inside (see below)
    summary.appendChild(span("j-punct", open));
    var noun = (isArray ? " item" : " key") + (keys.length === 1 ? "" : "s");
    summary.appendChild(span("j-fold", "\u00a0" + keys.length + noun + "\u00a0" + close)); // one line, never broken
    details.appendChild(summary);
    var body = document.createElement("div");
    body.className = "j-body";
    keys.forEach(function (key, i) {
      var row = document.createElement("div");
      row.className = "j-row";
      if (!isArray) {
        row.appendChild(span("j-key", JSON.stringify(key)));
        row.appendChild(span("j-punct", ": "));
      }
      var sibling = isArray ? null : siblingImage(value, key);
      var child = row.appendChild(sibling ? image(sibling) : node(value[key], depth + 1));
      // The comma goes inside a folded block, after its closing bracket, so it stays on that line.
      if (i < keys.length - 1) (child.tagName === "DETAILS" ? child : row).appendChild(span("j-punct", ","));
      body.appendChild(row);
    });
    details.appendChild(body);
    details.appendChild(span("j-punct j-close", close));
    return details;
  }

  function copyButton(text) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-json";
    button.textContent = "copy";
    button.addEventListener("click", function () { copy(text, button); });
    return button;
  }

  function copy(text, button) {
    var done = function () {
      var old = button.textContent;
      button.textContent = "copied";
      setTimeout(function () { button.textContent = old; }, 1200);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done);
    } else {
      var area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
      done();
    }
  }

  // Replace the text of <pre data-json> with the tree; invalid JSON stays as text.
  function render(pre, value) {
    if (value === undefined) {
      try { value = JSON.parse(pre.textContent); } catch (e) { return; }
    }
    pre.textContent = "";
    pre.classList.add("json-tree");
    pre.appendChild(copyButton(JSON.stringify(value, null, 2)));
    pre.appendChild(node(value, 0));
    pre.removeAttribute("data-json");
  }

  function renderAll(root) {
    (root || document).querySelectorAll("pre[data-json]").forEach(function (pre) { render(pre); });
  }

  // A snippet too big to send with every pane is fetched when asked for. The clipboard is given the pending fetch
  // (ClipboardItem with a promise) so the click still counts as the user's gesture when the text arrives.
  function copyFrom(url, button) {
    var done = function () {
      var old = button.textContent;
      button.textContent = "copied";
      setTimeout(function () { button.textContent = old; }, 1200);
    };
    var failed = function () { button.textContent = "copy failed"; };
    if (navigator.clipboard && window.isSecureContext && window.ClipboardItem) {
      var text = fetch(url, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.blob().then(function (blob) { return new Blob([blob], { type: "text/plain" }); });
      });
      navigator.clipboard.write([new ClipboardItem({ "text/plain": text })]).then(done, failed);
      return;
    }
    // Plain http on another host has no async clipboard; a synchronous read keeps execCommand inside the click.
    var request = new XMLHttpRequest();
    request.open("GET", url, false);
    request.send();
    if (request.status === 200) copy(request.responseText, button); else failed();
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-copy]");
    if (target) copy(target.getAttribute("data-copy"), target);
    var lazy = event.target.closest("[data-copy-url]");
    if (lazy) copyFrom(lazy.getAttribute("data-copy-url"), lazy);
  });
  // A tree read from the keyboard, as trees are: ↑ ↓ move between the folds on screen, → unfolds (or goes into an
  // open one), ← folds (or goes up to its parent), Enter or Space toggle (the summary's own behaviour).
  // The folds on screen: a summary whose enclosing folds are all open (one inside a folded branch still has a box).
  function shown(tree) {
    return Array.prototype.filter.call(tree.querySelectorAll("summary"), function (s) {
      var outer = s.parentElement.parentElement.closest("details:not([open])");
      return !outer || !tree.contains(outer);
    });
  }
  document.addEventListener("keydown", function (event) {
    var summary = event.target instanceof Element && event.target.closest(".json-tree summary");
    if (!summary || event.ctrlKey || event.metaKey || event.altKey) return;
    var details = summary.parentElement, tree = summary.closest(".json-tree"), next = null;
    var all = shown(tree), at = all.indexOf(summary);
    if (event.key === "ArrowDown") next = all[at + 1];
    else if (event.key === "ArrowUp") next = all[at - 1];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all[all.length - 1];
    else if (event.key === "ArrowRight") {
      if (!details.open) details.open = true; else next = all[at + 1] && details.contains(all[at + 1]) ? all[at + 1] : null;
    } else if (event.key === "ArrowLeft") {
      var parent = details.parentElement.closest(".json-tree details");
      if (details.open) details.open = false; else if (parent) next = parent.querySelector(":scope > summary");
    } else return;
    event.preventDefault();
    if (next) { next.tabIndex = -1; next.focus(); }
  });
  document.addEventListener("DOMContentLoaded", function () { renderAll(); });
  document.addEventListener("htmx:afterSwap", function (event) { renderAll(event.target); });
  window.JsonView = { render: render, renderAll: renderAll, copy: copy };
})();
