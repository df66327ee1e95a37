"""An httpcore2 network backend on plain asyncio streams, for the SDKs' HTTP.

httpcore2's default backend goes through anyio, whose asyncio socket stream resumes the transport before every read
and pauses it after (two epoll changes), inside a cancel scope, per chunk. A streaming server reads hundreds of
chats one small SSE chunk at a time, so that bookkeeping dominates: with 100 concurrent streams at 50 chunks/s on
the development machine, the default transport costs ~78 us of CPU per chunk, a backend on asyncio streams ~46 us,
raw asyncio reads ~16 us. asyncio's transport simply keeps reading into the StreamReader's buffer.

Errors map exactly as httpcore2's anyio backend maps them (httpcore2/_backends/anyio.py), so httpx2 and the SDKs
raise the same exceptions whichever backend carried the bytes.
"""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Iterable
from typing import Any

import httpcore2
import httpx2
from httpcore2 import ConnectError, ConnectTimeout, ReadError, ReadTimeout, WriteError, WriteTimeout
from httpcore2._utils import is_socket_readable  # the poll the anyio and sync backends answer "is_readable" with

from providers.client.addresses import AddressPolicy, AddressRefused
from providers.client.holds import read_hold

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]

# anyio's connect_tcp default: try the next address of a dual-stack host after 250 ms.
HAPPY_EYEBALLS_DELAY = 0.25


def _mapped(exc: OSError, timer: asyncio.Timeout | None, timeout: type[Exception], error: type[Exception]) -> Exception:
    # TimeoutError is an OSError, and so is a socket's own ETIMEDOUT: only our expired timer is a timeout (anyio
    # reports the socket's as a broken stream, an error).
    return (timeout if timer is not None and timer.expired() else error)(exc)


