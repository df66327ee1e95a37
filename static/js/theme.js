// Loaded blocking in <head> so the page never flashes the wrong theme. A saved choice wins over the OS setting.
(function () {
  var saved = null;
  try { saved = localStorage.getItem("crosswire-theme"); } catch (e) { /* storage disabled: follow the OS */ }
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = saved === "light" || saved === "dark" ? saved : (dark ? "dark" : "light");
})();
