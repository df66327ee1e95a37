"""The ``gemini`` wire format: Google's Gemini API (``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse``) <-> internal OpenAI-Chat shapes.

Wire-format quirks handled (see docs/providers.md for the contract, and each module's docstring):

* No messages list: ``systemInstruction`` plus ``contents`` of ``parts``, roles ``user`` and ``model`` only; all the
  tool results answering a turn are ``functionResponse`` parts of ONE ``user`` content (``messages``).
* No call ids on Gemini <= 2.5 (Gemini 3 sends a short ``id``, kept): calls get stable synthetic ids (response id
  or content position, plus the call's position), and results go back with the function's ``name`` (and the
  call's ``id`` only if the model gave one), paired by name and position (``assistant``, ``importer``).
* ``functionResponse.response`` must be an object: ``{"result": ...}``, ``{"error": ...}`` for a failed tool
  (``parts``). ``args`` is an object: the internal arguments string is parsed once at the edge; text that is not a
  JSON object travels as ``{"_raw_arguments": "<text>"}`` and comes back verbatim.
* Images: a user message's ``image_url`` parts are ``inlineData`` (data URLs) or ``fileData`` parts; a tool
  message's images cannot go in the JSON ``response``, so they follow the function responses as parts of the same
  user content, with a note (``parts``, ``messages``).
* ``thought: true`` parts and ``thoughtSignature`` must go back byte-exact, the signature on the very part it came
  with (Gemini 3 rejects a turn whose call lost it): thought parts are kept in ``provider_data.blocks``, a call's
  signature in the call's ``provider_data.fields``, and a turn whose parts the internal message cannot hold (a
  signed text part...) whole in ``provider_data.fields["parts"]``. From another format they are dropped, with a
  note.
* Tool parameters are an OpenAPI subset: JSON Schema is translated (``schema``) and every change noted.
  ``toolConfig.functionCallingConfig`` modes AUTO/ANY/NONE (+ ``allowedFunctionNames`` for a named function);
  ``generationConfig`` holds ``temperature``, ``maxOutputTokens`` and ``thinkingConfig`` (``toplevel``).
* ``finishReason`` has no tool-call value: calls decide ``tool_calls``. MAX_TOKENS is length, the safety family
  content_filter, MALFORMED_FUNCTION_CALL (and the other broken-call reasons) error. Usage: ``promptTokenCount``
  includes the cache, completion = candidates + thoughts (``wire``).
* Streams: every SSE chunk is a whole response; calls arrive whole; the chunk with a ``finishReason`` ends the turn
  (there is no end marker); usage repeats on every chunk (``stream_decode``).
* Errors: Google's ``{"error": {"code", "message", "status", "details"}}``, a ``RetryInfo`` detail giving the retry
  delay, a bad API key a 400 ``API_KEY_INVALID`` (``errors``).

Lossy on purpose (internal -> gemini -> internal): developer role (comes back as system) and the position of a
mid-conversation system message; argument text formatting (comes back compact); an empty assistant text (comes
back null); assistant content parts (one text); a user content of a single text part (comes back a string); image
``detail``; a tool result's images (come back as a user message after the tool messages, and an image-only result
as the text ``[image attached after the function responses]``); content parts with no Gemini equivalent; ``name``
on messages; ``is_error: false`` (comes back absent); ``strict`` and ``parallel_tool_calls`` (no Gemini
equivalent); an object schema without properties (left out) and every schema change ``schema`` notes;
``reasoning.effort`` beside a budget; ``stream`` (the endpoint says it); call ids the model did not give: Gemini
endpoints reject an ``id`` the model did not mint (Vertex: "Unknown name "id" at function_response"), so another
format's ids are not sent and come back synthetic.
"""

from __future__ import annotations

from providers.gemini.errors import decode_error, encode_error
from providers.gemini.importer import import_request
from providers.gemini.labels import event_label
from providers.gemini.request import encode_request
from providers.gemini.response import decode_response, encode_response, response_events
from providers.gemini.stream_decode import GeminiStreamDecoder, GeminiStreamState, new_stream_decoder
from providers.gemini.stream_encode import encode_stream
from providers.gemini.toplevel import encode_tools, import_tools
from providers.gemini.wire import NAME

__all__ = [
    "NAME",
    "GeminiStreamDecoder",
    "GeminiStreamState",
    "decode_error",
    "decode_response",
    "encode_error",
    "encode_request",
    "encode_response",
    "encode_stream",
    "encode_tools",
    "event_label",
    "import_request",
    "import_tools",
    "new_stream_decoder",
    "response_events",
]
