// The tool call cards: a call's arguments as they stream, their field-by-field check, its result, and the forms
// that ask a person for an approval or a typed answer. Drawn on the live message while a round trip streams, and on
// the saved card once the page has it (findCard). Used by chat.js and by each Compare column (compare.js), which own
// their socket and run state: a column's cards and questions are the chat's own.
(function () {
  "use strict";
  var el = window.CrosswireDom.el, testid = window.CrosswireDom.testid, pretty = window.CrosswireDom.pretty;

  // Field by field while the arguments stream: settled and valid, arriving, invalid, or required and not sent yet.
  var FIELD_MARKS = { ok: "✓", streaming: "…", invalid: "✗", missing: "○" };
  function drawFields(card, fields) {
    if (!card.fields) card.fields = card.insertBefore(testid(el("div", "tool-fields"), "tool-fields"), card.args.nextSibling);
    card.fields.textContent = "";
    fields.forEach(function (f) {
      var chip = card.fields.appendChild(el("span", "field-chip field-" + f.state, FIELD_MARKS[f.state] + " " + f.name));
      chip.dataset.state = f.state;
      if (f.message) chip.title = f.message;
    });
  }
  // Whether the person is typing somewhere (another question, Compare's answer for all, a message not sent yet): a
  // question that arrives then does not take the focus away. The composer just sent from is empty: it gives it up.
  function typing() {
    var active = document.activeElement;
    return !!active && active.matches("textarea, input[type=text], input:not([type])") && active.value !== "";
  }
  // A finished call's problems with its schema, under its arguments.
  function drawProblems(card, problems) {
    var list = el("ul", "tool-problems");
    problems.forEach(function (p) { list.appendChild(el("li", null, (p.path ? p.path + ": " : "") + p.message)); });
    card.insertBefore(list, card.args.nextSibling);
  }

  // ``state``: the owner's ``cards`` by call id and ``waiting`` questions; ``send``: a message to the server;
  // ``saved()``: the element holding the saved cards (re-read each time: a refresh replaces it); ``changed()``, if
  // given: told when a question opens or is answered.
  window.CrosswireCards = function (state, send, saved, changed) {
    function questionsChanged() { if (changed) changed(); }
    function startCard(rt, frame) {
      var card = testid(el("div", "tool-card"), "tool-call");
      card.dataset.callId = frame.id;
      card.dataset.status = "streaming";
      card.dataset.name = frame.name;
      var head = card.appendChild(el("div", "tool-card-head"));
      head.appendChild(el("span", "tool-name mono", frame.name));
      card.badge = head.appendChild(el("span", "badge badge-streaming", "streaming"));
      head.appendChild(el("span", "tool-id mono muted", frame.id));
      viaLabel(card, rt.strategy);
      card.args = testid(card.appendChild(el("pre", "tool-args")), "tool-call-args");
      card.raw = "";
      rt.calls[frame.index] = card;
      state.cards[frame.id] = card;
      rt.message.appendChild(card);
    }
    // A call read out of the reply text (structured or prompted strategy) says so, as the saved card does.
    var VIA = { prompted: "via prompted JSON", structured: "via structured output" };
    function viaLabel(card, strategy) {
      if (!VIA[strategy]) return;
      card.dataset.strategy = strategy;
      testid(card.appendChild(el("div", "tool-via small muted", VIA[strategy])), "tool-call-via");
    }
    function growCard(rt, frame) {
      var card = rt.calls[frame.index];
      if (!card) return;
      card.raw += frame.arguments;
      card.args.textContent = card.raw; // raw while streaming: partial JSON is shown as it is
    }
    function setBadge(card, status, label) {
      var badge = card.badge || card.querySelector(".tool-card-head .badge"); // a live card, or a saved one
      card.dataset.status = status;
      if (!badge) return;
      badge.className = "badge badge-" + status;
      badge.textContent = label || status;
    }
    // The live card of a call, or the saved one the page shows once its round trip is over.
    function findCard(callId) {
      var holder = saved();
      return state.cards[callId] || (holder && holder.querySelector('[data-call-id="' + CSS.escape(callId) + '"]'));
    }
    function endCard(rt, frame) {
      var card = rt.calls[frame.index];
      if (!card) return;
      card.args.textContent = pretty(card.raw || "{}");
      setBadge(card, "pending", "complete");
    }
    function onFields(frame) {
      var card = state.cards[frame.call_id];
      if (card) drawFields(card, frame.fields);
    }
    function onCheck(frame) {
      var card = state.cards[frame.call_id];
      if (!card) return;
      var box = card.querySelector(".tool-problems, .tool-valid");
      if (box) box.remove();
      if (frame.ok) {
        card.insertBefore(el("div", "tool-valid small", "✓ arguments match the schema"), card.args.nextSibling);
        return;
      }
      drawProblems(card, frame.problems);
    }
    function onToolResult(frame) {
      delete state.waiting[frame.call_id];
      questionsChanged();
      var card = findCard(frame.call_id);
      if (!card) return;
      var form = card.querySelector(".tool-answer");
      if (form) form.remove();
      setBadge(card, frame.source === "denied" ? "denied" : frame.is_error ? "error" : "done");
      if (typeof frame.edited_arguments === "string") { // approved with the person's edit: what ran, as saved
        var edited = testid(card.appendChild(el("div", "tool-edited")), "tool-call-edited");
        edited.appendChild(el("span", "tool-result-label", "Ran with your edit"));
        edited.appendChild(el("pre", "tool-args", pretty(frame.edited_arguments)));
      }
      var box = card.appendChild(el("div", "tool-result" + (frame.is_error ? " is-error" : "")));
      var label = box.appendChild(el("span", "tool-result-label", frame.is_error ? "Error result " : "Result "));
      label.appendChild(el("span", "muted", "· " + frame.source + (frame.attempt > 1 ? " · attempt " + frame.attempt : "")));
      var text = window.CrosswireImages ? window.CrosswireImages.textOf(frame.content) : String(frame.content);
      var images = window.CrosswireImages && window.CrosswireImages.imagesRow(frame.content, "message-image");
      if (text || !images) box.appendChild(el("pre", null, text));
      if (images) box.appendChild(images); // thumbnails, never the base64 as text
    }
    function onAwaiting(frame) {
      state.waiting[frame.call_id] = frame;
      questionsChanged();
      drawQuestion(frame);
    }
    // A question's form on its card; drawn again on the saved card a refresh puts in place of the live one.
    function drawQuestion(frame) {
      var card = findCard(frame.call_id);
      if (!card) return;
      var asked = card.querySelector(".tool-answer");
      var readOnly = state.readOnly ? "1" : "";
      // Drawn already (a snapshot replays the question), for the same role.
      if (asked && asked.dataset.kind === frame.kind && asked.dataset.readOnly === readOnly) return;
      if (asked) asked.remove(); // approved, and now its answer is asked for; or the person's role changed
      var manual = frame.kind === "manual";
      setBadge(card, "waiting", readOnly ? (manual ? "needs an answer" : "needs approval")
        : manual ? "your answer" : "awaiting approval");
      // A viewer is told what the run waits for, not given a form the server would refuse.
      var form = card.appendChild(readOnly ? waitingNote(frame) : manual ? manualForm(frame) : approvalForm(frame));
      form.dataset.kind = frame.kind;
      form.dataset.readOnly = readOnly;
    }
    function waitingNote(frame) {
      var said = frame.kind === "manual" ? "The run waits for an editor to type this call's result."
        : "The run waits for an editor to approve, edit or deny this call.";
      return testid(el("div", "tool-answer tool-answer-note small muted", said), "tool-waiting-note");
    }
    function jsonProblem(text) {
      if (!text.trim()) return ""; // no arguments: the tool's schema says whether that will do
      try { JSON.parse(text); return ""; } catch (error) { return error.message; }
    }
    // The role changed while questions were open: each is drawn again for it.
    function redrawQuestions() {
      Object.keys(state.waiting).forEach(function (id) { drawQuestion(state.waiting[id]); });
    }
    function manualForm(frame) {
      var form = el("form", "tool-answer");
      var input = testid(form.appendChild(el("textarea")), "tool-result-input");
      input.rows = 3;
      input.placeholder = "Type the result the tool would return…";
      var row = form.appendChild(el("div", "tool-answer-actions"));
      var errorLabel = row.appendChild(el("label", "small"));
      var isError = errorLabel.appendChild(el("input"));
      isError.type = "checkbox";
      errorLabel.appendChild(document.createTextNode(" mark as error"));
      var submit = testid(row.appendChild(el("button", "button button-primary button-small", "Send result")), "tool-result-send");
      submit.type = "submit";
      var hint = form.appendChild(el("div", "small muted"));
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        // An empty result is sent only when asked twice: a result typed by mistake as nothing would reach the model.
        if (!input.value.trim() && form.dataset.confirmEmpty !== "1") {
          form.dataset.confirmEmpty = "1";
          hint.textContent = "The result is empty. Press Send result again to send it as it is.";
          return;
        }
        submit.disabled = true; // sent: the card shows the result when the run has it
        send({ type: "tool_result", call_id: frame.call_id, content: input.value, is_error: isError.checked });
      });
      input.addEventListener("input", function () { form.dataset.confirmEmpty = ""; hint.textContent = ""; });
      window.CrosswireDom.submitOnCtrlEnter(input, form);
      setTimeout(function () { if (!typing()) input.focus(); }, 0);
      return form;
    }
    function approvalForm(frame) {
      var form = el("form", "tool-answer");
      form.appendChild(el("div", "small muted", "Approve this call as is, edit its arguments first, or deny it."));
      var args = testid(form.appendChild(el("textarea", "mono")), "approval-arguments");
      args.rows = 4;
      args.value = pretty(frame.arguments);
      var row = form.appendChild(el("div", "tool-answer-actions"));
      var deny = testid(row.appendChild(el("button", "button button-small", "Deny")), "deny");
      deny.type = "button";
      var approve = testid(row.appendChild(el("button", "button button-primary button-small", "Approve")), "approve");
      approve.type = "submit";
      var hint = testid(form.appendChild(el("div", "small tool-answer-hint")), "approval-hint");
      function decided(message) { deny.disabled = approve.disabled = true; send(message); } // one answer per call
      deny.addEventListener("click", function () {
        decided({ type: "approval", call_id: frame.call_id, action: "deny", reason: "Denied by the user." });
      });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        // Edited arguments that are not JSON run as given (a tool's error is worth trying too), but only when
        // asked twice: a typo would otherwise reach the tool, and the model, unnoticed.
        var problem = jsonProblem(args.value);
        if (problem && form.dataset.confirmInvalid !== "1") {
          form.dataset.confirmInvalid = "1";
          hint.textContent = "These arguments are not valid JSON (" + problem + "). Press Approve again to run " +
            "them as they are: the tool will refuse them and the model is told why.";
          return;
        }
        decided({ type: "approval", call_id: frame.call_id, action: "approve", arguments: args.value });
      });
      args.addEventListener("input", function () { form.dataset.confirmInvalid = ""; hint.textContent = ""; });
      return form;
    }

    return { startCard: startCard, growCard: growCard, endCard: endCard, onFields: onFields, onCheck: onCheck,
      onToolResult: onToolResult, onAwaiting: onAwaiting, drawQuestion: drawQuestion,
      redrawQuestions: redrawQuestions };
  };
})();
