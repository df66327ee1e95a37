"""The tool editor's form: definition, schema checks and how calls are answered, each problem in plain words."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django import forms

from playground.tools import limits
from playground.tools.builtins import BUILTINS
from playground.tools.models import HAND_SET_MODES, Tool
from playground.tools.schema import Problem, check_tool_name, parse_schema_text, portability
from providers.jsonsafe import JSONInputError

if TYPE_CHECKING:
    from django.http import QueryDict

    from playground.teams.models import Team

MAX_RULES = 200
RULE_KEY = re.compile(r"^rule-(\d{1,4})-(when|response|is_error)$")


@dataclass(frozen=True)
class SchemaTemplate:
    key: str
    label: str
    schema: dict[str, Any]


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


SCHEMA_TEMPLATES: dict[str, SchemaTemplate] = {
    t.key: t
    for t in [
        SchemaTemplate(
            "weather",
            "weather (city + unit enum)",
            _object(
                {
                    "city": {"type": "string", "description": "City name, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                ["city", "unit"],
            ),
        ),
        SchemaTemplate(
            "search",
            "search (query + limit)",
            _object(
                {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Results to return"},
                },
                ["query", "limit"],
            ),
        ),
        SchemaTemplate("empty", "no arguments", _object({}, [])),
        SchemaTemplate(
            "nested",
            "nested object + array",
            _object(
                {
                    "customer": _object({"name": {"type": "string"}, "email": {"type": "string"}}, ["name", "email"]),
                    "items": {
                        "type": "array",
                        "items": _object(
                            {"sku": {"type": "string"}, "quantity": {"type": "integer"}}, ["sku", "quantity"]
                        ),
                    },
                },
                ["customer", "items"],
            ),
        ),
    ]
}


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class SchemaReport:
    """Errors block saving; warnings (portability lints) only inform."""

    errors: list[Problem]
    warnings: list[Problem]
    schema: dict[str, Any] | None


def schema_report(text: str, *, strict: bool) -> SchemaReport:
    schema, errors = parse_schema_text(text)
    if errors or not isinstance(schema, dict):
        return SchemaReport(errors, [], None)
    return SchemaReport([], portability(schema, strict=strict), schema)


def name_taken(team: Team, name: str, *, exclude_pk: int | None = None) -> bool:
    return team.tools.filter(name=name).exclude(pk=exclude_pk).exists()


def name_problems(team: Team, name: str, *, exclude_pk: int | None = None) -> list[str]:
    if not name:
        return ["A name is required."]
    problems = [p.message for p in check_tool_name(name)]
    if not problems and name_taken(team, name, exclude_pk=exclude_pk):
        problems.append(f"The team already has a tool called {name!r}.")
    return problems


def unique_name(base: str, taken: set[str], *, suffix: str) -> str:
    """``base + suffix``, then ``_2``, ``_3``...; cut to stay within the 64 characters providers accept."""
    number = 1
    while True:
        ending = suffix if number == 1 else f"{suffix}_{number}"
        candidate = base[: 64 - len(ending)] + ending
        if candidate not in taken:
            return candidate
        number += 1


# --- canned rules ------------------------------------------------------------------------------------------------


@dataclass
class RuleRow:
    """One row of the rules editor as typed, so a refused save shows it back unchanged."""

    index: int
    when: str = ""
    response: str = ""
    is_error: bool = False
    error: str = ""
    parsed: dict[str, Any] = field(default_factory=dict)

    @property
    def blank(self) -> bool:
        return not self.when.strip() and not self.response.strip()


def check_when(text: str) -> tuple[dict[str, Any], str]:
    """The parsed ``when`` object and "" when it is usable, else an explanation."""
    if not text.strip():
        return {}, ""  # no conditions: the rule matches every call
    try:
        value = limits.read_json(text, what="`when`", limit=limits.canned_bytes(), invalid="`when` is not valid JSON")
    except JSONInputError as exc:
        return {}, str(exc)
    if not isinstance(value, dict):
        return {}, '`when` must be a JSON object of argument paths to values, e.g. {"city": "Paris"}.'
    for path in value:
        if not path or any(not part for part in path.split(".")):
            return {}, f"{path!r} is not an argument path: use names joined by dots, e.g. customer.name."
    return value, ""


def rule_rows(data: QueryDict) -> list[RuleRow]:
    indexes = sorted({int(match.group(1)) for key in data if (match := RULE_KEY.match(key))})[:MAX_RULES]
    return [
        RuleRow(
            index=i,
            when=data.get(f"rule-{i}-when", ""),
            response=data.get(f"rule-{i}-response", ""),
            is_error=f"rule-{i}-is_error" in data,
        )
        for i in indexes
    ]


def rows_from_rules(rules: list[dict[str, Any]]) -> list[RuleRow]:
    return [
        RuleRow(i, pretty(r.get("when") or {}), str(r.get("response", "")), bool(r.get("is_error", False)))
        for i, r in enumerate(rules)
    ]


def checked_rules(rows: list[RuleRow]) -> list[str]:
    """Validates the rows in place (blank ones are dropped) and returns one message per refused rule."""
    errors = []
    for number, row in enumerate((r for r in rows if not r.blank), start=1):
        row.parsed, row.error = check_when(row.when)
        row.error = row.error or limits.answer_refusal(row.response, "The response")
        if row.error:
            errors.append(f"Rule {number}: {row.error}")
    return errors


# --- the form ----------------------------------------------------------------------------------------------------


class ToolForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    description = forms.CharField(required=False, strip=False)
    parameters = forms.CharField(required=False, strip=False)
    strict = forms.BooleanField(required=False)
    mode = forms.ChoiceField(choices=HAND_SET_MODES, initial=Tool.Mode.MANUAL)
    # A callable: the built-ins are the configured tool modules' tools, loaded when the app starts.
    builtin = forms.ChoiceField(choices=lambda: [("", "Choose…"), *((n, n) for n in BUILTINS)], required=False)
    canned_default = forms.CharField(required=False, strip=False)

    def __init__(self, data: QueryDict | None = None, *, team: Team, instance: Tool | None = None) -> None:
        super().__init__(data, initial=_initial(instance))
        self.team = team
        self.instance = instance
        rules = instance.canned_rules if instance is not None else []
        self.rules = rule_rows(data) if data is not None else rows_from_rules(rules)
        strict = bool(data.get("strict")) if data is not None else bool(instance and instance.strict)
        self.report = schema_report(self["parameters"].value() or "", strict=strict)

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        problems = name_problems(self.team, name, exclude_pk=self.instance.pk if self.instance else None)
        if problems:
            raise forms.ValidationError(problems)
        return name

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.report.errors:
            count = len(self.report.errors)
            self.add_error("parameters", f"The schema has {count} problem{'s' if count != 1 else ''} (listed below).")
        mode = cleaned.get("mode")
        if mode == Tool.Mode.BUILTIN and cleaned.get("builtin") not in BUILTINS:
            self.add_error("builtin", "Choose which built-in answers the calls.")
        if mode == Tool.Mode.CANNED:
            for message in checked_rules(self.rules):
                self.add_error(None, message)
            if refusal := limits.answer_refusal(cleaned.get("canned_default", ""), "The default response"):
                self.add_error("canned_default", refusal)
        return cleaned

    def save(self) -> Tool:
        """Each mode keeps only its own settings, so what the editor shows is exactly what runs."""
        data = self.cleaned_data
        tool = self.instance or Tool(team=self.team)
        tool.name = data["name"]
        tool.description = data["description"]
        tool.parameters = self.report.schema or {"type": "object", "properties": {}}
        tool.strict = data["strict"]
        tool.mode = data["mode"]
        tool.builtin = data["builtin"] if tool.mode == Tool.Mode.BUILTIN else ""
        canned = tool.mode == Tool.Mode.CANNED
        rows = [r for r in self.rules if not r.blank] if canned else []
        tool.canned_rules = [{"when": r.parsed, "response": r.response, "is_error": r.is_error} for r in rows]
        tool.canned_default = data["canned_default"] if canned else ""
        tool.save()
        return tool


def _initial(instance: Tool | None) -> dict[str, Any]:
    if instance is None:
        return {"parameters": pretty(SCHEMA_TEMPLATES["empty"].schema), "mode": Tool.Mode.MANUAL}
    return {
        "name": instance.name,
        "description": instance.description,
        "parameters": pretty(instance.parameters),
        "strict": instance.strict,
        "mode": instance.mode,
        "builtin": instance.builtin,
        "canned_default": instance.canned_default,
    }
