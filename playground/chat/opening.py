"""Opening a turn: its checks, the claim on the conversation and the user's message, in one trip to the ORM's thread.

Every step here is a statement or two; sent one trip each they cost more in thread hand-offs than in the database,
beside every stream of the process, while chats start by the dozen (docs/performance.md). ``open_turn`` does them
in order on the ORM's thread and hands the run what it would read next: the history and where its round trips go.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from playground.chat.options import ChatOptions
from playground.chat.processes import PROCESS_ID, owner_alive
from playground.chat.writes import save_message
from playground.conversations.models import BUSY_STATUSES, Conversation, Message, RoundTrip, title_from
from playground.endpoints.checks import refusal_for
from playground.endpoints.models import Endpoint
from playground.prepared import PreparedQuery, PreparedUpdate
from playground.teams.models import Team
from playground.tools.config import ToolConfig
from playground.tools.models import Tool

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.contrib.auth.base_user import AbstractBaseUser

CONFIGURED_FIELDS = ("endpoint", "endpoint_name", "format", "model", "settings", "tools", "title")
STILL_RUNNING = "This conversation is still running: stop it or wait for it to finish."
NOTHING_TO_RETRY = "There is nothing to retry yet: send a message first."
RUN_STALE_AFTER_S = 90  # a running or waiting conversation not touched for this long belongs to a dead process

HistoryRow = tuple[int, dict[str, Any], bool]  # a saved message: position, data, complete


class TurnRefused(Exception):
    """The turn cannot start; the message says why, for the page."""


class AccessLost(Exception):
    """The one who sent the turn may no longer open its conversation (signed out, no longer a member)."""


@dataclass
class Admission:
    """A turn whose sender's access is checked in the trip that opens it, not in one of its own: ``check`` reads the
    conversation's row if they may still run it, or raises (``AccessLost``, or ``TurnRefused`` for a viewer).
    ``checked``: whether it ran, so a refusal before it (an empty message) can be told apart. On the ORM's thread."""

    pk: int
    check: Callable[[int], Conversation]
    checked: bool = False

    def conversation(self) -> Conversation:
        self.checked = True
        return self.check(self.pk)


@dataclass(frozen=True)
class OpenedTurn:
    """What opening a turn saved and read, for its run: it need not read any of it again."""

    history: list[HistoryRow]  # every message of the conversation in order, the user's new one last
    first_round_trip: int  # the position the turn's first round trip takes


def visible_endpoints(team: Team | int) -> Any:
    """The team's endpoints and the shared ones; ``team``: the team or its id."""
    return Endpoint.objects.filter(Q(team=team) | Q(team__isnull=True))


# The statements every turn runs, built once (playground.prepared): the ORM's building of them cost more than the
# database's running of them, at every turn's start.
_ENDPOINT = PreparedQuery(lambda team, pk: visible_endpoints(team).filter(pk=pk).order_by()[:1], int, int)
_HISTORY = PreparedQuery(
    lambda c: (
        Message.objects.filter(conversation_id=c).order_by("position").values_list("position", "data", "complete")
    ),
    int,
)
_LAST_ROUND_TRIP = PreparedQuery(
    lambda c: RoundTrip.objects.filter(conversation_id=c).order_by("-position").values_list("position")[:1], int
)
# The runs that count against a person's limit: those at work (a model streaming, a tool answering). A run parked on
# a person's answer holds nothing but its place; counted, a few chats left waiting would block every new one, the
# columns of a comparison among them.
_WORKING = Conversation.Status.RUNNING
# How many runs a person holds, but this conversation's: one row (their count), or none when they hold none.
_USER_CLAIMS = PreparedQuery(
    lambda user, pk: (
        Conversation.objects.filter(run_by_id=user, status=_WORKING)
        .exclude(pk=pk)
        .order_by()
        .values("run_by")
        .annotate(claims=Count("pk"))
        .values_list("claims")
    ),
    int,
    int,
)


