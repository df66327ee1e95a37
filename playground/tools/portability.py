"""The portability check (``providers.portability``) as the Tools pages show it: per target, its verdict, its
findings with their `code` spans set in code, and what is sent."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from playground.tools.schema import TOOL_NAME
from providers.portability import Finding, TargetReport, check_portability

VERDICTS = {"error": "refuses it", "change": "changes it", "ok": "takes it as is"}
SYMBOLS = {"error": "✗", "change": "~", "ok": "✓"}
_CODE = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class FindingView:
    finding: Finding

    @property
    def target(self) -> str:
        return self.finding.target

    @property
    def level(self) -> str:
        return self.finding.level

    @property
    def html(self) -> SafeString:
        # Escaped first, so only the code spans this adds are markup.
        return mark_safe(_CODE.sub(r"<code>\1</code>", escape(self.finding.message)))


@dataclass(frozen=True)
class TargetView:
    report: TargetReport

    @property
    def id(self) -> str:
        return self.report.target.id

    @property
    def label(self) -> str:
        return self.report.target.label

    @property
    def short(self) -> str:
        return self.report.target.short

    @property
    def level(self) -> str:
        return self.report.level

    @property
    def verdict(self) -> str:
        return VERDICTS[self.level]

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.level]

    @property
    def findings(self) -> list[FindingView]:
        return [FindingView(f) for f in self.report.findings]

    @property
    def summary(self) -> str:
        """One line per finding, for a tooltip."""
        return f"{self.label}: {self.verdict}\n" + "\n".join(f"• {f.message}" for f in self.report.findings)

    @property
    def preview(self) -> str:
        return self.report.sent_text if self.report.sent is not None else ""


def refusing(targets: list[TargetView] | None) -> str:
    """The targets that refuse the tool, as "Gemini" or "Anthropic and Gemini"; "" when none does."""
    labels = [target.label for target in targets or [] if target.level == "error"]
    return " and ".join([", ".join(labels[:-1]), labels[-1]] if len(labels) > 1 else labels)


def tool_portability(schema: Any, *, name: str = "", description: str = "", strict: bool = False) -> list[TargetView]:
    """Every target's view of a valid schema; a name that is not valid yet is checked as ``tool``."""
    name = name.strip()
    checked_name = name if TOOL_NAME.match(name) else "tool"
    reports = check_portability(schema, name=checked_name, description=description, strict=strict)
    return [TargetView(report) for report in reports]
