"""The process's one HTTP server: ``GET /healthz`` for the platform, and webhooks mounted by
adapters (Telegram's, in webhook mode) on the same port.

The runner starts it before any adapter talks to its platform, so a platform that waits for
``$PORT`` sees it within a second of start-up, whichever bots run. Webhooks are looked up per
request, so an adapter may mount its path after the server has started.

The port is public, so a flood must not take the process down: connections are capped (below
the process's file descriptor limit), a connection not inside a request -- one sending its
headers a byte at a time, or idle -- is closed after ``idle_timeout`` and is the first to go
when the cap is reached (so ``/healthz`` and Telegram still get in), a webhook's headers are
checked before its body is read, and the body must arrive within ``body_timeout``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

log = logging.getLogger("quizbot.web")

HEALTH_PATH = "/healthz"
HEALTH_TIMEOUT = 1.5  # seconds: a slower database is unhealthy; /healthz answers within 2 s
MAX_BODY = 1024 * 1024  # an update is a few kilobytes; refuse anything absurd early
MAX_CONNECTIONS = 256  # Telegram opens at most 100 (WEBHOOK_MAX_CONNECTIONS, 40 by default)
# asyncio accepts up to `backlog` sockets in one go before any protocol sees them, and closes
# refused ones a loop turn later: a small backlog bounds the descriptors held beyond the cap.
ACCEPT_BACKLOG = 32
IDLE_TIMEOUT = 5.0  # seconds a connection may spend outside a request (headers included)
BODY_TIMEOUT = 5.0  # seconds for a webhook's body, once its headers are accepted

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Check = Callable[[web.Request], bool]


def connection_limit(wanted: int = MAX_CONNECTIONS) -> int:
    """``wanted``, or half the process's file descriptor limit when that is lower: running
    out of descriptors would stop every accept, and the database and Telegram need some."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft // 2))


class _Guard(asyncio.Protocol):
    """One connection: aiohttp's protocol, seen by the server's connection accounting."""

    def __init__(self, inner: asyncio.Protocol, server: WebServer) -> None:
        self.inner = inner
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.requests = 0  # being handled now
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.server.opened(self)
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.closed(self)
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def drop(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class _Refused(asyncio.Protocol):
    """Every slot is inside a request: close at once rather than hold a descriptor."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.abort()


class WebServer:
    """Serves ``GET /healthz`` (200 while ``healthy()`` says the database works, else 503)
    and ``POST`` on every mounted webhook path."""

    def __init__(
        self,
        healthy: Callable[[], Awaitable[bool]],
        *,
        max_connections: int | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
    ) -> None:
        self._healthy = healthy
        self._webhooks: dict[str, tuple[Handler, Check | None]] = {}
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self.max_connections = max_connections or connection_limit()
        self.idle_timeout = idle_timeout
        self.body_timeout = body_timeout
        self._guards: dict[asyncio.BaseTransport, _Guard] = {}
        self._idle: dict[_Guard, None] = {}  # outside a request, longest idle first
        self.refused = 0  # connections closed at once or early: for tests and logs

    def mount(self, path: str, handler: Handler, *, authorized: Check | None = None) -> None:
        """Answer ``POST path`` with ``handler``; with ``authorized``, a request it refuses
        (from its headers) gets 403 before its body is read."""
        path = "/" + path.strip("/")
        if path == HEALTH_PATH:
            raise ValueError(f"a webhook path cannot be {HEALTH_PATH}")
        self._webhooks[path] = (handler, authorized)

    def unmount(self, path: str) -> None:
        self._webhooks.pop("/" + path.strip("/"), None)

    async def start(self, host: str, port: int) -> None:
        """Bind ``host:port`` and serve in the background."""
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._in_request])
        app.router.add_get(HEALTH_PATH, self._health)
        app.router.add_post("/{path:.*}", self._webhook)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        protocols = runner.server
        assert protocols is not None
        try:
            # aiohttp's own TCPSite, but with every connection going through _accept.
            self._server = await asyncio.get_running_loop().create_server(
                lambda: self._accept(protocols),
                host,
                port,
                reuse_address=True,
                backlog=ACCEPT_BACKLOG,
            )
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner

    @property
    def port(self) -> int | None:
        """The bound port (useful when started on port 0)."""
        if self._server is None or not self._server.sockets:
            return None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def connections(self) -> int:
        return len(self._guards)

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for guard in list(self._idle):
            guard.drop()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    # -- connection accounting ------------------------------------------------------------

    def _accept(self, protocols: Callable[[], Any]) -> asyncio.Protocol:
        if len(self._guards) >= self.max_connections:
            oldest = next(iter(self._idle), None)
            if oldest is None:
                self.refused += 1
                return _Refused()
            self._drop(oldest)  # the longest idle goes: a request in progress never does
        return _Guard(protocols(), self)

    def opened(self, guard: _Guard) -> None:
        assert guard.transport is not None
        self._guards[guard.transport] = guard
        self._idle_from_now(guard)

    def closed(self, guard: _Guard) -> None:
        if guard.transport is not None:
            self._guards.pop(guard.transport, None)
        self._idle.pop(guard, None)
        if guard.timer is not None:
            guard.timer.cancel()

    def _idle_from_now(self, guard: _Guard) -> None:
        self._idle.pop(guard, None)
        self._idle[guard] = None
        if guard.timer is not None:
            guard.timer.cancel()
        loop = asyncio.get_running_loop()
        guard.timer = loop.call_later(self.idle_timeout, self._drop_if_idle, guard)

    def _drop_if_idle(self, guard: _Guard) -> None:
        if guard.requests == 0 and guard in self._idle:
            self._drop(guard)

    def _drop(self, guard: _Guard) -> None:
        self.refused += 1
        self._idle.pop(guard, None)
        guard.drop()

    @web.middleware
    async def _in_request(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        guard = self._guards.get(request.transport) if request.transport else None
        if guard is None:
            return await handler(request)
        guard.requests += 1
        self._idle.pop(guard, None)
        if guard.timer is not None:
            guard.timer.cancel()
        try:
            return await handler(request)
        finally:
            guard.requests -= 1
            if guard.requests == 0 and request.transport is not None:
                self._idle_from_now(guard)

    # -- requests -------------------------------------------------------------------------

    async def _webhook(self, request: web.Request) -> web.StreamResponse:
        mounted = self._webhooks.get(request.path)
        if mounted is None:
            return web.Response(status=404)
        handler, authorized = mounted
        if authorized is not None and not authorized(request):
            return web.Response(status=403)  # before reading a byte of the body
        if request.content_length is not None and request.content_length > MAX_BODY:
            return web.Response(status=413)
        try:
            async with asyncio.timeout(self.body_timeout):
                await request.read()  # kept by aiohttp for the handler
        except TimeoutError:
            log.warning(
                "webhook body not received within %s s: connection closed", self.body_timeout
            )
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=408)
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413)
        return await handler(request)

    async def _health(self, request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                ok = await self._healthy()
        except Exception:  # a timeout or a broken connection: unhealthy, never a 500
            log.warning("health check failed", exc_info=True)
            ok = False
        if ok:
            return web.json_response({"status": "ok"})
        return web.json_response({"status": "unavailable", "database": "down"}, status=503)
