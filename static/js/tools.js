// Tools page: the schema editor's keys and line numbers, canned rule rows, and the export selection. No dependencies.
(function () {
  "use strict";
  var INDENT = "  ";

  function insertText(textarea, text) {
    // execCommand keeps the browser's undo history and fires "input" (which htmx listens to for live checks).
    if (!document.execCommand || !document.execCommand("insertText", false, text)) {
      textarea.setRangeText(text, textarea.selectionStart, textarea.selectionEnd, "end");
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }

  function currentIndent(textarea) {
    var before = textarea.value.slice(0, textarea.selectionStart);
    var line = before.slice(before.lastIndexOf("\n") + 1);
    return line.match(/^ */)[0];
  }

  // After Esc, the next Tab leaves the editor, so keyboard users are never trapped in it.
  var releasedEditor = null;

  function onEditorKeydown(event) {
    var textarea = event.target;
    if (!textarea.matches || !textarea.matches("textarea[data-code-editor]")) return;
    if (event.key === "Escape") {
      releasedEditor = textarea;
      return;
    }
    if (event.key === "Tab" && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
      if (releasedEditor === textarea) return;
      event.preventDefault();
      insertText(textarea, INDENT);
    } else if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      insertText(textarea, "\n" + currentIndent(textarea));
    }
    releasedEditor = null;
  }

  function gutterFor(textarea) {
    var editor = textarea.closest(".code-editor");
    return editor ? editor.querySelector(".code-gutter") : null;
  }

  function renderGutter(textarea) {
    var gutter = gutterFor(textarea);
    if (!gutter) return;
    var count = textarea.value.split("\n").length;
    if (gutter.dataset.lines === String(count)) return;
    var numbers = [];
    for (var i = 1; i <= count; i++) numbers.push(i);
    gutter.textContent = numbers.join("\n");
    gutter.dataset.lines = String(count);
    gutter.scrollTop = textarea.scrollTop;
  }

  function renderGutters(root) {
    var editors = (root || document).querySelectorAll("textarea[data-code-editor]");
    for (var i = 0; i < editors.length; i++) renderGutter(editors[i]);
  }

  function onScroll(event) {
    var textarea = event.target;
    if (!textarea.matches || !textarea.matches("textarea[data-code-editor]")) return;
    var gutter = gutterFor(textarea);
    if (gutter) gutter.scrollTop = textarea.scrollTop;
  }

  function addRule() {
    var rules = document.getElementById("canned-rules");
    var template = document.getElementById("rule-template");
    if (!rules || !template) return;
    var index = Number(rules.dataset.nextIndex || 0);
    rules.dataset.nextIndex = String(index + 1);
    var html = template.innerHTML.replace(/__index__/g, String(index));
    rules.insertAdjacentHTML("beforeend", html);
    var added = rules.lastElementChild.querySelector("textarea");
    if (added) added.focus();
  }

  function onClick(event) {
    var trigger = event.target.closest && event.target.closest("[data-action]");
    if (!trigger) return;
    if (trigger.dataset.action === "add-rule") {
      addRule();
    } else if (trigger.dataset.action === "remove-rule") {
      var row = trigger.closest("[data-rule-row]");
      if (row) row.remove();
    }
  }

  function onChange(event) {
    var box = event.target;
    if (!box.matches || !box.matches('input[type="checkbox"][form="export-form"]')) return;
    var scope = document.querySelector(".tool-export-scope");
    var count = document.querySelectorAll('input[type="checkbox"][form="export-form"]:checked').length;
    if (scope) scope.textContent = count ? count + " selected" : "all";
  }

  document.addEventListener("keydown", onEditorKeydown);
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("textarea[data-code-editor]")) renderGutter(event.target);
    settleSaveErrors(event.target);
  });

  // A refused save lists what was wrong then; once the form is edited that list is history (the live checks under
  // each field say what is wrong now): it gives way to a line that only says the tool is not saved yet.
  function settleSaveErrors(target) {
    var box = document.querySelector("[data-testid=save-errors]");
    if (!box || box.dataset.settled || !target.closest || !target.closest("form")) return;
    box.dataset.settled = "1";
    box.textContent = "";
    var strong = document.createElement("strong");
    strong.textContent = "Not saved yet.";
    box.appendChild(strong);
    box.appendChild(document.createTextNode(" Save when the checks below are clear."));
  }
  // scroll does not bubble: listen in the capture phase to see every editor's.
  document.addEventListener("scroll", onScroll, true);
  document.addEventListener("click", onClick);
  document.addEventListener("change", onChange);
  // htmx fires htmx:load for every piece of content it swaps in (a template or generated schema refills the editor).
  document.addEventListener("htmx:load", function (event) { renderGutters(event.target); });
  renderGutters(document);
})();
