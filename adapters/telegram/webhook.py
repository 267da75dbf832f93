"""Telegram's updates over a webhook, on the process's HTTP server (:mod:`quizbot.web`).

This is python-telegram-bot's documented "custom webhook" set-up (the Application is built
without an Updater; each update is parsed here and put on ``application.update_queue``), served
by aiohttp instead of PTB's built-in tornado server, because that one cannot share its port
with ``GET /healthz`` or anything else.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

log = logging.getLogger("quizbot.telegram")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class TelegramWebhook:
    """Answers ``POST <path>``: updates checked against the secret token, each one's JSON
    object handed to ``on_update``."""

    def __init__(self, secret: str, on_update: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self._secret = secret.encode()
        self._on_update = on_update

    def authorized(self, request: web.Request) -> bool:
        """Whether the request carries the secret token (judged from its headers alone)."""
        given = request.headers.get(SECRET_HEADER, "").encode()
        return hmac.compare_digest(given, self._secret)

    async def handle(self, request: web.Request) -> web.Response:
        if not self.authorized(request):
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
