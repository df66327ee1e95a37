// The Team page's role menus: a choice is only a choice until its row's Save is pressed, so a stray arrow key on a
// focused menu changes nobody's role. Save shows once the choice differs from the saved role; making someone an owner,
// or giving up one's own ownership, asks first, as Remove does (htmx's hx-confirm, read when the request starts).
(function () {
  "use strict";

  function confirmation(form, role) {
    var saved = form.querySelector("select").dataset.saved;
    if (role === "owner") {
      return "Make " + form.dataset.member + " an owner of " + form.dataset.team + "? Owners manage members and roles, " +
        "including yours.";
    }
    if (saved === "owner" && form.hasAttribute("data-self")) {
      return "Stop being an owner of " + form.dataset.team + "? Only another owner can make you one again.";
    }
    return "";
  }

  function sync(form) {
    var select = form.querySelector("select");
    var save = form.querySelector("button[type=submit]");
    if (!select || !save) return;
    save.hidden = select.value === select.dataset.saved;
    var question = confirmation(form, select.value);
    if (question) form.setAttribute("hx-confirm", question);
    else form.removeAttribute("hx-confirm");
  }

  function syncAll(root) {
    var forms = (root || document).querySelectorAll("form[data-role-form]");
    for (var i = 0; i < forms.length; i++) sync(forms[i]);
  }

  // After a save the members list is drawn again: focus goes back to the menu of the row just saved, so a keyboard
  // user carries on from where they were instead of from the top of the page.
  var lastSaved = null;

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form[data-role-form]");
    if (form) sync(form);
  });
  // Past the confirmation: a save that was called off leaves focus where it is.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (form.matches && form.matches("form[data-role-form]")) lastSaved = form.dataset.member;
  });
  document.addEventListener("htmx:load", function (event) {
    syncAll(event.target);
    if (lastSaved === null || !event.target.querySelector) return;
    var forms = event.target.querySelectorAll("form[data-role-form]");
    for (var i = 0; i < forms.length; i++) {
      if (forms[i].dataset.member === lastSaved) forms[i].querySelector("select").focus();
    }
    lastSaved = null;
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { syncAll(); });
  else syncAll();
})();
