from __future__ import annotations

from playground.tools.canned import CannedRule, answer
from playground.tools.config import ToolConfig, answer_automatically

RULES = [
    CannedRule({"city": "Paris"}, '{"temp": 18}'),
    CannedRule({"city": "Atlantis"}, "No such city", is_error=True),
    CannedRule({"options.unit": "fahrenheit"}, '{"temp": 64}'),
    CannedRule({"city": "*"}, '{"temp": 20}'),
]


def test_first_matching_rule_wins() -> None:
    result = answer(RULES, "default", {"city": "Paris", "options": {"unit": "fahrenheit"}})
    assert (result.content, result.source) == ('{"temp": 18}', "canned:rule 1")


def test_error_rules_mark_the_result() -> None:
    result = answer(RULES, "default", {"city": "Atlantis"})
    assert result.is_error and result.content == "No such city"


def test_nested_paths_and_wildcards() -> None:
    assert answer(RULES, "d", {"city": "Rome", "options": {"unit": "fahrenheit"}}).source == "canned:rule 3"
    assert answer(RULES, "d", {"city": "Rome"}).source == "canned:rule 4"


def test_default_when_nothing_matches() -> None:
    result = answer(RULES, "sunny everywhere", {"country": "FR"})
    assert (result.content, result.is_error, result.source) == ("sunny everywhere", False, "canned:default")


def test_tool_config_round_trips_and_answers() -> None:
    tool = ToolConfig(name="w", mode="canned", canned_rules=tuple(RULES), canned_default="?")
    again = ToolConfig.from_dict(tool.to_dict())
    assert again == tool
    assert answer_automatically(again, {"city": "Paris"}).content == '{"temp": 18}'  # type: ignore[union-attr]


def test_builtin_failure_becomes_an_error_result() -> None:
    tool = ToolConfig(name="calc", mode="builtin", builtin="calculator")
    result = answer_automatically(tool, {"expression": "1/0"})
    assert result is not None and result.is_error and "Cannot evaluate" in result.content


def test_manual_tools_need_a_person() -> None:
    assert answer_automatically(ToolConfig(name="ask"), {}) is None


def test_builtin_checks_its_own_schema_even_if_the_tool_was_loosened() -> None:
    loose = ToolConfig(name="calc", mode="builtin", builtin="calculator", parameters={"type": "object"})
    result = answer_automatically(loose, {})
    assert result is not None and result.is_error
    assert result.content == "Invalid arguments for calculator: 'expression' is a required property"
