"""``python -m providers``: run any registered codec on a saved body, from a file or stdin.

    decode --format F [--deltas] [--status N] [FILE]   raw response body (SSE or JSON) -> internal result
    import --format F [FILE]                           wire request body -> internal request
    encode --format F [FILE]                           internal request -> wire request body

stdout holds JSON only; translation notes go to stderr, one ``note: `` line each. Exit 0 on success (a decoded
provider error is a success: it is in the output's ``error``), 2 with one ``error: `` line on stderr when the
input cannot be read or translated or the format is unknown.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from providers.events import Event, StreamError, event_to_dict
from providers.formats import FORMATS, WireFormat, get_format
from providers.sse import looks_like_sse, parse
from providers.streaming import fold
from providers.translation import Translation, TranslationError

# What a codec raises on input of the wrong shape; the CLI reports it in one line rather than a traceback.
_INPUT_ERRORS = (TranslationError, ValueError, KeyError, TypeError, AttributeError, IndexError)


class CliError(Exception):
    """Unreadable input, an unknown format: reported as one line on stderr, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _utf8_stdio()
    try:
        codec = _codec(args.format)
        raw = _read(args.file)
        _COMMANDS[args.command](codec, raw, args)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``| head``): silence the flush at exit, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m providers", description="Translate saved provider traffic.")
    commands = parser.add_subparsers(dest="command", required=True)
    decode = commands.add_parser("decode", help="raw response body (SSE or JSON) -> internal result")
    decode.add_argument("--deltas", action="store_true", help="print the internal events first, one per line")
    decode.add_argument("--status", type=int, help="HTTP status of the response; 4xx/5xx decode it as an error")
    commands.add_parser("import", help="wire request body -> internal request")
    commands.add_parser("encode", help="internal request -> wire request body")
    for sub in commands.choices.values():
        sub.add_argument("--format", required=True, help=f"wire format ({', '.join(sorted(FORMATS))})")
        sub.add_argument("file", nargs="?", help="input file (default: stdin)")
    return parser


def _codec(name: str) -> WireFormat:
    try:
        return get_format(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    except ImportError as exc:
        raise CliError(f"wire format {name!r} is not available: {exc}") from None


def _read(file: str | None) -> bytes:
    try:
        raw = Path(file).read_bytes() if file else sys.stdin.buffer.read()
    except OSError as exc:
        raise CliError(f"cannot read {file}: {exc.strerror}") from None
    if not raw.strip():
        raise CliError("empty input")
    return raw


def _decode(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> None:
    if args.status is not None and args.status >= 400:
        events: list[Event] = [StreamError(codec.decode_error(args.status, raw, {}))]
    elif looks_like_sse(_text(raw)):
        events = _stream_events(codec, raw)
    else:
        events = _guarded(lambda: codec.response_events(_json_object(raw, "SSE or JSON")))
    if args.deltas:
        for event in events:
            print(json.dumps(event_to_dict(event), ensure_ascii=False))
    result = fold(events, codec.NAME).to_dict()
    print(json.dumps(result, ensure_ascii=False) if args.deltas else _pretty(result))


def _stream_events(codec: WireFormat, raw: bytes) -> list[Event]:
    decoder = codec.new_stream_decoder()
    events: list[Event] = []
    for sse_event in parse([raw]):
        events.extend(_guarded(lambda sse_event=sse_event: decoder.feed(sse_event)))
    events.extend(_guarded(decoder.close))
    return events


def _import(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> None:
    body = _json_object(raw)
    _emit(_guarded(lambda: codec.import_request(body)))


def _encode(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> None:
    request: Any = _json_object(raw)
    _emit(_guarded(lambda: codec.encode_request(request)))


def _emit(translation: Translation[Any]) -> None:
    for note in translation.notes:
        print(f"note: {note}", file=sys.stderr)
    print(_pretty(translation.value))


def _guarded(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except _INPUT_ERRORS as exc:
        raise CliError(f"cannot translate input: {exc}") from None


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"input is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _json_object(raw: bytes, expected: str = "JSON") -> dict[str, Any]:
    try:
        value = json.loads(_text(raw))
    except json.JSONDecodeError as exc:
        raise CliError(f"input is not {expected} ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(value, dict):
        raise CliError(f"input is JSON but not an object (got {type(value).__name__})")
    return value


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _utf8_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # not when a test harness swapped it for a StringIO
            stream.reconfigure(encoding="utf-8")


_COMMANDS: dict[str, Callable[[WireFormat, bytes, argparse.Namespace], None]] = {
    "decode": _decode,
    "import": _import,
    "encode": _encode,
}
