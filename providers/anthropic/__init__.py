"""The Anthropic Messages API codec (``POST /v1/messages``): internal OpenAI-Chat shapes <-> Anthropic wire.

Wire-format quirks handled (see docs/providers.md for the contract):

* ``max_tokens`` is required: 4096 when missing; it must exceed the thinking budget (raised when it does not).
* No system role in the conversation: system and developer messages become the top-level ``system`` (one message
  as a string, several as text blocks in order; a mid-conversation one is moved to the top, with a note).
* Tool calls are ``tool_use`` blocks with an ``input`` object: the internal ``arguments`` string is parsed once at
  the edge (``""``/null -> ``{}``). Text that is not a JSON object travels as ``{"_raw_arguments": "<text>"}`` and
  comes back verbatim on import; a real tool with a lone string parameter of that name would be read the same way.
* All results for one assistant turn go in ONE user message right after it, before any user text; a result for an
  unknown call, or one that does not follow its call's turn, is refused (``TranslationError``).
* Ids must match ``^[a-zA-Z0-9_-]+$`` and be non-empty: empty ids are refused, others (Kimi ``functions.add:0``)
  are rewritten by a deterministic map applied to the call and its result.
* No ``content: null``, no empty text blocks, no empty messages (dropped, with a note).
* Images: ``image_url`` parts <-> ``image`` blocks (a base64 source for data URLs, a url source otherwise), in user
  messages and inside ``tool_result`` content, which takes text and image blocks: a tool's image stays in its
  result both ways (``content``).
* Thinking: ``thinking`` blocks (with their ``signature``) and ``redacted_thinking`` are kept in the assistant
  message's ``provider_data.blocks`` and resent unchanged, first in the turn; their text is in
  ``provider_data.reasoning`` for display. Sent from another format they are dropped with a note.
* Unknown fields (``caller`` on ``tool_use``, request ``metadata``/``top_k``, ``cache_control``, ``citations``,
  server-tool blocks) are kept in ``provider_data.fields`` and resent on this format (see ``toplevel`` and
  ``assistant`` for the "kept original, used while unedited" rule).
* Stop reasons: end_turn/stop_sequence/pause_turn -> stop, tool_use -> tool_calls, max_tokens and
  model_context_window_exceeded -> length, refusal -> content_filter (the raw reason stays in ``raw_reason``).
* Usage: ``input_tokens`` excludes the cache, so prompt_tokens = input + cache_read + cache_creation; the
  ``message_delta`` usage is cumulative and replaces ``message_start``'s (it can revise input_tokens).
* Streams: block indexes count text and thinking blocks, internal tool positions count only calls;
  ``content_block_start`` of a tool_use carries an empty ``input`` to ignore; ``ping`` can come anywhere;
  ``signature_delta`` arrives just before a thinking block stops; an ``error`` event can follow an HTTP 200.

Lossy on purpose (internal -> anthropic -> internal): developer role (comes back as system) and the position of a
mid-conversation system message; ids outside the pattern (come back rewritten); argument text formatting (JSON
objects come back compact); an empty assistant text (comes back as null); blank text parts; image ``detail``;
content parts with no Anthropic equivalent; ``name`` on messages; ``reasoning.effort``; a tool without parameters
(comes back with an empty object schema); ``parallel_tool_calls`` without ``tool_choice`` (comes back with
``tool_choice: "auto"``); ``reasoning_tokens`` (Anthropic does not report them); the ``stop_sequence`` value. In
streams, ``citations_delta`` and server-tool blocks are not decoded (whole responses keep them).
"""

from __future__ import annotations

from providers.anthropic.errors import decode_error, encode_error
from providers.anthropic.importer import import_request
from providers.anthropic.mapping import NAME
from providers.anthropic.request import encode_request
from providers.anthropic.response import decode_response, encode_response, response_events
from providers.anthropic.stream import AnthropicStreamDecoder, AnthropicStreamState, new_stream_decoder
from providers.anthropic.stream_encode import encode_stream
from providers.anthropic.tools import encode_tools, import_tools
from providers.event_labels import event_label

__all__ = [
    "NAME",
    "AnthropicStreamDecoder",
    "AnthropicStreamState",
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
