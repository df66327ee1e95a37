"""Compare: one prompt and one tool set across several providers."""
