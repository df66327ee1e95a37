// Images in the page: thumbnails of data URLs, the lightbox that shows one whole, and what content parts hold.
// Loaded on every page (templates/_head.html). A data URL only ever goes into an img's src, never into text: a
// payload can be megabytes, and the CSP allows data: images (and no image from another origin).
(function () {
  "use strict";
  var ACCEPTED = ["image/png", "image/jpeg", "image/webp", "image/gif"];
  var DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;

  // 70 B, 12 KiB, 5.0 MiB: the words the server uses too (playground/tools/images.py).
  function humanSize(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1048576) return Math.ceil(bytes / 1024) + " KiB";
    return (bytes / 1048576).toFixed(1) + " MiB";
  }

  // A base64 data URL as {url, mediaType, size (decoded bytes), drawable}; null for any other value.
  function dataUrl(value) {
    if (typeof value !== "string" || value.slice(0, 5).toLowerCase() !== "data:") return null;
    var match = DATA_URL.exec(value.slice(0, 200));
    if (!match) return null;
    var data = value.length - match[0].length;
    var padding = value.slice(-2).split("=").length - 1;
    var mediaType = (match[1] || "application/octet-stream").toLowerCase();
    return { url: value, mediaType: mediaType, size: Math.max(0, Math.floor(data * 3 / 4) - padding),
      drawable: ACCEPTED.indexOf(mediaType) >= 0 };
  }
  // The data URL that a base64 string beside a media type stands for (Gemini inlineData, an Anthropic source).
  function fromBase64(mediaType, data) {
    if (typeof mediaType !== "string" || typeof data !== "string") return null;
    return dataUrl("data:" + mediaType + ";base64," + data);
  }

  function thumb(url, label, testid) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "thumb";
    button.setAttribute("data-lightbox", "");
    button.title = label + " (click to open)";
    var img = button.appendChild(document.createElement("img"));
    img.src = url;
    img.alt = label;
    if (testid) img.setAttribute("data-testid", testid);
    return button;
  }

  function imageParts(content) {
    if (!Array.isArray(content)) return [];
    return content.filter(function (part) { return part && part.type === "image_url"; }).map(function (part) {
      var value = part.image_url;
      return typeof value === "string" ? value : (value && value.url) || "";
    });
  }
  // The text of internal content: a string as it is; of content parts, the text parts only.
  function textOf(content) {
    if (!Array.isArray(content)) return content === null || content === undefined ? "" : String(content);
    return content.filter(function (part) { return part && typeof part.text === "string"; })
      .map(function (part) { return part.text; }).join("\n");
  }
  // The images of internal content as a row of thumbnails (a linked image only named); null when it has none.
  function imagesRow(content, testid) {
    var urls = imageParts(content);
    if (!urls.length) return null;
    var row = document.createElement("div");
    row.className = "msg-images";
    urls.forEach(function (url) {
      var info = dataUrl(url);
      if (info && info.drawable) {
        row.appendChild(thumb(url, info.mediaType + " · " + humanSize(info.size), testid));
      } else {
        var name = row.appendChild(document.createElement("span"));
        name.className = "thumb-link small muted";
        name.textContent = info ? info.mediaType + " · " + humanSize(info.size) : "linked image · " + url.slice(0, 80);
      }
    });
    return row;
  }

  // ---- the lightbox: one <dialog> for the whole page, made on first use ---------------------------------------
  function lightbox() {
    var dialog = document.getElementById("lightbox");
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.id = "lightbox";
    dialog.className = "dialog lightbox";
    dialog.setAttribute("data-testid", "lightbox");
    var head = dialog.appendChild(document.createElement("div"));
    head.className = "dialog-header";
    dialog.label = head.appendChild(document.createElement("span"));
    dialog.label.className = "small muted";
    dialog.download = head.appendChild(document.createElement("a"));
    dialog.download.className = "button button-small";
    dialog.download.textContent = "Download";
    var close = head.appendChild(document.createElement("button"));
    close.type = "button";
    close.className = "icon-button";
    close.setAttribute("data-action", "close-dialog"); // app.js closes it, as it does the help dialog
    close.setAttribute("aria-label", "Close");
    close.textContent = "×";
    dialog.image = dialog.appendChild(document.createElement("img"));
    dialog.image.className = "lightbox-image";
    document.body.appendChild(dialog);
    return dialog;
  }
  function open(url, label) {
    var dialog = lightbox();
    var info = dataUrl(url);
    dialog.image.src = url;
    dialog.image.alt = label || "";
    dialog.label.textContent = label || "";
    dialog.download.href = url;
    dialog.download.download = "image." + (info ? info.mediaType.split("/")[1].replace("jpeg", "jpg") : "png");
    if (!dialog.open) dialog.showModal();
  }
  document.addEventListener("click", function (event) {
    var trigger = event.target.closest && event.target.closest("[data-lightbox]");
    var img = trigger && trigger.querySelector("img");
    if (!img) return;
    event.preventDefault();
    open(img.src, img.alt);
  });

  window.CrosswireImages = { ACCEPTED: ACCEPTED, humanSize: humanSize, dataUrl: dataUrl, fromBase64: fromBase64,
    thumb: thumb, textOf: textOf, imagesRow: imagesRow, open: open };
})();
