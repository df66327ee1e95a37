"""Thought signatures of the simulated Gemini API: minted on the model's turns, checked when they come back.

Gemini hands the client an opaque ``thoughtSignature`` (base64 of Google's encrypted thinking state) on the first
``functionCall`` part of a turn, and on the last part of a text answer it thought about; the client must send each
one back on the very part it came with. Gemini 3 refuses a request whose current turn has a function call that lost
its signature (400 "Function call is missing a thought_signature in functionCall parts..."), and one that carries a
signature it cannot read (400 "Corrupted thought signature.").

The simulator keeps no state, so a signature checks itself: base64 of a protobuf-looking header, a random nonce and
an HMAC of the nonce and the part it belongs to (a call's name and id, or "text"). A signature moved to another call,
cut, or invented does not verify. Google documents two stand-in values that skip the check, for histories that did
not come from Gemini; they are accepted here too.

Checked on the raw ``contents``, first failure wins. "The current turn" is everything after the last user content
that is not only function responses (Google's own definition): only its calls must carry their signatures, as on the
real API; a signature anywhere must verify.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import random
from typing import Any

from providers.simulator.rejection import Rejection

_KEY = b"crosswire-simulator-gemini-thoughts-v1"  # fixed: signatures must verify across restarts
_HEAD = b"\x12\x30\x0a\x0c"  # a fixed, protobuf-looking header, as Google's are: the text reads "EjAK…"
_NONCE = 12
_MAC = 32
STAND_INS = frozenset({"skip_thought_signature_validator", "context_engineering_is_the_way_to_go"})
SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")
_CALL_KEYS = ("functionCall", "function_call")
_RESPONSE_KEYS = ("functionResponse", "function_response")
_DOCS = "https://ai.google.dev/gemini-api/docs/thought-signatures"


def sign(rng: random.Random, subject: str) -> str:
    nonce = rng.randbytes(_NONCE)
    return base64.b64encode(_HEAD + nonce + _mac(nonce, subject)).decode()


def call_subject(name: str, call_id: str | None) -> str:
    return f"call\0{name}\0{call_id or ''}"


TEXT_SUBJECT = "text"


def verified(signature: Any, subject: str) -> bool:
    """True for a signature ``sign`` gave this subject (or one of Google's stand-ins)."""
    if not isinstance(signature, str):
        return False
    if signature in STAND_INS:
        return True
    try:
        raw = base64.b64decode(signature.encode(), validate=True)
    except (ValueError, binascii.Error):
        return False
    if len(raw) != len(_HEAD) + _NONCE + _MAC or not raw.startswith(_HEAD):
        return False
    nonce, mac = raw[len(_HEAD) : len(_HEAD) + _NONCE], raw[len(_HEAD) + _NONCE :]
    return hmac.compare_digest(mac, _mac(nonce, subject))


def check_signatures(contents: list[dict[str, Any]]) -> Rejection | None:
    """Every signature verifies; every model turn of the current turn has one on its first call."""
    for content in contents:
        for part in content.get("parts") or []:
            signature = _signature(part)
            if signature is not None and not verified(signature, _subject(part)):
                return Rejection("Corrupted thought signature.")
    start = _current_turn(contents)
    for position, content in enumerate(contents[start:], start=start):
        if content.get("role") != "model":
            continue
        calls = [part for part in content.get("parts") or [] if _call(part) is not None]
        if calls and _signature(calls[0]) is None:
            return _missing(_call(calls[0]) or {}, position)
    return None


def _current_turn(contents: list[dict[str, Any]]) -> int:
    """Where the current turn starts: after the last user content with more than function responses."""
    start = 0
    for position, content in enumerate(contents):
        parts = content.get("parts") or []
        if content.get("role", "user") == "user" and any(_response(part) is None for part in parts):
            start = position + 1
    return start


def _missing(call: dict[str, Any], position: int) -> Rejection:
    return Rejection(
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
        f"call `default_api:{call.get('name')}` , position {position + 1}. Please refer to {_DOCS} for more details."
    )


def _subject(part: dict[str, Any]) -> str:
    call = _call(part)
    if call is None:
        return TEXT_SUBJECT
    call_id = call.get("id")
    return call_subject(str(call.get("name")), call_id if isinstance(call_id, str) else None)


def _signature(part: Any) -> Any:
    if not isinstance(part, dict):
        return None
    return next((part[key] for key in SIGNATURE_KEYS if key in part), None)


def _call(part: Any) -> dict[str, Any] | None:
    found = next((part[key] for key in _CALL_KEYS if key in part), None) if isinstance(part, dict) else None
    return found if isinstance(found, dict) else None


def _response(part: Any) -> dict[str, Any] | None:
    found = next((part[key] for key in _RESPONSE_KEYS if key in part), None) if isinstance(part, dict) else None
    return found if isinstance(found, dict) else None


def _mac(nonce: bytes, subject: str) -> bytes:
    return hmac.new(_KEY, nonce + b"\0" + subject.encode(), hashlib.sha256).digest()
