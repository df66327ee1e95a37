"""Saved conversations: every message and round trip as it happened, their presentation, the list, live events."""
