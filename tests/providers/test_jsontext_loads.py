"""providers.jsontext.loads: what json.loads gives, value and type alike, or the error it raises."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.jsontext import loads
from tests.providers.test_jsontext import JSON_VALUES


def outcome(read: Callable[[str], Any], text: str) -> tuple[str, str]:
    """A value by its repr (so 1 and 1.0, 0.0 and -0.0 differ), or an error by its class and message."""
    try:
        return "value", repr(read(text))
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@given(JSON_VALUES | st.integers(min_value=-(2**100), max_value=2**100))
def test_any_json_text_reads_as_json_reads_it(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, indent=1)):
        assert outcome(loads, text) == outcome(json.loads, text)


# Text near JSON: digits, signs, exponents, escapes, constants and control characters, valid or not.
PIECES = [*'0123456789-+.eE[]{}":, \t\n\\u/\x01\ud800', "true", "null", "NaN", "Infinity", "1234567890123456789"]
NEAR_JSON = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=500)
@given(NEAR_JSON)
def test_any_text_near_json_reads_or_fails_as_json_does(text: str) -> None:
    assert outcome(loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize(
    "text",
    [
        "9223372036854775807",  # the largest 64-bit integer: orjson's own, and exact
        "9223372036854775808",
        "18446744073709551616",  # orjson would read these as floats
        "-9223372036854775809",
        '{"n":[1,123456789012345678901234567890]}',
        "1e999",  # infinity: json reads it, orjson refuses it
        "[NaN,-Infinity]",
        '"\\ud800"',  # an escaped lone surrogate
        '{"a":1,"a":2}',  # the last of a repeated key wins
        "-0.0",
        "\ufeff{}",
        '{"a":}',
        "",
    ],
)
def test_each_case_where_the_two_readers_could_differ(text: str) -> None:
    assert outcome(loads, text) == outcome(json.loads, text)


def test_a_long_run_of_digits_inside_text_still_reads_the_same() -> None:
    text = '{"id":"call_12345678901234567890123","n":7}'  # the guard sends it to json; the value is the same
    assert repr(loads(text)) == repr({"id": "call_12345678901234567890123", "n": 7})
    assert repr(loads("[12345678901234567890123]")) == "[12345678901234567890123]"


@pytest.mark.parametrize("depth", [1, 255, 256, 600, 995, 1100])
def test_nesting_reads_or_fails_as_json_does_at_any_depth(depth: int) -> None:
    # orjson reads 1,024 levels; json only as deep as the recursion limit allows from here, and raises RecursionError.
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        assert outcome(loads, text) == outcome(json.loads, text)


def test_reading_a_text_leaves_it_the_size_it_was() -> None:
    # Given a str outside ASCII, orjson would keep a UTF-8 copy on it; stream texts live as long as their round trip.
    text = '{"content":"日本語のテキスト' + "x" * 150 + '"}'
    size = sys.getsizeof(text)
    assert loads(text) == {"content": "日本語のテキスト" + "x" * 150}
    assert sys.getsizeof(text) == size


def test_a_lone_surrogate_in_the_text_itself_reads_as_json_reads_it() -> None:
    assert loads('["\ud800"]') == ["\ud800"]
