"""``python -m providers ... --format openai-responses`` as a real subprocess, through the formats registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
FORMAT = ("--format", "openai-responses")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "providers", *args]
    process = subprocess.run(command, input=stdin or b"", capture_output=True, cwd=ROOT, timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, process.stdout.decode(), process.stderr.decode())


def ok_json(process: subprocess.CompletedProcess[str]) -> Any:
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def test_decode_a_stream_with_reasoning_text_and_a_call() -> None:
    process = run("decode", *FORMAT, str(FIXTURES / "stream_reasoning_text_call.sse"))
    output = ok_json(process)
    assert process.stderr == ""
    message = output["message"]
    assert message["content"] == "Let me check the weather in Zürich."
    assert message["tool_calls"][0]["id"] == "call_Wx9"
    assert message["tool_calls"][0]["provider_data"] == {"format": "openai-responses", "fields": {"id": "fc_07e3"}}
    assert message["provider_data"]["blocks"][0]["encrypted_content"] == "gAAAAABfinal-encrypted-reasoning=="
    assert (output["finish_reason"], output["error"], output["usage"]["reasoning_tokens"]) == ("tool_calls", None, 128)


def test_decode_deltas_prints_events_then_the_result() -> None:
    process = run("decode", *FORMAT, "--deltas", str(FIXTURES / "stream_parallel_calls.sse"))
    lines = [json.loads(line) for line in ok_json_lines(process)]
    kinds = [line.get("kind") for line in lines]
    assert kinds == [
        *["tool_call_start", "tool_call_delta", "tool_call_delta", "tool_call_end"],
        *["tool_call_start", "tool_call_delta", "tool_call_end"],
        *["usage", "finish", "end", None],
    ]
    assert lines[0] == {
        "kind": "tool_call_start",
        "index": 0,
        "id": "call_sKC7vN2",
        "name": "add",
        "fields": {"id": "fc_68b1a"},
    }
    assert [call["function"]["name"] for call in lines[-1]["message"]["tool_calls"]] == ["add", "multiply"]


def ok_json_lines(process: subprocess.CompletedProcess[str]) -> list[str]:
    assert process.returncode == 0, process.stderr
    return process.stdout.splitlines()


def test_decode_a_whole_response_body() -> None:
    output = ok_json(run("decode", *FORMAT, str(FIXTURES / "response_reasoning_tools.json")))
    assert [call["function"]["name"] for call in output["message"]["tool_calls"]] == ["get_weather", "list_doors"]
    assert output["usage"] == {
        "prompt_tokens": 320,
        "completion_tokens": 210,
        "total_tokens": 530,
        "cached_tokens": 0,
        "reasoning_tokens": 128,
    }


def test_decode_an_in_stream_failure_is_a_success() -> None:
    output = ok_json(run("decode", *FORMAT, str(FIXTURES / "stream_failed_quota.sse")))
    assert output["error"]["type"] == "rate_limit"
    assert (output["finish_reason"], output["message"]["content"]) == ("error", "Let me ")


def test_decode_with_an_error_status() -> None:
    body = b'{"error": {"message": "The model `gpt-9` does not exist", "type": "invalid_request_error", '
    body += b'"param": "model", "code": "model_not_found"}}'
    output = ok_json(run("decode", *FORMAT, "--status", "400", stdin=body))
    assert output["error"] == {"type": "not_found", "message": "The model `gpt-9` does not exist"}


def test_import_prints_the_internal_request_and_notes_on_stderr() -> None:
    process = run("import", *FORMAT, str(FIXTURES / "request_tool_loop.json"))
    request = ok_json(process)
    assert [message["role"] for message in request["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "user",
    ]
    assert process.stderr.splitlines() == [
        "note: `instructions` became a system message at the start",
        "note: input items 1-3: 1 reasoning item kept unchanged in provider_data, to be resent",
        "note: request fields kept in provider_data for openai-responses: metadata, text",
        "note: `tools` kept whole in provider_data for openai-responses (it has entries with no internal equivalent)",
    ]


def test_import_then_encode_gives_back_the_recorded_request() -> None:
    fixture = (FIXTURES / "request_tool_loop.json").read_bytes()
    internal = ok_json(run("import", *FORMAT, stdin=fixture))
    assert ok_json(run("encode", *FORMAT, stdin=json.dumps(internal).encode())) == json.loads(fixture)


def test_encode_prints_the_wire_body_and_notes_on_stderr() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "divide", "arguments": '{"a": 2, "b": 0}'}}
    request = {
        "model": "gpt-5",
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
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "2/0?"},
            {"type": "function_call", "call_id": "call_1", "name": "divide", "arguments": '{"a": 2, "b": 0}'},
            {"type": "function_call_output", "call_id": "call_1", "output": "Error: division by zero"},
        ],
        "max_output_tokens": 500,
    }
    assert process.stderr.splitlines() == [
        "note: message 0 (system): sent as `instructions`",
        "note: message 3 (tool): is_error has no Responses field; the failure is stated in the output",
    ]


def test_untranslatable_input_exits_2_with_one_line() -> None:
    request = {"model": "m", "messages": [{"role": "tool", "tool_call_id": "call_X", "content": "5"}]}
    for args, stdin in [
        (("encode",), json.dumps(request).encode()),
        (("import",), b'{"input": 5}'),
        (("decode",), b"garbage"),
    ]:
        process = run(*args, *FORMAT, stdin=stdin)
        assert (process.returncode, process.stdout) == (2, "")
        lines = process.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in process.stderr


def test_the_format_is_listed_by_the_registry() -> None:
    process = run("decode", "--format", "nope", stdin=b"{}")
    assert process.returncode == 2 and "openai-responses" in process.stderr
