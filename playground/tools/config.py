"""A tool as a conversation runs it: a frozen snapshot, so editing the tool later never rewrites history."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from playground.tools import builtins, canned
from playground.tools.builtins import Builtin, ToolTimeout
from playground.tools.content import as_content
from playground.tools.modules import ToolArgumentsError
from playground.tools.results import ToolFailure, ToolResult
from playground.tools.schema import check_arguments
from providers.types import ToolSpec

Mode = Literal["manual", "canned", "builtin", "mcp"]


@dataclass(frozen=True)
class ToolConfig:
    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    strict: bool = False
    mode: Mode = "manual"
    builtin: str = ""
    canned_rules: tuple[canned.CannedRule, ...] = ()
    canned_default: str = ""
    # Mode "mcp": the MCPServer row that answers and the tool's name on that server (playground/mcp/answer.py).
    mcp_server_id: int | None = None
    mcp_tool: str = ""

    def spec(self) -> ToolSpec:
        function: dict[str, Any] = {"name": self.name, "description": self.description, "parameters": self.parameters}
        if self.strict:
            function["strict"] = True
        return {"type": "function", "function": function}  # type: ignore[typeddict-item]

    def to_dict(self) -> dict[str, Any]:
        # Only an MCP tool carries its server, so every other snapshot and export reads exactly as before.
        mcp = {"mcp_server_id": self.mcp_server_id, "mcp_tool": self.mcp_tool} if self.mode == "mcp" else {}
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "strict": self.strict,
            "mode": self.mode,
            "builtin": self.builtin,
            "canned_rules": [
                {"when": r.when, "response": r.response, "is_error": r.is_error} for r in self.canned_rules
            ],
            "canned_default": self.canned_default,
            **mcp,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolConfig:
        return cls(
            name=data["name"],
            description=data.get("description", ""),
            parameters=data.get("parameters") or {"type": "object", "properties": {}},
            strict=bool(data.get("strict", False)),
            mode=data.get("mode", "manual"),
            builtin=data.get("builtin", ""),
            canned_rules=tuple(canned.CannedRule.from_dict(r) for r in data.get("canned_rules", [])),
            canned_default=data.get("canned_default", ""),
            mcp_server_id=data.get("mcp_server_id"),
            mcp_tool=data.get("mcp_tool", ""),
        )


def _problems(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    return check_arguments(schema, json.dumps(arguments)).summary()


def _refusal(tool: ToolConfig, arguments: dict[str, Any]) -> tuple[Builtin | None, ToolResult | None]:
    """The built-in that answers, or the result that answers instead of running it (unknown, invalid arguments)."""
    builtin = builtins.BUILTINS.get(tool.builtin)
    if builtin is None:
        return None, ToolResult(f"Unknown built-in {tool.builtin!r}.", True, "builtin")
    # The tool's own schema may have been loosened by hand: the built-in still needs what it declares.
    problems = _problems(builtin.parameters, arguments)
    if problems:
        return None, ToolResult(f"Invalid arguments for {builtin.name}: {problems}", True, f"builtin:{builtin.name}")
    return builtin, None


def _failure(builtin: Builtin, exc: Exception) -> ToolResult:
    source = f"builtin:{builtin.name}"
    if isinstance(exc, ToolFailure | ToolTimeout):
        return ToolResult(str(exc), True, source)
    if isinstance(exc, ToolArgumentsError):  # the function's own model refused what the schema let through
        return ToolResult(f"Invalid arguments for {builtin.name}: {exc}", True, source)
    # A bug in one tool must not end the run: the model gets the error instead.
    return ToolResult(f"{builtin.name} failed: {type(exc).__name__}: {exc}", True, source)


def _result(builtin: Builtin, value: Any) -> ToolResult:
    return ToolResult(as_content(value), False, f"builtin:{builtin.name}")


def answer_automatically(tool: ToolConfig, arguments: dict[str, Any]) -> ToolResult | None:
    """The result of a canned or built-in tool; None when a person must answer (manual mode).

    A built-in runs on a worker thread while this thread waits (at most its time limit); from async code prefer
    ``answer_module_tool``, which waits without holding the event loop.
    """
    if tool.mode == "canned":
        return canned.answer(list(tool.canned_rules), tool.canned_default, arguments)
    if tool.mode != "builtin":
        return None
    builtin, refused = _refusal(tool, arguments)
    if builtin is None:
        return refused
    try:
        return _result(builtin, builtins.run_blocking(builtin, arguments))
    except Exception as exc:
        return _failure(builtin, exc)


async def answer_module_tool(tool: ToolConfig, arguments: dict[str, Any]) -> ToolResult | None:
    """``answer_automatically`` for async callers: an async built-in is awaited, a plain one runs in a thread, both
    within their time limit, and the event loop stays free meanwhile."""
    if tool.mode != "builtin":
        return answer_automatically(tool, arguments)
    builtin, refused = _refusal(tool, arguments)
    if builtin is None:
        return refused
    try:
        return _result(builtin, await builtins.run(builtin, arguments))
    except Exception as exc:
        return _failure(builtin, exc)
