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
  // Arguments pretty-printed once they parse; partial or invalid JSON is shown as it came.
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  window.CrosswireDom = { el: el, testid: testid, pretty: pretty };
})();
