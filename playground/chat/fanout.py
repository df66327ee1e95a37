"""One message of a run's frames to every socket of this process that shows it, encoded once for all of them."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from playground.chat.eager import start_now
from providers import jsontext

Frame = dict[str, Any]
Subscriber = Callable[[str], Awaitable[None]]  # sends one text message (a JSON array of frames) to a socket

logger = logging.getLogger(__name__)


def encode_frames(frames: list[Frame]) -> str:
    """One WebSocket message: the frames in order, as a JSON array."""
    return jsontext.dumps(frames)


@dataclass
class FanOut:
    """What became of one message's sends."""

    waiting: list[tuple[Subscriber, Awaitable[None]]] = field(default_factory=list)  # what is left of each to await
    failed: list[Subscriber] = field(default_factory=list)  # sockets whose send raised (closing): drop them


def fan_out(frames: list[Frame], sockets: list[Subscriber], skips: dict[Subscriber, int], about: object) -> FanOut:
    """Send ``frames`` to each socket now, but for the first ``skips[socket]`` of them (queued before it joined).
    A frame that is not JSON is a bug: it is logged (``about``: whose frames) and the others go."""
    try:
        text = encode_frames(frames)  # once for every socket
    except (TypeError, ValueError):
        logger.exception("a frame of conversation %s could not be encoded", about)
        frames, skips = _encodable(frames, skips)
        text = encode_frames(frames)
    result = FanOut()
    for send in sockets:
        skip = skips.get(send, 0)
        if skip >= len(frames):
            continue
        try:
            rest = start_now(send(text if not skip else encode_frames(frames[skip:])))
        except Exception:  # a socket closing mid-send must not break the run (said: it may have failed otherwise)
            logger.warning("a socket of conversation %s is dropped: its send failed", about, exc_info=True)
            result.failed.append(send)
            continue
        if rest is not None:
            result.waiting.append((send, rest))
    return result


def _encodable(frames: list[Frame], skips: dict[Subscriber, int]) -> tuple[list[Frame], dict[Subscriber, int]]:
    """The frames that encode, with each socket's skip counted again over them."""
    ok = []
    for frame in frames:
        try:
            encode_frames([frame])
            ok.append(True)
        except (TypeError, ValueError):
            ok.append(False)
    kept = [frame for frame, good in zip(frames, ok, strict=True) if good]
    return kept, {send: sum(ok[:skip]) for send, skip in skips.items()}
