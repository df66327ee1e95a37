// Images attached to the chat composer: picked with "Attach image" or pasted, shown as thumbnails with a × each,
// sent with the next message by chat.js (CrosswireAttach.images()). The limits are checked here first, so a file
// that is too big, of another type or one too many is refused in place with a message and nothing else is lost;
// the server checks them again, and the bytes themselves (playground/chat/attachments.py).
(function () {
  "use strict";
  var root = document.getElementById("chat");
  var input = document.getElementById("attach-input");
  var list = document.getElementById("composer-images");
  var errorBox = document.getElementById("composer-error");
  var composer = document.getElementById("composer");
  if (!root || !input || !list) return;

  var images = window.CrosswireImages;
  var maxBytes = parseInt(root.dataset.maxImageBytes, 10);
  var maxCount = parseInt(root.dataset.maxImages, 10);
  var attached = []; // {name, type, size, url} in the order they were added
  var reading = 0; // files still being read: the count limit includes them

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  // Why this file cannot be attached, or "" when it can.
  function refusal(file) {
    var name = file.name || "The pasted image";
    if (images.ACCEPTED.indexOf(file.type) < 0) {
      return name + " is not a PNG, JPEG, WebP or GIF image.";
    }
    if (file.size > maxBytes) {
      var limit = images.humanSize(maxBytes);
      return name + " is " + images.humanSize(file.size) + "; the limit is " + limit + " per image.";
    }
    if (attached.length + reading >= maxCount) {
      return "At most " + maxCount + " image" + (maxCount === 1 ? "" : "s") + " go with one message; " +
        name + " was not attached.";
    }
    return "";
  }

  function add(files) {
    var problems = [];
    Array.prototype.forEach.call(files, function (file) {
      var problem = refusal(file);
      if (problem) { problems.push(problem); return; }
      reading += 1;
      var reader = new FileReader();
      reader.addEventListener("load", function () {
        reading -= 1;
        attached.push({ name: file.name || "pasted image", type: file.type, size: file.size, url: reader.result });
        draw();
      });
      reader.addEventListener("error", function () {
        reading -= 1;
        showError((file.name || "The pasted image") + " could not be read.");
      });
      reader.readAsDataURL(file);
    });
    showError(problems.join(" "));
  }

  function draw() {
    list.textContent = "";
    attached.forEach(function (image, index) {
      var item = list.appendChild(document.createElement("figure"));
      item.className = "composer-thumb";
      item.setAttribute("data-testid", "composer-image");
      var label = image.name + " · " + images.humanSize(image.size);
      item.appendChild(images.thumb(image.url, label));
      var remove = item.appendChild(document.createElement("button"));
      remove.type = "button";
      remove.className = "thumb-remove";
      remove.textContent = "×";
      remove.title = "Remove " + image.name;
      remove.setAttribute("aria-label", "Remove " + image.name);
      remove.addEventListener("click", function () {
        attached.splice(index, 1);
        showError("");
        draw();
      });
    });
    list.hidden = attached.length === 0;
  }

  input.addEventListener("change", function () {
    add(input.files);
    input.value = ""; // choosing the same file again still counts as a change
  });
  if (composer) {
    composer.addEventListener("paste", function (event) {
      var items = (event.clipboardData && event.clipboardData.items) || [];
      var files = Array.prototype.filter.call(items, function (item) { return item.kind === "file"; })
        .map(function (item) { return item.getAsFile(); }).filter(Boolean);
      if (!files.length) return; // plain text pastes as usual
      event.preventDefault();
      add(files);
    });
  }

  window.CrosswireAttach = {
    // What goes with the message: [{name, url}], in order.
    images: function () { return attached.map(function (image) { return { name: image.name, url: image.url }; }); },
    busy: function () { return reading > 0; },
    clear: function () { attached = []; showError(""); draw(); },
    // A refused turn gives its images back, unless others were attached meanwhile.
    restore: function (sent) {
      if (attached.length || !sent || !sent.length) return;
      attached = sent.map(function (image) {
        var info = images.dataUrl(image.url);
        return { name: image.name, type: info ? info.mediaType : "", size: info ? info.size : 0, url: image.url };
      });
      draw();
    }
  };
})();
