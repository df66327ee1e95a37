"""Which tool-calling strategies a (format, model) supports by default, what "auto" picks, and what to try next.

The table is a default, read top to bottom, first match wins (``fnmatch`` patterns, case-insensitive). It says what
the API *accepts*, not how well a model uses it; a server that refuses a feature anyway is caught by ``fallback``:

| format | models | strategies |
|---|---|---|
| openai-chat | gpt-4o*, gpt-4.1*, gpt-5*, o1, o3*, o4* | native, strict, structured |
| openai-chat | gpt-4-turbo*, gpt-4-0613*, gpt-3.5-turbo* | native, strict (no json_schema response format) |
| openai-chat | llama*, mistral*, mixtral*, qwen*, phi*, gemma*, deepseek*, granite*, vendor/model | native |
| openai-responses | gpt-*, o1, o3*, o4* | native, strict, structured (``text.format``) |
| anthropic | claude-* | native (structured outputs exist, not wired by default) |
| gemini | gemma-* | none: function calling and JSON mode are not enabled for Gemma on the Gemini API |
| gemini | gemini-* | native, structured (``responseJsonSchema``) |
| any | sim-prompted | none (the simulator's model without tool calling) |
| gemini | sim-1, sim-strict | native, structured (the simulator; Gemini has no strict function declarations) |
| any | sim-1, sim-strict | native, strict, structured (the simulator) |
| any | anything else | native |

``prompted`` works everywhere (it is plain text), so every row supports it too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from providers.errors import ProviderError

AUTO, NATIVE, STRICT, STRUCTURED, PROMPTED = "auto", "native", "strict", "structured", "prompted"
STRATEGIES: tuple[str, ...] = (AUTO, NATIVE, STRICT, STRUCTURED, PROMPTED)

_OPENAI_SO = ("gpt-4o*", "gpt-4.1*", "gpt-5*", "o1", "o1-2*", "o3*", "o4*", "chatgpt-4o*")
_LOCAL = ("llama*", "mistral*", "mixtral*", "qwen*", "phi*", "gemma*", "deepseek*", "granite*", "*/*")


@dataclass(frozen=True, slots=True)
class Capability:
    format: str  # a registered wire format, or "*"
    patterns: tuple[str, ...]
    strategies: frozenset[str]  # prompted is implied
    why: str


TABLE: tuple[Capability, ...] = (
    Capability("openai-chat", _OPENAI_SO, frozenset({NATIVE, STRICT, STRUCTURED}), "Structured Outputs models"),
    Capability(
        "openai-chat",
        ("gpt-4-turbo*", "gpt-4-0613*", "gpt-4", "gpt-3.5-turbo*"),
        frozenset({NATIVE, STRICT}),
        "function calling with strict schemas, but no json_schema response format",
    ),
    Capability("openai-chat", _LOCAL, frozenset({NATIVE}), "OpenAI-compatible server; tool support depends on it"),
    Capability("openai-responses", ("gpt-*", *_OPENAI_SO), frozenset({NATIVE, STRICT, STRUCTURED}), "Responses API"),
    Capability("anthropic", ("claude-*",), frozenset({NATIVE}), "tool use; structured outputs not wired"),
    Capability("gemini", ("gemma-*",), frozenset(), "Gemma on the Gemini API has no function calling nor JSON mode"),
    Capability("gemini", ("gemini-*",), frozenset({NATIVE, STRUCTURED}), "function calling and responseJsonSchema"),
    # Crosswire's simulator (providers/simulator): sim-1 follows every strategy; two models exist for auto's sake.
    Capability("*", ("sim-prompted",), frozenset(), "simulated model without native tool calling"),
    # Gemini's function declarations have no strict mode: its codec drops the flag, so the simulator there neither.
    Capability("gemini", ("sim-1", "sim-strict"), frozenset({NATIVE, STRUCTURED}), "the simulator, as Gemini"),
    Capability("*", ("sim-1", "sim-strict"), frozenset({NATIVE, STRICT, STRUCTURED}), "the simulator follows all"),
    Capability("*", ("*",), frozenset({NATIVE}), "unknown model: native tools assumed"),
)


@dataclass(frozen=True, slots=True)
class Choice:
    strategy: str
    reason: str


def supported(format: str, model: str) -> tuple[frozenset[str], Capability]:
    """The strategies the table gives (format, model), ``prompted`` included, and the row that said so."""
    name = (model or "").lower()
    for row in TABLE:
        if row.format in (format, "*") and any(fnmatchcase(name, pattern) for pattern in row.patterns):
            return row.strategies | {PROMPTED}, row
    raise AssertionError("the table ends with a catch-all row")


def choose(format: str, model: str, requested: str = AUTO, *, strict_tools: bool = False) -> Choice:
    """``auto`` -> strict when the request has strict tools and the model takes them, else native, else prompted.

    An explicit strategy is kept, with a reason that says when the table does not expect it to work (the server
    may know better; ``fallback`` handles a refusal).
    """
    if requested not in STRATEGIES:
        raise ValueError(f"unknown strategy {requested!r} (known: {', '.join(STRATEGIES)})")
    strategies, row = supported(format, model)
    label = f"{format} {model or '(no model)'}"
    if requested == PROMPTED:  # plain text: any model can follow it, whatever the table says of its tools
        return Choice(PROMPTED, "prompted: the tools are described in the system prompt, which any model can follow")
    if requested != AUTO:
        if requested in strategies:
            return Choice(requested, f"{requested} requested; {label} supports it ({row.why})")
        return Choice(requested, f"{requested} requested, though {label} is not known to support it ({row.why})")
    if strict_tools and STRICT in strategies:
        return Choice(STRICT, f"auto: {label} takes strict tool schemas ({row.why})")
    if NATIVE in strategies:
        return Choice(NATIVE, f"auto: {label} has native tool calling ({row.why})")
    return Choice(PROMPTED, f"auto: {label} has no tool calling ({row.why}); tools go in the prompt")


# What a server says when it refuses a feature (as reported in the cited issues), by feature.
_REFUSALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # vLLM without --enable-auto-tool-choice (vllm-project/vllm#9986)
    ("tools", re.compile(r"tool choice requires --enable-auto-tool-choice", re.I)),
    # Ollama, OpenAI: "registry.ollama.ai/library/gemma3:4b does not support tools" (ollama/ollama#14795)
    ("tools", re.compile(r"does not support (?:tools|tool[ _]?(?:use|calling|calls)|function[ _]?calling)", re.I)),
    # OpenAI: "Unsupported parameter: 'tools' is not supported with this model."; Gemini: "Function calling is
    # not enabled for models/gemma-3-27b-it"; OpenRouter: "No endpoints found that support tool use"
    ("tools", re.compile(r"'?tools'? (?:is|are) not supported|tool[ _]?(?:use|calling) is not supported", re.I)),
    ("tools", re.compile(r"function calling is not (?:enabled|supported)|no endpoints found that support tool", re.I)),
    # strict: "Invalid schema for function 'x': ..." (strict mode's schema rules), "strict is not supported"
    ("strict", re.compile(r"invalid schema for function|'?strict'? (?:is |are )?not (?:supported|permitted)", re.I)),
    # OpenAI: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
    ("response_format", re.compile(r"response_format.{0,80}not (?:supported|available|allowed)", re.I)),
    ("response_format", re.compile(r"json[_ ]schema.{0,40}not supported|json mode is not enabled", re.I)),
    ("response_format", re.compile(r"invalid schema for response_format|unrecognized.{0,40}response_format", re.I)),
)
_USES: dict[str, frozenset[str]] = {
    STRUCTURED: frozenset({"response_format"}),
    STRICT: frozenset({"tools", "strict"}),
    NATIVE: frozenset({"tools"}),
    AUTO: frozenset({"tools", "strict"}),
    PROMPTED: frozenset(),
}
_NEXT: dict[str, str | None] = {STRUCTURED: NATIVE, STRICT: NATIVE, AUTO: PROMPTED, NATIVE: PROMPTED, PROMPTED: None}


def refused_feature(error: ProviderError) -> str | None:
    """The feature ("tools", "strict", "response_format") the error says the server refused, if any."""
    text = error.message
    if isinstance(error.raw, str | bytes):
        text += " " + (error.raw.decode("utf-8", "replace") if isinstance(error.raw, bytes) else error.raw)
    elif isinstance(error.raw, dict):
        text += " " + json.dumps(error.raw, ensure_ascii=False)
    for feature, pattern in _REFUSALS:
        if pattern.search(text):
            return feature
    return None


def fallback(strategy: str, error: ProviderError) -> str | None:
    """The strategy to try after ``strategy`` failed with ``error``, or None when the error is not a refusal of a
    feature that strategy uses (a rate limit, a bad key...) or there is nothing left to try.

    structured / strict -> native -> prompted; a refusal of tools skips every strategy that sends tools.
    """
    feature = refused_feature(error)
    if feature is None or feature not in _USES.get(strategy, frozenset()):
        return None
    following = _NEXT.get(strategy)
    while following is not None and feature == "tools" and "tools" in _USES[following]:
        following = _NEXT[following]
    return following
