"""The chat settings' form shares its fields between instances (playground/chat/options.py): one payload's result
never leaks into the next."""

from __future__ import annotations

from playground.chat.options import OptionsForm, parse_options

VALID = {"endpoint_id": 3, "model": "sim-1", "tools": ["calculator"], "tool_choice": "calculator", "temperature": 1}


def test_each_payload_is_judged_on_its_own() -> None:
    bad = {"endpoint_id": "three", "model": "", "temperature": 5, "tool_choice": "calculator"}
    for _ in range(2):
        parsed, errors = parse_options(bad)
        assert parsed is None
        assert set(errors) == {"endpoint_id", "model", "temperature", "tool_choice"}
        assert errors["temperature"] == ["Ensure this value is less than or equal to 2."]
        # Shown after the field's name ("tool_choice: …"): the message does not say it again.
        assert errors["tool_choice"] == ["'calculator' is not auto, none, required or an enabled tool"]
        parsed, errors = parse_options(VALID)
        assert errors == {}
        assert parsed is not None
        assert (parsed.endpoint_id, parsed.tool_choice, parsed.temperature) == (3, "calculator", 1.0)
        assert (parsed.max_tokens, parsed.max_round_trips, parsed.strategy) == (1024, 8, "auto")


def test_the_fields_are_shared_not_copied() -> None:
    first, second = OptionsForm(data=VALID), OptionsForm(data=VALID)
    assert first.fields is not second.fields
    assert all(first.fields[name] is second.fields[name] for name in OptionsForm.base_fields)
