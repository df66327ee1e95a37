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
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stdout + process.stderr
    assert process.stdout == ""  # stricter than "valid JSON": nothing is printed before the failure is known
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
    assert html["error"] == {"type": "server", "message": "HTTP 502: a web page (“Bad Gateway”), not the API's answer."}


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
    line = one_line_error(run("decode", "--format", "nope", str(FIXTURES / "openai_parallel.sse")))
    assert "unknown wire format 'nope'" in line and "openai-chat" in line


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
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    # Gemini has no call ids on the wire (an id the model did not mint is rejected): its codec gives the call a
    # stable id of its own. Every format must still pair the result with its call.
    assert internal["messages"][2]["tool_call_id"] == calls[0]["id"]
    if name != "gemini":
        assert calls[0]["id"] == "call_1"


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


# --- crafted input: one error line and exit 2, never a traceback or non-JSON on stdout --------------------------

DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = "1" * 5000


def request_with(field: str, raw_value: str) -> bytes:
    """A valid request whose ``field`` is spliced in as raw JSON text (what json.dumps could not write)."""
    return f'{{"model": "m", "messages": [{{"role": "user", "content": "hi"}}], "{field}": {raw_value}}}'.encode()


@pytest.mark.parametrize("command", ["decode", "import", "encode"])
@pytest.mark.parametrize(
    ("raw_value", "says"),
    [
        pytest.param(DEEP, "nested too deeply", id="deep"),
        pytest.param(HUGE_INT, "too many digits", id="5000-digits"),
        pytest.param('"\\ud800"', "lone surrogate", id="surrogate"),
        pytest.param("1e999", "too large", id="infinity"),
        pytest.param("-1e999", "too large", id="minus-infinity"),
        pytest.param("NaN", "NaN is not valid JSON", id="nan"),
    ],
)
def test_crafted_json_is_refused_in_one_line(command: str, raw_value: str, says: str) -> None:
    line = one_line_error(run(command, "--format", "openai-chat", stdin=request_with("temperature", raw_value)))
    assert says in line


def test_infinite_temperature_is_never_printed_as_infinity() -> None:
    for name in AVAILABLE:
        for command in ("import", "encode"):
            process = run(command, "--format", name, stdin=request_with("temperature", "1e999"))
            assert "Infinity" not in process.stdout
            assert "too large" in one_line_error(process)


def test_crafted_tool_arguments_cannot_reach_the_output() -> None:
    # Anthropic encoding parses the argument string into an object: what it holds must still print as strict JSON.
    for arguments, says in [('{"a": 1e999}', "not JSON compliant"), ('{"a": "\\ud800"}', "lone surrogate")]:
        request = {
            "model": "m",
            "messages": [{"role": "assistant", "content": None, "tool_calls": [call("c", arguments)]}],
        }
        line = one_line_error(run("encode", "--format", "anthropic", stdin=json.dumps(request).encode()))
        assert "cannot write the result as JSON" in line and says in line


@pytest.mark.parametrize("deltas", [[], ["--deltas"]])
def test_crafted_stream_chunks_are_refused_in_one_line(deltas: list[str]) -> None:
    surrogate = b'data: {"id": "x", "choices": [{"index": 0, "delta": {"content": "\\ud800"}}]}\n\ndata: [DONE]\n\n'
    assert "lone surrogate" in one_line_error(run("decode", "--format", "openai-chat", *deltas, stdin=surrogate))
    deep = b"data: " + DEEP.encode() + b"\n\n"
    assert "nested too deeply" in one_line_error(run("decode", "--format", "openai-chat", *deltas, stdin=deep))
    infinite = ANTHROPIC_STREAM.replace(b'"input_tokens": 10', b'"input_tokens": 1e999')
    one_line_error(run("decode", "--format", "anthropic", *deltas, stdin=infinite))


def test_deep_error_body_with_a_status_is_refused_in_one_line() -> None:
    for name in AVAILABLE:
        process = run("decode", "--format", name, "--status", "500", stdin=DEEP.encode())
        assert "nested too deeply" in one_line_error(process)


def test_a_value_of_the_wrong_type_is_refused_in_one_line() -> None:
    # Valid JSON and valid SSE; the text of a text delta is a number, which only folding the stream trips over.
    stream = ANTHROPIC_STREAM.replace(b'"text": "Checking."', b'"text": 5')
    assert "cannot translate input" in one_line_error(run("decode", "--format", "anthropic", stdin=stream))


def test_input_over_the_limit_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    body = request_with("seed", "1")
    exact = tmp_path / "exact.json"
    exact.write_bytes(body)
    assert ok_json(run("import", "--format", "openai-chat", "--max-bytes", str(len(body)), str(exact)))["model"] == "m"
    line = one_line_error(run("import", "--format", "openai-chat", "--max-bytes", str(len(body) - 1), str(exact)))
    assert f"larger than the limit of {len(body) - 1:,} bytes" in line
    # An endless file ends as an error, not as a hang or an exhausted memory: at most limit + 1 bytes are read.
    assert "larger than the limit" in one_line_error(run("decode", "--format", "openai-chat", "/dev/zero"))


def test_stdin_over_the_limit_is_refused_before_it_ends() -> None:
    command = [sys.executable, "-m", "providers", "decode", "--format", "openai-chat", "--max-bytes", "1000"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as process:
        assert process.stdin is not None and process.stderr is not None
        process.stdin.write(b" " * 2000)
        process.stdin.flush()  # and the pipe stays open: the CLI must not wait for its end
        assert process.wait(timeout=60) == 2
        assert process.stderr.read() == b"error: input is larger than the limit of 1,000 bytes (see --max-bytes)\n"
        process.stdin.close()


def test_the_default_limit_is_16_mib() -> None:
    from providers.cli import DEFAULT_MAX_BYTES

    assert DEFAULT_MAX_BYTES == 16 * 1024 * 1024
    huge = b" " * DEFAULT_MAX_BYTES + b"{}"
    assert "larger than the limit of 16,777,216 bytes" in one_line_error(
        run("import", "--format", "openai-chat", stdin=huge)
    )


def test_a_note_quoting_crafted_text_stays_on_one_line() -> None:
    body = request_with("x\\u001b[2J\\nnote: forged", "1")
    process = run("import", "--format", "anthropic", stdin=body)
    assert ok_json(process)["provider_data"]["fields"] == {"x\x1b[2J\nnote: forged": 1}
    assert process.stderr.splitlines() == [
        "note: request fields kept in provider_data for anthropic: x\\x1b[2J\\nnote: forged"
    ]


def call(call_id: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
