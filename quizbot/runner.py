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
    """Start every adapter whose token is set; run until SIGTERM/SIGINT (exit code 0), or
    until an adapter's connection fails for good (exit code 1).

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
            from adapters.telegram.group_rounds import RoundTiming
            from quizbot.charts import render_stats_png

            timing = RoundTiming(lease=settings.round_lease_seconds)  # (replicas)
            adapters.append(
                TelegramAdapter(
                    app.engine,
                    settings,
                    stats_chart=render_stats_png,
                    round_timing=timing,
                    web=web,
                )
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
            failure = await _until_stopped_or_failed(stop_event, started)
            log.info("stopping")
        finally:
            for adapter in reversed(started):
                await adapter.stop()
                log.info("adapter stopped: %s", adapter.name)
    return 0 if failure is None else 1


async def _until_stopped_or_failed(
    stop_event: asyncio.Event, adapters: list[ChatAdapter]
) -> BaseException | None:
    """Wait for SIGTERM/SIGINT (None), or for an adapter whose connection failed for good
    (adapters with a ``failed()`` coroutine, like Discord's gateway): its error, so that the
    process exits non-zero and the platform restarts it or alerts."""
    stop = asyncio.ensure_future(stop_event.wait())
    watched = {
        asyncio.ensure_future(adapter.failed()): adapter.name
        for adapter in adapters
        if hasattr(adapter, "failed")
    }
    try:
        done, _ = await asyncio.wait([stop, *watched], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in [stop, *watched]:
            task.cancel()
    for task in done:
        if task in watched and not task.cancelled() and task.exception() is None:
            error = task.result()
            assert isinstance(error, BaseException)
            log.error("%s failed for good: exiting with code 1", watched[task])
            return error
    return None
