"""The "mcp" answer kind in the tool library: snapshots carry the server only for MCP tools, and people cannot make
one by hand (the editor and imports offer only manual, canned and built-in)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from playground.tools.config import ToolConfig, answer_automatically
from playground.tools.forms import ToolForm
from playground.tools.transfer import read_entry

if TYPE_CHECKING:
    from playground.teams.models import Team


def test_an_mcp_snapshot_round_trips_with_its_server() -> None:
    config = ToolConfig(name="echo", mode="mcp", mcp_server_id=7, mcp_tool="echo.v2")

    assert ToolConfig.from_dict(config.to_dict()) == config
    assert config.to_dict()["mcp_server_id"] == 7


def test_other_snapshots_read_exactly_as_before() -> None:
    keys = set(ToolConfig(name="calc", mode="builtin", builtin="calculator").to_dict())
    assert keys == {"name", "description", "parameters", "strict", "mode", "builtin", "canned_rules", "canned_default"}


def test_an_mcp_tool_is_not_answered_in_process() -> None:
    # The chat loop answers it through playground.mcp.answer (async, over the network), not here.
    assert answer_automatically(ToolConfig(name="echo", mode="mcp", mcp_server_id=1, mcp_tool="echo"), {}) is None


def test_an_import_cannot_make_an_mcp_tool() -> None:
    entry = {"name": "echo", "parameters": {"type": "object"}, "mode": "mcp", "mcp_server_id": 1, "mcp_tool": "echo"}

    candidate = read_entry(entry, 0, "crosswire")

    assert candidate.config is None
    assert candidate.problems == [
        "mode: 'mcp' tools come from an MCP server; add the server to the team and sync its tools."
    ]


@pytest.mark.django_db
def test_the_editor_does_not_offer_mcp(team: Team) -> None:
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    data.update({"name": "echo", "parameters": '{"type": "object"}', "mode": "mcp"})

    form = ToolForm(data, team=team)

    assert not form.is_valid()
    assert form.errors["mode"] == ["Select a valid choice. mcp is not one of the available choices."]
