"""providers.jsontext: orjson's speed, json's values, and json's answer wherever orjson would answer otherwise."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from providers.jsontext import CompactEncoder, dumps


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Colour(enum.StrEnum):
    RED = "red"


class Size(enum.Enum):
    BIG = {"w": 2}


class Tagged(dict):  # type: ignore[type-arg]
    pass


@dataclasses.dataclass
class Point:
    x: int


# Every value JSON can carry, with ints and text of any size and code point (lone surrogates included).
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=())),  # surrogates too: st.text() leaves them out
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_the_text_reads_back_as_jsons_own_text_does(value: Any) -> None:
    text = dumps(value)
    assert json.loads(text) == json.loads(compact(value))
    # json escapes every character outside printable ASCII (DEL too), orjson only what JSON requires; and floats
    # differ in form. Without either, the texts are the same.
    if all(" " <= char <= "~" for char in text) and not _has_float(value):
        assert text == compact(value)


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, list) and any(_has_float(item) for item in value)


def test_text_outside_ascii_is_written_as_utf8_so_the_fast_encoder_is_the_one_used() -> None:
    assert dumps({"city": "Zürich", "emoji": "🌧"}) == '{"city":"Zürich","emoji":"🌧"}'
    assert compact({"city": "Zürich"}) == '{"city":"Z\\u00fcrich"}'  # json would escape it


@pytest.mark.parametrize(
    "value",
    [
        {"n": 10**30},  # beyond 64 bits
        [-(2**64)],
        {1: "a", 2.5: "b", None: "c"},  # keys that are not text
        ["\ud800 lone surrogate"],
        Tagged(a=1),  # a subclass of dict
        [Colour.RED, {Colour.RED: 1}],
    ],
    ids=["big-int", "big-negative", "non-text-keys", "surrogate", "dict-subclass", "str-enum"],
)
def test_what_orjson_would_refuse_or_write_its_own_way_is_written_by_json(value: Any) -> None:
    assert dumps(value) == compact(value)


def test_nesting_deeper_than_orjsons_limit_is_written_by_json() -> None:
    deep: Any = "leaf"
    for _ in range(300):
        deep = [deep]
    assert dumps(deep) == compact(deep)


@pytest.mark.parametrize("value", [object(), Point(1), datetime.datetime(2026, 1, 1), {1, 2}], ids=repr)
def test_what_json_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        compact([value])
    with pytest.raises(TypeError):
        dumps([value])


def test_a_float_that_is_not_finite_becomes_null_which_a_browser_can_parse() -> None:
    assert dumps([math.nan, math.inf, 1.5]) == "[null,null,1.5]"
    assert compact([math.nan]) == "[NaN]"  # what json wrote: not JSON, and JSON.parse refuses the whole message
    # The same when json writes the value, for what orjson refused beside it.
    assert dumps([math.nan, {"n": -math.inf}, 2**70]) == f'[null,{{"n":null}},{2**70}]'


def test_a_uuid_and_an_enum_are_written_alike_by_either_encoder() -> None:
    ident = uuid.UUID(int=7)
    alone, beside_a_big_int = dumps([ident, Size.BIG]), dumps([ident, Size.BIG, 2**70])
    assert json.loads(alone) == [str(ident), {"w": 2}]
    assert json.loads(beside_a_big_int) == [str(ident), {"w": 2}, 2**70]


def test_a_value_neither_writes_is_refused_even_beside_one_only_json_writes() -> None:
    with pytest.raises(TypeError):
        dumps([object(), 2**70])
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular"):
        dumps(circular)


def test_the_encoder_class_writes_compactly_unless_asked_for_jsons_own_layout() -> None:
    value = {"b": [1, "ü"], "a": None}
    assert json.dumps(value, cls=CompactEncoder) == dumps(value)
    assert json.dumps(value, cls=CompactEncoder, indent=2) == json.dumps(value, indent=2)
    assert json.dumps(value, cls=CompactEncoder, sort_keys=True) == json.dumps(value, sort_keys=True)
    assert json.dumps({"s": {2, 1}}, cls=CompactEncoder, default=sorted) == json.dumps({"s": {2, 1}}, default=sorted)
    assert json.dumps({"k": 1, (1,): 2}, cls=CompactEncoder, skipkeys=True) == json.dumps({"k": 1}, skipkeys=False)
    with pytest.raises(ValueError):
        json.dumps([math.nan], cls=CompactEncoder, allow_nan=False)

    class Extended(CompactEncoder):
        def default(self, o: Any) -> Any:
            return sorted(o)

    assert json.dumps({"s": {2, 1}}, cls=Extended) == json.dumps({"s": [1, 2]})
