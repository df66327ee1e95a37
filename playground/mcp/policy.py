"""Where an MCP server may be reached: the endpoints' rules for URLs, and the administrator's list of stdio servers.

An http server is a URL a team member types, so it is a way into the deployment's network exactly as an endpoint's
base URL is: the same allow-list (``CROSSWIRE_ALLOWED_BASE_URLS``), the same path and host rules, and the same check
of every address dialled (``playground.endpoints.policy``, ``providers.client.addresses``), applied when a server is
saved and again each time it is contacted. A stdio server runs a command on the server's machine, so nobody but the
administrator names one: ``CROSSWIRE_MCP_STDIO_SERVERS`` maps a key to ``{"command": [...], "env": {...}}`` and a
team only picks a key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from playground.endpoints import policy as endpoint_policy
from providers.client.addresses import AddressPolicy

# RFC 9110 token characters: anything else in a header name is refused by the HTTP client, or worse, accepted.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
# Headers the transport sets itself: a team's value would break the protocol, not authenticate it.
_RESERVED_HEADERS = frozenset(
    {
        "accept",
        "connection",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        "transfer-encoding",
    }
)


class Refused(Exception):
    """The server may not be contacted as configured; ``str()`` says why in one sentence."""


@dataclass(frozen=True)
class StdioCommand:
    key: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None


def url_refusal(url: str, *, changing: bool = False, is_owner: bool = True) -> str | None:
    """Why ``url`` may not be saved (``changing``, by a non-owner) or contacted now; None when it may.

    MCP servers have no default URL, so every URL is a custom one: only owners set one, as for endpoints.
    """
    return endpoint_policy.base_url_refusal(
        url=url,
        default_url=None,
        changing=changing,
        is_owner=is_owner,
        allowed_prefixes=settings.CROSSWIRE_ALLOWED_BASE_URLS,
    )


def address_policy() -> AddressPolicy:
    """What the HTTP client may dial, checked again on each address the URL's host resolves to."""
    return endpoint_policy.address_policy(settings.CROSSWIRE_ALLOWED_BASE_URLS)


def header_name_problem(name: str) -> str:
    """Empty when ``name`` can carry the auth value, else why not."""
    if not _HEADER_NAME.match(name):
        return "A header name is 1 to 100 letters, digits or !#$%&'*+.^_`|~- (no spaces or colons)."
    if name.lower() in _RESERVED_HEADERS:
        return f"{name} is set by the MCP transport itself; use Authorization or a custom header."
    return ""


def stdio_keys() -> list[str]:
    """The stdio servers a team may choose from, as the administrator configured them."""
    return sorted(_configured())


def stdio_command(key: str) -> StdioCommand:
    """The command behind ``key``, or Refused: unknown keys and malformed entries never start a process."""
    entry = _configured().get(key)
    if entry is None:
        raise Refused(f"No stdio MCP server named {key!r} is configured on this deployment.")
    if not isinstance(entry, dict):
        raise Refused(f"The stdio MCP server {key!r} is misconfigured: its entry must be an object.")
    command, env, cwd = entry.get("command"), entry.get("env") or {}, entry.get("cwd")
    if not (isinstance(command, list) and command and all(isinstance(part, str) and part for part in command)):
        raise Refused(f'The stdio MCP server {key!r} is misconfigured: "command" must be a list of strings.')
    if not (isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise Refused(f'The stdio MCP server {key!r} is misconfigured: "env" must map names to strings.')
    if cwd is not None and not isinstance(cwd, str):
        raise Refused(f'The stdio MCP server {key!r} is misconfigured: "cwd" must be a string.')
    return StdioCommand(key, list(command), dict(env), cwd)


def _configured() -> dict[str, Any]:
    servers = getattr(settings, "CROSSWIRE_MCP_STDIO_SERVERS", {}) or {}
    return servers if isinstance(servers, dict) else {}
