"""The model names an endpoint offers, read through the official SDKs' ``client.models.list()``.

OpenAI and every OpenAI-compatible server answer ``GET {base_url}/models`` with one list; Anthropic answers
``GET {base_url}/v1/models`` in pages, which the SDK's async iterator follows. Failures become ``ProviderError``
exactly as a chat round trip's do, so the UI shows one kind of error whatever went wrong.
"""

from __future__ import annotations

from typing import Any

import httpx2

from providers.client.sdk import Endpoint, sdk_exceptions
from providers.errors import ProviderError
from providers.formats import get_format

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
    timeout = httpx2.Timeout(endpoint.timeout, connect=min(endpoint.timeout, 10.0))
    async with httpx2.AsyncClient(timeout=timeout, transport=endpoint.transport) as http_client:
        client = _client(endpoint, http_client)
        names: list[str] = []
        async for model in client.models.list():
            model_id = getattr(model, "id", None)
            if isinstance(model_id, str) and model_id and model_id not in names:
                names.append(model_id)
            if len(names) >= MAX_MODELS:
                break
        return names


def _client(endpoint: Endpoint, http_client: httpx2.AsyncClient) -> Any:
    common: dict[str, Any] = {
        "api_key": endpoint.api_key,
        "base_url": endpoint.base_url,
        "max_retries": endpoint.max_retries,
        "timeout": endpoint.timeout,
        "default_headers": endpoint.headers or None,
        "http_client": http_client,
    }
    if endpoint.format == "anthropic":
        import anthropic

        return anthropic.AsyncAnthropic(**common)
    import openai

    return openai.AsyncOpenAI(**common)


def map_exception(endpoint: Endpoint, exc: Exception) -> ProviderError:
    sdk = sdk_exceptions(endpoint)
    if isinstance(exc, sdk.APIStatusError):
        response = exc.response
        body = response.content if response is not None else b""
        headers = dict(response.headers) if response is not None else {}
        return get_format(endpoint.format).decode_error(exc.status_code, body, headers)
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError("timeout", f"No answer within {endpoint.timeout:g} s.", retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderError("connection", f"Could not reach the provider: {_reason(exc)}", retryable=True)
    if isinstance(exc, httpx2.TimeoutException):
        return ProviderError("timeout", f"No answer within {endpoint.timeout:g} s.", retryable=True)
    if isinstance(exc, httpx2.TransportError):
        return ProviderError("connection", f"Could not reach the provider: {exc}", retryable=True)
    if isinstance(exc, _sdk_base_error(endpoint)):
        # The SDK refused before sending anything (e.g. the openai SDK without a key); its message says why.
        return ProviderError("invalid_request", _shorten(str(exc)))
    # A server that answers 200 with something other than a model list (an HTML page, a different JSON shape).
    return ProviderError("invalid_response", f"The model list could not be read ({type(exc).__name__}).")


def _sdk_base_error(endpoint: Endpoint) -> type[Exception]:
    sdk = sdk_exceptions(endpoint)
    return sdk.AnthropicError if endpoint.format == "anthropic" else sdk.OpenAIError


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reason(exc: Exception) -> str:
    """The SDKs say only "Connection error."; the transport error under it says what happened (refused, DNS)."""
    cause = exc.__cause__
    return f"{exc} ({cause})" if cause is not None and str(cause) else str(exc)
