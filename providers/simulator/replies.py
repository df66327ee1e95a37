"""The words of the scripted model: its text replies and its reasoning, built from the turn it is answering.

Images it was sent are acknowledged by count, media type and size ("I see 1 image (image/png, 68 bytes).") after
the results it quotes, or after the echo of the user's words; a conversation without images reads as it always did.
"""

from __future__ import annotations

from providers.simulator.conversation import Choice, ToolResult, Turn, tool_names
from providers.simulator.directives import Directives
from providers.simulator.images import Image, seen
from providers.types import ToolSpec

_QUOTE_LIMIT = 400  # long tool results are quoted in part: the reply shows it read them, not a dump


def reply_text(
    model: str, turn: Turn, directives: Directives, tools: list[ToolSpec], choice: Choice, *, has_calls: bool
) -> str | None:
    if has_calls:
        # A /text line beside /call lines is the preamble of the first reply of the turn only.
        return directives.text if not turn.made else None
    if turn.results:
        return _with_images(summarise_results(turn.results), turn.result_images)
    if directives.text is not None:
        return directives.text
    return _introduction(model, directives, tools, choice, turn.user_images)


def _with_images(text: str, images: tuple[Image, ...]) -> str:
    if not images:
        return text
    return f"{text}\n{seen(images)}" if "\n" in text else f"{text} {seen(images)}"


def summarise_results(results: tuple[ToolResult, ...]) -> str:
    if len(results) == 1:
        return f"{_result_line(results[0])}."
    lines = "\n".join(f"- {_result_line(r)}" for r in results)
    return f"Here is what the tools returned:\n{lines}"


def _result_line(result: ToolResult) -> str:
    content = result.content.strip() or "(empty)"
    if len(content) > _QUOTE_LIMIT:
        content = content[:_QUOTE_LIMIT] + "…"
    verb = "failed with" if result.is_error else "returned"
    arguments = result.arguments if len(result.arguments) <= 80 else "…"
    return f"{result.name}({arguments}) {verb} “{content}”"


def _introduction(
    model: str, directives: Directives, tools: list[ToolSpec], choice: Choice, images: tuple[Image, ...]
) -> str:
    said = directives.prose.strip()
    echo = f"You said: “{_clip(said)}”. " if said else ""
    echo += f"{seen(images)} " if images else ""
    names = tool_names(tools)
    if not names:
        return (
            f"{echo}I'm {model}, Crosswire's scripted simulator, and this conversation gives me no tools. "
            "Add some and mention one, or script me with /call, /text and /think."
        )
    offer = ", ".join(names)
    if choice.mode == "none":
        return f"{echo}Tool use is off for this reply (tool_choice none), so no calls; I could use: {offer}."
    return (
        f"{echo}I'm {model}, Crosswire's scripted simulator. I can call {offer}: mention one "
        f"(for example “use {names[0]}”) or write /call {names[0]} {{...}}."
    )


def reasoning_text(
    turn: Turn, directives: Directives, tools: list[ToolSpec], choice: Choice, calling: list[str]
) -> str:
    said = directives.prose.strip()
    parts = [f"The user wrote “{_clip(said)}”." if said else "The user sent a scripted message."]
    if calling:
        unique = list(dict.fromkeys(calling))
        parts.append(f"I will call {', '.join(unique)} ({len(calling)} call{'s' if len(calling) > 1 else ''}).")
    elif turn.results:
        parts.append(f"I have {len(turn.results)} tool result(s); I will quote them back.")
    elif choice.mode == "none" and tools:
        parts.append("Tool use is switched off, so I answer in text.")
    elif tools:
        parts.append(f"No tool fits; I answer directly and mention {', '.join(tool_names(tools))}.")
    else:
        parts.append("There are no tools, so a short text reply will do.")
    return " ".join(parts)


def _clip(text: str, limit: int = 160) -> str:
    single = " ".join(text.split())
    return single if len(single) <= limit else single[:limit] + "…"
