"""A title made of a message's first line: whole when it fits, cut with an ellipsis when not."""

from __future__ import annotations

from playground.conversations.models import TITLE_CHARS, title_from


def test_a_title_made_of_a_long_first_line_says_it_was_cut() -> None:
    assert title_from("  What is the weather in Oslo?\nand more") == "What is the weather in Oslo?"
    long = "word " * 40
    cut = title_from(long)
    assert len(cut) <= TITLE_CHARS and cut.endswith("…") and not cut.endswith(" …")
    assert title_from("x" * TITLE_CHARS) == "x" * TITLE_CHARS, "one that fits is kept whole"
    assert title_from("   ") == ""
