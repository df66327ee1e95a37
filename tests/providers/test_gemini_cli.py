"""``python -m providers ... --format gemini`` as a real subprocess, through the formats registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
FORMAT = ("--format", "gemini")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "providers", *args]
    process = subprocess.run(command, input=stdin or b"", capture_output=True, cwd=ROOT, timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, process.stdout.decode(), process.stderr.decode())


def ok_json(process: subprocess.CompletedProcess[str]) -> Any:
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def test_decode_a_gemini_3_stream_with_thoughts_and_signed_calls() -> None:
    process = run("decode", *FORMAT, str(FIXTURES / "stream_gemini3_calls.sse"))
    output = ok_json(process)
    assert process.stderr == ""
    message = output["message"]
    assert [call["id"] for call in message["tool_calls"]] == ["8hd01vsf", "k0srpqrc"]
    assert message["tool_calls"][0]["provider_data"]["fields"]["thoughtSignature"] == "EsINCr8NAdHtim9+kP1x/qvG0sig=="
    assert message["provider_data"]["reasoning"] == "**Planning**\n\nTwo independent operations."
    assert (output["finish_reason"], output["error"], output["usage"]["reasoning_tokens"]) == ("tool_calls", None, 438)


def test_decode_deltas_prints_events_then_the_result() -> None:
    process = run("decode", *FORMAT, "--deltas", str(FIXTURES / "stream_gemini25_parallel.sse"))
    assert process.returncode == 0, process.stderr
    lines = [json.loads(line) for line in process.stdout.splitlines()]
    assert [line.get("kind") for line in lines] == [
        *["usage", "text", "usage", "text", "usage"],
        *["tool_call_start", "tool_call_delta", "tool_call_end"] * 2,
        *["message_fields", "finish", "end", None],
    ]
    assert lines[5]["fields"] == {"thoughtSignature": "CiQB0e2Kb7xq9m+/sig25=="}
    assert [call["function"]["name"] for call in lines[-1]["message"]["tool_calls"]] == ["add", "multiply"]


def test_decode_a_whole_response_body() -> None:
    output = ok_json(run("decode", *FORMAT, str(FIXTURES / "response_gemini3_calls.json")))
    assert [call["function"]["name"] for call in output["message"]["tool_calls"]] == ["get_weather", "list_doors"]
    assert output["usage"] == {
        "prompt_tokens": 157,
        "completion_tokens": 470,
        "total_tokens": 627,
        "reasoning_tokens": 438,
    }


def test_decode_an_in_stream_error_is_a_success() -> None:
    output = ok_json(run("decode", *FORMAT, str(FIXTURES / "stream_error.sse")))
    assert output["error"]["type"] == "overloaded"
    assert (output["finish_reason"], output["message"]["content"]) == ("error", "Let me ")


def test_decode_with_an_error_status() -> None:
    output = ok_json(run("decode", *FORMAT, "--status", "429", str(FIXTURES / "error_quota.json")))
    assert output["error"]["type"] == "rate_limit"
    assert output["error"]["message"].startswith("You exceeded your current quota")


def test_import_prints_the_internal_request_and_notes_on_stderr() -> None:
    process = run("import", *FORMAT, str(FIXTURES / "request_tool_loop.json"))
    request = ok_json(process)
    assert [message["role"] for message in request["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert process.stderr.splitlines() == [
        "note: `systemInstruction` became 1 system message at the start",
        "note: contents[1]: 1 thought or opaque part kept unchanged in provider_data, to be resent",
        "note: contents[1]: thoughtSignature kept on the call to add, to be resent on the same part",
        "note: contents[2]: 2 function responses became tool messages (paired with their calls by id)",
        "note: request fields kept in provider_data for gemini: safetySettings",
        "note: `tools` kept whole in provider_data for gemini (it has entries with no internal equivalent)",
        "note: generationConfig fields kept in provider_data for gemini: topP",
    ]


def test_import_then_encode_gives_back_the_recorded_request() -> None:
    fixture = (FIXTURES / "request_tool_loop.json").read_bytes()
    internal = ok_json(run("import", *FORMAT, stdin=fixture))
    assert ok_json(run("encode", *FORMAT, stdin=json.dumps(internal).encode())) == json.loads(fixture)


def test_encode_prints_the_wire_body_and_notes_on_stderr() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "divide", "arguments": '{"a": 2, "b": 0}'}}
    request = {
        "max_tokens": 500,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "2/0?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "division by zero", "is_error": True},
        ],
    }
    process = run("encode", *FORMAT, stdin=json.dumps(request).encode())
    assert ok_json(process) == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "2/0?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "divide", "args": {"a": 2, "b": 0}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "divide", "response": {"error": "division by zero"}}}],
            },
        ],
        "generationConfig": {"maxOutputTokens": 500},
    }
    assert process.stderr.splitlines() == [
        "note: message 2 (assistant): call ids `call_1` not sent (Gemini takes only ids it made); the responses name "
        "their function and follow the calls' order",
        "note: the turn being answered has no thoughtSignature on its first call (it did not come from Gemini); "
        "Gemini 3 models reject such a turn",
    ]


def test_untranslatable_input_exits_2_with_one_line() -> None:
    request = {"messages": [{"role": "tool", "tool_call_id": "call_X", "content": "5"}]}
    for args, stdin in [
        (("encode",), json.dumps(request).encode()),
        (("import",), b'{"contents": 5}'),
        (("decode",), b"garbage"),
    ]:
        process = run(*args, *FORMAT, stdin=stdin)
        assert (process.returncode, process.stdout) == (2, "")
        lines = process.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in process.stderr
