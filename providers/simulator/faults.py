"""Fault injection by model name, so any client (an SDK, curl, Crosswire's UI) can trigger a failure.

| model               | what happens                                                                     |
|---------------------|----------------------------------------------------------------------------------|
| ``sim-429``         | rate limited: 429 with ``retry-after`` and the provider's rate-limit body        |
| ``sim-529``         | overloaded: Anthropic 529 ``overloaded_error``, OpenAI and Gemini 503            |
| ``sim-500``         | internal server error, the provider's 500 body                                   |
| ``sim-401``         | the key is refused (as an invalid key): 401 (Gemini: its 400 ``API_KEY_INVALID``)|
| ``sim-cut``         | the connection closes in the middle of a tool call's arguments: no end marker    |
| ``sim-error-event`` | HTTP 200, then an in-stream error event (non-streaming: the overloaded error)    |
| ``sim-badjson``     | a tool call whose arguments are not valid JSON (Gemini: MALFORMED_FUNCTION_CALL) |
| ``sim-empty-args``  | a tool call whose arguments are sent as ``""`` (Gemini: a call without ``args``) |
| ``sim-slow``        | the first byte after ``slow_first_byte_s`` (5 s by default), then slow fragments |
| ``sim-hang``        | never answers; ends when the client gives up and disconnects                     |

The three faults that break a tool call force one, whatever the message says.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from providers.simulator.model import PlannedCall, Reply


@dataclass(frozen=True)
class Fault:
    status: str | None = None  # "rate_limit" | "overloaded" | "server" | "authentication": an HTTP error
    cut: bool = False
    error_event: bool = False
    bad_json: bool = False
    empty_args: bool = False
    slow: bool = False
    hang: bool = False

    @property
    def force_call(self) -> bool:
        return self.cut or self.bad_json or self.empty_args


NO_FAULT = Fault()

FAULTS: dict[str, Fault] = {
    "sim-429": Fault(status="rate_limit"),
    "sim-529": Fault(status="overloaded"),
    "sim-500": Fault(status="server"),
    "sim-401": Fault(status="authentication"),
    "sim-cut": Fault(cut=True),
    "sim-error-event": Fault(error_event=True),
    "sim-badjson": Fault(bad_json=True),
    "sim-empty-args": Fault(empty_args=True),
    "sim-slow": Fault(slow=True),
    "sim-hang": Fault(hang=True),
}


def fault_for(model: str) -> Fault:
    return FAULTS.get(model, NO_FAULT)


def break_arguments(reply: Reply, fault: Fault) -> Reply:
    """Damage the reply's first call the way the fault says; other calls stay intact."""
    if not reply.calls or not (fault.bad_json or fault.empty_args):
        return reply
    first = reply.calls[0]
    arguments = "" if fault.empty_args else _invalid_json(first.arguments)
    return replace(reply, calls=(PlannedCall(first.name, arguments), *reply.calls[1:]))


def _invalid_json(arguments: str) -> str:
    # A trailing comma and a bare word: the two slips models really make, and neither parses.
    body = arguments.strip()
    if body.endswith("}"):
        return body[:-1] + ', "note": unquoted,}'
    return body + ","
