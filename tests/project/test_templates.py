"""Template source checks that Django itself does not make."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_every_short_comment_closes_on_its_own_line() -> None:
    # Django's {# #} comment is one line only: one that runs on is shown on the page as text.
    open_ended = [
        f"{path.relative_to(TEMPLATES)}:{number}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if line.count("{#") > line.count("#}")
    ]
    assert open_ended == [], "use {% comment %} for a comment over several lines"
