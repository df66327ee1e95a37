"""The base URL rules: shape checks, the /v1 warnings, the allow-list and who may set a custom URL (pure functions)."""

from __future__ import annotations

import pytest

from playground.endpoints.policy import (
    address_policy,
    base_url_refusal,
    check_base_url,
    is_allowed_base_url,
    is_custom_base_url,
    resolved_path,
)

OPENAI = "https://api.openai.com/v1"


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/v1", "localhost:11434/v1", "http:///v1", "https://user:pw@example.com/v1", "http://h:99999/v1"],
)
def test_unusable_urls_are_errors(url: str) -> None:
    assert check_base_url(url, "openai-chat").errors


def test_query_strings_are_errors() -> None:
    assert check_base_url("https://example.com/v1?key=1", "openai-chat").errors


def test_openai_urls_without_v1_get_a_warning_not_an_error() -> None:
    check = check_base_url("http://localhost:11434", "openai-chat")
    assert check.errors == []
    assert ["/v1" in warning for warning in check.warnings] == [True]
    assert check_base_url("http://localhost:11434/v1", "openai-chat").warnings == []
    assert check_base_url("https://api.groq.com/openai/v1", "openai-chat").warnings == []


def test_anthropic_urls_with_v1_get_a_warning() -> None:
    assert check_base_url("https://api.anthropic.com/v1", "anthropic").warnings
    assert check_base_url("https://api.anthropic.com", "anthropic").warnings == []


def test_star_allows_anything() -> None:
    assert is_allowed_base_url("http://10.0.0.5:8000/v1", ["*"])


def test_empty_list_allows_nothing() -> None:
    assert not is_allowed_base_url("https://openrouter.ai/api/v1", [])


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://openrouter.ai/api/v1", True),
        ("https://openrouter.ai/api/v1/", True),
        ("https://OpenRouter.ai/api/v1", True),
        ("https://openrouter.ai:443/api/v1", True),
        ("https://openrouter.ai/api/v1/extra", True),
        ("https://openrouter.ai/api/v10", False),
        ("https://openrouter.ai/other/v1", False),
        ("http://openrouter.ai/api/v1", False),
        ("https://openrouter.ai.evil.example/api/v1", False),
        ("https://openrouter.ai:8443/api/v1", False),
        ("http://gpu-box.internal:8000/v1", True),
        ("http://gpu-box.internal:8001/v1", False),
    ],
)
def test_prefixes_match_by_origin_and_whole_path_segments(url: str, allowed: bool) -> None:
    prefixes = ["https://openrouter.ai/api/v1", "http://gpu-box.internal:8000/"]
    assert is_allowed_base_url(url, prefixes) is allowed


def test_the_kinds_default_url_is_not_custom() -> None:
    assert not is_custom_base_url("https://api.openai.com/v1/", OPENAI)
    assert is_custom_base_url("https://proxy.example.com/v1", OPENAI)
    assert is_custom_base_url("http://localhost:11434/v1", None)


def test_default_url_is_fine_for_editors_even_with_nothing_allowed() -> None:
    assert base_url_refusal(url=OPENAI, default_url=OPENAI, changing=True, is_owner=False, allowed_prefixes=[]) is None


def test_editors_cannot_set_a_custom_url() -> None:
    refusal = base_url_refusal(
        url="http://localhost:11434/v1", default_url=None, changing=True, is_owner=False, allowed_prefixes=["*"]
    )
    assert refusal == "Only team owners can set a custom base URL."


def test_owners_can_set_an_allowed_custom_url() -> None:
    for allowed in (["*"], ["http://localhost:11434"]):
        refusal = base_url_refusal(
            url="http://localhost:11434/v1", default_url=None, changing=True, is_owner=True, allowed_prefixes=allowed
        )
        assert refusal is None


def test_owners_cannot_set_a_url_the_deployment_does_not_allow() -> None:
    refusal = base_url_refusal(
        url="http://169.254.169.254/v1", default_url=None, changing=True, is_owner=True, allowed_prefixes=[]
    )
    assert refusal is not None and "allows no custom base URLs" in refusal
    refusal = base_url_refusal(
        url="http://169.254.169.254/v1",
        default_url=None,
        changing=True,
        is_owner=True,
        allowed_prefixes=["https://openrouter.ai/api/v1"],
    )
    assert refusal is not None and "https://openrouter.ai/api/v1" in refusal


