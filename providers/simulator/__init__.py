"""An offline scripted model behind each provider's real HTTP API, for tests and keyless demos.

``create_app()`` is an ASGI app serving ``/openai/v1/chat/completions``, ``/openai/v1/responses``,
``/openai/v1/models``, ``/anthropic/v1/messages``, ``/anthropic/v1/models``,
``/gemini/v1beta/models/{model}:generateContent`` (and ``:streamGenerateContent?alt=sse``) and
``/gemini/v1beta/models`` relative to its mount point (Crosswire mounts it at ``/sim``); ``create_server_app()`` is
the same mounted at ``/sim``, which ``python -m providers.simulator`` serves. The official ``openai`` and
``anthropic`` SDKs, Crosswire's adapters and curl all talk to it as to the real APIs. See docs/simulator.md (and
docs/providers.md for the Responses and Gemini routes).
"""

from __future__ import annotations

from providers.simulator.app import create_app, create_server_app

__all__ = ["create_app", "create_server_app"]
