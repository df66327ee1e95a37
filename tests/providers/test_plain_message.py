"""An error body that is not the provider's JSON reads as words: a web page by its name, never its markup."""

from __future__ import annotations

import pytest

from providers.anthropic.errors import decode_error as anthropic_error
from providers.errors import plain_message
from providers.openai_responses.errors import decode_error as responses_error

SITE_404 = (
    b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Page not found \xc2\xb7 Docs</title>'
    b"<style>body{color:red}</style></head><body><h1>Oops</h1></body></html>"
)


def test_a_web_page_is_named_by_its_title_and_a_404_asks_about_the_base_url() -> None:
    assert plain_message(404, SITE_404) == (
        "HTTP 404: a web page (“Page not found · Docs”), not the API's answer. Is the base URL right?"
    )


def test_a_page_without_a_title_is_named_by_its_text_not_its_scripts() -> None:
    page = "<html><head><script>var x = 1;</script></head><body><p>Service  unavailable</p></body></html>"
    assert plain_message(503, page) == "HTTP 503: a web page (“Service unavailable”), not the API's answer."
    assert plain_message(502, "<html></html>") == "HTTP 502: a web page, not the API's answer."


@pytest.mark.parametrize(
    ("body", "message"),
    [(b"upstream connect error", "HTTP 500: upstream connect error"), (b"", "HTTP 500"), (b"  \n ", "HTTP 500")],
)
def test_other_text_is_quoted_in_its_first_words(body: bytes, message: str) -> None:
    assert plain_message(500, body) == message
    assert plain_message(500, b"x" * 500) == "HTTP 500: " + "x" * 200


def test_every_format_reads_such_a_body_alike() -> None:
    # A wrong base URL reaches a web site whatever the endpoint's format: each says the same.
    expected = plain_message(404, SITE_404)
    assert anthropic_error(404, SITE_404, {}).message == expected
    assert responses_error(404, SITE_404, {}).message == expected
