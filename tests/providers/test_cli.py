"""``python -m providers`` run as a real subprocess: stdout is pure JSON, notes and errors go to stderr."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from providers.formats import FORMATS
from providers.sse import SSEEvent

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "openai_chat"
# Every registered format whose codec is present; a codec added to FORMATS is tested as soon as it exists.
AVAILABLE = [name for name, path in sorted(FORMATS.items()) if importlib.util.find_spec(path) is not None]

ANTHROPIC_EVENTS: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking."}},
    {"type": "ping"},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_015c", "name": "get_weather", "input": {}},
    },
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"city": '}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '"Paris"}'}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 20},
    },
    {"type": "message_stop"},
]
ANTHROPIC_STREAM = b"".join(SSEEvent(json.dumps(data), event=data["type"]).encode() for data in ANTHROPIC_EVENTS)


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "providers", *args]
    process = subprocess.run(command, input=stdin or b"", capture_output=True, cwd=ROOT, timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, process.stdout.decode(), process.stderr.decode())


def ok_json(process: subprocess.CompletedProcess[str]) -> Any:
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def one_line_error(process: subprocess.CompletedProcess[str]) -> str:
    assert process.returncode == 2
    assert process.stdout == ""
    lines = process.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), process.stderr
    return lines[0]


def test_decode_sse_file() -> None:
    process = run("decode", "--format", "openai-chat", str(FIXTURES / "openai_parallel.sse"))
    output = ok_json(process)
    assert process.stderr == ""
    assert list(output) == ["message", "finish_reason", "usage", "error"]
    assert [call["function"]["name"] for call in output["message"]["tool_calls"]] == ["add", "multiply"]
    assert output["message"]["tool_calls"][1]["function"]["arguments"] == '{"a": 2, "b": 3}'
    assert (output["finish_reason"], output["error"], output["usage"]["total_tokens"]) == ("tool_calls", None, 156)


def test_decode_from_stdin_equals_decode_from_file() -> None:
    path = FIXTURES / "openai_text_then_call.sse"
    from_file = ok_json(run("decode", "--format", "openai-chat", str(path)))
    assert ok_json(run("decode", "--format", "openai-chat", stdin=path.read_bytes())) == from_file
    assert from_file["message"]["content"] == "Let me check the weather in Zürich."


def test_decode_deltas_prints_events_then_the_result() -> None:
    process = run("decode", "--format", "openai-chat", "--deltas", str(FIXTURES / "openrouter_repeated_name.sse"))
    assert process.returncode == 0
    lines = [json.loads(line) for line in process.stdout.splitlines()]
    # This upstream sends no finish_reason: the call stays open until [DONE].
    kinds = [line.get("kind") for line in lines]
    assert kinds == ["tool_call_start", "tool_call_delta", "usage", "tool_call_end", "end", None]
    assert lines[0] == {"kind": "tool_call_start", "index": 0, "id": "functions.llm_version:0", "name": "llm_version"}
    assert lines[-1]["message"]["tool_calls"][0]["function"]["name"] == "llm_version"


def test_decode_in_stream_error_is_a_success() -> None:
    output = ok_json(run("decode", "--format", "openai-chat", str(FIXTURES / "groq_error.sse")))
    assert output["error"]["type"] == "invalid_request"
    assert output["finish_reason"] == "error"


def test_decode_cut_stream() -> None:
    output = ok_json(run("decode", "--format", "openai-chat", str(FIXTURES / "cut_mid_text.sse")))
    assert output == {
        "message": {"role": "assistant", "content": "The answer is"},
        "finish_reason": None,
        "usage": None,
        "error": None,
    }


def test_decode_json_response_body() -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi!", "refusal": None, "annotations": []},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }
    output = ok_json(run("decode", "--format", "openai-chat", stdin=json.dumps(body, indent=2).encode()))
    assert output == {
        "message": {"role": "assistant", "content": "Hi!"},
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        "error": None,
    }


def test_decode_json_error_body_is_a_success() -> None:
    error = {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}
    body = json.dumps({"error": error}).encode()
    output = ok_json(run("decode", "--format", "openai-chat", stdin=body))
    assert output["error"] == {"type": "authentication", "message": "Incorrect API key provided"}
    assert output["finish_reason"] == "error"


def test_decode_with_an_error_status() -> None:
    body = b'{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}'
    output = ok_json(run("decode", "--format", "openai-chat", "--status", "429", stdin=body))
    assert output["error"] == {"type": "rate_limit", "message": "You exceeded your current quota"}
    html = ok_json(run("decode", "--format", "openai-chat", "--status", "502", stdin=b"<html>Bad Gateway</html>"))
    assert html["error"] == {"type": "server", "message": "HTTP 502: <html>Bad Gateway</html>"}


def test_import_prints_the_internal_request_and_notes_on_stderr() -> None:
    body = {
        "model": "gpt-4o",
        "max_completion_tokens": 100,
        "seed": 3,
        "messages": [{"role": "user", "content": "hi"}],
    }
    process = run("import", "--format", "openai-chat", stdin=json.dumps(body).encode())
    assert ok_json(process) == {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 100,
        "provider_data": {"format": "openai-chat", "fields": {"seed": 3}},
    }
    assert process.stderr == "note: max_completion_tokens imported as max_tokens\n"


def test_encode_prints_the_wire_body_and_notes_on_stderr() -> None:
    request = {
        "model": "gpt-4o",
        "stream": True,
        "messages": [
            {"role": "user", "content": "2/0?"},
            {"role": "assistant", "content": None, "tool_calls": [call("call_1")]},
            {"role": "tool", "tool_call_id": "call_1", "content": "division by zero", "is_error": True},
        ],
    }
    process = run("encode", "--format", "openai-chat", stdin=json.dumps(request).encode())
    body = ok_json(process)
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "call_1", "content": "Error: division by zero"}
    assert body["stream_options"] == {"include_usage": True}
    assert process.stderr.splitlines() == [
        "note: message 2 (tool): is_error has no OpenAI Chat field; the failure is stated in the content"
    ]


def test_untranslatable_request_exits_2_with_one_line() -> None:
    request = {"messages": [{"role": "assistant", "tool_calls": [call("")]}]}
    line = one_line_error(run("encode", "--format", "openai-chat", stdin=json.dumps(request).encode()))
    assert "tool call 0 has an empty or missing id" in line


def test_unknown_format_exits_2_with_one_line() -> None:
    line = one_line_error(run("decode", "--format", "gemini", str(FIXTURES / "openai_parallel.sse")))
    assert "unknown wire format 'gemini'" in line and "openai-chat" in line


def test_unreadable_input_exits_2_with_one_line() -> None:
    assert "neither" not in one_line_error(run("import", "--format", "openai-chat", stdin=b"not json"))
    assert "not SSE or JSON" in one_line_error(run("decode", "--format", "openai-chat", stdin=b"<html>oops</html>"))
    assert "not an object" in one_line_error(run("import", "--format", "openai-chat", stdin=b"[1, 2]"))
    assert "empty input" in one_line_error(run("encode", "--format", "openai-chat", stdin=b"  \n"))
    assert "not UTF-8" in one_line_error(run("decode", "--format", "openai-chat", stdin=b"\xff\xfe{}"))
    assert "cannot read" in one_line_error(run("decode", "--format", "openai-chat", str(FIXTURES / "missing.sse")))
    assert "messages must be a list" in one_line_error(
        run("encode", "--format", "openai-chat", stdin=b'{"model": "m"}')
    )


@pytest.mark.parametrize("name", AVAILABLE)
def test_every_format_encodes_and_imports_a_simple_request(name: str) -> None:
    request = {
        "model": "some-model",
        "max_tokens": 256,
        "messages": [
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [call("call_1", '{"city": "Paris"}')]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        ],
    }
    wire = ok_json(run("encode", "--format", name, stdin=json.dumps(request).encode()))
    internal = ok_json(run("import", "--format", name, stdin=json.dumps(wire).encode()))
    assert internal["model"] == "some-model"
    assert internal["messages"][0] == {"role": "user", "content": "What is the weather in Paris?"}
    calls = internal["messages"][1]["tool_calls"]
    assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("call_1", "get_weather", {"city": "Paris"})
    ]
    assert internal["messages"][2]["tool_call_id"] == "call_1"


@pytest.mark.parametrize("name", AVAILABLE)
def test_every_format_reports_unreadable_input_in_one_line(name: str) -> None:
    one_line_error(run("decode", "--format", name, stdin=b"garbage"))
    one_line_error(run("import", "--format", name, stdin=b'"a string"'))


def test_anthropic_stream_decodes() -> None:
    output = ok_json(run("decode", "--format", "anthropic", stdin=ANTHROPIC_STREAM))
    assert output["message"]["content"] == "Checking."
    assert output["message"]["tool_calls"] == [
        {"id": "toolu_015c", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    ]
    assert (output["finish_reason"], output["error"]) == ("tool_calls", None)


def test_anthropic_error_body_is_a_success() -> None:
    body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}'
    output = ok_json(run("decode", "--format", "anthropic", stdin=body))
    assert output["error"] == {"type": "overloaded", "message": "Overloaded"}


def call(call_id: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
