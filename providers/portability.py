"""Will a tool's schema travel? For each target: what it refuses, what the translation changes, what is fine.

Nothing here re-implements a translation or a provider's rules. For each target the tool is translated by the real
code that would send it, and the result is judged by the simulator's validators (which mirror what the real APIs
refuse), so this check and the simulator always agree:

=================  ============================================  ==============================================
target             translated by                                 judged by
=================  ============================================  ==============================================
openai-chat        ``openai_chat`` codec (the tool's ``strict``)  ``simulator.strict_openai``; strict rules when
                                                                 the tool is strict
openai-strict      ``strategies.strict.strict_request``, then    the strict rules (``strict_responses``: the same
                   the ``openai_chat`` codec                      Structured Outputs engine) and size limits
openai-responses   ``openai_responses`` codec                    ``simulator.strict_responses``
anthropic          ``anthropic`` codec                           ``simulator.strict_anthropic``
gemini             ``gemini`` codec (``gemini.schema.to_gemini``) ``simulator.strict_gemini``
prompted           ``strategies.prompted.protocol_text``          nothing: the schema is text in the system prompt
                                                                 (always ``ok``, the preview shows the text)
=================  ============================================  ==============================================

A few refusals the simulator does not model are added from ``portability_rules`` (root type, strict mode's size
limits, Gemini's formats). A finding is an ``error`` (the target refuses the request), a ``change`` (the translation
alters the schema; ``sent`` shows what goes out) or ``ok`` (accepted as it is).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from providers import portability_rules as rules
from providers.formats import get_format
from providers.simulator import strict_anthropic, strict_gemini, strict_openai, strict_responses
from providers.strategies.prompted import protocol_text
from providers.strategies.strict import strict_request
from providers.types import ChatRequest, ToolSpec

Level = Literal["error", "change", "ok"]
LEVELS: tuple[Level, ...] = ("error", "change", "ok")  # worst first


@dataclass(frozen=True)
class Target:
    id: str
    label: str
    short: str  # for the compact badges of the Tools list


TARGETS: tuple[Target, ...] = (
    Target("openai-chat", "OpenAI Chat", "Chat"),
    Target("openai-strict", "OpenAI strict", "Strict"),
    Target("openai-responses", "OpenAI Responses", "Responses"),
    Target("anthropic", "Anthropic", "Anthropic"),
    Target("gemini", "Gemini", "Gemini"),
    Target("prompted", "Prompted", "Prompted"),
)
_BY_ID = {target.id: target for target in TARGETS}


@dataclass(frozen=True)
class Finding:
    target: str
    level: Level
    message: str


@dataclass(frozen=True)
class TargetReport:
    target: Target
    findings: tuple[Finding, ...]
    sent: Any  # the tool as this target gets it (its wire shape), or the prompt text; None when nothing can be sent

    @property
    def level(self) -> Level:
        return next(level for level in LEVELS if level == "ok" or any(f.level == level for f in self.findings))

    @property
    def sent_text(self) -> str:
        return self.sent if isinstance(self.sent, str) else json.dumps(self.sent, indent=2, ensure_ascii=False)


def check_portability(
    schema: Any, *, name: str = "tool", description: str = "", strict: bool = False
) -> list[TargetReport]:
    """One report per target, in ``TARGETS`` order."""
    key = json.dumps(schema, ensure_ascii=False)  # key order kept: properties go out in the order they are written
    return list(_cached(key, name, description, strict))


def portability_notes(
    tools: list[ToolSpec], format: str, *, strategy: str = "native", refusals_only: bool = False
) -> list[str]:
    """The errors and changes for the tools of a chat about to start, one note each (``tool `x`: ...``).

    ``format`` is the endpoint's wire format; ``strategy`` ``strict`` or ``prompted`` checks that target instead.
    Formats without a check give no notes. ``refusals_only``: the errors alone.
    """
    target = {"strict": "openai-strict", "prompted": "prompted"}.get(strategy, format)
    if target not in _BY_ID:
        return []
    notes = []
    for spec in tools:
        function = spec.get("function") or {}
        name = str(function.get("name") or "tool")
        reports = check_portability(
            function.get("parameters") or {},
            name=name,
            description=str(function.get("description") or ""),
            strict=function.get("strict") is True,
        )
        report = next(r for r in reports if r.target.id == target)
        for finding in report.findings:
            if finding.level == "error":
                notes.append(f"tool `{name}`: {report.target.label} will refuse it: {finding.message}")
            elif finding.level == "change" and not refusals_only:
                notes.append(f"tool `{name}`: for {report.target.label}, {finding.message}")
    return notes


@lru_cache(maxsize=512)  # the Tools list checks every tool on every view; schemas rarely change
def _cached(key: str, name: str, description: str, strict: bool) -> tuple[TargetReport, ...]:
    schema = json.loads(key)
    function: dict[str, Any] = {"name": name, "description": description, "parameters": schema}
    if strict:
        function["strict"] = True
    spec: ToolSpec = {"type": "function", "function": function}  # type: ignore[typeddict-item]
    return (
        _openai_chat(spec, strict),
        _openai_strict(spec),
        _native("openai-responses", spec, strict_responses.validate, _responses_tool, strict),
        _native("anthropic", spec, strict_anthropic.validate, lambda body: body["tools"][0], strict),
        _native("gemini", spec, strict_gemini.validate, _gemini_tool, strict),
        _prompted(spec),
    )


# --- each target ---------------------------------------------------------------------------------------------------

_REQUEST: ChatRequest = {"model": "portability-check", "messages": [{"role": "user", "content": "Hello"}]}


def _encode(fmt: str, spec: ToolSpec) -> tuple[dict[str, Any], list[str]]:
    """The wire body of a one-message request with this tool, and the notes the tool alone caused."""
    codec = get_format(fmt)
    baseline = set(codec.encode_request(dict(_REQUEST)).notes)  # type: ignore[arg-type]
    translated = codec.encode_request({**_REQUEST, "tools": [spec]})
    return translated.value, [note for note in translated.notes if note not in baseline]


def _native(fmt: str, spec: ToolSpec, validate: Any, tool_of: Any, strict: bool) -> TargetReport:
    try:
        body, notes = _encode(fmt, spec)
    except Exception as exc:  # the codec refuses what it cannot translate: that is the finding
        return _report(fmt, [Finding(fmt, "error", f"Crosswire cannot translate it: {exc}")], None)
    sent = tool_of(body)
    errors = _rejection(validate(body)) + _extra_errors(fmt, sent, strict)
    return _report(fmt, _findings(fmt, errors, _changes(notes)), sent)


def _openai_chat(spec: ToolSpec, strict: bool) -> TargetReport:
    report = _native("openai-chat", spec, strict_openai.validate, lambda body: body["tools"][0], strict)
    if not strict or report.sent is None:
        return report
    # The simulator's chat endpoint does not judge strict schemas; the API does, as Responses does.
    extra = _strict_errors(report.sent["function"]["name"], report.sent["function"]["parameters"])
    kept = [finding for finding in report.findings if finding.level != "ok"]
    return _report("openai-chat", [*(Finding("openai-chat", "error", e) for e in extra), *kept], report.sent)


def _openai_strict(spec: ToolSpec) -> TargetReport:
    forced: ToolSpec = {**spec, "function": {**spec["function"], "strict": True}}  # type: ignore[typeddict-item]
    translated = strict_request({**_REQUEST, "tools": [forced]})
    made_strict = translated.value["tools"][0]
    body, notes = _encode("openai-chat", made_strict)
    sent = body["tools"][0]
    function = sent["function"]
    errors = _rejection(strict_openai.validate(body)) + _strict_errors(function["name"], function["parameters"])
    errors += rules.root_object(function["parameters"], "OpenAI")
    return _report("openai-strict", _findings("openai-strict", errors, _changes([*translated.notes, *notes])), sent)


def _prompted(spec: ToolSpec) -> TargetReport:
    name = spec["function"]["name"]
    text = protocol_text([spec])
    section = text[text.index(f"### {name}") :] if f"### {name}" in text else text
    size = len(json.dumps(spec["function"]["parameters"], ensure_ascii=False))
    # The schema goes out as written, only as text: nothing to refuse, nothing changed, but nothing enforced either.
    fine = (
        f"sent as text in the system prompt ({size:,} characters of schema); no provider enforces it, "
        "Crosswire checks each call's arguments"
    )
    return _report("prompted", [Finding("prompted", "ok", fine)], section)


# --- findings ------------------------------------------------------------------------------------------------------


def _report(target: str, findings: list[Finding], sent: Any) -> TargetReport:
    if not findings:
        findings = [Finding(target, "ok", "accepted; the schema goes out unchanged")]
    return TargetReport(_BY_ID[target], tuple(findings), sent)


def _findings(target: str, errors: list[str], changes: list[str]) -> list[Finding]:
    return [Finding(target, "error", e) for e in errors] + [Finding(target, "change", c) for c in changes]


def _rejection(rejection: Any) -> list[str]:
    return [rejection.message.strip()] if rejection is not None else []


def _strict_errors(name: str, parameters: Any) -> list[str]:
    body = {"model": "portability-check", "input": "Hello", "tools": [_strict_tool(name, parameters)]}
    return _rejection(strict_responses.validate(body)) + rules.strict_limits(parameters)


def _strict_tool(name: str, parameters: Any) -> dict[str, Any]:
    return {"type": "function", "name": name, "parameters": parameters, "strict": True}


def _extra_errors(fmt: str, sent: Any, strict: bool) -> list[str]:
    if fmt == "openai-chat":
        return rules.root_object(sent["function"]["parameters"], "OpenAI")
    if fmt == "openai-responses":
        found = rules.root_object(sent["parameters"], "OpenAI")
        return found + (rules.strict_limits(sent["parameters"]) if sent.get("strict") else [])
    if fmt == "anthropic":
        return rules.root_object(sent["input_schema"], "Anthropic")
    if fmt == "gemini":
        return rules.gemini_formats(sent.get("parameters"))
    return []


_TOOL_PREFIX = re.compile(r"^(tool `[^`]*`|tools\[[^\]]*\]): ")
_GEMINI_SUBSET = "parameters changed for Gemini's schema subset: "


def _changes(notes: list[str]) -> list[str]:
    """The codecs' notes about the tool, one change each, without the tool's name they all start with."""
    changes: list[str] = []
    for note in notes:
        text = _TOOL_PREFIX.sub("", note)
        if "function names must match" in text:
            continue  # a warning only; the validator's refusal of the name says it
        if text.startswith(_GEMINI_SUBSET):
            changes.extend(text.removeprefix(_GEMINI_SUBSET).split("; "))
        else:
            changes.append(text)
    return changes


def _responses_tool(body: dict[str, Any]) -> Any:
    return body["tools"][0]


def _gemini_tool(body: dict[str, Any]) -> Any:
    tools = body.get("tools") or [{}]
    declarations = tools[0].get("functionDeclarations") or [None]
    return declarations[0]
