"""Canned responses: chosen by matching the call's arguments, first match wins, else the default.

Deterministic by design, so a replayed conversation gets the same tool results. A response that is a JSON array of
content parts is sent as those parts, so a canned answer may hold an image (``playground.tools.content``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.tools.content import content_of
from playground.tools.results import ToolResult

ANY = "*"  # a rule value that matches whenever the argument is present


@dataclass(frozen=True)
class CannedRule:
    when: dict[str, Any]  # dotted argument paths -> expected value ("*" = present)
    response: str
    is_error: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CannedRule:
        return cls(dict(data.get("when") or {}), str(data.get("response", "")), bool(data.get("is_error", False)))


_MISSING = object()


def _lookup(arguments: Any, path: str) -> Any:
    node = arguments
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _matches(rule: CannedRule, arguments: Any) -> bool:
    for path, expected in rule.when.items():
        actual = _lookup(arguments, path)
        if actual is _MISSING or (expected != ANY and actual != expected):
            return False
    return True


def answer(rules: list[CannedRule], default: str, arguments: Any) -> ToolResult:
    for number, rule in enumerate(rules, start=1):
        if _matches(rule, arguments):
            return ToolResult(content_of(rule.response), rule.is_error, f"canned:rule {number}")
    return ToolResult(content_of(default), False, "canned:default")
