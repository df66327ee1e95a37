// Small DOM helpers shared by the live clients (chat.js, compare.js). Nodes are built with textContent only:
// nothing the server or a model sent is ever parsed as HTML.
(function () {
  "use strict";
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function testid(node, id) { node.setAttribute("data-testid", id); return node; }
  // Ctrl/Cmd+Enter in a text box sends its form, as everywhere one is typed in; a held key sends it once.
  function submitOnCtrlEnter(input, form) {
    input.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
      event.preventDefault();
      if (!event.repeat) form.requestSubmit();
    });
  }
  // Arguments pretty-printed once they parse; partial or invalid JSON is shown as it came.
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  // A refresh of a server-rendered part that never loses one: htmx queues a request on an element that already has
  // one in flight, keeps only the last queued, and resolves the queued one's promise at once, so a refresh asked for
  // meanwhile (a run ending while the last one is on its way) could be lost while its callback cleared the live
  // drawing anyway.
  // Here it runs again once the first lands, and the callbacks wait for a refresh that started after they asked.
  function refresher(url, target, after) {
    var busy = false, again = false, waiting = [];
    function run() {
      busy = true;
      var callbacks = waiting;
      waiting = [];
      // The target is also the source: htmx syncs requests per source element, and without one every call shares
      // the body, so a refresh of one part queues behind another's and is dropped by the next (its promise resolved
      // at once, with nothing swapped).
      window.htmx.ajax("GET", url(), { source: target, target: target, swap: "outerHTML" }).then(function () {
        busy = false;
        callbacks.forEach(function (then) { then(); });
        if (after) after();
        if (again) { again = false; run(); }
      });
    }
    return function (then) {
      if (then) waiting.push(then);
      if (busy) { again = true; return; }
      run();
    };
  }
  // A round trip's error as its card, drawn as the saved one is (chat/_error_card.html). A Stop is not a failure:
  // its card ("cancelled") is drawn plain, not in red.
  function errorCard(error) {
    var card = testid(el("div", "error-card" + (error.type === "cancelled" ? " is-cancelled" : "")), "error");
    card.appendChild(el("strong", null, error.type + " "));
    var retry = error.retry_after ? " · retry after " + error.retry_after + " s" : "";
    card.appendChild(document.createTextNode(error.message + retry));
    return card;
  }
  window.CrosswireDom = { el: el, testid: testid, pretty: pretty, refresher: refresher, submitOnCtrlEnter: submitOnCtrlEnter,
    errorCard: errorCard };
})();
