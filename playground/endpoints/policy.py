"""Which base URLs an endpoint may point at, as pure functions of their inputs (no Django, no database).

A shared instance makes HTTP requests wherever an endpoint's base URL says, so a base URL is a way into the
deployment's network. The kinds' own URLs (api.openai.com, api.anthropic.com) are always fine; anything else is a
*custom* base URL, which only team owners may set and only to a prefix the deployment lists in
``CROSSWIRE_ALLOWED_BASE_URLS`` ("*" for any).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

ANY_URL = "*"


@dataclass(frozen=True)
class UrlCheck:
    errors: list[str]
    warnings: list[str]


def normalize_base_url(url: str) -> str:
    """Trailing slashes off; the SDKs append their paths to whatever is left."""
    return url.strip().rstrip("/")


def check_base_url(url: str, wire_format: str) -> UrlCheck:
    """Errors make a URL unusable; warnings flag the SDKs' /v1 conventions, which some servers do not follow."""
    parts = urlsplit(url)
    errors: list[str] = []
    if parts.scheme not in {"http", "https"}:
        errors.append("Use an http:// or https:// URL.")
    elif not parts.hostname:
        errors.append("The URL needs a host name.")
    elif not _valid_port(url):
        errors.append("The port must be a number from 1 to 65535.")
    if parts.username or parts.password:
        # A credential in the URL would be shown on every page that lists the endpoint; keys go in the key field.
        errors.append("Put credentials in the API key field, not in the URL.")
    if parts.query or parts.fragment:
        errors.append("A base URL has no query string or fragment.")
    if errors:
        return UrlCheck(errors, [])
    path = parts.path.rstrip("/")
    warnings: list[str] = []
    if wire_format == "openai-chat" and not path.endswith("/v1"):
        warnings.append("OpenAI-style base URLs usually end in /v1 (the SDK posts to {base}/chat/completions).")
    if wire_format == "anthropic" and path.endswith("/v1"):
        warnings.append("Anthropic base URLs usually do not end in /v1 (the SDK posts to {base}/v1/messages).")
    return UrlCheck([], warnings)


def _valid_port(url: str) -> bool:
    try:
        port = urlsplit(url).port
    except ValueError:
        return False
    return port is None or port > 0


def _origin_and_path(url: str) -> tuple[str, str, str]:
    parts = urlsplit(normalize_base_url(url))
    try:
        port = parts.port
    except ValueError:
        return "", "", ""
    default_port = {"http": 80, "https": 443}.get(parts.scheme)
    hostname = parts.hostname or ""
    if ":" in hostname:
        hostname = f"[{hostname}]"  # IPv6, so the port that follows stays unambiguous
    host = hostname + ("" if port in (None, default_port) else f":{port}")
    return parts.scheme.lower(), host.lower(), parts.path.rstrip("/")


def is_allowed_base_url(url: str, allowed_prefixes: Sequence[str]) -> bool:
    """Whether ``url`` starts with one of the prefixes, compared by scheme, host, port and whole path segments.

    Segment-wise, so the prefix ``https://api.example.com`` does not also allow ``https://api.example.com.evil``
    and ``http://gw/v1`` does not allow ``http://gw/v10``.
    """
    if ANY_URL in allowed_prefixes:
        return True
    scheme, host, path = _origin_and_path(url)
    for prefix in allowed_prefixes:
        p_scheme, p_host, p_path = _origin_and_path(prefix)
        if (scheme, host) != (p_scheme, p_host) or not p_host:
            continue
        if path == p_path or path.startswith(p_path + "/"):
            return True
    return False


def is_custom_base_url(url: str, default_url: str | None) -> bool:
    return default_url is None or normalize_base_url(url) != normalize_base_url(default_url)


def base_url_refusal(
    *,
    url: str,
    default_url: str | None,
    changing: bool,
    is_owner: bool,
    allowed_prefixes: Sequence[str],
) -> str | None:
    """Why ``url`` may not be saved, or None when it may.

    ``default_url`` is the kind's own URL (None when the kind has none); ``changing`` is False when an existing
    endpoint keeps the URL it had, which an editor may then save without being an owner. The allow-list applies
    either way: a deployment that tightens it stops old endpoints too.
    """
    if not is_custom_base_url(url, default_url):
        return None
    if changing and not is_owner:
        return "Only team owners can set a custom base URL."
    if not is_allowed_base_url(url, allowed_prefixes):
        if not allowed_prefixes:
            return "This deployment allows no custom base URLs (CROSSWIRE_ALLOWED_BASE_URLS is empty)."
        allowed = ", ".join(allowed_prefixes)
        return f"This deployment does not allow that base URL; CROSSWIRE_ALLOWED_BASE_URLS allows: {allowed}."
    return None
