"""The sockets of this process that show each conversation: who a run must feed directly, and who it must not miss.

A chat socket adds itself when it opens and removes itself when it closes (``watch``/``unwatch``). A run asks, for
every frame, whether one of them is not fed directly (it then needs the frame through the channel layer); the
answer is kept until a socket starts or stops watching, which ``generation`` counts.
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from playground.chat.registry import ActiveRun


class Watcher(Protocol):
    """A socket of this process showing a conversation (ChatConsumer)."""

    def follow(self, run: ActiveRun) -> None: ...

    async def send_frames(self, text: str) -> None: ...


_watching: dict[int, set[Watcher]] = {}
_generation = 0


def watch(conversation_id: int, watcher: Watcher) -> None:
    global _generation
    _generation += 1
    _watching.setdefault(conversation_id, set()).add(watcher)


def unwatch(conversation_id: int, watcher: Watcher) -> None:
    global _generation
    _generation += 1
    watchers = _watching.get(conversation_id)
    if watchers is not None:
        watchers.discard(watcher)
        if not watchers:
            del _watching[conversation_id]


def generation() -> int:
    """Bumped whenever a socket starts or stops watching any conversation."""
    return _generation


def watchers_of(conversation_id: int) -> list[Watcher]:
    return list(_watching.get(conversation_id, ()))


def any_unfed(conversation_id: int, fed: Container[object]) -> bool:
    """Whether a socket of this process shows the conversation but is not fed directly (its sender not in ``fed``)."""
    return any(w.send_frames not in fed for w in _watching.get(conversation_id, ()))
