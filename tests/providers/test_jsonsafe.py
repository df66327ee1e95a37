"""JSON from anyone: every input that used to crash or stall a reader is refused with one readable sentence."""

from __future__ import annotations

import pytest

from providers.jsonsafe import JSONInputError, check, depth_of, loads


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[" * 65 + "]" * 65, "at most 64 levels"),
        ('{"a": 1e999}', "too large"),
        ("1" * 5000, "too many digits"),
        ('"\\ud800"', "lone surrogate"),
        ('{"\\udfff": 1}', "lone surrogate"),
        ("NaN", "NaN is not valid JSON"),
        ("-Infinity", "-Infinity is not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        ('{"a": }', "Invalid JSON: Expecting value (line 1, column 7)"),
    ],
)
def test_refused_with_a_sentence(text: str | bytes, says: str) -> None:
    with pytest.raises(JSONInputError, match=None) as caught:
        loads(text)
    assert says in str(caught.value)


def test_accepts_what_is_within_the_limits() -> None:
    assert loads("[" * 64 + "]" * 64) is not None
    assert loads('{"a": [1, 2.5, "x", null, true]}', max_depth=2) == {"a": [1, 2.5, "x", None, True]}
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is one character, not a lone surrogate


def test_size_limit_counts_bytes() -> None:
    with pytest.raises(JSONInputError, match="limit is 8"):
        loads('"ééééé"', max_bytes=8)
    assert loads('"éé"', max_bytes=8) == "éé"


def test_check_and_depth_walk_values_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(50_000):
        deep = [deep]
    assert depth_of(deep) == 50_001
    with pytest.raises(JSONInputError, match="nested too deeply"):
        check(deep, max_depth=100)
    check({"a": {"b": [1]}}, max_depth=3)
    with pytest.raises(JSONInputError):
        check({"a": {"b": [1]}}, max_depth=2)
