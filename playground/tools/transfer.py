"""Tool sets in and out: OpenAI and Anthropic tool lists, and Crosswire's own full-fidelity format.

Vendor shapes come from the codecs (an OpenAI Chat tool *is* the internal ToolSpec; Anthropic's is
``providers.anthropic.encode_tools``/``import_tools``). How a call is answered (mode, canned rules, built-in) exists
only in Crosswire, so only the "crosswire" format carries it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from django.db import transaction

from playground.tools import limits
from playground.tools.builtins import BUILTINS
from playground.tools.config import ToolConfig
from playground.tools.forms import check_when, unique_name
from playground.tools.models import HAND_SET_MODES, Tool
from playground.tools.schema import check_schema, check_schema_limits, check_tool_name
from providers import anthropic
from providers.jsonsafe import JSONInputError

if TYPE_CHECKING:
    from playground.teams.models import Team

ExportFormat = Literal["openai", "anthropic", "crosswire"]
EXPORT_FORMATS: dict[str, str] = {"openai": "OpenAI", "anthropic": "Anthropic", "crosswire": "Crosswire"}
CROSSWIRE_FORMAT = "crosswire.tools"
CROSSWIRE_VERSION = 1
MAX_IMPORT_TOOLS = 500
SPEC_FIELDS = ("name", "description", "parameters", "strict")
CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(ToolConfig))

Action = Literal["create", "rename", "skip", "error"]


class ImportRefused(Exception):
    """The whole document is unusable; the message says why."""


def export_payload(tools: list[Tool], fmt: str) -> Any:
    specs = [tool.config().spec() for tool in tools]
    if fmt == "openai":
        return specs
    if fmt == "anthropic":
        return anthropic.encode_tools(specs)
    return {
        "format": CROSSWIRE_FORMAT,
        "version": CROSSWIRE_VERSION,
        "tools": [tool.config().to_dict() for tool in tools],
    }


# --- reading a document ------------------------------------------------------------------------------------------


def _detect(entries: list[Any]) -> str:
    dicts = [e for e in entries if isinstance(e, dict)]
    if any("function" in e for e in dicts):
        return "openai"
    if any("mode" in e or "canned_rules" in e for e in dicts):
        return "crosswire"
    return "anthropic"  # whatever else it is, Anthropic's importer says whether it can read it


def read_document(text: str, fmt: str = "auto") -> tuple[str, list[Any]]:
    """The format (given or detected) and the raw tool entries, or ImportRefused.

    The size and depth limits hold for the whole document, so nothing below (the codecs, the schema checks) can
    meet more than ``CROSSWIRE_MAX_JSON_DEPTH`` levels.
    """
    try:
        document = limits.read_json(text, what="The tool list", limit=limits.import_bytes())
    except JSONInputError as exc:
        raise ImportRefused(str(exc)) from None
    if isinstance(document, dict) and document.get("format") == CROSSWIRE_FORMAT:
        if document.get("version") != CROSSWIRE_VERSION:
            raise ImportRefused(f"Unsupported Crosswire export version {document.get('version')!r}.")
        fmt = "crosswire" if fmt == "auto" else fmt
    if isinstance(document, dict):
        # A whole request body, or a single tool pasted on its own.
        document = document["tools"] if isinstance(document.get("tools"), list) else [document]
    if not isinstance(document, list):
        raise ImportRefused("Expected a JSON list of tools (or an object with a `tools` list).")
    if not document:
        raise ImportRefused("The list holds no tools.")
    if len(document) > MAX_IMPORT_TOOLS:
        raise ImportRefused(f"{len(document)} tools is more than the {MAX_IMPORT_TOOLS} one import takes.")
    if fmt == "auto" and not any(isinstance(e, dict) and _TOOL_KEYS & e.keys() for e in document):
        # Nothing a tool in any format has: said as such, not as one format's refusal of every entry.
        raise ImportRefused(NOT_TOOLS)
    return (_detect(document) if fmt == "auto" else fmt), document


# Keys a tool has in at least one format (OpenAI's "function", Anthropic's "name" and "input_schema", ours).
_TOOL_KEYS = frozenset({"function", "name", "input_schema", "mode", "canned_rules"})
NOT_TOOLS = (
    'Nothing here looks like a tool: expected OpenAI tools ({"type": "function", "function": {...}}), '
    'Anthropic tools ({"name", "input_schema"}), a request body with `tools`, or a Crosswire export.'
)


@dataclass
class Candidate:
    position: int
    name: str
    config: ToolConfig | None = None
    problems: list[str] = field(default_factory=list)


def _label(entry: Any, position: int) -> str:
    if isinstance(entry, dict):
        function = entry.get("function")
        name = function.get("name") if isinstance(function, dict) else entry.get("name")
        if isinstance(name, str) and name:
            return name
    return f"tool {position + 1}"


def _function_fields(entry: Any, fmt: str) -> tuple[dict[str, Any] | None, str]:
    """name/description/parameters/strict (plus Crosswire's own fields), or why the entry is not a tool."""
    if not isinstance(entry, dict):
        return None, "Not a JSON object."
    if fmt == "openai":
        function = entry.get("function")
        if entry.get("type") != "function" or not isinstance(function, dict):
            return None, 'Not an OpenAI function tool: expected {"type": "function", "function": {...}}.'
        return dict(function), ""
    if fmt == "anthropic":
        specs = anthropic.import_tools([entry])
        if not specs:
            return None, "Not an Anthropic custom tool with a name (server tools such as web search are not tools)."
        return dict(specs[0]["function"]), ""
    return dict(entry), ""


def _rule_problems(rules: Any) -> list[str]:
    if not isinstance(rules, list):
        return ["canned_rules: must be a list of rules."]
    problems = []
    for number, rule in enumerate(rules, start=1):
        when = rule.get("when", {}) if isinstance(rule, dict) else None
        response = rule.get("response", "") if isinstance(rule, dict) else ""
        if not isinstance(when, dict):
            problems.append(f"canned_rules rule {number}: `when` must be a JSON object.")
        elif error := check_when(json.dumps(when))[1] or _answer_problem(response, "The response"):
            problems.append(f"canned_rules rule {number}: {error}")
    return problems


def _answer_problem(answer: Any, what: str) -> str:
    """The same limits as the editor's canned answers, which are always text (null reads as no answer)."""
    if answer is None:
        return ""
    if not isinstance(answer, str):
        return f"{what} must be a string."
    return limits.answer_refusal(answer, what)


def _crosswire_problems(fields: dict[str, Any]) -> list[str]:
    mode = fields.get("mode", Tool.Mode.MANUAL)
    if mode == Tool.Mode.MCP:
        return ["mode: 'mcp' tools come from an MCP server; add the server to the team and sync its tools."]
    if mode not in Tool.Mode.values:
        return [f"mode: {mode!r} is not one of {', '.join(v for v, _ in HAND_SET_MODES)}."]
    if mode == Tool.Mode.BUILTIN and fields.get("builtin") not in BUILTINS:
        return [f"builtin: {fields.get('builtin')!r} is not a built-in tool ({', '.join(BUILTINS)})."]
    problems = _rule_problems(fields.get("canned_rules", []))
    if default := _answer_problem(fields.get("canned_default", ""), "The default response"):
        problems.append(f"canned_default: {default}")
    return problems


def _problems(fields: dict[str, Any], fmt: str) -> list[str]:
    name = fields.get("name")
    if not isinstance(name, str):
        return ["name: missing."]
    problems = [f"name: {p.message}" for p in check_tool_name(name)]
    if not isinstance(fields.get("description") or "", str):
        problems.append("description: must be a string.")
    if fields.get("strict") not in (None, True, False):
        problems.append("strict: must be true or false.")
    schema = fields.get("parameters", {"type": "object", "properties": {}})
    # The limits first: a schema over them is refused before the meta-schema validator spends time on it.
    schema_problems = check_schema_limits(schema) or check_schema(schema)
    problems.extend(f"parameters{p.path}: {p.message}" for p in schema_problems)
    if fmt == "crosswire":
        problems.extend(_crosswire_problems(fields))
    return problems


def read_entry(entry: Any, position: int, fmt: str) -> Candidate:
    candidate = Candidate(position, _label(entry, position))
    fields, refusal = _function_fields(entry, fmt)
    if fields is None:
        candidate.problems.append(refusal)
        return candidate
    candidate.problems = _problems(fields, fmt)
    if not candidate.problems:
        known = CONFIG_FIELDS if fmt == "crosswire" else SPEC_FIELDS
        kept = {key: value for key, value in fields.items() if key in known and value is not None}
        candidate.config = ToolConfig.from_dict(kept)
    return candidate


# --- planning and applying ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    candidate: Candidate
    action: Action
    name: str  # the name the tool gets; the original when skipped or refused


def plan(candidates: list[Candidate], existing: set[str], *, on_conflict: str) -> list[Planned]:
    """What importing would do to each tool; later duplicates in the same document count as existing."""
    taken = set(existing)
    planned = []
    for candidate in candidates:
        if candidate.config is None:
            planned.append(Planned(candidate, "error", candidate.name))
        elif candidate.config.name not in taken:
            taken.add(candidate.config.name)
            planned.append(Planned(candidate, "create", candidate.config.name))
        elif on_conflict == "rename":
            new_name = unique_name(candidate.config.name, taken, suffix="_imported")
            taken.add(new_name)
            planned.append(Planned(candidate, "rename", new_name))
        else:
            planned.append(Planned(candidate, "skip", candidate.config.name))
    return planned


def preview(team: Team, text: str, fmt: str, on_conflict: str) -> tuple[str, list[Planned]]:
    detected, entries = read_document(text, fmt)
    candidates = [read_entry(entry, position, detected) for position, entry in enumerate(entries)]
    return detected, plan(candidates, set(team.tools.values_list("name", flat=True)), on_conflict=on_conflict)


def apply(team: Team, planned: list[Planned]) -> list[Tool]:
    created = []
    with transaction.atomic():
        for item in planned:
            if item.action in ("create", "rename") and item.candidate.config is not None:
                fields = {**item.candidate.config.to_dict(), "name": item.name}
                created.append(Tool.objects.create(team=team, **fields))
    return created
