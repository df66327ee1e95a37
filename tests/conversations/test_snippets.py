from __future__ import annotations

import ast
import shlex

import pytest

from playground.conversations.snippets import as_curl, as_python

WIRE = {
    "method": "POST",
    "url": "https://api.anthropic.com/v1/messages",
    "headers": {
        "x-api-key": "[redacted]",
        "anthropic-version": "2023-06-01",
        "x-stainless-os": "Linux",
        "content-type": "application/json",
    },
    "body": {
        "model": "claude",
        "max_tokens": 64,
        "stream": True,
        "messages": [{"role": "user", "content": "it's: true"}],
    },
}


def test_curl_uses_the_key_variable_and_drops_sdk_noise() -> None:
    curl = as_curl(WIRE, "anthropic")
    assert '-H "x-api-key: ${ANTHROPIC_API_KEY}"' in curl
    assert "x-stainless" not in curl and "[redacted]" not in curl
    words = shlex.split(curl.replace("\\\n", " "))
    assert words[0] == "curl" and words[1] == WIRE["url"]
    assert '"content": "it\'s: true"' in words[words.index("-d") + 1]


def test_python_snippet_is_valid_python_with_the_same_body() -> None:
    code = as_python(WIRE, "anthropic")
    tree = ast.parse(code)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create")
    arguments = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert arguments == WIRE["body"]
    assert "base_url='https://api.anthropic.com'" in code and "for event in response" in code


def test_python_snippet_for_openai_chat() -> None:
    wire = {**WIRE, "url": "http://localhost:11434/v1/chat/completions", "body": {"model": "m", "stream": False}}
    code = as_python(wire, "openai-chat")
    assert "openai.OpenAI(base_url='http://localhost:11434/v1')" in code and "print(response)" in code


def test_python_snippet_for_openai_responses_calls_the_responses_api() -> None:
    wire = {**WIRE, "url": "https://api.openai.com/v1/responses", "body": {"model": "m", "input": "hi"}}
    code = as_python(wire, "openai-responses")
    assert "openai.OpenAI(base_url='https://api.openai.com/v1')" in code
    assert "client.responses.create(" in code and "chat.completions" not in code
    assert "OPENAI_API_KEY" in as_curl(wire, "openai-responses")


def test_gemini_snippets_send_the_key_from_the_environment_in_googles_header(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    wire = {**WIRE, "url": url, "headers": {"x-goog-api-key": "[redacted]"}, "body": body}
    curl = as_curl(wire, "gemini")
    assert '-H "x-goog-api-key: ${GEMINI_API_KEY}"' in curl and "[redacted]" not in curl
    code = as_python(wire, "gemini")
    compile(code, "snippet", "exec")  # valid Python as a whole
    assert "httpx.stream(" in code and "iter_lines" in code
    # Everything before the request, run here without the HTTP client (not a dependency of this project).
    setup = code.split("with httpx.stream")[0].replace("import httpx\n", "")
    monkeypatch.setenv("GEMINI_API_KEY", "from-the-environment")
    namespace: dict[str, object] = {}
    exec(setup, namespace)
    assert namespace["body"] == body and namespace["url"] == url
    assert namespace["headers"] == {"x-goog-api-key": "from-the-environment"}
