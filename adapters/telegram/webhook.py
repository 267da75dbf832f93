"""Telegram's updates over a webhook, on the process's HTTP server (:mod:`quizbot.web`).

This is python-telegram-bot's documented "custom webhook" set-up (the Application is built
without an Updater; each update is parsed here and put on ``application.update_queue``), served
by aiohttp instead of PTB's built-in tornado server, because that one cannot share its port
with ``GET /healthz`` or anything else.

A press is acknowledged in the HTTP response to the webhook call that brought it (the Bot API's
"making requests when getting updates"): one request fewer per press, and the acknowledgement
does not wait for a connection. :class:`WebhookReplies` holds the call open briefly until the
handler answers the query; a handler slower than that answers it with a request as usual.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from telegram.request import RequestData

log = logging.getLogger("quizbot.telegram")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# How long a webhook call waits for its press to be acknowledged: Telegram holds one of its
# (by default 40) connections to the bot meanwhile.
REPLY_WAIT_S = 1.0
ANSWERED = b'{"ok":true,"result":true}'
ANSWER_METHOD = "answerCallbackQuery"


class WebhookReplies:
    """answerCallbackQuery calls answered in the webhook response instead of a request.

    :meth:`divert` is the bot's transport hook (``AiohttpRequest(divert=...)``): an
    acknowledgement of a press whose webhook call is still open becomes that call's response.
    """

    def __init__(self) -> None:
        self._open: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def expect(self, query_id: str) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._open[query_id] = future
        return future

    def forget(self, query_id: str) -> None:
        self._open.pop(query_id, None)

    def divert(self, url: str, data: RequestData | None) -> bytes | None:
        if data is None or not url.endswith("/" + ANSWER_METHOD):
            return None
        params = data.parameters
        future = self._open.pop(str(params.get("callback_query_id")), None)
        if future is None or future.done():
            return None
        future.set_result({"method": ANSWER_METHOD, **params})
        return ANSWERED


class TelegramWebhook:
    """Answers ``POST <path>``: updates checked against the secret token, each one's JSON
    object handed to ``on_update``."""

    def __init__(
        self,
        secret: str,
        on_update: Callable[[dict[str, Any]], Awaitable[None]],
        replies: WebhookReplies | None = None,
    ) -> None:
        self._secret = secret.encode()
        self._on_update = on_update
        self._replies = replies

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
        query = data.get("callback_query")
        query_id = str(query.get("id")) if isinstance(query, dict) and "id" in query else None
        reply = None
        if query_id is not None and self._replies is not None:
            reply = self._replies.expect(query_id)
        try:
            await self._on_update(data)
        except Exception:
            # Acknowledged all the same: Telegram resends what gets a non-2xx answer, and an
            # update this version cannot read never will be.
            log.exception("telegram: could not read a webhook update")
        if reply is None or query_id is None or self._replies is None:
            return web.Response(status=200)
        try:
            method = await asyncio.wait_for(asyncio.shield(reply), REPLY_WAIT_S)
        except TimeoutError:
            self._replies.forget(query_id)  # the handler will make the request itself
            if not reply.done():
                return web.Response(status=200)
            method = reply.result()
        return web.Response(
            body=json.dumps(method, ensure_ascii=False), content_type="application/json"
        )
