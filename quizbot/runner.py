"""``quizbot run``: the chat bots configured by tokens, in one process sharing one engine."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TextIO

from bot.services import Services
from bot.storage import storage_from_url
from quizbot.bootstrap import open_app
from quizbot.settings import Settings

if TYPE_CHECKING:  # the adapters need their extras: imported when a token asks for them
    from adapters.discord import DiscordAdapter, DiscordConfig
    from adapters.telegram import TelegramAdapter, TelegramConfig, WebMount

log = logging.getLogger("quizbot.run")

# New container objects between two collections of the young generation while the bots run
# (CPython's default: 700). See fewer_young_collections().
YOUNG_COLLECTION_THRESHOLD = 10_000


@contextlib.contextmanager
def fewer_young_collections() -> Iterator[None]:
    """Collect the young generation after 10,000 new objects instead of CPython's 700, for as
    long as the bots run (the previous thresholds come back afterwards).

    Under a burst of presses every update in flight (python-telegram-bot's objects, its
    handler's coroutines, its answer waiting for the commit) outlives many collections at the
    default and is scanned in each, then again in the older generations: at the default, 500
    presses at once cost our bot 32-63 ms of collecting, slowing down burst after burst; with
    this setting 21-30 ms, steady (bench (b), whose bare python-telegram-bot app gets the
    same setting: 11-17 ms). Reference counting frees nearly all of a press's
    objects long before 10,000 more exist; what it costs is that garbage in reference cycles
    waits a little longer (at most that many objects, about a megabyte)."""
    before = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


class ChatAdapter(Protocol):
    """What the runner needs of a platform adapter."""

    name: str

    async def start(self) -> None:
        """Connect and begin handling updates in the background."""

    async def stop(self) -> None:
        """Stop taking updates, let in-flight ones finish, disconnect."""


def telegram_config(settings: Settings) -> TelegramConfig:
    """What the Telegram adapter needs of the settings (``TELEGRAM_BOT_TOKEN`` set)."""
    from adapters.telegram import TelegramConfig
    from adapters.telegram.config import DEFAULT_BASE_URL

    return TelegramConfig(
        token=settings.telegram_token or "",
        api_base_url=settings.telegram_api_base_url or DEFAULT_BASE_URL,
        admin_ids=settings.admin_telegram_ids,
        webhook_url=settings.webhook_url,
        webhook_secret=settings.webhook_secret,
        webhook_max_connections=settings.webhook_max_connections,
    )


def discord_config(settings: Settings) -> DiscordConfig:
    """What the Discord adapter needs of the settings (``DISCORD_BOT_TOKEN`` set)."""
    from adapters.discord import DiscordConfig

    return DiscordConfig(
        token=settings.discord_token or "",
        guild_id=settings.discord_guild_id,
        admin_ids=settings.admin_discord_ids,
        shard_count=settings.shard_count,
        shard_ids=settings.shard_ids,
        round_lease_seconds=settings.round_lease_seconds,
    )


def telegram_adapter(
    services: Services, settings: Settings, *, web: WebMount | None = None
) -> TelegramAdapter:
    """The Telegram bot of ``quizbot run`` on the process's services: its config, the /stats
    chart, the round lease and the web server (for webhook mode)."""
    from adapters.telegram import TelegramAdapter
    from adapters.telegram.group_rounds import RoundTiming
    from quizbot.charts import render_stats_png

    return TelegramAdapter(
        services,
        telegram_config(settings),
        stats_chart=render_stats_png,
        round_timing=RoundTiming(lease=settings.round_lease_seconds),  # (replicas)
        web=web,
    )


def discord_adapter(services: Services, settings: Settings) -> DiscordAdapter:
    """The Discord bot of ``quizbot run`` on the process's services, with its config and the
    /stats chart."""
    from adapters.discord import DiscordAdapter
    from quizbot.charts import render_stats_png

    return DiscordAdapter(services, discord_config(settings), stats_chart=render_stats_png)


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
    with fewer_young_collections():
        return await _run_until_stopped(settings, stop_event, listen)


async def _run_until_stopped(settings: Settings, stop_event: asyncio.Event, listen: str) -> int:
    async with open_app(settings) as app, contextlib.AsyncExitStack() as stack:
        services = app.services
        web = None
        if settings.serve_http:
            from quizbot.web import WebServer

            web = WebServer(services.engine.healthy)
            await web.start(listen, settings.port)
            stack.push_async_callback(web.stop)
            log.info("serving /healthz on %s:%s", listen, settings.port)
        # Other replicas (and `quizbot publish`) publish too: serve what they publish.
        watch = asyncio.create_task(services.engine.library.watch(), name="quiz-library-watch")
        stack.callback(watch.cancel)
        adapters: list[ChatAdapter] = []
        if settings.telegram_token:
            adapters.append(telegram_adapter(services, settings, web=web))
        if settings.discord_token:
            adapters.append(discord_adapter(services, settings))
        started: list[ChatAdapter] = []
        try:
            for adapter in adapters:
                await adapter.start()
                started.append(adapter)
                log.info("adapter started: %s", adapter.name)
            # Jobs run here once the adapters that post their messages are up.
            scheduler = services.scheduling.scheduler
            scheduler.start()
            stack.push_async_callback(scheduler.stop)
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


async def discord_sync_command(
    settings: Settings,
    guild_id: int | None = None,
    *,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """``quizbot discord-sync [--guild ID]``: register now and say so; the exit code is 0 when
    registered, 1 when Discord refused (token or commands), 2 without a token.

    The fingerprint goes to the database of ``DATABASE_URL``, so that the next
    ``quizbot run`` does not sync again."""
    if not settings.discord_token:
        print("quizbot discord-sync: DISCORD_BOT_TOKEN is not set", file=err)
        return 2
    import discord

    from adapters.discord import sync_commands

    storage = storage_from_url(settings.database_url, timeout=settings.database_timeout)
    await storage.open()
    try:
        result = await sync_commands(discord_config(settings), storage, guild_id)
    except discord.LoginFailure:
        print("quizbot discord-sync: Discord did not accept DISCORD_BOT_TOKEN", file=err)
        return 1
    except discord.HTTPException as exc:
        print(f"quizbot discord-sync: Discord refused the commands: {exc}", file=err)
        return 1
    finally:
        await storage.close()
    where = (
        "globally (may take a while to appear)"
        if result.target == "global"
        else (f"in server {result.target.removeprefix('guild ')} (available now)")
    )
    print(f"Registered {result.commands} slash commands {where}.", file=out)
    return 0
