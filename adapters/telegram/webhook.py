"""The HTTP server of webhook mode: Telegram's updates in, and ``GET /healthz`` for the platform.

This is python-telegram-bot's documented "custom webhook" set-up (the Application is built
without an Updater; each update is parsed here and put on ``application.update_queue``), with an
aiohttp server instead of PTB's built-in tornado one, because that one cannot serve other routes.
The server binds the port before the bot talks to Telegram, so a platform that waits for
``$PORT`` sees it within a second of start-up even when Telegram is slow.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

log = logging.getLogger("quizbot.telegram")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
HEALTH_TIMEOUT = 5.0  # seconds; a database that takes longer is reported unhealthy
MAX_BODY = 1024 * 1024  # an update is a few kilobytes; refuse anything absurd early


class WebhookServer:
    """Serves ``POST <path>`` (updates, checked against the secret token) and ``GET /healthz``.

    ``on_update`` gets each update's JSON object; ``healthy`` says whether the database works.
    """

    def __init__(
        self,
        path: str,
        secret: str,
        on_update: Callable[[dict[str, Any]], Awaitable[None]],
        healthy: Callable[[], Awaitable[bool]],
    ) -> None:
        self.path = "/" + path.strip("/")
        if self.path == HEALTH_PATH:
            raise ValueError(f"the webhook path cannot be {HEALTH_PATH}")
        self._secret = secret.encode()
        self._on_update = on_update
        self._healthy = healthy
        self._runner: web.AppRunner | None = None

    async def start(self, host: str, port: int) -> None:
        """Bind ``host:port`` and serve in the background."""
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post(self.path, self._webhook)
        app.router.add_get(HEALTH_PATH, self._health)
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

    async def _webhook(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            return web.Response(status=403)
        try:
            data = await request.json()
        except ValueError:
            return web.Response(status=400)
        if not isinstance(data, dict):
            return web.Response(status=400)
        try:
            await self._on_update(data)
        except Exception:
            # Acknowledged all the same: Telegram resends what gets a non-2xx answer, and an
            # update this version cannot read never will be.
            log.exception("telegram: could not read a webhook update")
        return web.Response(status=200)

    async def _health(self, request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                ok = await self._healthy()
        except Exception:  # a timeout or a broken connection: unhealthy, never a 500
            log.warning("telegram: health check failed", exc_info=True)
            ok = False
        if ok:
            return web.json_response({"status": "ok"})
        return web.json_response({"status": "unavailable", "database": "down"}, status=503)
