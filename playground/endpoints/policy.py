"""Which base URLs an endpoint may point at, as pure functions of their inputs (no Django, no database).

A shared instance makes HTTP requests wherever an endpoint's base URL says, so a base URL is a way into the
deployment's network. The kinds' own URLs (api.openai.com, api.anthropic.com) are always fine; anything else is a
*custom* base URL, which only team owners may set and only to a prefix the deployment lists in
``CROSSWIRE_ALLOWED_BASE_URLS`` ("*" for any).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from providers.client.addresses import AddressPolicy, forbidden_host_kind, is_noncanonical_ip

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
    errors.extend(_path_problems(url))
    if parts.hostname and is_noncanonical_ip(parts.hostname):
        errors.append("Write an IP address in its usual dotted form (like 10.0.0.5), not as one number or in hex.")
    if errors:
        return UrlCheck(errors, [])
    path = parts.path.rstrip("/")
    warnings: list[str] = []
    if wire_format == "openai-chat" and not path.endswith("/v1"):
        warnings.append("OpenAI-style base URLs usually end in /v1 (the SDK posts to {base}/chat/completions).")
    if wire_format == "anthropic" and path.endswith("/v1"):
        warnings.append("Anthropic base URLs usually do not end in /v1 (the SDK posts to {base}/v1/messages).")
    return UrlCheck([], warnings)


# Percent-encoded ".", "/" and "\\": servers and proxies decode them at different stages, so a path that looks
# inside a prefix here may not be inside it where it lands.
_ENCODED_SEPARATORS = re.compile(r"%(2e|2f|5c)", re.IGNORECASE)


def _path_problems(url: str) -> list[str]:
    """A base URL's path must mean one thing to everyone: no dot segments, no encoded dots or slashes, no backslash.

    The HTTP client resolves ``..`` (RFC 3986) before sending, so ``/ok/v1/../../private`` matched the prefix
    ``/ok/v1`` as text and reached ``/private``.
    """
    problems: list[str] = []
    if "\\" in url:
        problems.append("A base URL cannot contain a backslash.")
    path = urlsplit(url.replace("\\", "/")).path
    if _ENCODED_SEPARATORS.search(path):
        problems.append("A base URL's path cannot contain an encoded dot, slash or backslash (%2e, %2f, %5c).")
    if any(segment in {".", ".."} for segment in path.split("/")):
        problems.append("Write the base URL's path without . or .. segments.")
    return problems


def resolved_path(path: str) -> str:
    """``path`` with its dot segments removed as RFC 3986 section 5.2.4 says (urljoin implements it)."""
    return urlsplit(urljoin("http://host", path or "/")).path


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
    return parts.scheme.lower(), host.lower(), resolved_path(parts.path).rstrip("/")


def is_allowed_base_url(url: str, allowed_prefixes: Sequence[str]) -> bool:
    """Whether ``url`` starts with one of the prefixes, compared by scheme, host, port and whole path segments.

    Segment-wise, so the prefix ``https://api.example.com`` does not also allow ``https://api.example.com.evil``
    and ``http://gw/v1`` does not allow ``http://gw/v10``.
    """
    if _path_problems(url):
        return False  # ambiguous paths are refused even by "*": no prefix can be said to contain them
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
    # Saved before these checks existed, or typed now: a URL that check_base_url refuses is never contacted.
    unusable = check_base_url(url, "").errors
    if unusable:
        return unusable[0]
    if not is_allowed_base_url(url, allowed_prefixes):
        if not allowed_prefixes:
            return "This deployment allows no custom base URLs (CROSSWIRE_ALLOWED_BASE_URLS is empty)."
        allowed = ", ".join(allowed_prefixes)
        return f"This deployment does not allow that base URL; CROSSWIRE_ALLOWED_BASE_URLS allows: {allowed}."
    return _forbidden_host(url, allowed_prefixes)


def explicit_hosts(allowed_prefixes: Sequence[str]) -> frozenset[str]:
    """The hosts the allow-list names (``*`` names none): only these may be link-local or metadata addresses."""
    hosts = (urlsplit(prefix.strip()).hostname for prefix in allowed_prefixes if prefix.strip() != ANY_URL)
    return frozenset(host.lower() for host in hosts if host)


def address_policy(allowed_prefixes: Sequence[str]) -> AddressPolicy:
    """What the HTTP client may dial for these prefixes: checked again on each address a host resolves to."""
    return AddressPolicy(explicit_hosts(allowed_prefixes))


def _forbidden_host(url: str, allowed_prefixes: Sequence[str]) -> str | None:
    host = (urlsplit(url).hostname or "").lower()
    kind = forbidden_host_kind(host)
    if kind is None or host in explicit_hosts(allowed_prefixes):
        return None
    return f"{host} is {kind}: this deployment contacts it only when CROSSWIRE_ALLOWED_BASE_URLS lists it explicitly."
