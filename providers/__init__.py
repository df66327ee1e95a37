"""Crosswire providers: lossless translation between the internal OpenAI Chat format and each wire format.

Pure Python: nothing here imports Django, so the CLI, the simulator and the benchmarks run without it.
"""

from __future__ import annotations
