"""One model round trip: translate, send through the SDK, decode the raw stream, and keep every piece.

``RoundTripRun`` records as it goes, so a caller that is cancelled mid-stream (the user pressed Stop) or that hits
an error still has everything that arrived, marked incomplete.

A tool-calling strategy (``providers.strategies``) is applied around the codec: the internal request is rewritten
before it is encoded (the notes say how), and under ``structured`` / ``prompted`` the decoded reply text becomes
tool-call events as it streams (``ReplyReader``). The raw events are never touched: the wire pane shows what came
back. ``RoundTrip.request`` stays the request as Crosswire holds it (with its tools), so calls are checked against
the tools as defined.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import httpx2

from providers import events as ev
from providers.client.capture import Clock, RawEvent, RoundTrip, WireEvent, WireRequest
from providers.client.holds import ReadHold, holding_reads
from providers.client.scrub import Scrubber
from providers.client.sdk import Endpoint, map_exception, open_response, sdk_exceptions
from providers.errors import ProviderError
from providers.formats import StreamDecoder, WireFormat, get_format
from providers.sse import SSEParser
from providers.strategies.apply import Applied, apply_strategy
from providers.strategies.capabilities import NATIVE
from providers.strategies.reader import ReplyReader, finish_message
from providers.strategies.wire import apply_response_format
from providers.streaming import MessageAccumulator
from providers.translation import TranslationError
from providers.types import ChatRequest


@dataclass(frozen=True, slots=True)
class RequestSent:
    request: ChatRequest  # the internal request this wire request translates
    wire_request: WireRequest
    notes: list[str]
    strategy: str = NATIVE  # the tool-calling strategy this request was sent with (auto already resolved)


Update = RequestSent | WireEvent | ev.Event
CUT_SHORT = ProviderError(
    "connection", "The stream ended before the provider finished its answer (no end marker).", retryable=True
)
Emit = Callable[[Update], Awaitable[None]]
# The caller's side for what never waits (a raw event, a stream event): called, not awaited. A streamed delta passes
# twice (its raw event, then its text); through ``Emit`` that is a coroutine and two awaits each time.
EmitNow = Callable[[Update], None]


class EmitError(RuntimeError):
    """The caller's ``emit`` failed (saving, sending): that is not the provider's fault and must not read as one."""


async def _discard(update: Update) -> None:
    return None


@dataclass
class RoundTripRun:
    endpoint: Endpoint
    request: ChatRequest
    emit: Emit = _discard
    strategy: str = NATIVE  # requested: auto, native, strict, structured or prompted
    lead_notes: list[str] = field(default_factory=list)  # said first in the notes (why this strategy, after a refusal)
    read_hold: ReadHold | None = None  # how long a read of the stream may wait (holds.py); None: never
    emit_now: EmitNow | None = None  # raw events and stream events go here when given; ``emit`` has the rest
    codec: WireFormat = field(init=False)
    clock: Clock = field(default_factory=Clock)
    notes: list[str] = field(default_factory=list)
    wire_request: WireRequest | None = None
    # The raw events as plain tuples until the snapshot: an exact tuple of strings and a number drops out of the
    # garbage collector's sight at its first collection (a dataclass instance never does), so the thousands a long
    # answer keeps never lengthen a full collection, a pause for every socket of the process (docs/performance.md).
    raw_events: list[RawEvent] = field(default_factory=list)
    status: int | None = None
    acc: MessageAccumulator = field(init=False)
    scrubber: Scrubber = field(init=False)
    applied: Applied = field(init=False)
    reader: ReplyReader = field(init=False)

    def __post_init__(self) -> None:
        self.codec = get_format(self.endpoint.format)
        self.scrubber = Scrubber.for_endpoint(self.endpoint)
        self.acc = MessageAccumulator(format=self.endpoint.format)
        self.applied = Applied(NATIVE, self.request)
        self.reader = ReplyReader(self.applied)

    @property
    def used_strategy(self) -> str:
        """The strategy the request went out with (``auto`` resolved), once ``run`` has applied it."""
        return self.applied.strategy

    async def run(self) -> RoundTrip:
        try:
            self.applied = apply_strategy(self.endpoint.format, self.request, self.strategy)
            # Unique per round trip: ids made from reply text must never repeat within a conversation.
            self.reader = ReplyReader(self.applied, response_id=uuid.uuid4().hex)
            translation = self.codec.encode_request(self.applied.request)
        except (TranslationError, ValueError) as exc:
            await self._fail(ProviderError("invalid_request", f"Could not translate the request: {exc}"))
            return self.snapshot()
        self.notes = [*self.lead_notes, *self.applied.notes, *translation.notes]
        if self.applied.response_format is not None:
            self.notes += apply_response_format(self.endpoint.format, translation.value, self.applied.response_format)
        try:
            await self._send(translation.value)
        except ProviderError as exc:
            await self._fail(exc)
        except EmitError:
            raise
        except Exception as exc:  # any SDK or transport failure becomes a readable error, never a crash
            if isinstance(exc.__cause__, EmitError):  # raised in the request hook, wrapped by the SDK
                raise exc.__cause__ from None
            await self._fail(self._map_exception(exc))
        return self.snapshot()

    async def _emit(self, update: Update) -> None:
        if self.emit_now is not None and not isinstance(update, RequestSent):
            self._emit_now(update)
            return
        try:
            await self.emit(update)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise EmitError(f"{type(exc).__name__}: {exc}") from exc

    def _emit_now(self, update: Update) -> None:
        emit_now = self.emit_now
        assert emit_now is not None, "called only when the caller gave one"
        try:
            emit_now(update)
        except Exception as exc:
            raise EmitError(f"{type(exc).__name__}: {exc}") from exc

    def snapshot(self, error: ProviderError | None = None) -> RoundTrip:
        """The round trip as far as it got; ``error`` marks it (e.g. cancelled) without losing what arrived."""
        if error is not None and self.acc.error is None:
            self.acc.add(ev.StreamError(error))
        result = self.acc.result()
        result.message = finish_message(result.message, self.applied)
        return RoundTrip(
            format=self.endpoint.format,
            request=self.request,
            notes=[*self.notes, *self.reader.notes()],
            wire_request=self.wire_request,
            raw_events=list(self.raw_events),
            status=self.status,
            result=result,
            ttfb_ms=self.clock.ttfb_ms(),
            total_ms=self.clock.since_start_ms(),
        )

    async def _send(self, body: dict[str, Any]) -> None:
        # The body says whether to stream, except Gemini's: its URL does, so the internal request decides there.
        stream = bool(body["stream"]) if "stream" in body else bool(self.request.get("stream"))
        with holding_reads(self.read_hold):
            async with open_response(self.endpoint, body, self._on_request, stream=stream) as response:
                self.status = response.status_code
                if stream:
                    await self._read_stream(response)
                else:
                    await self._read_body(response)

    async def _on_request(self, wire_request: WireRequest) -> None:
        # Headers are redacted already; a key can still travel in the URL (a query parameter).
        self.wire_request = replace(wire_request, url=self.scrubber.text(wire_request.url))
        wire_request = self.wire_request
        await self._emit(RequestSent(self.request, wire_request, self.notes, self.applied.strategy))
        # Time from the moment the request leaves: after translation and after our own bookkeeping above.
        self.clock = Clock()

    async def _read_stream(self, response: Any) -> None:
        parser, decoder = SSEParser(), self.codec.new_stream_decoder()
        async for chunk in response.iter_bytes():
            self.clock.mark_first_byte()
            for sse in parser.feed(chunk):
                await self._on_sse(decoder, sse.event, sse.data, sse)
        for sse in parser.close():
            await self._on_sse(decoder, sse.event, sse.data, sse)
        await self._deliver(decoder.close())
        await self._deliver_read(self.reader.close())
        if not self.acc.ended and self.acc.finish is None:
            # The body ended cleanly but the provider never said it was done (no finish, no end marker): a proxy
            # or server cut it short. Whatever arrived is kept; the run must not take it for a whole answer.
            await self._fail(CUT_SHORT)

    async def _on_sse(self, decoder: StreamDecoder, name: str | None, data: str, sse: Any) -> None:
        clean = self.scrubber.text(data)
        if clean is not data:  # the key quoted back: decode the clean text, so no copy of it survives
            data, sse = clean, replace(sse, data=clean)
        wire = WireEvent(self.clock.since_start_ms(), data, name)
        self.raw_events.append((wire.t_ms, wire.data, wire.event))
        if self.emit_now is None:
            await self._emit(wire)
            await self._deliver(decoder.feed(sse))
            return
        # Every step of a streamed event, in one call: nothing on this path waits.
        self._emit_now(wire)
        self._take_now(self.reader.feed(decoder.feed(sse)))

    async def _read_body(self, response: Any) -> None:
        raw = await response.read()
        self.clock.mark_first_byte()
        text = self.scrubber.text(raw.decode(errors="replace"))
        wire = WireEvent(self.clock.since_start_ms(), text)
        self.raw_events.append((wire.t_ms, wire.data, wire.event))
        await self._emit(wire)
        try:
            body = json.loads(text)
        except ValueError:
            raise ProviderError("invalid_response", "The provider's response is not JSON.", self.status) from None
        await self._deliver(self.codec.response_events(body))
        await self._deliver_read(self.reader.close())

    async def _deliver(self, events: list[ev.Event]) -> None:
        await self._deliver_read(self.reader.feed(events))

    async def _deliver_read(self, events: list[ev.Event]) -> None:
        """Events as the strategy reads them (reply text turned into calls), to the accumulator and the caller."""
        if self.emit_now is not None:
            self._take_now(events)
            return
        for event in events:
            self.acc.add(event)
            await self._emit(event)

    def _take_now(self, events: list[ev.Event]) -> None:
        """``_deliver_read`` for a caller that takes them without a wait (``emit_now``)."""
        for event in events:
            self.acc.add(event)
            self._emit_now(event)

    async def _fail(self, error: ProviderError) -> None:
        if self.acc.error is None:
            await self._deliver([ev.StreamError(self.scrubber.error(error))])

    def _map_exception(self, exc: Exception) -> ProviderError:
        sdk = sdk_exceptions(self.endpoint)
        if isinstance(exc, sdk.APIStatusError):
            # The error body is part of what the provider said: keep it for the wire pane.
            self.status = exc.status_code
            body = exc.response.content if exc.response is not None else b""
            text = self.scrubber.text(body.decode(errors="replace"))
            self.raw_events.append((self.clock.since_start_ms(), text, None))
        elif isinstance(exc, httpx2.TimeoutException):
            return ProviderError("timeout", "The provider stopped sending before the stream ended.", retryable=True)
        elif isinstance(exc, httpx2.TransportError):
            return ProviderError("connection", f"The connection was cut mid-stream ({exc}).", retryable=True)
        return map_exception(self.endpoint, exc)


async def round_trip(
    endpoint: Endpoint, request: ChatRequest, emit: Emit = _discard, *, strategy: str = NATIVE
) -> RoundTrip:
    return await RoundTripRun(endpoint, request, emit, strategy).run()
