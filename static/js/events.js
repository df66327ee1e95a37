// A round trip's event lists (raw wire events, internal events): each event is one clamped line, read whole by a
// click, or from the keyboard. A list is one tab stop, not hundreds: Tab reaches the list, the arrow keys move from
// event to event (Home, End too), Enter or Space opens or folds the one in focus, Escape goes back to the list.
// Used on the chat page and on the review and shared pages, which show the same panes; lists drawn later (live
// panes, htmx swaps) need nothing more, as everything is delegated from the document.
(function () {
  "use strict";
  var LIST = ".wire-events";

  function toggle(line) { line.classList.toggle("is-open"); }

  function focusLine(line) {
    if (!line) return;
    line.tabIndex = -1; // focusable by script only: the list keeps the one tab stop
    line.focus();
  }

  function lines(list) { return list.querySelectorAll(":scope > li"); }

  document.addEventListener("click", function (event) {
    var line = event.target.closest(LIST + " > li");
    if (line) toggle(line);
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (!(target instanceof Element)) return;
    if (target.matches(LIST)) {
      if (event.key !== "ArrowDown" && event.key !== "Enter" && event.key !== "Home") return;
      event.preventDefault();
      focusLine(lines(target)[0]);
      return;
    }
    if (!target.matches(LIST + " > li")) return;
    var list = target.parentElement;
    var all = lines(list);
    var at = Array.prototype.indexOf.call(all, target);
    var moves = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 };
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      event.preventDefault();
      focusLine(all[Math.max(0, Math.min(all.length - 1, moves[event.key]))]); // past either end: stays there
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      toggle(target);
    } else if (event.key === "Escape") {
      list.focus();
    }
  });
})();
