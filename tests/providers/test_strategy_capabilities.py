"""The capability table, choose() for auto, and fallback() after a server refused a feature."""

from __future__ import annotations

import pytest

from providers import openai_chat
from providers.errors import ProviderError
from providers.formats import FORMATS
from providers.strategies import (
    STRATEGIES,
    TABLE,
    Choice,
    choose,
    fallback,
    refused_feature,
    supported,
)


def test_the_strategy_names() -> None:
    assert STRATEGIES == ("auto", "native", "strict", "structured", "prompted")


def test_every_row_names_a_registered_format_and_known_strategies() -> None:
    for row in TABLE:
        assert row.format in (*FORMATS, "*")
        assert row.strategies <= set(STRATEGIES) - {"auto"}
        assert row.patterns and row.why
    assert TABLE[-1].format == "*" and TABLE[-1].patterns == ("*",)


@pytest.mark.parametrize(
    ("format", "model", "expected"),
    [
        ("openai-chat", "gpt-4o-2024-08-06", {"native", "strict", "structured", "prompted"}),
        ("openai-chat", "GPT-4o-mini", {"native", "strict", "structured", "prompted"}),
        ("openai-chat", "gpt-4.1-nano", {"native", "strict", "structured", "prompted"}),
        ("openai-chat", "gpt-3.5-turbo", {"native", "strict", "prompted"}),
        ("openai-chat", "llama3.1:8b", {"native", "prompted"}),
        ("openai-chat", "qwen2.5-coder:7b", {"native", "prompted"}),
        ("openai-chat", "meta-llama/llama-3.3-70b-instruct", {"native", "prompted"}),
        ("openai-responses", "gpt-5-mini", {"native", "strict", "structured", "prompted"}),
        ("anthropic", "claude-sonnet-4-20250514", {"native", "prompted"}),
        ("gemini", "gemini-2.5-flash", {"native", "structured", "prompted"}),
        ("gemini", "gemma-3-27b-it", {"prompted"}),
        ("gemini", "sim-1", {"native", "structured", "prompted"}),  # Gemini has no strict function declarations
        ("anthropic", "sim-1", {"native", "strict", "structured", "prompted"}),
        ("anthropic", "", {"native", "prompted"}),
        ("some-future-format", "whatever", {"native", "prompted"}),
    ],
)
def test_supported(format: str, model: str, expected: set[str]) -> None:
    assert supported(format, model)[0] == expected


def test_auto_picks_native_strict_or_prompted() -> None:
    assert choose("anthropic", "claude-3-5-haiku-latest").strategy == "native"
    assert choose("openai-chat", "gpt-4o", strict_tools=True).strategy == "strict"
    assert choose("anthropic", "claude-opus-4", strict_tools=True).strategy == "native"
    gemma = choose("gemini", "gemma-3-12b-it")
    assert gemma == Choice("prompted", gemma.reason)
    assert "no tool calling" in gemma.reason and "Gemma" in gemma.reason
    assert choose("openai-chat", "gpt-4o").reason.startswith("auto: openai-chat gpt-4o has native tool calling")


def test_an_explicit_strategy_is_kept_with_a_warning_when_unexpected() -> None:
    kept = choose("openai-chat", "gpt-4o", "structured")
    assert kept.strategy == "structured" and "supports it" in kept.reason
    doubtful = choose("anthropic", "claude-sonnet-4", "structured")
    assert doubtful.strategy == "structured"
    assert "is not known to support it" in doubtful.reason
    with pytest.raises(ValueError, match="unknown strategy 'magic'"):
        choose("openai-chat", "gpt-4o", "magic")
    assert "not known to support it" in choose("gemini", "sim-1", "strict").reason  # its codec drops strict


def test_prompted_is_said_to_work_with_any_model_not_by_the_tables_word_on_its_tools() -> None:
    # After auto's native was refused it read "prompted requested; … supports it (unknown model: native tools
    # assumed)": a reason about native tools, for the strategy that does without them.
    for format, model in (("openai-chat", "sim-no-tools"), ("gemini", "gemma-3-27b-it"), ("anthropic", "claude-x")):
        choice = choose(format, model, "prompted")
        assert choice.strategy == "prompted" and "native" not in choice.reason and "any model" in choice.reason


def _error(message: str, status: int = 400, raw: object = None) -> ProviderError:
    return ProviderError("invalid_request", message, status=status, raw=raw)


OLLAMA = "registry.ollama.ai/library/gemma3:4b does not support tools"
OPENAI_TOOLS = "Unsupported parameter: 'tools' is not supported with this model."
OPENAI_FORMAT = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
VLLM = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
GEMMA = "Function calling is not enabled for models/gemma-3-27b-it"
GEMMA_JSON = "JSON mode is not enabled for models/gemma-3-27b-it"
STRICT_SCHEMA = "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required"


@pytest.mark.parametrize(
    ("message", "feature"),
    [
        (OLLAMA, "tools"),
        (OPENAI_TOOLS, "tools"),
        (VLLM, "tools"),
        (GEMMA, "tools"),
        ("No endpoints found that support tool use.", "tools"),
        (OPENAI_FORMAT, "response_format"),
        (GEMMA_JSON, "response_format"),
        ("Invalid schema for response_format 'tool_reply': In context=(), 'oneOf' is not permitted", "response_format"),
        (STRICT_SCHEMA, "strict"),
        ("Rate limit reached for gpt-4o", None),
        ("Incorrect API key provided", None),
    ],
)
def test_refused_feature(message: str, feature: str | None) -> None:
    assert refused_feature(_error(message)) == feature


def test_refusals_are_found_in_the_raw_body_too() -> None:
    error = ProviderError("server", "Internal error", status=500, raw={"error": {"message": OLLAMA}})
    assert refused_feature(error) == "tools"
    body = openai_chat.decode_error(400, b'{"error": {"message": "' + OLLAMA.encode() + b'"}}', {})
    assert refused_feature(body) == "tools"


@pytest.mark.parametrize(
    ("strategy", "message", "next_strategy"),
    [
        ("structured", OPENAI_FORMAT, "native"),
        ("structured", GEMMA_JSON, "native"),
        ("strict", STRICT_SCHEMA, "native"),
        ("strict", OLLAMA, "prompted"),  # tools refused: native would be refused too
        ("native", OLLAMA, "prompted"),
        ("native", VLLM, "prompted"),
        ("auto", GEMMA, "prompted"),
        ("prompted", OLLAMA, None),  # prompted sends no tools: this error is about something else
        ("native", OPENAI_FORMAT, None),  # native sends no response_format
        ("structured", OLLAMA, None),
        ("native", "Rate limit reached", None),
    ],
)
def test_fallback_chain(strategy: str, message: str, next_strategy: str | None) -> None:
    assert fallback(strategy, _error(message)) == next_strategy


def test_a_transient_error_never_falls_back() -> None:
    overloaded = ProviderError("overloaded", "Overloaded", status=529, retryable=True)
    assert all(fallback(strategy, overloaded) is None for strategy in STRATEGIES)
