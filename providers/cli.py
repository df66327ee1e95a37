"""``python -m providers``: run any registered codec on a saved body, from a file or stdin.

    decode --format F [--deltas] [--status N] [--max-bytes N] [FILE]   raw response body (SSE or JSON) -> result
    import --format F [--max-bytes N] [FILE]                           wire request body -> internal request
    encode --format F [--max-bytes N] [FILE]                           internal request -> wire request body

stdout holds JSON only; translation notes go to stderr, one ``note: `` line each. Exit 0 on success (a decoded
provider error is a success: it is in the output's ``error``), 2 with one ``error: `` line on stderr and nothing on
stdout when the input is too large, cannot be read or translated, the format is unknown, or the result cannot be
written as strict JSON.

The input may be crafted: JSON is read through ``providers.jsonsafe`` (depth, digits, non-finite numbers, lone
surrogates), at most ``--max-bytes`` are read, and the output is checked and rendered completely before a byte of it
is printed, so a failure never leaves half a document or a traceback behind.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from providers.events import Event, StreamError, event_to_dict
from providers.formats import FORMATS, WireFormat, get_format
from providers.jsonsafe import DEFAULT_MAX_DEPTH, JSONInputError, check, loads
from providers.sse import looks_like_sse, parse
from providers.streaming import fold
from providers.translation import Translation, TranslationError

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = DEFAULT_MAX_DEPTH
# Translation adds a few levels (provider_data.fields, content blocks) and codecs parse tool-argument strings into
# objects, so the output may legitimately be deeper than the input; the bound keeps json.dumps far from recursion.
OUTPUT_MAX_DEPTH = 2 * MAX_DEPTH
# Small reads, so a large --max-bytes never makes the reader allocate the whole limit up front.
_CHUNK = 64 * 1024
# Error text may quote the input; a bound keeps one crafted value from flooding the terminal.
_MAX_MESSAGE = 1000

# What a codec raises on input of the wrong shape (RecursionError: a codec walking or parsing deeply nested input;
# ArithmeticError: a huge number in arithmetic); the CLI reports it in one line rather than a traceback.
_INPUT_ERRORS = (TranslationError, ValueError, LookupError, TypeError, AttributeError, ArithmeticError, RecursionError)


class CliError(Exception):
    """Unreadable input, an unknown format: reported as one line on stderr, exit status 2."""


@dataclass
class Output:
    """What a command prints, kept until the command has fully succeeded."""

    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _safe_stdio()
    try:
        output = _run(args)
    except CliError as exc:
        print(f"error: {_printable(str(exc))}", file=sys.stderr)
        return 2
    try:
        for note in output.notes:
            print(f"note: {_printable(note)}", file=sys.stderr)
        for line in output.lines:
            print(line)
        sys.stdout.flush()
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
        sub.add_argument(
            "--max-bytes",
            type=_byte_count,
            default=DEFAULT_MAX_BYTES,
            help=f"refuse input larger than this (default: {DEFAULT_MAX_BYTES:,})",
        )
        sub.add_argument("file", nargs="?", help="input file (default: stdin)")
    return parser


def _byte_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of bytes: {text[:40]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _run(args: argparse.Namespace) -> Output:
    codec = _codec(args.format)
    raw = _read(args.file, args.max_bytes)
    return _guarded(lambda: _COMMANDS[args.command](codec, raw, args))


def _codec(name: str) -> WireFormat:
    try:
        return get_format(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    except ImportError as exc:
        raise CliError(f"wire format {name!r} is not available: {exc}") from None


def _read(file: str | None, limit: int) -> bytes:
    try:
        if file:
            with Path(file).open("rb") as stream:
                raw = _read_at_most(stream, limit + 1)
        else:
            raw = _read_at_most(sys.stdin.buffer, limit + 1)
    except OSError as exc:
        raise CliError(f"cannot read {file or 'stdin'}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise CliError(f"input is larger than the limit of {limit:,} bytes (see --max-bytes)")
    if not raw.strip():
        raise CliError("empty input")
    return raw


def _read_at_most(stream: BinaryIO, size: int) -> bytes:
    # One byte past the limit is enough to know it is exceeded; an endless stream is never read to its end.
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(min(_CHUNK, size - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def _decode(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> Output:
    if args.status is not None and args.status >= 400:
        events: list[Event] = [StreamError(codec.decode_error(args.status, raw, {}))]
    elif looks_like_sse(_text(raw)):
        events = _stream_events(codec, raw)
    else:
        events = _guarded(lambda: codec.response_events(_json_object(raw, args, "SSE or JSON")))
    result = fold(events, codec.NAME).to_dict()
    if not args.deltas:
        return Output([_to_json(result, indent=2)])
    return Output([*(_to_json(event_to_dict(event)) for event in events), _to_json(result)])


def _stream_events(codec: WireFormat, raw: bytes) -> list[Event]:
    # The JSON in each SSE event is parsed by the codec (a chunk that is not JSON is the provider's error, decoded
    # as such); what crafted chunks could smuggle through, the output check in ``_to_json`` refuses.
    decoder = codec.new_stream_decoder()
    events: list[Event] = []
    for sse_event in parse([raw]):
        events.extend(_guarded(lambda sse_event=sse_event: decoder.feed(sse_event)))
    events.extend(_guarded(decoder.close))
    return events


def _import(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> Output:
    body = _json_object(raw, args)
    return _emit(_guarded(lambda: codec.import_request(body)))


def _encode(codec: WireFormat, raw: bytes, args: argparse.Namespace) -> Output:
    request: Any = _json_object(raw, args)
    return _emit(_guarded(lambda: codec.encode_request(request)))


def _emit(translation: Translation[Any]) -> Output:
    return Output([_to_json(translation.value, indent=2)], list(translation.notes))


def _guarded(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except RecursionError:
        # Its own text ("maximum recursion depth exceeded...") names the symptom, not the input's fault.
        raise CliError("cannot translate input: it is nested too deeply") from None
    except _INPUT_ERRORS as exc:
        raise CliError(f"cannot translate input: {exc}") from None


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"input is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _json_object(raw: bytes, args: argparse.Namespace, expected: str = "JSON") -> dict[str, Any]:
    try:
        value = loads(_text(raw), max_depth=MAX_DEPTH, max_bytes=args.max_bytes)
    except JSONInputError as exc:
        raise CliError(f"input is not {expected}: {exc}") from None
    if not isinstance(value, dict):
        raise CliError(f"input is JSON but not an object (got {type(value).__name__})")
    return value


def _to_json(value: Any, indent: int | None = None) -> str:
    """Strict JSON for stdout, or ``CliError``: never ``Infinity``/``NaN``, a lone surrogate or a runaway depth."""
    try:
        check(value, max_depth=OUTPUT_MAX_DEPTH)
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent)
        text.encode("utf-8")  # stdout is UTF-8: prove now that printing cannot fail halfway
    except (JSONInputError, ValueError, TypeError, RecursionError) as exc:
        raise CliError(f"cannot write the result as JSON: {exc}") from None
    return text


def _printable(text: str) -> str:
    # One line, no terminal control sequences: the message may quote crafted input.
    escaped = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text[:_MAX_MESSAGE])
    return escaped + ("..." if len(text) > _MAX_MESSAGE else "")


def _safe_stdio() -> None:
    # stdout is validated before printing; stderr may carry quoted input, so it escapes what UTF-8 cannot encode.
    for stream, errors in ((sys.stdout, "strict"), (sys.stderr, "backslashreplace")):
        if isinstance(stream, io.TextIOWrapper):  # not when a test harness swapped it for a StringIO
            stream.reconfigure(encoding="utf-8", errors=errors)


_COMMANDS: dict[str, Callable[[WireFormat, bytes, argparse.Namespace], Output]] = {
    "decode": _decode,
    "import": _import,
    "encode": _encode,
}
