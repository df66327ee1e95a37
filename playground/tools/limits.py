"""The limits the tool pages hold what people paste to (docs/deploy.md), each refused with a readable sentence.

Sizes are checked on the text before anything parses it, depth by ``providers.jsonsafe`` before anything walks the
value recursively (the schema validator, genson, ``json.dumps``), so no input can reach Python's recursion limit or
take minutes of CPU. The settings are read on every call, so a test or a deployment can change them.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from playground.tools.content import parts_refusal
from providers import jsonsafe
from providers.jsonsafe import JSONInputError

# How jsonsafe words a syntax error; the tool pages have always said "Not valid JSON: <where>" (tests pin it).
_SYNTAX_PREFIX = "Invalid JSON: "


def json_depth() -> int:
    return int(settings.CROSSWIRE_MAX_JSON_DEPTH)


def schema_bytes() -> int:
    return int(settings.CROSSWIRE_MAX_SCHEMA_BYTES)


def canned_bytes() -> int:
    return int(settings.CROSSWIRE_MAX_CANNED_BYTES)


def image_bytes() -> int:
    return int(settings.CROSSWIRE_MAX_IMAGE_BYTES)


def import_bytes() -> int:
    return int(settings.CROSSWIRE_MAX_IMPORT_BYTES)


def byte_size(text: str) -> int:
    # surrogatepass: a lone surrogate must be measured (and refused later), not crash the measuring.
    return len(text.encode("utf-8", "surrogatepass"))


def size_refusal(what: str, size: int, limit: int) -> str:
    """Empty within the limit, else e.g. "The schema is 300,000 bytes; the limit is 262,144."."""
    return f"{what} is {size:,} bytes; the limit is {limit:,}." if size > limit else ""


def read_json(text: str, *, what: str, limit: int, invalid: str = "Not valid JSON") -> Any:
    """``text`` parsed within ``limit`` bytes and the depth limit, or ``JSONInputError`` in this page's words.

    ``what`` names the text in a size refusal ("The schema"); ``invalid`` starts a syntax error's message.
    """
    if refusal := size_refusal(what, byte_size(text), limit):
        raise JSONInputError(refusal)
    try:
        return jsonsafe.loads(text, max_depth=json_depth())
    except JSONInputError as exc:
        message = str(exc)
        if message.startswith(_SYNTAX_PREFIX):
            message = f"{invalid}: {message.removeprefix(_SYNTAX_PREFIX)}"
        raise JSONInputError(message) from None


def depth_refusal(value: Any) -> str:
    """Empty for an already-parsed value within the depth limit (and free of lone surrogates), else why not."""
    try:
        jsonsafe.check(value, max_depth=json_depth())
    except JSONInputError as exc:
        return str(exc)
    return ""


def answer_refusal(text: str, what: str) -> str:
    """Empty for a canned answer that may be saved, else why not.

    An answer is free text sent to the model as the tool's result, so text that is not JSON is fine. Text that is
    JSON nested past the depth limit is refused like any JSON a user sends: whatever parses the result next (a
    provider's codec, a pretty-printer) would otherwise hit the recursion limit. A JSON array of content parts
    (``playground.tools.content``) must hold well-formed parts and images that pass the composer's checks.
    """
    if refusal := size_refusal(what, byte_size(text), canned_bytes()):
        return refusal
    try:
        value = json.loads(text)
    except RecursionError:
        return _parse_refusal(text)  # too deep for json itself: jsonsafe says so in its own words
    except ValueError:
        return ""  # not JSON: plain text, which nothing downstream parses
    return depth_refusal(value) or parts_refusal(text, max_image_bytes=image_bytes(), what=what)


def _parse_refusal(text: str) -> str:
    try:
        jsonsafe.loads(text, max_depth=json_depth())
    except JSONInputError as exc:
        return str(exc)
    return ""
