"""A chat's settings, validated: the same rules for the page form and the WebSocket ``send`` message."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from django import forms

from providers.strategies import STRATEGIES

TOOL_CHOICES = ("auto", "none", "required")


@dataclass(frozen=True)
class ChatOptions:
    endpoint_id: int
    model: str
    system: str = ""
    tools: list[str] = field(default_factory=list)  # names of the team's tools to enable
    tool_choice: str = "auto"  # auto | none | required | the name of one enabled tool
    parallel_tool_calls: bool = True
    temperature: float | None = None
    max_tokens: int = 1024
    reasoning: bool = False
    stream: bool = True
    approve: bool = False
    max_round_trips: int = 8
    max_invalid_retries: int = 2
    strategy: str = "auto"  # auto | native | strict | structured | prompted

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class OptionsForm(forms.Form):
    endpoint_id = forms.IntegerField()
    model = forms.CharField(max_length=200)
    system = forms.CharField(required=False, max_length=100_000, strip=False)
    tools = forms.JSONField(required=False)
    tool_choice = forms.CharField(required=False, max_length=64)
    parallel_tool_calls = forms.BooleanField(required=False)
    temperature = forms.FloatField(required=False, min_value=0, max_value=2)
    max_tokens = forms.IntegerField(required=False, min_value=1, max_value=200_000)
    reasoning = forms.BooleanField(required=False)
    stream = forms.BooleanField(required=False)
    approve = forms.BooleanField(required=False)
    max_round_trips = forms.IntegerField(required=False, min_value=1, max_value=50)
    max_invalid_retries = forms.IntegerField(required=False, min_value=0, max_value=10)
    strategy = forms.ChoiceField(required=False, choices=[(name, name) for name in STRATEGIES])

    def clean_tools(self) -> list[str]:
        tools = self.cleaned_data.get("tools") or []
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise forms.ValidationError("tools must be a list of tool names")
        return tools

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        choice = data.get("tool_choice") or "auto"
        if choice not in TOOL_CHOICES and choice not in (data.get("tools") or []):
            # Shown after the field's name ("tool_choice: …"), so the message does not say it again.
            self.add_error("tool_choice", f"{choice!r} is not auto, none, required or an enabled tool")
        return data

    def options(self) -> ChatOptions:
        data = self.cleaned_data
        defaults = ChatOptions(endpoint_id=0, model="")
        return ChatOptions(
            endpoint_id=data["endpoint_id"],
            model=data["model"],
            system=data.get("system") or "",
            tools=data.get("tools") or [],
            tool_choice=data.get("tool_choice") or "auto",
            parallel_tool_calls=bool(data.get("parallel_tool_calls")),
            temperature=data.get("temperature"),
            max_tokens=data.get("max_tokens") or defaults.max_tokens,
            reasoning=bool(data.get("reasoning")),
            stream=bool(data.get("stream")),
            approve=bool(data.get("approve")),
            max_round_trips=data.get("max_round_trips") or defaults.max_round_trips,
            max_invalid_retries=_or(data.get("max_invalid_retries"), defaults.max_invalid_retries),
            strategy=data.get("strategy") or defaults.strategy,
        )


class _SharedFields(dict[str, forms.Field]):
    """A form's fields, shared by every instance instead of deep-copied into each (as Django does, in case one
    instance changes its own). ``OptionsForm`` is never rendered and changes none: it only validates, once per turn
    sent, on the event loop, where the copy of its 14 fields was two thirds of its 0.2 ms."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        return dict(self)


OptionsForm.base_fields = _SharedFields(OptionsForm.base_fields)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def parse_options(payload: dict[str, Any]) -> tuple[ChatOptions | None, dict[str, list[str]]]:
    form = OptionsForm(data=payload)
    if not form.is_valid():
        return None, {k: [str(m) for m in v] for k, v in form.errors.items()}
    return form.options(), {}


def changed_parameters(options: dict[str, Any]) -> list[str]:
    """The drawer's settings that differ from a first chat's, in a few words each: a new chat starts from the last
    one's settings, and the drawer is folded, so its summary says what will apply (an approval asked for, a small
    token limit) before a message is sent."""
    defaults = ChatOptions(endpoint_id=0, model="").to_dict()
    changed = [name for name in _SAID if options.get(name, defaults[name]) != defaults[name]]
    return [_SAID[name](options[name]) for name in changed]


# What the summary says of each drawer setting that differs from its default (the Tools and the endpoint are shown).
_SAID: dict[str, Any] = {
    "system": lambda _: "system prompt",
    "temperature": lambda value: f"temperature {value}",
    "max_tokens": lambda value: f"max tokens {value}",
    "max_round_trips": lambda value: f"max round trips {value}",
    "max_invalid_retries": lambda value: f"retries {value}",
    "parallel_tool_calls": lambda _: "no parallel calls",
    "stream": lambda _: "not streamed",
    "reasoning": lambda _: "reasoning",
    "approve": lambda _: "approve before running",
}
