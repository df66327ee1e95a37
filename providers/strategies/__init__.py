"""Tool-calling strategies: how the tools of an internal ChatRequest are put to a model, and how its reply becomes
internal tool_calls again. Pure functions and small dataclasses over the internal format; no codec is touched.

* ``native``: the request as it is (the codec sends ``tools``).
* ``strict``: ``strict_request``: every tool with ``strict: true`` gets its schema made strict (``strict``).
* ``structured``: ``structured_request`` replaces the tools by a JSON response format whose envelope holds the calls;
  ``parse_structured`` / ``StructuredStream`` read the reply (``structured``, ``structured_stream``).
* ``prompted``: ``prompted_request`` describes the tools in the system prompt; ``extract_calls`` /
  ``PromptedStream`` find the fenced calls in the reply text (``prompted``, ``prompted_stream``).
* ``auto``: ``choose`` picks one from the capability table; ``fallback`` names the next one after a refusal
  (``capabilities``).

See docs/strategies.md.
"""

from __future__ import annotations

from providers.strategies.capabilities import (
    AUTO,
    NATIVE,
    PROMPTED,
    STRATEGIES,
    STRICT,
    STRUCTURED,
    TABLE,
    Capability,
    Choice,
    choose,
    fallback,
    refused_feature,
    supported,
)
from providers.strategies.prompted import PROTOCOL, Extraction, extract_calls, prompted_request, protocol_text
from providers.strategies.prompted_stream import PromptedStream
from providers.strategies.strict import accepts_null, restore_optional, strict_request, strict_schema
from providers.strategies.structured import (
    ENVELOPE_NAME,
    ParsedReply,
    StructuredReplyError,
    envelope_schema,
    parse_structured,
    structured_request,
)
from providers.strategies.structured_stream import StructuredStream

__all__ = [
    "AUTO",
    "ENVELOPE_NAME",
    "NATIVE",
    "PROMPTED",
    "PROTOCOL",
    "STRATEGIES",
    "STRICT",
    "STRUCTURED",
    "TABLE",
    "Capability",
    "Choice",
    "Extraction",
    "ParsedReply",
    "PromptedStream",
    "StructuredReplyError",
    "StructuredStream",
    "accepts_null",
    "choose",
    "envelope_schema",
    "extract_calls",
    "fallback",
    "parse_structured",
    "prompted_request",
    "protocol_text",
    "refused_feature",
    "restore_optional",
    "strict_request",
    "strict_schema",
    "structured_request",
    "supported",
]