def open_turn(
    conversation: Conversation, options: ChatOptions, user: AbstractBaseUser | None, content: Any, title: str
) -> OpenedTurn:
    """Check the endpoint, the policy, the person's runs and the tools; claim the conversation with the turn's
    settings; save the user's message. Nothing is saved when a check refuses; the claim is released if saving the
    message fails. On the ORM's thread."""
    claim(conversation, user, _checked_configuration(conversation, options, user, title))
    try:
        return OpenedTurn(_append_user_message(conversation, content), next_round_trip(conversation))
    except BaseException:
        release(conversation)
        raise


def reopen_turn(conversation: Conversation, user: AbstractBaseUser | None) -> None:
    """Retry from here: claim the conversation with the settings as the page holds them now (saved as they change),
    not those of the turn that failed, so a model or endpoint changed after an error is the one retried. The same
    checks as a new message's; nothing is saved when one refuses. On the ORM's thread."""
    if not Message.objects.filter(conversation=conversation).exists():
        raise TurnRefused(NOTHING_TO_RETRY)
    options = ChatOptions(**conversation.settings)
    claim(conversation, user, _checked_configuration(conversation, options, user, conversation.title))


def _checked_configuration(
    conversation: Conversation, options: ChatOptions, user: AbstractBaseUser | None, title: str
) -> dict[str, Any]:
    """The endpoint, the policy, the person's runs and the tools checked; the turn's settings, for the claim."""
    endpoint = next(iter(_ENDPOINT.instances(conversation.team_id, options.endpoint_id)), None)
    if endpoint is None:
        raise TurnRefused("Pick a provider endpoint.")
    check_policy(endpoint)
    check_user_runs(conversation, user)
    tools = _tools(conversation.team_id, options.tools)
    missing = sorted(set(options.tools) - {t.name for t in tools})
    if missing:
        raise TurnRefused(f"Unknown tools: {', '.join(missing)}.")
    return configure(conversation, endpoint, options, tools, title)


def open_admitted_turn(
    admission: Admission, options: ChatOptions, user: AbstractBaseUser | None, content: Any, title: str
) -> tuple[Conversation, OpenedTurn]:
    """``open_turn`` after the sender's access check, in the same trip: the row the check read, and the turn."""
    conversation = admission.conversation()
    return conversation, open_turn(conversation, options, user, content, title)


def _tools(team_id: int, names: list[str]) -> list[ToolConfig]:
    if not names:  # most turns: no statement to build
        return []
    return [t.config() for t in Tool.objects.filter(team_id=team_id, name__in=names)]


def _append_user_message(conversation: Conversation, content: Any) -> list[HistoryRow]:
    """Save the user's message after the history, which is read once, before it: the claim holds the positions."""
    before = history(conversation)
    position = before[-1][0] + 1 if before else 0
    saved = save_message(conversation, {"role": "user", "content": content}, position=position)
    if saved.position != position:  # taken after all (save_message put it after the last): read what is there
        return history(conversation)
    return [*before, (saved.position, saved.data, saved.complete)]


def read_opened(conversation: Conversation) -> OpenedTurn:
    """What a run reads before it goes on: the history and the next round trip's position. On the ORM's thread."""
    return OpenedTurn(history(conversation), next_round_trip(conversation))


def history(conversation: Conversation) -> list[HistoryRow]:
    return _HISTORY.rows(conversation.pk)  # type: ignore[return-value]


def next_round_trip(conversation: Conversation) -> int:
    last = _LAST_ROUND_TRIP.rows(conversation.pk)
    return last[0][0] + 1 if last else 0


def check_policy(endpoint: Endpoint) -> None:
    """The allow-list as it is now: an endpoint saved before it was narrowed gets no request, and no key."""
    refusal = refusal_for(endpoint)
    if refusal:
        raise TurnRefused(f"{endpoint.name} cannot be used: {refusal}")


