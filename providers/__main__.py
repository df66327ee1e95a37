"""``python -m providers``: see providers/cli.py."""

from __future__ import annotations

from providers.cli import main

raise SystemExit(main())
