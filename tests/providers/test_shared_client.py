"""Round trips share their event loop's HTTP client: connections to a provider outlive a round trip, and nothing of a
round trip (its key, its recorder, its events) stays with the shared client."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref

import httpx2
import pytest

from providers.client import Endpoint, RoundTripRun, shared
from providers.client.addresses import AddressPolicy
from providers.client.sdk import round_trip_client
from providers.types import ChatRequest
from tests.providers.test_netbackend import read_request, serve


def sse_answer(text: str) -> bytes:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


class Upstream:
    """An OpenAI-compatible server on real sockets that answers each request with the text of its last message,
    counting the connections it accepted and keeping each request's head."""

    def __init__(self, *, hang_up_after_each: bool = False, hold: asyncio.Event | None = None) -> None:
        self.connections = 0
        self.heads: list[bytes] = []
        self.hang_up_after_each = hang_up_after_each  # close the connection after an answer, without saying so
        self.hold = hold  # while unset, answers stream their first chunk and wait

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while head := await read_request(reader):
            self.heads.append(head)
            body = sse_answer(f"answer {len(self.heads)}")
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n" % len(body)
            )
            if self.hold is not None:
                first, rest = body.split(b"\n\n", 1)
                writer.write(first + b"\n\n")
                await writer.drain()
                await self.hold.wait()
                body = rest
            writer.write(body)
            await writer.drain()
            if self.hang_up_after_each:
                return  # serve() aborts the connection


def endpoint(port: int, key: str = "sk-first") -> Endpoint:
    return Endpoint("openai-chat", f"http://127.0.0.1:{port}/v1", key, timeout=5.0)


def request(text: str) -> ChatRequest:
    return {"model": "m", "stream": True, "messages": [{"role": "user", "content": text}]}


def sent_text(run: RoundTripRun) -> str:
    assert run.wire_request is not None
    return str(run.wire_request.body["messages"][-1]["content"])


async def test_round_trips_to_a_provider_reuse_one_connection_and_record_their_own_request() -> None:
    upstream = Upstream()
    async with serve(upstream) as port:
        runs = [RoundTripRun(endpoint(port), request(f"question {i}")) for i in range(3)]
        results = [await run.run() for run in runs]
    assert upstream.connections == 1, "each round trip opened a connection of its own"
    assert [r.result.message.get("content") for r in results] == ["answer 1", "answer 2", "answer 3"]
    assert [sent_text(run) for run in runs] == ["question 0", "question 1", "question 2"]
    assert shared.RECORDER.get() is None, "the round trips' recorder outlived them"


async def test_concurrent_round_trips_each_record_their_own_request_and_key() -> None:
    # One client, one hook, many round trips at once: each must record its own request, and send its own key.
    upstream = Upstream()
    async with serve(upstream) as port:
        runs = [RoundTripRun(endpoint(port, key=f"sk-{i}"), request(f"question {i}")) for i in range(4)]
        results = await asyncio.gather(*(run.run() for run in runs))
    assert all(r.result.complete for r in results)
    assert [sent_text(run) for run in runs] == [f"question {i}" for i in range(4)]
    keys = sorted(line for head in upstream.heads for line in head.split(b"\r\n") if line.startswith(b"authorization"))
    assert keys == [b"authorization: Bearer sk-%d" % i for i in range(4)]
    assert len({id(round_trip_client(endpoint(port, key=f"sk-{i}"))) for i in range(4)}) == 1


