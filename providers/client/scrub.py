"""Keys a provider quotes back are cut out of everything received, before anything is stored, shown or logged.

A server that answers ``401 Incorrect API key provided: Bearer sk-...`` puts the key into the error message, the raw
events and possibly streamed text. Each received text passes through ``Scrubber.text`` once, where it enters the
round trip, so every later copy (the saved row, the frames, the status line) is clean by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from providers.client.capture import REDACTED, SECRET_HEADERS

if TYPE_CHECKING:
    from providers.client.sdk import Endpoint
    from providers.errors import ProviderError

# Stand-in keys that are no secret: replacing them would mangle ordinary text ("simulator" appears in answers).
KEYLESS_PLACEHOLDER = "no-key"
SIMULATOR_KEY = "simulator"
PUBLIC_KEYS = frozenset({KEYLESS_PLACEHOLDER, SIMULATOR_KEY})
# Shorter values cannot be told from ordinary words; real provider keys are 32 characters and more.
MIN_SECRET_CHARS = 8
AUTH_SCHEMES = ("bearer ", "basic ", "token ")


@dataclass(frozen=True, slots=True)
class Scrubber:
    secrets: tuple[str, ...] = ()

    @classmethod
    def for_endpoint(cls, endpoint: Endpoint) -> Scrubber:
        values = [endpoint.api_key]
        values += [value for name, value in endpoint.headers.items() if name.lower() in SECRET_HEADERS]
        return cls.of(values)

    @classmethod
    def of(cls, values: list[str]) -> Scrubber:
        found: set[str] = set()
        for value in values:
            found.add(value)
            if value.lower().startswith(AUTH_SCHEMES):  # "Bearer <token>": the token alone may be quoted too
                found.add(value.split(" ", 1)[1].strip())
        kept = {v for v in found if len(v) >= MIN_SECRET_CHARS and v not in PUBLIC_KEYS}
        # Shortest first: the token inside "Bearer <token>" goes first, so the quote still reads "Bearer [redacted]".
        return cls(tuple(sorted(kept, key=len)))

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string scrubbed (an error body kept for the wire pane)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def error(self, error: ProviderError) -> ProviderError:
        if not self.secrets:
            return error
        return replace(error, message=self.text(error.message), raw=self.value(error.raw))