def check_user_runs(conversation: Conversation, user: AbstractBaseUser | None) -> None:
    """A person holds at most CROSSWIRE_MAX_RUNS_PER_USER runs at once, across conversations and processes."""
    if user is None:
        return
    limit = settings.CROSSWIRE_MAX_RUNS_PER_USER
    # Fewer claims than the limit cannot reach it, alive or not: count them, and read them only when they might.
    # Someone running many chats at once (a team's scripted demo, a load test) would otherwise have every one of
    # them read and checked again at each turn's start.
    counted = _USER_CLAIMS.rows(user.pk, conversation.pk)
    if (counted[0][0] if counted else 0) < limit:
        return
    rows = Conversation.objects.filter(run_by=user, status=_WORKING).exclude(pk=conversation.pk).order_by("pk")
    alive = live_claims(list(rows.values("status", "run_owner", "updated_at", "title")))
    if len(alive) >= limit:
        names = ", ".join(f"“{row['title'] or 'Untitled'}”" for row in alive[:3]) + (", …" if len(alive) > 3 else "")
        raise TurnRefused(
            f"You have {len(alive)} run{'s' if len(alive) != 1 else ''} going already (at most {limit} at once), "
            f"in {names}: stop one or wait for one to finish."
        )


def claim(
    conversation: Conversation, user: AbstractBaseUser | None = None, configured: dict[str, Any] | None = None
) -> None:
    """One run per conversation across every web process: the database row is the lock, marked with the process
    that holds it. A run whose process is gone (playground.chat.processes) no longer holds it. ``configured``: the
    turn's settings (``configure``), written with the claim or not at all."""
    fields = {
        "status": Conversation.Status.RUNNING,
        "status_message": "",
        "run_owner": PROCESS_ID,
        "run_by": user,
        "updated_at": timezone.now(),
        **(configured or {}),
    }
    # Most turns start on a conversation nobody runs: claimed in one statement. The row is read only when it is
    # held, to tell a live holder from a dead one.
    claimed = _claim_update(tuple(fields)).run(fields, conversation.pk)
    if not claimed:
        row = Conversation.objects.filter(pk=conversation.pk).values("status", "run_owner", "updated_at").first()
        if row is None:
            raise TurnRefused("This conversation no longer exists.")
        if row["status"] in BUSY_STATUSES and holder_alive(row):
            raise TurnRefused(STILL_RUNNING)
        # Only if nobody claimed it in between: the same status and holder as just read.
        same = {"status": row["status"], "run_owner": row["run_owner"]}
        claimed = Conversation.objects.filter(pk=conversation.pk, **same).update(**fields)
    if not claimed:
        raise TurnRefused(STILL_RUNNING)
    conversation.status, conversation.status_message = Conversation.Status.RUNNING, ""
    conversation.run_owner, conversation.run_by = PROCESS_ID, user


@cache
def _claim_update(fields: tuple[str, ...]) -> PreparedUpdate:
    """The claim of a conversation nobody holds, setting ``fields``; built once per set of fields."""
    return PreparedUpdate(
        Conversation, fields, lambda pk: Conversation.objects.filter(pk=pk).exclude(status__in=BUSY_STATUSES), int
    )


def live_claims(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims among these held by a live process."""
    return [row for row in rows if holder_alive(row)]


def holder_alive(row: dict[str, Any]) -> bool:
    if row["run_owner"]:
        return owner_alive(row["run_owner"])
    # A claim from before processes were tracked: its heartbeat alone tells.
    return bool(row["updated_at"] >= timezone.now() - timedelta(seconds=RUN_STALE_AFTER_S))


def release(conversation: Conversation) -> None:
    Conversation.objects.filter(pk=conversation.pk).update(status=Conversation.Status.IDLE, run_owner="")


def title_for(text: str, images: int) -> str:
    if text.strip():
        return title_from(text)
    return f"{images} image{'s' if images != 1 else ''}"


def configure(
    conversation: Conversation, endpoint: Endpoint, options: ChatOptions, tools: list[ToolConfig], title: str
) -> dict[str, Any]:
    """Set the fields a turn sets on ``conversation``; their values, for the claim to save. Those fields, not the
    whole row: its search text (the conversation's every word, which the indexer may have changed since) stays."""
    conversation.endpoint, conversation.endpoint_name = endpoint, endpoint.name
    conversation.format, conversation.model = endpoint.format, options.model
    conversation.settings = options.to_dict()
    conversation.tools = [t.to_dict() for t in tools]  # a snapshot: editing a tool later changes nothing here
    conversation.title = conversation.title or title
    return {name: getattr(conversation, name) for name in CONFIGURED_FIELDS}
