"""The chat socket of one conversation. Thin: check who may do what, hand work to the service, relay frames."""

from __future__ import annotations

import contextlib
import functools
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from playground.chat.attachments import max_send_bytes
from playground.chat.fanout import Frame, encode_frames
from playground.chat.options import parse_options
from playground.chat.questions import ANSWER_TYPES, open_questions, saved_state
from playground.chat.registry import REGISTRY, ActiveRun, layer_is_shared, send_control
from playground.chat.service import AccessLost, Admission, TurnRefused, orm_thread, resume_turn, start_turn
from playground.chat.watchers import unwatch, watch
from playground.conversations.access import conversation_access
from playground.conversations.consumers import ConversationConsumer
from playground.conversations.models import BUSY_STATUSES, Conversation
from playground.shell.consumers import CLOSE_REVOKED, FRAME_OVERHEAD_BYTES
from playground.shell.raw_send import raw_send
from playground.teams.revocation import session_alive

CONTROL_TYPES = {"tool_result", "approval", "stop"}
ACTIONS = {"send", "retry", *CONTROL_TYPES}
RUNS_REMEMBERED = 4
# Frames that say where a run stands, not what it streamed: shown again, they change nothing on the page.
STANDING_TYPES = frozenset({"status", "run.end"})
VIEWERS_CANNOT_RUN = "Viewers can read this conversation but not run it."
logger = logging.getLogger(__name__)


