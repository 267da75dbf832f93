"""``quizbot run``: the chat bots configured by tokens, in one process sharing one engine."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Protocol

from quizbot.bootstrap import open_app
from quizbot.settings import Settings

log = logging.getLogger("quizbot.run")


class ChatAdapter(Protocol):
    """What the runner needs of a platform adapter."""

    name: str

    async def start(self) -> None:
        """Connect and begin handling updates in the background."""

    async def stop(self) -> None:
        """Stop taking updates, let in-flight ones finish, disconnect."""


async def run_bots(
    settings: Settings, stop_event: asyncio.Event | None = None, *, listen: str = "0.0.0.0"
) -> int:
    """Start every adapter whose token is set; run until SIGTERM/SIGINT; exit code 0.

    In a web process (``settings.serve_http``) the HTTP server binds ``PORT`` first and
    serves ``GET /healthz``; Telegram's webhook, when configured, shares it.
    """
    stop_event = stop_event or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # Not available off the main thread or on some platforms: Ctrl-C still works there.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop_event.set)
    async with open_app(settings) as app, contextlib.AsyncExitStack() as stack:
        web = None
        if settings.serve_http:
            from quizbot.web import WebServer

            web = WebServer(app.engine.healthy)
            await web.start(listen, settings.port)
            stack.push_async_callback(web.stop)
            log.info("serving /healthz on %s:%s", listen, settings.port)
        adapters: list[ChatAdapter] = []
        if settings.telegram_token:
            from adapters.telegram import TelegramAdapter
            from quizbot.charts import render_stats_png

            adapters.append(
                TelegramAdapter(app.engine, settings, stats_chart=render_stats_png, web=web)
            )
        if settings.discord_token:
            from adapters.discord import DiscordAdapter
            from quizbot.charts import render_stats_png

            adapters.append(DiscordAdapter(app.engine, settings, stats_chart=render_stats_png))
        started: list[ChatAdapter] = []
        try:
            for adapter in adapters:
                await adapter.start()
                started.append(adapter)
                log.info("adapter started: %s", adapter.name)
            await stop_event.wait()
            log.info("stopping")
        finally:
            for adapter in reversed(started):
                await adapter.stop()
                log.info("adapter stopped: %s", adapter.name)
    return 0
