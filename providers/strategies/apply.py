"""A strategy applied to one round trip's internal request, before the codec translates it.

``apply_strategy`` resolves ``auto`` with the capability table and returns what the codec must encode (``tools``
replaced by a response format or a prompt, or strict schemas), the response format to put on the wire body (the
codecs know nothing of it: ``wire.apply_response_format`` does that after encoding), and the notes that say what was
done. ``Applied`` also keeps what reading the reply needs: the tool names and their *original* schemas, since a
strict or structured reply holds ``null`` for every optional property the model left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.strategies.capabilities import AUTO, NATIVE, PROMPTED, STRATEGIES, STRICT, STRUCTURED, choose
from providers.strategies.prompted import prompted_request
from providers.strategies.strict import strict_request
from providers.strategies.structured import structured_request
from providers.translation import Translation
from providers.types import ChatRequest

# The strategies whose calls are read out of the reply text rather than from the provider's own tool calls.
TEXT_STRATEGIES = frozenset({STRUCTURED, PROMPTED})


@dataclass(frozen=True)
class Applied:
    strategy: str  # concrete: native, strict, structured or prompted
    request: ChatRequest  # what the codec encodes
    response_format: dict[str, Any] | None = None  # OpenAI Chat's shape; mapped per format on the wire body
    notes: list[str] = field(default_factory=list)
    tools: tuple[str, ...] = ()
    schemas: dict[str, Any] = field(default_factory=dict)  # tool name -> its original parameters

    @property
    def from_text(self) -> bool:
        return self.strategy in TEXT_STRATEGIES


def apply_strategy(format: str, request: ChatRequest, requested: str = NATIVE) -> Applied:
    """``requested``: one of ``STRATEGIES``; an unknown name is refused by ``choose`` (ValueError)."""
    if requested not in STRATEGIES:
        choose(format, request.get("model") or "", requested)  # raises with the list of known names
    functions = [tool.get("function") or {} for tool in request.get("tools") or []]
    names = tuple(str(f.get("name")) for f in functions if f.get("name"))
    schemas = {str(f.get("name")): f.get("parameters") for f in functions if f.get("name")}
    if not names:
        # Nothing to offer: every strategy would send the request as it is.
        notes = [] if requested in (AUTO, NATIVE) else [f"strategy {requested}: no tools in this request, sent as is"]
        return Applied(NATIVE, request, None, notes)
    strict_tools = any(f.get("strict") for f in functions)
    choice = choose(format, request.get("model") or "", requested, strict_tools=strict_tools)
    # Native when asked for (or picked by auto) says nothing: the notes are about what changed, and nothing did.
    quiet = choice.strategy == NATIVE and requested in (AUTO, NATIVE)
    notes = [] if quiet else [f"tool-calling strategy: {choice.strategy}. {choice.reason}"]
    if requested == STRICT:
        request, marked = _all_strict(request)
        if marked:
            notes.append(f"strict requested: strict: true set on {marked} tool(s) that did not have it")
    translated = _transform(choice.strategy, request)
    body: dict[str, Any] = dict(translated.value)
    response_format = body.pop("response_format", None)
    notes.extend(translated.notes)
    return Applied(choice.strategy, body, response_format, notes, names, schemas)  # type: ignore[arg-type]


def _transform(strategy: str, request: ChatRequest) -> Translation[ChatRequest]:
    if strategy == STRICT:
        return strict_request(request)
    if strategy == STRUCTURED:
        return structured_request(request)
    if strategy == PROMPTED:
        return prompted_request(request)
    return Translation(request, [])


def _all_strict(request: ChatRequest) -> tuple[ChatRequest, int]:
    """Every tool marked ``strict: true`` (a copy): asking for strict means strict schemas for all of them."""
    tools, marked = [], 0
    for tool in request.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("strict") is not True:
            marked += 1
            tool = {**tool, "function": {**function, "strict": True}}
        tools.append(tool)
    return {**request, "tools": tools}, marked  # type: ignore[typeddict-item]
