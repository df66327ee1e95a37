"""What a round trip had produced so far, rebuilt from the raw events it saved: the same decoding as live.

A process that dies mid-stream leaves its raw events behind (saved batch by batch); the survivor replays them
through the wire format's own decoder and the shared accumulator to recover the partial answer, so nothing that
had arrived is lost and no second parser exists for the purpose.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from providers import events as ev
from providers.errors import ProviderError
from providers.formats import get_format
from providers.sse import SSEEvent
from providers.streaming import MessageAccumulator, StreamResult


def replay(format_name: str, events: Iterable[tuple[str, str | None]], *, streamed: bool) -> StreamResult:
    """``events``: (data, event name) in order, as received. A stream cut short yields ``complete=False``."""
    codec = get_format(format_name)
    acc = MessageAccumulator(format=format_name)
    try:
        if streamed:
            decoder = codec.new_stream_decoder()
            for data, name in events:
                _add(acc, decoder.feed(SSEEvent(data, name)))
        else:
            for data, _ in events:
                _add(acc, codec.response_events(json.loads(data)))
    except (ProviderError, ValueError, KeyError, TypeError):
        pass  # the last event may be half of what the provider meant to send: keep what decoded before it
    return acc.result()


def _add(acc: MessageAccumulator, decoded: list[ev.Event]) -> None:
    for event in decoded:
        acc.add(event)
