"""What a run sends: the saved history to send again, and the request built from a chat's options.

Pure functions of a conversation's saved state, kept apart from the service that runs turns, so the page (which
asks what an interrupted run still waits for) and the run read the history the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.chat.loop import request_for
from playground.chat.options import ChatOptions
from providers.strategies import AUTO

if TYPE_CHECKING:
    from playground.conversations.models import Conversation
    from playground.tools.config import ToolConfig
    from providers.types import ChatRequest, Message, ToolCall


def strategy_for(requested: str, endpoint_choice: str) -> str:
    """A chat's "auto" is the endpoint's own choice when it has one; a strategy the chat names is kept."""
    return endpoint_choice if requested == AUTO and endpoint_choice and endpoint_choice != AUTO else requested


def build_request(
    conversation: Conversation, options: ChatOptions, tools: list[ToolConfig], history: list[Message]
) -> ChatRequest:
    base: dict[str, Any] = {"model": conversation.model, "stream": options.stream, "max_tokens": options.max_tokens}
    if options.temperature is not None:
        base["temperature"] = options.temperature
    if options.reasoning:
        base["reasoning"] = {"enabled": True}
    if tools:
        base["tool_choice"] = _tool_choice(options.tool_choice)
        base["parallel_tool_calls"] = options.parallel_tool_calls
    system: list[Message] = [{"role": "system", "content": options.system}] if options.system.strip() else []
    return request_for({**base, "messages": system + history}, tools)


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice in {"auto", "none", "required"}:
        return choice
    return {"type": "function", "function": {"name": choice}}


def split_pending(saved: list[tuple[Message, bool]]) -> tuple[list[Message], list[ToolCall]]:
    """The history to send, and the calls still to answer before calling the model again.

    Calls of the last complete answer that only tool results follow are pending: a run interrupted while answering
    them goes on with them. A last answer cut off mid-stream (an interruption) is kept on the page but not sent: the
    model is asked again from the last complete state, as a provider would refuse or continue a half answer.
    """
    if saved and saved[-1][0].get("role") == "assistant" and not saved[-1][1]:
        saved = saved[:-1]
    history = [message for message, _ in saved]
    last = max((i for i, m in enumerate(history) if m.get("role") == "assistant"), default=None)
    if last is None or any(m.get("role") != "tool" for m in history[last + 1 :]):
        return answered_only(history), []
    answered = {m.get("tool_call_id") for m in history[last + 1 :]}
    pending = [c for c in history[last].get("tool_calls") or [] if c["id"] not in answered]
    if not pending:
        return answered_only(history), []
    return [*answered_only(history[:last]), history[last], *history[last + 1 :]], pending


def answered_only(history: list[Message]) -> list[Message]:
    """Drop tool calls that never got a result (a run stopped while waiting), which every provider would reject."""
    answered = {m.get("tool_call_id") for m in history if m.get("role") == "tool"}
    kept: list[Message] = []
    for message in history:
        calls = message.get("tool_calls")
        if calls:
            message = {**message, "tool_calls": [c for c in calls if c["id"] in answered]}
            if not message["tool_calls"]:
                del message["tool_calls"]
                if not message.get("content"):
                    continue
        kept.append(message)
    return kept
