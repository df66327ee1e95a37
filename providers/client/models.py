"""The model names an endpoint offers, read through the official SDKs' ``client.models.list()``.

OpenAI and every OpenAI-compatible server answer ``GET {base_url}/models`` with one list; Anthropic answers
``GET {base_url}/v1/models`` in pages, which the SDK's async iterator follows. Failures become ``ProviderError``
exactly as a chat round trip's do, so the UI shows one kind of error whatever went wrong.
"""

from __future__ import annotations

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
        client = sdk_client(endpoint, http)
        names: dict[str, None] = {}  # ordered, and "seen?" in constant time
        async for model in client.models.list():
            model_id = getattr(model, "id", None)
            if isinstance(model_id, str) and model_id:
                names[model_id] = None
            if len(names) >= MAX_MODELS:
                break
        return list(names)
