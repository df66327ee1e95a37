"""The ``openai-responses`` wire format: the OpenAI Responses API (``POST /v1/responses``) <-> internal OpenAI-Chat
shapes.

Wire-format quirks handled (see docs/providers.md for the contract, and each module's docstring):

* No messages list: ``instructions`` (the first system message) plus ``input`` items. A conversation's assistant
  turn is a *run* of items (``reasoning``, an assistant ``message``, ``function_call``s...), a tool result is a
  ``function_call_output`` item (``assistant``, ``messages``).
* Images: ``image_url`` parts are ``input_image`` parts (``detail`` required: ``auto`` when none), in user
  messages and in a ``function_call_output``'s ``output``, which may be a list of ``input_text``/``input_image``
  parts: a tool's image stays in its result both ways (``messages``).
* Two ids per call: ``call_id`` (``call_...``, what the output pairs on) is the internal tool call id; the item
  ``id`` (``fc_...``) is kept in the call's ``provider_data.fields`` and sent back, so a round trip loses neither.
* Reasoning items carry ``encrypted_content`` (with ``store: false`` and ``include:
  ["reasoning.encrypted_content"]``, which requests with reasoning on send) and summaries: kept verbatim in the
  assistant message's ``provider_data.blocks`` and resent first in the run, right before the item that followed them
  (the API rejects a reasoning item without it). From another format they are dropped, with a note. In streams the
  item is taken from ``output_item.done``: the ``encrypted_content`` of ``.added`` may be incomplete.
* Tools are flat (no nested ``function``); ``strict`` defaults to true on this API, so a tool without it is sent
  ``strict: false``. A named ``tool_choice`` is ``{"type": "function", "name"}`` (``toplevel``).
* No finish reason: ``status`` ``completed`` is stop (tool_calls when calls were made), ``incomplete`` with
  ``max_output_tokens`` is length, with ``content_filter`` content_filter; ``failed`` is an error (``wire``).
* Usage: ``input_tokens`` (cache included) / ``output_tokens`` (reasoning included), with ``cached_tokens``,
  ``cache_write_tokens`` and ``reasoning_tokens`` in their details objects.
* Streams are typed events keyed by ``output_index`` and ``item_id``; ``output_index`` counts every item, tool
  positions only calls (``stream_decode``). No ``[DONE]``: the stream ends with ``response.completed``,
  ``response.incomplete`` or ``response.failed`` (after an ``error`` event).
* Errors: the Chat error object over HTTP (an unknown model is a 400 with ``model_not_found``), the ``error`` event
  and ``response.error`` mid-stream (``errors``).

Lossy on purpose (internal -> openai-responses -> internal): ``is_error`` (stated in the output instead), ``name`` on
messages, an empty assistant text with calls (comes back null), assistant content parts (sent as one text), image
``detail: auto`` (the default, comes back absent), a tool without ``strict`` (comes back ``strict: false``) or
without parameters (comes back with an empty object schema), the reasoning token budget, ``reasoning.enabled:
false`` (not sent), a call's ``status`` in decoded responses. Refusal parts and hosted-tool items are not shown as
text or calls; they are kept whole and resent.
"""

from __future__ import annotations

from providers.event_labels import event_label
from providers.openai_responses.errors import decode_error, encode_error
from providers.openai_responses.importer import import_request
from providers.openai_responses.request import encode_request
from providers.openai_responses.response import decode_response, encode_response, response_events
from providers.openai_responses.stream_decode import (
    OpenAIResponsesStreamDecoder,
    OpenAIResponsesStreamState,
    new_stream_decoder,
)
from providers.openai_responses.stream_encode import encode_stream
from providers.openai_responses.toplevel import encode_tools, import_tools
from providers.openai_responses.wire import NAME

__all__ = [
    "NAME",
    "OpenAIResponsesStreamDecoder",
    "OpenAIResponsesStreamState",
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
