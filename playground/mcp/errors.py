"""What went wrong in an MCP exchange, as one sentence a team member can act on (never a traceback, never a secret).

The SDK runs its transports in anyio task groups, which wrap what they raise in exception groups; the sentence is
written for the most telling exception inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2
import mcp_types as types
import pydantic
from mcp.shared.exceptions import MCPError

from playground.mcp import policy
from playground.mcp.connect import TransportNotes
from providers.client.addresses import AddressRefused
from providers.client.scrub import Scrubber

CONNECTION_FAILED = "Could not reach the MCP server at this URL (no connection, or it closed without answering)."
MAX_CHARS = 400
# Most telling first: a refusal explains everything after it; a bare "connection closed" explains little.
_RANK: tuple[type[BaseException], ...] = (
    policy.Refused,
    AddressRefused,
    pydantic.ValidationError,
    MCPError,
    TimeoutError,
    httpx2.TransportError,
    OSError,
    RuntimeError,
)


@dataclass
class Step:
    """What the exchange was doing, kept current so a failure names it: "the handshake", "the call to add"."""

    what: str
    timeout: float


def describe(
    exc: BaseException, *, server: str, step: Step, notes: TransportNotes, scrubber: Scrubber, stdio_key: str = ""
) -> str:
    text = _sentence(telling_leaf(exc), f"The MCP server {server!r}", step, notes, stdio_key)
    text = scrubber.text(" ".join(text.split()))
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def telling_leaf(exc: BaseException) -> BaseException:
    leaves = list(_leaves(exc))
    for kind in _RANK:
        for leaf in leaves:
            if isinstance(leaf, kind):
                return leaf
    return leaves[0] if leaves else exc


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside any groups, each followed by what it wraps (httpx2 wraps the address refusal)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 8:  # SDK -> httpx2 -> httpcore2 -> OSError: a short chain
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def _sentence(exc: BaseException, who: str, step: Step, notes: TransportNotes, stdio_key: str) -> str:
    if isinstance(exc, policy.Refused | AddressRefused):
        return str(exc)
    if isinstance(exc, MCPError):
        return _mcp_error(exc, who, step, notes)
    if isinstance(exc, TimeoutError):
        return f"{who} did not answer {step.what} within {step.timeout:g} s."
    if isinstance(exc, pydantic.ValidationError):
        return f"{who} sent an answer to {step.what} that could not be read ({_invalid_part(exc)})."
    if isinstance(exc, httpx2.TransportError):
        return CONNECTION_FAILED
    if isinstance(exc, OSError) and stdio_key:
        return f"Could not start the stdio MCP server {stdio_key!r}: {exc.strerror or exc}."
    if isinstance(exc, RuntimeError):
        return f"{who} sent an answer to {step.what} that could not be used: {exc}"
    return f"{who} failed during {step.what}: {type(exc).__name__}: {exc}"


def _invalid_part(exc: pydantic.ValidationError) -> str:
    """Where the answer went wrong. pydantic reports a union (a result, a content block) once per member it tried,
    with the member's name in the location: those names are dropped, and the deepest place that failed is named;
    several misses there read as one."""
    places = [(_place(error["loc"]), error["msg"]) for error in exc.errors()]
    if not places:
        return "the result"
    deepest = max(len(place) for place, _ in places)
    at_deepest = [(place, message) for place, message in places if len(place) == deepest]
    if len(at_deepest) == 1:
        return f"{_dotted(at_deepest[0][0])}: {at_deepest[0][1]}"
    # Each shape tried missed at a field of its own (content.0.text, content.0.data): the block itself is wrong.
    shared = _common_prefix([place for place, _ in at_deepest])
    return f"{_dotted(shared)}: it matches none of the shapes the protocol allows there"


def _common_prefix(places: list[tuple[int | str, ...]]) -> tuple[int | str, ...]:
    shared: list[int | str] = []
    for parts in zip(*places, strict=False):
        if any(part != parts[0] for part in parts):
            break
        shared.append(parts[0])
    return tuple(shared)


def _dotted(place: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in place) or "the result"


def _place(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    # Member names: "TextContent", "CallToolResult", "function-after[_require_one_field(), InputRequiredResult]".
    return tuple(part for part in loc if not (isinstance(part, str) and (part[:1].isupper() or "[" in part)))


def _mcp_error(exc: MCPError, who: str, step: Step, notes: TransportNotes) -> str:
    status = f" (HTTP {notes.http_errors[-1]})" if notes.http_errors else ""
    if exc.code == types.REQUEST_TIMEOUT:
        return f"{who} did not answer {step.what} within {step.timeout:g} s."
    if exc.code == types.CONNECTION_CLOSED:
        # The SDK says more than "Connection closed" when it stood in for a broken HTTP response.
        detail = "" if exc.message == "Connection closed" else f": {exc.message}"
        return f"{who} closed the connection before answering {step.what}{detail}{status} (it may have stopped)."
    if notes.http_errors and exc.code == types.INTERNAL_ERROR:
        return f"{who} refused {step.what}{status}: check the URL and the auth header."
    return f"{who} answered {step.what} with an error{status}: {exc.message}"
