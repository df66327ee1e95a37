"""The sections of the app: one list drives the sidebar, the `g <key>` shortcuts and the help dialog."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    key: str
    label: str
    url_name: str
    icon: str
    shortcut: str  # pressed after "g"


SECTIONS = (
    Section("playground", "Playground", "playground", "play", "p"),
    Section("tools", "Tools", "tools", "braces", "t"),
    Section("mcp", "MCP servers", "mcp-servers", "bolt", "s"),
    Section("conversations", "Conversations", "conversations", "messages", "c"),
    Section("compare", "Compare", "compare", "columns", "o"),
    Section("providers", "Providers", "providers", "plug", "r"),
    Section("team", "Team", "team", "users", "m"),
)

# Shortcuts that are not navigation, for the help dialog. Keys pressed together are written apart by a space: each
# is drawn in a box of its own.
OTHER_SHORTCUTS = (
    ("?", "Show this help"),
    ("t", "Switch between light and dark theme"),
    ("Esc", "Close dialogs"),
    ("Ctrl/⌘ Enter", "Send what you are typing: a message, a tool's answer, a comment"),
    ("↑ ↓ Enter", "In a round trip's events and JSON (Tab to reach them): move, open, fold (← →)"),
)