class ChatConsumer(ConversationConsumer):
    conversation: Conversation | None = None
    can_edit: bool = False
    # Runs that feed this socket directly: their batches through the layer are duplicates. More than one, because
    # a run's last batch can arrive after the next run of the conversation has started.
    direct_run_ids: tuple[str, ...] = ()
    asked_run_ids: tuple[str, ...] = ()  # runs of other processes this socket said it watches
    asked: bool = False
    # Runs held elsewhere that had ended, all saved, when this socket first heard of them after a snapshot that found
    # no run going: what their batches stream the page reads from the saved conversation (docs/websocket.md).
    ended_run_ids: tuple[str, ...] = ()
    settled: bool = False  # the last snapshot read the conversation with no run going
    saved: dict[str, Any] | None = None
    hot_types = frozenset({"conversation.batch"})  # a run's frames from another process: 40 a second while it streams

    def admits(self, user: Any) -> bool:
        # The key and team only: the socket needs the row's key; each action reads the whole row as it checks again.
        self.conversation, self.can_edit = conversation_access(user, self.conversation_id, whole=False)
        return self.conversation is not None

    async def opened(self) -> None:
        # From the saved state (read in join) to the snapshot nothing awaits but the accept: no frame of the run can
        # slip in between, none is missed.
        assert self.conversation is not None and self.saved is not None
        run = REGISTRY.get(self.conversation.pk)
        if run is not None:
            self.follow(run)
        await self.send_json(self._snapshot(run, self.saved))

    async def _saved_state(self) -> dict[str, Any]:
        assert self.conversation is not None
        saved: dict[str, Any] = await orm_thread(saved_state)(self.conversation.pk)
        # A run saves how it ended last of all: settled here, everything every earlier run sent is in this state.
        self.settled = saved["status"] not in BUSY_STATUSES
        return saved

    @staticmethod
    def _snapshot(run: ActiveRun | None, saved: dict[str, Any]) -> Frame:
        questions = saved.pop("questions", [])  # an interrupted run's, answerable still
        return {
            "type": "snapshot",
            "running": run is not None,
            **saved,
            "frames": list(run.round_trip_frames) if run and run.in_flight else [],
            "waiting": list(run.waiting.values()) if run else questions,
        }

    async def join(self) -> None:
        await super().join()
        assert self.conversation is not None
        watch(self.conversation.pk, self)  # a run started from now on feeds this socket directly
        if REGISTRY.get(self.conversation.pk) is None and layer_is_shared():
            # A run may be going on in another process: it sends batches from now on, and first what it has so far.
            await self._ask_for_batches(replay=True)
        self.saved = await self._saved_state()

    async def _ask_for_batches(self, *, replay: bool = False) -> None:
        """Tell a run held elsewhere that this socket watches; ``replay``: and send the round trip so far."""
        assert self.conversation is not None
        self.asked = True
        kind = "sync" if replay else "watch"
        await send_control(self.conversation.pk, {"type": kind, "channel": self.channel_name})

    async def conversation_sync(self, event: dict[str, Any]) -> None:
        """A run elsewhere replays what it has so far: the page redraws it as a snapshot, then batches follow."""
        self.asked_run_ids = (*self.asked_run_ids, event["run_id"])[-RUNS_REMEMBERED:]
        saved = await self._saved_state()
        if self.settled:  # the run ended before this was read (the replay was asked as it finished): all saved
            self.ended_run_ids = (*self.ended_run_ids, event["run_id"])[-RUNS_REMEMBERED:]
            await self.send_json(self._snapshot(None, saved))
            return
        saved.pop("questions", None)
        await self.send_json(
            {"type": "snapshot", "running": True, **saved, "frames": event["frames"], "waiting": event["waiting"]}
        )

    async def layer_lost(self) -> None:
        await self.send_json({"type": "connection", "state": "reconnecting"})

    async def layer_back(self) -> None:
        """Back after the layer was away: the saved state now, then a run held elsewhere replays its round trip."""
        assert self.conversation is not None
        run = REGISTRY.get(self.conversation.pk)
        await self.send_json(self._snapshot(run, await self._saved_state()))
        if run is None:
            with contextlib.suppress(Exception):
                await self._ask_for_batches(replay=True)

    def follow(self, run: ActiveRun) -> None:
        """Get the run's frames straight from it (and ignore the same frames arriving as batches)."""
        self.direct_run_ids = (*self.direct_run_ids, run.run_id)[-RUNS_REMEMBERED:]
        run.subscribe(self.send_frames)

    async def send_frames(self, text: str) -> None:
        """A run's frames: one message holding a JSON array (docs/websocket.md), serialised once for every socket.
        Straight to the server when it fits in one frame (playground.shell.raw_send); in parts through ``send``."""
        send = raw_send(self.scope)
        if send is None or len(text) * 4 > settings.CROSSWIRE_MAX_FRAME_BYTES:
            await self.send(text_data=text)
            return
        await send({"type": "websocket.send", "text": text})

    async def disconnect(self, code: int) -> None:
        if self.conversation is not None:
            unwatch(self.conversation.pk, self)
            if self.asked:
                await send_control(self.conversation.pk, {"type": "unwatch", "channel": self.channel_name})
            run = REGISTRY.get(self.conversation.pk)
            if run is not None:
                run.unsubscribe(self.send_frames)
        await super().disconnect(code)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind not in ACTIONS:
            await super().receive_json(content, **kwargs)
            return
        # Checked again on every action: a session signed out or a member removed since the socket opened loses it
        # now, even if the announcement of the change never arrived; a member made a viewer can no longer run. A
        # message sent is checked in the trip that opens its turn (_send_turn).
        if kind == "send":
            await self._send_turn(content)
        elif not await self._may_act():
            return
        elif kind == "retry":
            await self._resume(None, current_settings=True)
        elif await self._interrupted():
            await self._answer_interrupted(content)
        else:
            assert self.conversation is not None
            await send_control(self.conversation.pk, content)

    async def _interrupted(self) -> bool:
        """No run anywhere, and the last one was cut off by its process dying: its questions are answered here."""
        assert self.conversation is not None
        if REGISTRY.get(self.conversation.pk) is not None:
            return False
        return await self._status() == Conversation.Status.INTERRUPTED

    async def _status(self) -> str | None:
        assert self.conversation is not None
        return await Conversation.objects.filter(pk=self.conversation.pk).values_list("status", flat=True).afirst()

    async def _answer_interrupted(self, content: dict[str, Any]) -> None:
        """An answer to an open question of an interrupted run starts the run again, with that answer given."""
        assert self.conversation is not None
        if content.get("type") == "stop":
            return  # nothing runs
        conversation = await Conversation.objects.aget(pk=self.conversation.pk)
        asked = {q["call_id"]: q["kind"] for q in await database_sync_to_async(open_questions)(conversation)}
        kind = asked.get(str(content.get("call_id")))
        if kind is None or ANSWER_TYPES[kind] != content.get("type"):
            await self.send_json({"type": "error", "error": "That call is not waiting for this answer any more."})
            return
        await self._resume({str(content["call_id"]): content})

    async def _resume(self, answers: dict[str, dict[str, Any]] | None, *, current_settings: bool = False) -> None:
        assert self.conversation is not None
        conversation = await Conversation.objects.select_related("team").aget(pk=self.conversation.pk)
        try:
            run = await resume_turn(
                conversation=conversation, answers=answers, user=self.scope["user"], current_settings=current_settings
            )
        except TurnRefused as exc:
            await self.send_json({"type": "error", "error": str(exc)})
            return
        self.follow(run)
        await self.send_json({"type": "turn.started", "message_count": await conversation.messages.acount()})

    async def access_changed(self, event: dict[str, Any]) -> None:
        """As every socket: closed if the access is gone. A member made a viewer, or a viewer an editor, stays, and
        the page is told: what it offers (the composer, Fork, Replay) was drawn for the role it had."""
        if event.get("session_key") is not None:
            await super().access_changed(event)
            return
        could_edit = self.can_edit
        if not await self.still_allowed():
            await self.close(code=CLOSE_REVOKED)
        elif self.can_edit != could_edit:
            await self.send_json({"type": "access", "can_edit": self.can_edit})

    def max_incoming_bytes(self) -> int:
        """A message with images arrives in parts (docs/websocket.md) and may be this big once put together."""
        return max_send_bytes() + FRAME_OVERHEAD_BYTES

    async def still_allowed(self) -> bool:
        """Signed in with the same session and still a member: reloaded, since access can change at any time."""
        assert self.conversation is not None
        # The session and the membership in one trip to the ORM's thread: this runs before every action. Channels'
        # wrapper, as before: it drops a connection the database has broken, so the action's queries reconnect.
        checked, self.can_edit = await database_sync_to_async(_access_now)(
            self.session_key(), self.scope["user"], self.conversation.pk
        )
        return checked is not None

    async def _may_act(self) -> bool:
        """The access check before an action: a socket that lost its access is closed, a viewer is told."""
        if not await self.still_allowed():
            await self.close(code=CLOSE_REVOKED)
            return False
        if not self.can_edit:
            await self.send_json({"type": "error", "error": VIEWERS_CANNOT_RUN})
            return False
        return True

    async def _send_turn(self, content: dict[str, Any]) -> None:
        assert self.conversation is not None
        raw_options = content.get("options")
        options, errors = parse_options(raw_options) if isinstance(raw_options, dict) else (None, {})
        if options is None:
            if await self._may_act():  # checked first, as every action is
                await self.send_json({"type": "error", "error": "Check the chat settings.", "fields": errors})
            return
        if content.get("images") and not await self._may_act():
            return  # attached images are decoded before the turn opens: not for a socket without access
        # The access check in the trip that opens the turn: the row it reads (the whole row, search text and all) is
        # the one the turn starts from, read once, moments before it is claimed.
        admission = Admission(
            self.conversation.pk, functools.partial(_editable_now, self.session_key(), self.scope["user"])
        )
        try:
            started = await start_turn(
                conversation=admission,
                text=str(content.get("text") or ""),
                options=options,
                user=self.scope["user"],
                images=content.get("images"),
            )
        except AccessLost:
            await self.close(code=CLOSE_REVOKED)
            return
        except TurnRefused as exc:
            # Refused before the trip (a run going, an empty or too big message): the access check decides first.
            if admission.checked or await self._may_act():
                await self.send_json({"type": "error", "error": str(exc)})
            return
        except Exception:  # the socket must survive a failure here, and its watcher entry with it
            logger.exception("could not start a turn in conversation %s", self.conversation.pk)
            await self.send_json({"type": "error", "error": "The turn could not be started; nothing was run."})
            return
        self.follow(started.run)  # before the run's first frame: the task has not run yet
        await self.send_json({"type": "turn.started", "message_count": started.message_count})

    async def conversation_batch(self, event: dict[str, Any]) -> None:
        """Frames of a run held by another process (or by this one, for sockets that joined before it started)."""
        run_id = event["run_id"]
        if run_id in self.direct_run_ids:
            return  # this socket already got them directly
        assert self.conversation is not None
        if run_id not in self.asked_run_ids and REGISTRY.get(self.conversation.pk) is None:
            # A run in another process that this socket did not know: it must know someone watches. If the snapshot
            # found no run going, the run may also be one that had ended before it (its last batch crosses the layer
            # after its last save) or just after: if it has ended by now, everything it streamed is saved, and only
            # where it stands goes on, its run.end having the page read the saved conversation again.
            self.asked_run_ids = (*self.asked_run_ids, run_id)[-RUNS_REMEMBERED:]
            if self.settled and await self._status() not in BUSY_STATUSES:
                self.ended_run_ids = (*self.ended_run_ids, run_id)[-RUNS_REMEMBERED:]
            await self._ask_for_batches()
        frames = event["frames"]
        if run_id in self.ended_run_ids:
            frames = [frame for frame in frames if frame.get("type") in STANDING_TYPES]
            if not frames:
                return
        await self.send_frames(encode_frames(frames))


def _access_now(session_key: str | None, user: Any, conversation_id: int) -> tuple[Conversation | None, bool]:
    """Still signed in with this session, and still a member of the conversation's team: its row and edit right."""
    if not session_alive(session_key, user.pk):
        return None, False
    return conversation_access(user, conversation_id)


def _editable_now(session_key: str | None, user: Any, conversation_id: int) -> Conversation:
    """The conversation's whole row, if this session may still run it (``Admission``); on the ORM's thread."""
    conversation, can_edit = _access_now(session_key, user, conversation_id)
    if conversation is None:
        raise AccessLost
    if not can_edit:
        raise TurnRefused(VIEWERS_CANNOT_RUN)
    return conversation
