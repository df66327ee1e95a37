"""'Copy as curl' and 'copy as Python' for a recorded wire request. The key is always an environment variable."""

from __future__ import annotations

import json
import pprint
import shlex
from typing import Any

from providers.client import REDACTED

# Which header carries the key, and the variable a user would keep it in.
KEY_HEADERS = {"authorization": "Bearer ${KEY}", "x-api-key": "${KEY}", "x-goog-api-key": "${KEY}"}
KEY_VARIABLES = {
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
# Headers the SDKs add for their own telemetry: noise in a snippet someone will paste.
SKIPPED_PREFIXES = ("x-stainless-", "user-agent", "content-length", "host", "accept-encoding", "connection")


def _headers(headers: dict[str, str], variable: str) -> list[tuple[str, str]]:
    kept = []
    for name, value in headers.items():
        lower = name.lower()
        if lower.startswith(SKIPPED_PREFIXES):
            continue
        if lower in KEY_HEADERS:
            value = KEY_HEADERS[lower].replace("KEY", variable)
        elif value == REDACTED:
            continue
        kept.append((name, value))
    return kept


def as_curl(wire_request: dict[str, Any], fmt: str) -> str:
    variable = KEY_VARIABLES.get(fmt, "API_KEY")
    lines = [f"curl {shlex.quote(wire_request['url'])}"]
    for name, value in _headers(wire_request.get("headers", {}), variable):
        # Double quotes so the shell expands the key variable; nothing else in a header needs expansion.
        lines.append(f'  -H "{name}: {value}"' if "${" in value else f"  -H {shlex.quote(f'{name}: {value}')}")
    body = json.dumps(wire_request.get("body"), indent=2, ensure_ascii=False)
    lines.append(f"  -d {shlex.quote(body)}")
    return " \\\n".join(lines)


def as_python(wire_request: dict[str, Any], fmt: str) -> str:
    body = dict(wire_request.get("body") or {})
    url = str(wire_request["url"])
    if fmt == "gemini":
        return _gemini_python(url, body)
    if fmt == "anthropic":
        base = url.removesuffix("/v1/messages")
        head = ["import anthropic", "", f"client = anthropic.Anthropic(base_url={base!r})  # key: ANTHROPIC_API_KEY"]
        call = "client.messages.create"
    else:
        responses = fmt == "openai-responses"
        base = url.removesuffix("/responses" if responses else "/chat/completions")
        head = ["import openai", "", f"client = openai.OpenAI(base_url={base!r})  # key: OPENAI_API_KEY"]
        call = "client.responses.create" if responses else "client.chat.completions.create"
    stream = bool(body.get("stream"))
    args = ",\n".join(f"    {key}={_py(value)}" for key, value in body.items())
    lines = [*head, "", f"response = {call}(\n{args},\n)"]
    lines += ["for event in response:", "    print(event)"] if stream else ["print(response)"]
    return "\n".join(lines)


def _gemini_python(url: str, body: dict[str, Any]) -> str:
    """Gemini's request as plain HTTP, as Crosswire sends it (its SDK rebuilds the body from its own types)."""
    lines = [
        "import os",
        "",
        "import httpx",
        "",
        f"url = {url!r}",
        'headers = {"x-goog-api-key": os.environ["GEMINI_API_KEY"]}',
        f"body = {_py(body)}",
    ]
    if "alt=sse" in url:
        lines += [
            "with httpx.stream('POST', url, headers=headers, json=body, timeout=60) as response:",
            "    for line in response.iter_lines():",
            "        print(line)",
        ]
    else:
        lines += ["print(httpx.post(url, headers=headers, json=body, timeout=60).json())"]
    return "\n".join(lines)


def _py(value: Any) -> str:
    # The repr of parsed JSON is valid Python (True, False, None, nested literals), whatever the strings hold.
    return pprint.pformat(value, width=100, sort_dicts=False).replace("\n", "\n    ")