def test_an_unchanged_custom_url_needs_no_owner_but_still_the_allow_list() -> None:
    url = "http://localhost:11434/v1"
    assert base_url_refusal(url=url, default_url=None, changing=False, is_owner=False, allowed_prefixes=["*"]) is None
    assert base_url_refusal(url=url, default_url=None, changing=False, is_owner=False, allowed_prefixes=[]) is not None


# --- Paths that mean something else once resolved (RFC 3986 dot segments, encoded separators) -------------------

ESCAPES = [
    "http://host/ok/v1/../../v1",
    "http://host/ok/v1/./../../private",
    "http://host/ok/v1/..",
    "http://host/ok/v1/%2e%2e/%2E%2E/private",
    "http://host/ok/v1/%2e./private",
    "http://host/ok/v1%2f..%2fprivate",
    "http://host/ok/v1/..%5cprivate",
    "http://host/ok/v1\\..\\private",
]


@pytest.mark.parametrize("url", ESCAPES)
def test_dot_segments_and_encoded_separators_are_errors(url: str) -> None:
    assert check_base_url(url, "openai-chat").errors


@pytest.mark.parametrize("url", ESCAPES)
def test_no_prefix_and_not_even_star_allows_an_escaping_path(url: str) -> None:
    assert not is_allowed_base_url(url, ["http://host/ok/v1"])
    assert not is_allowed_base_url(url, ["*"])


@pytest.mark.parametrize("url", ESCAPES)
def test_a_stored_escaping_url_is_refused_with_a_reason(url: str) -> None:
    # An endpoint saved before these checks existed reaches base_url_refusal at run time, not check_base_url.
    refusal = base_url_refusal(
        url=url, default_url=None, changing=False, is_owner=True, allowed_prefixes=["http://host/ok/v1"]
    )
    assert refusal is not None


def test_prefixes_are_compared_after_dot_segment_removal() -> None:
    assert resolved_path("/a/b/../c/./d") == "/a/c/d"
    assert resolved_path("/ok/v1/../../v1") == "/v1"
    assert is_allowed_base_url("http://host/ok/v1/models-gw", ["http://host/ok/v1/x/.."])


def test_dots_inside_a_segment_are_ordinary_characters() -> None:
    assert check_base_url("http://host/api.v1/..models/v1", "openai-chat").errors == []
    assert is_allowed_base_url("http://host/api.v1/..models/v1", ["http://host/api.v1"])


# --- Internal addresses: always refused unless listed by name; numbers written oddly -----------------------------


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "127.1", "0177.0.0.1"])
def test_noncanonical_ip_spellings_are_errors(host: str) -> None:
    errors = check_base_url(f"http://{host}:8000/v1", "openai-chat").errors
    assert errors == ["Write an IP address in its usual dotted form (like 10.0.0.5), not as one number or in hex."]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/v1",
        "http://[fd00:ec2::254]/v1",
        "http://metadata.google.internal/v1",
        "http://169.254.1.1:8080/v1",
        "http://[fe80::1]:8080/v1",
        "http://[::ffff:169.254.169.254]/v1",
    ],
)
def test_link_local_and_metadata_hosts_are_refused_even_by_star(url: str) -> None:
    refusal = base_url_refusal(url=url, default_url=None, changing=True, is_owner=True, allowed_prefixes=["*"])
    assert refusal is not None and "lists it explicitly" in refusal


def test_a_metadata_host_listed_explicitly_is_allowed() -> None:
    prefixes = ["http://169.254.169.254/"]
    url = "http://169.254.169.254/v1"
    assert base_url_refusal(url=url, default_url=None, changing=True, is_owner=True, allowed_prefixes=prefixes) is None
    assert address_policy(prefixes).refusal("169.254.169.254", "169.254.169.254") is None
    assert address_policy(["*"]).refusal("169.254.169.254", "169.254.169.254") is not None


def test_loopback_stays_allowed_by_star_for_local_servers() -> None:
    url = "http://localhost:11434/v1"
    assert base_url_refusal(url=url, default_url=None, changing=True, is_owner=True, allowed_prefixes=["*"]) is None
    assert address_policy(["*"]).refusal("localhost", "127.0.0.1") is None
