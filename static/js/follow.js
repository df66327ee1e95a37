// Following a growing view: its newest part stays in sight while the reader is at its end, and the view lets go as
// soon as they scroll away (back at the end, it follows again). Used by the chat for the page as an answer streams
// and for the panes column as each round trip starts.
(function () {
  "use strict";
  var SLACK_PX = 120; // this near the end still counts as at the end: a line or two of slack

  // scroller: an element with its own scroll, or null for the window. content: the element whose bottom is the
  // view's end (the chat's column, when the panes are stacked under it in a narrow window); the whole scroll if
  // none. following: whether to start following (not when the page opened at a link to one message).
  window.CrosswireFollow = function (scroller, content, following) {
    var box = scroller || document.scrollingElement || document.documentElement;
    var target = null; // where we last scrolled to: a scroll event there is ours, not the reader's
    var self = { following: following !== false };

    function top() { return scroller ? box.getBoundingClientRect().top : 0; }
    function end() { // the scroll position that puts the view's end at the bottom of what is shown
      var last = content ? box.scrollTop + content.getBoundingClientRect().bottom - top() : box.scrollHeight;
      return Math.max(0, Math.min(last - box.clientHeight, box.scrollHeight - box.clientHeight));
    }
    function moveTo(position) {
      target = Math.round(Math.max(0, Math.min(position, box.scrollHeight - box.clientHeight)));
      box.scrollTop = position;
    }
    (scroller || window).addEventListener("scroll", function () {
      if (target !== null && Math.abs(box.scrollTop - target) <= 2) return; // our own move
      target = null;
      self.following = box.scrollTop >= end() - SLACK_PX;
    }, { passive: true });

    // The view grew or changed: back to its end, if the reader is following it.
    self.keep = function () { if (self.following && box.scrollTop < end()) moveTo(end()); };
    // Something new starts (a round trip's pane): its top to the top of the view, if the reader is following.
    self.show = function (element) {
      if (self.following && element) moveTo(box.scrollTop + element.getBoundingClientRect().top - top());
    };
    // The reader asked for what comes next (sent a message): follow again.
    self.resume = function () { self.following = true; };
    // Follow whatever makes this element change size (text streaming in, a card unfolding, a refresh).
    self.watch = function (element) {
      if (element && "ResizeObserver" in window) new ResizeObserver(function () { self.keep(); }).observe(element);
    };
    return self;
  };
})();
