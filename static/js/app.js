// Shell behaviour: theme toggle, help dialog and keyboard shortcuts. No dependencies.
(function () {
  "use strict";
  var THEME_KEY = "crosswire-theme";
  var SEQUENCE_TIMEOUT_MS = 1200;

  function setTheme(theme, persist) {
    document.documentElement.dataset.theme = theme;
    if (persist) {
      try { localStorage.setItem(THEME_KEY, theme); } catch (e) { /* private mode: the choice lasts this page */ }
    }
  }

  function toggleTheme() {
    setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark", true);
  }

  function savedTheme() {
    try { return localStorage.getItem(THEME_KEY); } catch (e) { return null; }
  }

  function helpDialog() { return document.getElementById("help-dialog"); }

  function openHelp() {
    var dialog = helpDialog();
    if (dialog && !dialog.open) dialog.showModal();
  }

  function isTyping(target) {
    if (!target || !target.closest) return false;
    return Boolean(target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  }

  function shortcutTarget(key) {
    return document.querySelector('.nav-link[data-shortcut="' + key + '"]');
  }

  var awaitingSection = false;
  var sequenceTimer = null;

  function onKeydown(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var dialogOpen = helpDialog() && helpDialog().open;
    if (awaitingSection) {
      awaitingSection = false;
      clearTimeout(sequenceTimer);
      var link = shortcutTarget(event.key.toLowerCase());
      if (link) {
        event.preventDefault();
        window.location.assign(link.href);
      }
      return;
    }
    if (event.key === "?") {
      event.preventDefault();
      openHelp();
    } else if (dialogOpen) {
      return;
    } else if (event.key === "g") {
      awaitingSection = true;
      sequenceTimer = setTimeout(function () { awaitingSection = false; }, SEQUENCE_TIMEOUT_MS);
    } else if (event.key === "t") {
      toggleTheme();
    }
  }

  function onClick(event) {
    var trigger = event.target.closest && event.target.closest("[data-action]");
    if (!trigger) return;
    var action = trigger.dataset.action;
    if (action === "toggle-theme") toggleTheme();
    else if (action === "show-help") openHelp();
    else if (action === "close-dialog") trigger.closest("dialog").close();
  }

  document.addEventListener("keydown", onKeydown);
  document.addEventListener("click", onClick);
  // Clicking the backdrop (the dialog element itself, outside its content) closes it.
  document.addEventListener("click", function (event) {
    if (event.target.tagName === "DIALOG") event.target.close();
  });
  // In a narrow window the sections scroll sideways in one row: its edge fades while more of it is out of sight,
  // so the sections past the edge are not taken for missing.
  var nav = document.querySelector(".nav");
  function markNavOverflow() {
    if (!nav) return;
    nav.dataset.more = nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 1 ? "1" : "0";
  }
  if (nav) {
    nav.addEventListener("scroll", markNavOverflow, { passive: true });
    window.addEventListener("resize", markNavOverflow);
    markNavOverflow();
  }
  if (window.matchMedia) {
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function (event) {
      if (!savedTheme()) setTheme(event.matches ? "dark" : "light", false);
    });
  }
})();
