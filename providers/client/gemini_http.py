"""Google's Gemini API over plain httpx2, on the same HTTP client the SDKs use (``sdk.http_client``).

Why not Google's own ``google-genai`` SDK: it cannot hand back the raw response. Its streaming call reads the SSE
``data:`` lines itself and yields typed ``GenerateContentResponse`` objects (its "raw" view is each chunk parsed and
dumped again, not the bytes that came), it rebuilds the request body from its own typed parameters (so what leaves
would not be the body the codec wrote and the request pane shows), and it raises on an ``{"error": ...}`` chunk in
a 200 stream instead of letting what came before it stand. The wire pane needs the exact bytes, and the codec
decodes them, so this module posts the codec's body itself, through ``sdk.http_client``: same timeouts, same
address policy on every address dialled, same request hook recording the exact request (with ambient headers
removed and the key header redacted by ``capture``).

The wire: ``POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`` (``:generateContent`` unstreamed),
the model moved from the codec's body into the URL, the key in ``x-goog-api-key`` (never in the URL, where logs and
the wire pane would keep it). A base URL that already ends in an API version (``/v1beta``, ``/v1``) keeps it. Models
are listed with ``GET {base}/v1beta/models`` page by page (``nextPageToken``), the ``models/`` prefix taken off, and
only models that can ``generateContent``.

Errors are raised with the names ``sdk.map_exception`` reads from an SDK's module (``APIStatusError``,
``APITimeoutError``, ``APIConnectionError``), so a Gemini failure maps exactly as an SDK's does: a status through
``gemini.decode_error``, a failure to connect with the one CONNECTION_FAILED wording.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import anyio
import httpx2

if TYPE_CHECKING:
    from providers.client.sdk import Endpoint

API_VERSION = "v1beta"
KEY_HEADER = "x-goog-api-key"
PAGE_SIZE = 1000  # the API's largest page
MAX_PAGES = 50  # a pager that never ends stops here
_VERSIONED = re.compile(r"/v\d+(?:alpha|beta)?\d*$")
_RESOURCE = re.compile(r"^(?:models|tunedModels)/[^/]+$")
# What a connection that breaks before the answer starts can raise: httpx2's errors, the socket's own, and anyio's
# end of stream (an in-process app that drops the connection on purpose, as the simulator's sim-cut does).
_CONNECTION_ERRORS = (httpx2.TransportError, anyio.EndOfStream, anyio.BrokenResourceError, OSError)


class GeminiError(Exception):
    """Refused before anything was sent (no model to put in the URL)."""


class GeminiStatusError(GeminiError):
    """The API answered with an error status; ``response`` has been read (its body is the error)."""

    def __init__(self, response: httpx2.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response
        self.status_code = response.status_code


class GeminiConnectionError(GeminiError):
    """No answer started: refused, unreachable, cut before the status line."""


class GeminiTimeoutError(GeminiConnectionError):
    """No answer started within the endpoint's timeout."""


# The names sdk.map_exception and run.RoundTripRun read from an SDK's exceptions module.
APIStatusError = GeminiStatusError
APIConnectionError = GeminiConnectionError
APITimeoutError = GeminiTimeoutError


class GeminiResponse:
    """The raw response as the round trip reads an SDK's: status, headers, the bytes as they come, or all of them."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers

    def iter_bytes(self) -> AsyncIterator[bytes]:
        return self.response.aiter_bytes()

    async def read(self) -> bytes:
        return await self.response.aread()


@asynccontextmanager
async def open_response(
    http: httpx2.AsyncClient, endpoint: Endpoint, body: dict[str, Any], *, stream: bool
) -> AsyncIterator[GeminiResponse]:
    """POST the codec's body (minus ``model``, which goes in the URL); yields the raw response, unread."""
    payload = dict(body)
    model = payload.pop("model", None)
    if not isinstance(model, str) or not model.strip():
        raise GeminiError("No model given: Gemini names the model in the URL (models/{model}:generateContent).")
    content = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    url = generate_url(endpoint.base_url, model, stream=stream)
    request = http.build_request("POST", url, content=content, headers=_headers(endpoint, "application/json"))
    response = await _send(http, request)
    try:
        await _raise_for_status(response)
        yield GeminiResponse(response)
    finally:
        await response.aclose()


async def model_ids(http: httpx2.AsyncClient, endpoint: Endpoint) -> AsyncIterator[str]:
    """The ids of the models that can generate content, page after page, without the ``models/`` prefix."""
    token: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"pageSize": PAGE_SIZE, **({"pageToken": token} if token else {})}
        request = http.build_request("GET", models_url(endpoint.base_url), params=params, headers=_headers(endpoint))
        response = await _send(http, request)
        try:
            await _raise_for_status(response)
            page = json.loads(await response.aread())
        finally:
            await response.aclose()
        for model in page.get("models") or []:
            if _generates(model):
                yield str(model["name"]).removeprefix("models/")
        token = page.get("nextPageToken") or None
        if token is None:
            return


def generate_url(base_url: str, model: str, *, stream: bool) -> str:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"{_versioned(base_url)}/{_model_path(model.strip())}:{method}"


def models_url(base_url: str) -> str:
    return f"{_versioned(base_url)}/models"


def _versioned(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if _VERSIONED.search(base) else f"{base}/{API_VERSION}"


def _model_path(model: str) -> str:
    """``models/NAME`` for a bare name; a resource name (``models/x``, ``tunedModels/x``) as it is. Quoted, so a
    name cannot reach another path: the method suffix also keeps its segment from ever being ``..``."""
    if _RESOURCE.match(model):
        kind, name = model.split("/", 1)
        return f"{kind}/{quote(name, safe='')}"
    return f"models/{quote(model, safe='')}"


def _headers(endpoint: Endpoint, content_type: str | None = None) -> dict[str, str]:
    headers = {KEY_HEADER: endpoint.api_key}
    if content_type is not None:
        headers["content-type"] = content_type
    return {**headers, **endpoint.headers}


def _generates(model: Any) -> bool:
    if not isinstance(model, dict) or not isinstance(model.get("name"), str) or not model["name"]:
        return False
    methods = model.get("supportedGenerationMethods")
    return not isinstance(methods, list) or "generateContent" in methods


async def _send(http: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    """Send, wrapping a failure before the answer starts the way the SDKs do (so it never reads as mid-stream)."""
    try:
        return await http.send(request, stream=True)
    except httpx2.TimeoutException as exc:
        raise GeminiTimeoutError(str(exc) or type(exc).__name__) from exc
    except _CONNECTION_ERRORS as exc:
        raise GeminiConnectionError(str(exc) or type(exc).__name__) from exc


async def _raise_for_status(response: httpx2.Response) -> None:
    if response.status_code < 400:
        return
    try:
        await response.aread()
    except _CONNECTION_ERRORS as exc:
        raise GeminiConnectionError(str(exc) or type(exc).__name__) from exc
    raise GeminiStatusError(response)
