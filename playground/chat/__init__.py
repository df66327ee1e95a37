"""The chat: runs of the tool loop that outlive the browser tab, saved as they happen and streamed live."""

from __future__ import annotations
