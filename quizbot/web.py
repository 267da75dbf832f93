"""The process's one HTTP server: ``GET /healthz`` for the platform, and webhooks mounted by
adapters (Telegram's, in webhook mode) on the same port.

The runner starts it before any adapter talks to its platform, so a platform that waits for
``$PORT`` sees it within a second of start-up, whichever bots run. Webhooks are looked up per
request, so an adapter may mount its path after the server has started.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger("quizbot.web")

HEALTH_PATH = "/healthz"
HEALTH_TIMEOUT = 1.5  # seconds: a slower database is unhealthy; /healthz answers within 2 s
MAX_BODY = 1024 * 1024  # an update is a few kilobytes; refuse anything absurd early

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebServer:
    """Serves ``GET /healthz`` (200 while ``healthy()`` says the database works, else 503)
    and ``POST`` on every mounted webhook path."""

    def __init__(self, healthy: Callable[[], Awaitable[bool]]) -> None:
        self._healthy = healthy
        self._webhooks: dict[str, Handler] = {}
        self._runner: web.AppRunner | None = None

    def mount(self, path: str, handler: Handler) -> None:
        """Answer ``POST path`` with ``handler``."""
        path = "/" + path.strip("/")
        if path == HEALTH_PATH:
            raise ValueError(f"a webhook path cannot be {HEALTH_PATH}")
        self._webhooks[path] = handler

    def unmount(self, path: str) -> None:
        self._webhooks.pop("/" + path.strip("/"), None)

    async def start(self, host: str, port: int) -> None:
        """Bind ``host:port`` and serve in the background."""
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get(HEALTH_PATH, self._health)
        app.router.add_post("/{path:.*}", self._webhook)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner

    @property
    def port(self) -> int | None:
        """The bound port (useful when started on port 0)."""
        if self._runner is None or not self._runner.addresses:
            return None
        return int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _webhook(self, request: web.Request) -> web.StreamResponse:
        handler = self._webhooks.get(request.path)
        if handler is None:
            return web.Response(status=404)
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