class AsyncioStream(httpcore2.AsyncNetworkStream):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._loop = asyncio.get_running_loop()
        self._closed = False
        self._reading = False  # a read is waiting: the read timer only acts then
        self._deadline: float | None = None  # of the current read, None without a timeout
        self._timer: asyncio.TimerHandle | None = None
        self._timed_out: TimeoutError | None = None

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        hold = read_hold()
        if hold > 0:
            await self._hold(hold)
        self._deadline = None if timeout is None else self._arm_read_timer(timeout)
        self._reading = True
        try:
            data = await self._reader.read(max_bytes)
        except OSError as exc:  # ConnectionResetError, ssl.SSLError, and our TimeoutError
            raise (ReadTimeout if exc is self._timed_out else ReadError)(exc) from exc
        finally:
            self._reading = False
        if not data and self._closed:  # anyio: reading a stream we closed is ClosedResourceError, not EOF
            raise ReadError("the stream is closed")
        return data  # b"" when the peer closed, as anyio's EndOfStream becomes

    async def _hold(self, seconds: float) -> None:
        """Read nothing for ``seconds``: the bytes that come meanwhile wait in the kernel, for one read after."""
        transport = self._writer.transport
        if not transport.is_reading():  # paused already: the reader's buffer is full, and it resumes it itself
            return
        transport.pause_reading()
        try:
            await asyncio.sleep(seconds)
        finally:
            if not transport.is_closing():
                transport.resume_reading()

    def _arm_read_timer(self, timeout: float) -> float:
        # asyncio.timeout() around each read costs ~5.5 us (a timer handle, a heap push, a cancel): a tenth of a
        # chunk's cost here, and the SDKs always pass a read timeout. Instead one timer per stream stays armed: a
        # read only moves the deadline, and the timer, when it fires, re-arms for the latest deadline unless a read
        # is still waiting past it.
        deadline = self._loop.time() + timeout
        if self._timer is None or deadline < self._timer.when():
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._loop.call_at(deadline, self._on_read_timer)
        return deadline

    def _on_read_timer(self) -> None:
        assert self._timer is not None  # the handle that fired: replacing it cancels it
        fired_at, self._timer = self._timer.when(), None
        if not self._reading or self._deadline is None:
            return  # no read waiting with a timeout; the next read with one re-arms
        if self._deadline > fired_at:
            self._timer = self._loop.call_at(self._deadline, self._on_read_timer)
            return
        if self._reader.at_eof() or _buffered(self._reader):
            # The data came in the same turn of the loop as this timer (after a stall): the read is woken already.
            # An error set now would outlive it and fail the next read, whose deadline is still ahead.
            return
        # Wake the waiting read with the error. It stays set on the reader, which is fine: httpcore2 closes the
        # connection after a failed read (HTTP/1.1 and HTTP/2 alike).
        self._timed_out = TimeoutError("no data within the read timeout")
        self._reader.set_exception(self._timed_out)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._closed:
            raise WriteError("the stream is closed")
        timer = None
        try:
            self._writer.write(buffer)
            async with asyncio.timeout(timeout) as timer:  # once per request, not per chunk: asyncio's own is fine
                await self._writer.drain()  # returns at once unless the kernel's send buffer is full
        except OSError as exc:
            raise _mapped(exc, timer, WriteTimeout, WriteError) from exc
        except RuntimeError as exc:  # transports that refuse writes once closing; anyio calls that broken
            if not self._writer.transport.is_closing():
                raise
            raise WriteError(exc) from exc

    async def aclose(self) -> None:
        # Abort as anyio does: no waiting on a TLS close_notify exchange with a peer that may never answer.
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._writer.transport.abort()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.AsyncNetworkStream:
        timer = None
        try:
            # Our timer, not ssl_handshake_timeout: that one ends in ConnectionAbortedError, which is no timeout.
            async with asyncio.timeout(timeout) as timer:
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except OSError as exc:  # ssl.SSLError (an untrusted certificate) too: ConnectError
            await self.aclose()
            raise _mapped(exc, timer, ConnectTimeout, ConnectError) from exc
        except BaseException:
            await self.aclose()
            raise
        return self  # the writer now holds the TLS transport, which feeds the same reader

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return _address(self._writer.get_extra_info("sockname"))
        if info == "server_addr":
            return _address(self._writer.get_extra_info("peername"))
        if info == "socket":
            return self._writer.get_extra_info("socket")
        if info == "is_readable":
            return self._is_readable()
        return None

    def _is_readable(self) -> bool:
        # httpcore2 asks this of an idle keep-alive connection: anything that arrived means the server closed it (or
        # broke the protocol), so it must not carry the next request. anyio stops reading between reads, so polling
        # the socket answers; asyncio keeps reading, so bytes, an EOF or an error may already sit in the reader.
        reader = self._reader
        if reader.at_eof() or reader.exception() is not None or self._writer.transport.is_closing():
            return True
        return _buffered(reader) or is_socket_readable(self._writer.get_extra_info("socket"))


def _buffered(reader: asyncio.StreamReader) -> bool:
    """Bytes received and not read yet. StreamReader has no public way to ask, hence _buffer (a test fails if it
    goes)."""
    return bool(getattr(reader, "_buffer", None))


def _address(address: Any) -> Any:
    # anyio gives (host, port) for IPv6 too, where the socket adds flow info and scope id.
    return address[:2] if isinstance(address, tuple) else address


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    address_policy: AddressPolicy | None = None  # None dials whatever the host resolves to

    def __init__(self, address_policy: AddressPolicy | None = None) -> None:
        self.address_policy = address_policy

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        local_addr = None if local_address is None else (local_address, 0)
        if self.address_policy is None:
            connect = asyncio.open_connection(
                host, port, local_addr=local_addr, happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY
            )
        else:
            connect = _open_checked(host, port, local_addr, self.address_policy)
        # asyncio sets TCP_NODELAY on TCP transports already (anyio relies on that); set here so it stays true: a
        # request is small writes that must not wait for Nagle.
        nodelay: SocketOption = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return await _connect(connect, timeout, [nodelay, *(socket_options or ())])

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        return await _connect(asyncio.open_unix_connection(path), timeout, socket_options or ())

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _open_checked(
    host: str, port: int, local_addr: tuple[str, int] | None, policy: AddressPolicy
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Resolve once, keep the addresses the policy allows, and dial those: the check holds for what is connected.

    Dialling the checked addresses (not the name again) is what stops a name that answers differently the second
    time. TLS still verifies the certificate against the host name: httpcore2 passes it to start_tls itself.
    """
    loop = asyncio.get_running_loop()
    infos = _literal_address(host, port) or await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    allowed = [info for info in infos if policy.refusal(host, str(info[4][0])) is None]
    if not allowed:
        refusal = policy.refusal(host, str(infos[0][4][0])) if infos else f"{host} did not resolve"
        raise AddressRefused(refusal)
    error: OSError | None = None
    for family, _type, proto, _name, address in allowed:
        try:
            sock = await _dial(loop, family, proto, address, local_addr)
        except OSError as exc:
            error = exc
            continue
        return await asyncio.open_connection(sock=sock)
    assert error is not None
    raise error


def _literal_address(host: str, port: int) -> list[tuple[Any, ...]]:
    """``host`` as getaddrinfo gives an address written as digits, without its trip to a worker thread (asyncio's
    ``getaddrinfo`` always takes one, where its own connect skips it for such a host); [] for a name, or a scoped
    IPv6 address, which is left to getaddrinfo. A local model server or the simulator is dialled this way every
    round trip."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return []
    if address.version == 6:
        if "%" in host:
            return []
        return [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(address), port, 0, 0))]
    return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(address), port))]


