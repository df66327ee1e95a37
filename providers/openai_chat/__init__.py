"""The ``openai-chat`` wire format: OpenAI Chat Completions and every server that speaks it (Ollama, vLLM,
llama.cpp, DeepSeek, Mistral, Groq, OpenRouter, xAI, Z.ai, the Gemini and Anthropic compat endpoints...).

The internal format is OpenAI Chat, so this codec is near pass-through: it strips Crosswire's extensions on the
way out and absorbs the compat servers' quirks on the way in. Each module's docstring lists the quirks it handles:
``request``/``messages``/``images`` (requests; a tool message's images move to a user message after its run of
tool messages, since OpenAI takes images in user messages only), ``response`` (whole responses),
``stream_decode``/``stream_encode`` (streams), ``errors`` (HTTP and in-stream errors).
"""

from __future__ import annotations

from providers.openai_chat.errors import decode_error
from providers.openai_chat.labels import event_label
from providers.openai_chat.request import encode_request, import_request
from providers.openai_chat.response import decode_response, encode_response, response_events
from providers.openai_chat.stream_decode import OpenAIChatStreamDecoder, OpenAIChatStreamState, new_stream_decoder
from providers.openai_chat.stream_encode import encode_stream
from providers.openai_chat.wire import NAME

__all__ = [
    "NAME",
    "OpenAIChatStreamDecoder",
    "OpenAIChatStreamState",
    "decode_error",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "event_label",
    "import_request",
    "new_stream_decoder",
    "response_events",
]
