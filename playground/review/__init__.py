"""Team review: reading a conversation, commenting, labels, verdicts on tool calls and read-only share links."""