async def test_a_cookie_a_provider_sets_never_travels_with_the_next_request() -> None:
    # The client is every user's: a cookie kept from one answer would go out with the next user's request.
    heads: list[bytes] = []

    async def sets_a_cookie(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while head := await read_request(reader):
            heads.append(head)
            body = sse_answer("hi")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nset-cookie: lb=user-a; Path=/\r\n"
                         b"content-length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
            await writer.drain()

    async with serve(sets_a_cookie) as port:
        first = RoundTripRun(endpoint(port, key="sk-a"), request("a"))
        await first.run()
        second = RoundTripRun(endpoint(port, key="sk-b"), request("b"))
        await second.run()
    assert len(heads) == 2 and not any(b"cookie" in head.lower() for head in heads)
    assert second.wire_request is not None and "cookie" not in {k.lower() for k in second.wire_request.headers}


async def test_a_kept_connection_the_server_closed_is_replaced_without_an_error() -> None:
    # The answer said nothing of closing, so the connection went back to the pool; the server then hung up.
    upstream = Upstream(hang_up_after_each=True)
    async with serve(upstream) as port:
        first = await RoundTripRun(endpoint(port), request("one")).run()
        await asyncio.sleep(0.05)  # the server's close has arrived
        second = await RoundTripRun(endpoint(port), request("two")).run()
    assert first.result.complete and second.result.complete and second.result.error is None
    assert upstream.connections == 2


async def test_a_connection_dialled_unchecked_never_carries_a_checked_endpoints_request() -> None:
    # The simulator's endpoints are not checked; a user's are. Sharing a pool would let a user's request ride a
    # connection no check ever saw: here to 0.0.0.0, which the check refuses (Linux connects it to this host).
    upstream = Upstream()
    async with serve(upstream) as port:
        url = f"http://0.0.0.0:{port}/v1"
        unchecked = await RoundTripRun(Endpoint("openai-chat", url, "k", timeout=5.0), request("sim")).run()
        checked_endpoint = Endpoint("openai-chat", url, "k", timeout=5.0, address_policy=AddressPolicy())
        checked = await RoundTripRun(checked_endpoint, request("user")).run()
    assert unchecked.result.complete
    assert checked.result.error is not None and checked.result.error.type == "refused"
    assert upstream.connections == 1 and len(upstream.heads) == 1


def test_equal_address_policies_share_a_client_and_different_ones_do_not() -> None:
    async def clients() -> list[httpx2.AsyncClient]:
        def policy(*hosts: str) -> AddressPolicy:
            return AddressPolicy(explicit_hosts=frozenset(hosts))

        policies = [None, policy(), policy("gw.internal"), policy("gw.internal"), policy("other.internal")]
        return [round_trip_client(Endpoint("openai-chat", "http://gw/v1", "k", address_policy=p)) for p in policies]

    none, default, gateway, same_gateway, other = asyncio.run(clients())
    assert gateway is same_gateway
    assert len({id(c) for c in (none, default, gateway, other)}) == 4


async def test_a_round_trip_stopped_mid_stream_leaves_a_client_that_serves_the_next() -> None:
    hold = asyncio.Event()
    upstream = Upstream(hold=hold)
    async with serve(upstream) as port:
        run = RoundTripRun(endpoint(port), request("cut short"))
        task = asyncio.create_task(run.run())
        for _ in range(200):
            if run.raw_events:
                break
            await asyncio.sleep(0.01)
        assert run.raw_events, "the first chunk never arrived"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        hold.set()
        after = await RoundTripRun(endpoint(port), request("next")).run()
    assert after.result.complete and after.result.message.get("content") == "answer 2"
    assert upstream.connections == 2, "a response read halfway must not go back to the pool"


class Holder:
    asked = 0

    def hold(self) -> float:
        self.asked += 1
        return 0.0


async def test_a_finished_round_trip_is_freed_at_once_with_a_shared_client() -> None:
    # The shared client and its connections live on: were the round trip's recorder left in one of them (or in the
    # context a connection's timer was armed in), every raw event would live as long. The round trip under test
    # opens its connection (it arms the connection's read timer) and then leaves it in the pool.
    async with serve(Upstream()) as warm, serve(Upstream()) as port:
        await RoundTripRun(endpoint(warm), request("warm")).run()
        gc.collect()
        gc.disable()
        try:
            holder = Holder()  # what paces the reads (the app's run): held in the reading task's context too
            run = RoundTripRun(endpoint(port), request("freed"), read_hold=holder.hold)
            assert (await run.run()).result.complete and holder.asked
            gone, holder_gone = weakref.ref(run), weakref.ref(holder)
            del run, holder
            assert gone() is None, "something of the shared client keeps the finished run"
            assert holder_gone() is None, "something of the shared client keeps what paced the run's reads"
        finally:
            gc.enable()


def test_each_event_loop_has_its_own_client_and_closed_loops_are_forgotten() -> None:
    # A client's connections belong to the loop that opened them. Clients of a loop that has ended (a test's, a
    # command's) are dropped when another loop next asks for one.
    async def client_of_this_loop() -> httpx2.AsyncClient:
        upstream = Upstream()
        async with serve(upstream) as port:
            assert (await RoundTripRun(endpoint(port), request("hi")).run()).result.complete
            return round_trip_client(endpoint(port))

    first, second = asyncio.run(client_of_this_loop()), asyncio.run(client_of_this_loop())
    assert first is not second

    async def loops_kept() -> tuple[int, bool]:
        round_trip_client(endpoint(1))
        dead = sum(1 for clients in shared._by_loop.values() if not clients.alive())
        return dead, id(asyncio.get_running_loop()) in shared._by_loop

    assert asyncio.run(loops_kept()) == (0, True), "clients of closed loops are still kept"
