"""The model names an endpoint offers, read through the official SDKs' ``client.models.list()`` (Gemini aside).

OpenAI and every OpenAI-compatible server answer ``GET {base_url}/models`` with one list; Anthropic answers
``GET {base_url}/v1/models`` in pages, which the SDK's async iterator follows; Gemini answers
``GET {base_url}/v1beta/models`` in pages too, read by ``gemini_http`` (Google's SDK is not used, see there).
Failures become ``ProviderError`` exactly as a chat round trip's do, so the UI shows one kind of error whatever went
wrong.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2

from providers.client import gemini_http
from providers.client.sdk import Endpoint, http_client, map_exception, sdk_client
from providers.errors import ProviderError

# Gateways list a few hundred models; the cap stops a pager that never ends from looping forever.
MAX_MODELS = 2000


async def list_models(endpoint: Endpoint) -> list[str]:
    """The endpoint's model ids in the provider's order, without duplicates; raises ``ProviderError``."""
    try:
        return await _model_ids(endpoint)
    except ProviderError:
        raise
    except Exception as exc:  # any SDK or transport failure becomes a readable error, never a crash
        raise map_exception(endpoint, exc) from None


async def _model_ids(endpoint: Endpoint) -> list[str]:
    async with http_client(endpoint) as http:
        names: dict[str, None] = {}  # ordered, and "seen?" in constant time
        async for model_id in _listed(endpoint, http):
            if model_id:
                names[model_id] = None
            if len(names) >= MAX_MODELS:
                break
        return list(names)


async def _listed(endpoint: Endpoint, http: httpx2.AsyncClient) -> AsyncIterator[str]:
    """Every model id the endpoint lists, in its order: Gemini's pages through ``gemini_http``, else the SDK's."""
    if endpoint.format == "gemini":
        async for model_id in gemini_http.model_ids(http, endpoint):
            yield model_id
        return
    async for model in sdk_client(endpoint, http).models.list():
        model_id = getattr(model, "id", None)
        if isinstance(model_id, str):
            yield model_id