async def _dial(
    loop: asyncio.AbstractEventLoop, family: int, proto: int, address: Any, local_addr: tuple[str, int] | None
) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM, proto)
    try:
        sock.setblocking(False)
        if local_addr is not None:
            sock.bind(local_addr)
        await loop.sock_connect(sock, address)
    except BaseException:
        sock.close()
        raise
    return sock


async def _connect(
    connect: Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    timeout: float | None,
    socket_options: Iterable[SocketOption],
) -> AsyncioStream:
    timer = None
    try:
        async with asyncio.timeout(timeout) as timer:
            reader, writer = await connect
    except OSError as exc:  # refused, unreachable, DNS (socket.gaierror), or our timer
        raise _mapped(exc, timer, ConnectTimeout, ConnectError) from exc
    try:
        sock = writer.get_extra_info("socket")
        for option in socket_options:
            sock.setsockopt(*option)  # (level, name, value) or (level, name, None, optlen)
    except OSError as exc:  # anyio sets them inside its ConnectError mapping
        writer.transport.abort()
        raise ConnectError(exc) from exc
    return AsyncioStream(reader, writer)


# The limits httpx2's transport uses when given none; read from its signature, not its private _config.
DEFAULT_LIMITS: httpx2.Limits = inspect.signature(httpx2.AsyncHTTPTransport).parameters["limits"].default


class AsyncioTransport(httpx2.AsyncHTTPTransport):
    """httpx2's transport (request, response and exception mapping) with its connection pool on AsyncioBackend.

    The pool gets what httpx2's would have: TLS context, limits, HTTP versions, uds, local address, retries, socket
    options. No proxy: httpx2 mounts proxies as transports of its own (see ``providers.client.sdk.http_client``).
    """

    def __init__(
        self,
        verify: ssl.SSLContext | str | bool = True,
        cert: Any = None,
        trust_env: bool = True,
        http1: bool = True,
        http2: bool = False,
        limits: httpx2.Limits = DEFAULT_LIMITS,
        uds: str | None = None,
        local_address: str | None = None,
        retries: int = 0,
        socket_options: Iterable[SocketOption] | None = None,
        network_backend: httpcore2.AsyncNetworkBackend | None = None,
    ) -> None:
        # One context for both pools: with cert=..., create_ssl_context loads the chain into the context it is given.
        ssl_context = httpx2.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
        options: dict[str, Any] = {
            "http1": http1,
            "http2": http2,
            "uds": uds,
            "local_address": local_address,
            "retries": retries,
            "socket_options": socket_options,
        }
        super().__init__(verify=ssl_context, trust_env=trust_env, limits=limits, **options)
        self.network_backend = network_backend if network_backend is not None else AsyncioBackend()
        # httpx2 has no public way to choose its pool's network backend, so the pool it just built (no sockets yet)
        # is replaced through the private `_pool` its handle_async_request sends through. If httpx2 stops using
        # `_pool`, tests/providers/test_netbackend.py fails: it checks that our streams carried the requests.
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.network_backend,
            **options,
        )
