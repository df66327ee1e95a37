"""Internal (canonical) shapes: OpenAI Chat Completions, as plain dicts.

Every wire format translates to and from these. Crosswire extensions are few and named:

* ``Message.provider_data`` / ``ToolCall.provider_data``: the one namespaced field that carries what OpenAI Chat
  has no slot for (Anthropic thinking blocks with signatures, ``redacted_thinking``, DeepSeek
  ``reasoning_content``, unknown fields a provider added). Sent back unchanged when the conversation continues on
  the same format, dropped (with a note) on any other.
* ``Message.is_error`` on ``role: "tool"`` messages: the tool failed. Anthropic has ``is_error``; formats without
  the flag get the failure stated in the content.
* ``Usage`` is flat and normalised (field meanings in ``Usage`` below).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Role = Literal["system", "developer", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "error"]


class ProviderData(TypedDict, total=False):
    format: str  # the wire format this data belongs to, e.g. "anthropic"
    reasoning: str  # human-readable reasoning text, for display only
    blocks: list[dict[str, Any]]  # opaque blocks resent unchanged and first (thinking, redacted_thinking)
    fields: dict[str, Any]  # unknown wire fields kept verbatim for a same-format round trip


class FunctionCall(TypedDict):
    name: str
    arguments: str  # always a JSON *string*; "{}" for a call without arguments


class ToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCall
    provider_data: NotRequired[ProviderData]


class Message(TypedDict, total=False):
    role: Role
    content: str | list[dict[str, Any]] | None
    name: str
    tool_calls: list[ToolCall]
    tool_call_id: str
    is_error: bool
    provider_data: ProviderData


class FunctionSpec(TypedDict, total=False):
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class ToolSpec(TypedDict):
    type: Literal["function"]
    function: FunctionSpec


class ReasoningConfig(TypedDict, total=False):
    enabled: bool
    budget_tokens: int  # Anthropic thinking budget
    effort: str  # "low" | "medium" | "high" where the target has effort levels


class ChatRequest(TypedDict, total=False):
    model: str
    messages: list[Message]
    tools: list[ToolSpec]
    tool_choice: str | dict[str, Any]  # "auto" | "none" | "required" | {"type":"function","function":{"name"}}
    parallel_tool_calls: bool
    temperature: float
    max_tokens: int
    stream: bool
    reasoning: ReasoningConfig
    provider_data: ProviderData  # unknown top-level request fields, for a same-format round trip


class Usage(TypedDict, total=False):
    prompt_tokens: int  # includes cached and cache-creation tokens, whatever the provider counts
    completion_tokens: int  # includes reasoning tokens
    total_tokens: int
    cached_tokens: int  # cache reads
    cache_creation_tokens: int
    reasoning_tokens: int
