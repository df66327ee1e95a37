"""The review timeline: the saved transcript with each round trip's panes, the comments pinned to every message and
tool call, the verdicts on each call, and what the jump keys go to (errors, invalid calls, unanswered calls)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from playground.conversations.panes import PaneLinks, light_round_trips, page_round_trips
from playground.conversations.present import CallView, MessageView, message_numbers, transcript
from playground.review.anchors import Anchor
from playground.review.comments import CommentView, threads_by_anchor
from playground.review.curation import verdicts_by_call
from playground.review.models import Verdict

if TYPE_CHECKING:
    from playground.conversations.models import Conversation


@dataclass
class ReviewCall:
    view: CallView
    threads: list[CommentView]
    verdicts: list[Verdict]
    mine: Verdict | None = None

    @property
    def anchor(self) -> Anchor:
        return Anchor(call_id=self.view.id)

    @property
    def invalid(self) -> bool:
        """Sent with arguments its schema refuses; a call its message broke off in never ran, and is not counted."""
        return bool(self.view.problems) and not (self.view.cut or self.view.truncated)

    @property
    def jumps(self) -> str:
        """The jump kinds this call is a target of, for ``data-jump``."""
        kinds = []
        if self.view.status == "error":
            kinds.append("error")
        if self.invalid:
            kinds.append("invalid")
        if self.view.result is None:
            kinds.append("unanswered")
        return " ".join(kinds)


@dataclass
class ReviewMessage:
    view: MessageView
    threads: list[CommentView]
    calls: list[ReviewCall] = field(default_factory=list)
    round_trip: dict[str, Any] | None = None  # the panes of the round trip that produced it
    number: int | None = None  # as the Fork menu counts it (conversations.present.message_numbers)

    @property
    def anchor(self) -> Anchor:
        return Anchor(message_position=self.view.position)


@dataclass
class Entry:
    """One step of the timeline: a message (with its round trip), or a round trip that saved no message."""

    message: ReviewMessage | None = None
    round_trip: dict[str, Any] | None = None


@dataclass(frozen=True)
class JumpCounts:
    error: int
    invalid: int
    unanswered: int


def _call(
    view: CallView, threads: dict[str, list[CommentView]], verdicts: dict[str, list[Verdict]], user: Any
) -> ReviewCall:
    given = verdicts.get(view.id, [])
    mine = next((v for v in given if user is not None and v.author_id == user.pk), None)
    return ReviewCall(view, threads.get(Anchor(call_id=view.id).key, []), given, mine)


def timeline(conversation: Conversation, *, user: Any = None, share_token: str = "") -> dict[str, Any]:
    """``share_token`` given: the page is a share link's, whose round trips leave credential headers out and fetch
    what they did not send through the link."""
    messages = list(conversation.messages.order_by("position"))
    round_trips = list(light_round_trips(conversation))
    views = transcript(conversation, messages, {rt.pk: rt for rt in round_trips})
    threads = threads_by_anchor(conversation)
    verdicts = verdicts_by_call(conversation)
    links = PaneLinks(conversation.pk, share_token)
    panes = {
        view["row"].position: {**view, "has_error": bool(view["row"].error)}
        for view in page_round_trips(conversation, links, public=bool(share_token))
    }
    created = {m.position: m.created_at for m in messages}
    numbers = message_numbers(messages)

    steps: list[tuple[datetime, int, Entry]] = []
    placed: set[int] = set()
    for view in views:
        message = ReviewMessage(view, threads.get(Anchor(message_position=view.position).key, []))
        message.number = numbers.get(view.position)
        message.calls = [_call(c, threads, verdicts, user) for c in view.calls]
        if view.round_trip is not None and view.round_trip not in placed:
            message.round_trip = panes.get(view.round_trip)
            placed.add(view.round_trip)
        steps.append((created[view.position], len(steps), Entry(message=message)))
    for rt in round_trips:
        if rt.position not in placed:  # nothing was saved from it (an error before any text): it stands alone
            steps.append((rt.started_at, len(steps), Entry(round_trip=panes[rt.position])))
    entries = [entry for _, _, entry in sorted(steps, key=lambda step: (step[0], step[1]))]
    return {
        "entries": entries,
        "jumps": _count_jumps(entries),
        "conversation_threads": threads.get(Anchor().key, []),
        "conversation_anchor": Anchor(),
    }


def _count_jumps(entries: list[Entry]) -> JumpCounts:
    calls = [call for e in entries if e.message for call in e.message.calls]
    trips = [e.round_trip or (e.message.round_trip if e.message else None) for e in entries]
    failed_trips = sum(1 for rt in trips if rt and rt["has_error"])
    return JumpCounts(
        error=failed_trips + sum(1 for c in calls if "error" in c.jumps.split()),
        invalid=sum(1 for c in calls if c.invalid),
        unanswered=sum(1 for c in calls if c.view.result is None),
    )
