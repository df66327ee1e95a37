"""Django looks for an app's models here; each domain keeps its own in ``playground/<domain>/models.py``.

Importing them is all this module does: it registers every model with the one ``playground`` app (see
docs/architecture.md for why the domains share one app and one migration history).
"""

from __future__ import annotations

from playground.chat.models import RunProcess
from playground.compare.models import Comparison, ComparisonRun
from playground.conversations.models import Conversation, Message, RoundTrip, WireEventBatch
from playground.endpoints.models import Endpoint
from playground.mcp.models import MCPServer
from playground.review.models import Comment, Label, Mention, ShareLink, Verdict
from playground.teams.models import Invitation, Membership, Role, Team
from playground.tools.models import Tool

__all__ = [
    "Comment",
    "Comparison",
    "ComparisonRun",
    "Conversation",
    "Endpoint",
    "Invitation",
    "Label",
    "MCPServer",
    "Membership",
    "Mention",
    "Message",
    "Role",
    "RoundTrip",
    "RunProcess",
    "ShareLink",
    "Team",
    "Tool",
    "Verdict",
    "WireEventBatch",
]
