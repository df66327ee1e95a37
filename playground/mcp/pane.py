"""The pane beside an MCP tool result: the call's JSON-RPC messages, as saved in the tool message's meta.

``meta["mcp_traffic"]`` holds ``TrafficEntry.to_dict()`` rows. A saved conversation may also have been imported, so
nothing in meta is trusted to have the right shape: whatever is not a traffic row is skipped, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PaneEntry:
    direction: str  # "sent" (by Crosswire) or "received" (from the server)
    t_ms: float
    label: str  # the method, or what a response answers ("result of tools/call #2")
    json: str  # the message, pretty-printed; "" when the transport reported an error instead
    error: str  # the transport's report, or the JSON-RPC error's message
    is_error: bool
    # Shown unfolded: the call itself, its answer and anything that went wrong. The handshake and the SDK's own
    # requests around the call are a click away.
    unfolded: bool = False


@dataclass(frozen=True)
class Pane:
    server: str
    tool: str
    entries: list[PaneEntry]

    @property
    def total_ms(self) -> float:
        return max((entry.t_ms for entry in self.entries), default=0.0)

    @property
    def has_error(self) -> bool:
        return any(entry.is_error for entry in self.entries)


def pane(meta: Any) -> Pane | None:
    """The pane for a tool message's meta, or None when the result did not come from an MCP server."""
    if not isinstance(meta, Mapping) or not isinstance(meta.get("mcp_traffic"), list):
        return None
    rows = [row for row in meta["mcp_traffic"] if isinstance(row, Mapping)]
    methods: dict[Any, str] = {}  # request id -> method, to say what each response answers
    entries = [_entry(row, methods) for row in rows]
    return Pane(server=_server(meta), tool=str(meta.get("mcp_tool") or ""), entries=entries)


def _server(meta: Mapping[str, Any]) -> str:
    if meta.get("mcp_server"):
        return str(meta["mcp_server"])
    source = str(meta.get("source") or "")  # "mcp:<server name>", as the client labels its results
    return source.removeprefix("mcp:") if source.startswith("mcp:") else ""


def _entry(row: Mapping[str, Any], methods: dict[Any, str]) -> PaneEntry:
    direction = "sent" if row.get("direction") == "sent" else "received"
    t_ms = row.get("t_ms")
    t_ms = float(t_ms) if isinstance(t_ms, int | float) and not isinstance(t_ms, bool) else 0.0
    message = row.get("message")
    transport_error = str(row.get("error") or "")
    if not isinstance(message, Mapping):
        return PaneEntry(direction, t_ms, "transport error", "", transport_error or "No message.", True, True)
    label, error = _describe(message, methods)
    pretty = json.dumps(message, indent=2, ensure_ascii=False, default=str)
    is_error = bool(error or transport_error)
    unfolded = is_error or label.startswith(("tools/call", "result of tools/call"))
    return PaneEntry(direction, t_ms, label, pretty, error or transport_error, is_error, unfolded)


def _describe(message: Mapping[str, Any], methods: dict[Any, str]) -> tuple[str, str]:
    """The entry's label, and the error it carries ("" for none)."""
    ident = message.get("id")
    number = f" #{ident}" if isinstance(ident, int | str) and not isinstance(ident, bool) else ""
    method = message.get("method")
    if isinstance(method, str):
        if number:
            methods[ident] = method
        return f"{method}{number}", ""
    answered = methods.get(ident, "") if number else ""
    of = f" of {answered}" if answered else ""
    error = message.get("error")
    if error is not None:
        text = error.get("message") if isinstance(error, Mapping) else error
        return f"error{of}{number}", str(text or "JSON-RPC error")
    result = message.get("result")
    if isinstance(result, Mapping) and result.get("isError") is True:
        # A tool that failed answers with a result, not a JSON-RPC error; it is the call's error all the same.
        return f"result{of}{number}", "The tool reported an error (isError)."
    return f"result{of}{number}", ""
