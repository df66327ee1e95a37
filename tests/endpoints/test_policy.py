"""The base URL rules: shape checks, the /v1 warnings, the allow-list and who may set a custom URL (pure functions)."""

from __future__ import annotations

import pytest

from playground.endpoints.policy import base_url_refusal, check_base_url, is_allowed_base_url, is_custom_base_url

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
