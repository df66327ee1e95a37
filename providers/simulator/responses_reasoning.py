"""Reasoning items of the simulated Responses API: ids it recognises, encrypted content it verifies, and the rules
api.openai.com applies when a request sends reasoning items back.

The real API keeps reasoning on its side (``store`` true, the default: an item is looked up by its ``id``) or hands
it to the client as ``encrypted_content`` (``store: false`` with ``include: ["reasoning.encrypted_content"]``), which
must come back byte for byte. The simulator keeps no state, so both are self-checking instead:

* an item id is ``rs_`` + 50 hex digits whose last 16 are an HMAC of the first 34, so "was this mine?" needs no
  storage;
* encrypted content is a Fernet-looking token (``gAAAAA…``, as OpenAI's are) holding the reasoning text and an HMAC
  of the item id and that text; any other string, even one that decodes to the same bytes, is refused.

Checked on the raw ``input``, first failure wins, with the real API's messages and statuses: a reasoning item must be
followed by the item it came with (400); its encrypted content must verify (400 ``invalid_encrypted_content``);
without encrypted content it must be an item the server stored: with ``store: false`` nothing is (404), otherwise
only ids the simulator made exist (404).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import random
from typing import Any

from providers.simulator.rejection import Rejection
from providers.simulator.result import random_token

_KEY = b"crosswire-simulator-reasoning-v1"  # fixed: items must verify across restarts
_HEX = "0123456789abcdef"
_ID_BODY = 34
_ID_CHECK = 16
_TOKEN_HEAD = b"\x80\x00\x00\x00\x00"  # a Fernet version byte and a zero timestamp: the token reads "gAAAAA…"
_MAC_SIZE = 32
# Input items a reasoning item cannot be "followed" by: they are not part of the assistant's output.
_NOT_FOLLOWING = frozenset({"reasoning", "function_call_output"})
_INPUT_ROLES = frozenset({"user", "system", "developer"})


def reasoning_id(rng: random.Random) -> str:
    body = random_token(rng, _ID_BODY, _HEX)
    return f"rs_{body}{_mac(body.encode()).hex()[:_ID_CHECK]}"


def known_id(item_id: Any) -> bool:
    if not isinstance(item_id, str) or not item_id.startswith("rs_"):
        return False
    body, check = item_id[3 : 3 + _ID_BODY], item_id[3 + _ID_BODY :]
    expected = _mac(body.encode()).hex()[:_ID_CHECK]
    return len(body) == _ID_BODY and hmac.compare_digest(check, expected)


def seal(item_id: str, text: str) -> str:
    """The encrypted content of a reasoning item: the text, signed together with the item id."""
    payload = text.encode()
    mac = _mac(item_id.encode() + b"\0" + payload)
    return base64.urlsafe_b64encode(_TOKEN_HEAD + mac + payload).decode()


def verified(item_id: Any, token: str) -> bool:
    """True only for exactly the token ``seal`` gave this item id."""
    if not isinstance(item_id, str):
        return False
    try:
        raw = base64.urlsafe_b64decode(token.encode())
        text = raw[len(_TOKEN_HEAD) + _MAC_SIZE :].decode()
    except (ValueError, binascii.Error, UnicodeError):
        return False
    if not raw.startswith(_TOKEN_HEAD) or len(raw) < len(_TOKEN_HEAD) + _MAC_SIZE:
        return False
    return hmac.compare_digest(token.encode(), seal(item_id, text).encode())


def reasoning_item(item_id: str, text: str, *, encrypted: bool) -> dict[str, Any]:
    """The output item, as the API writes it: a summary, and the encrypted content only when it was asked for."""
    item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}
    if encrypted:
        item["encrypted_content"] = seal(item_id, text)
    return item


def check_reasoning(items: list[Any], *, store: Any) -> Rejection | None:
    for position, item in enumerate(items):
        if not isinstance(item, dict) or item.get("type") != "reasoning":
            continue
        found = _following(items, position) or _content(item, store)
        if found is not None:
            return found
    return None


def _following(items: list[Any], position: int) -> Rejection | None:
    after = items[position + 1] if position + 1 < len(items) else None
    if isinstance(after, dict) and after.get("type") not in _NOT_FOLLOWING and after.get("role") not in _INPUT_ROLES:
        return None
    item_id = items[position].get("id")
    return Rejection(
        f"Item '{item_id}' of type 'reasoning' was provided without its required following item.", param="input"
    )


def _content(item: dict[str, Any], store: Any) -> Rejection | None:
    token = item.get("encrypted_content")
    item_id = item.get("id")
    if isinstance(token, str):
        if verified(item_id, token):
            return None
        return Rejection(
            f"The encrypted content {_abbreviated(token)} could not be verified.", code="invalid_encrypted_content"
        )
    if store is False:
        return Rejection(
            f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to false. Try again "
            "with `store` set to true, or remove this item from your input.",
            status=404,
            param="input",
        )
    if not known_id(item_id):
        return Rejection(f"Item with id '{item_id}' not found.", status=404, param="input")
    return None


def _abbreviated(token: str) -> str:
    """As the API quotes it: the first and last four characters."""
    return f"{token[:4]}...{token[-4:]}" if len(token) > 8 else token


def _mac(data: bytes) -> bytes:
    return hmac.new(_KEY, data, hashlib.sha256).digest()
