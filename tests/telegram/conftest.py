"""Fixtures for the Telegram adapter tests: the fake Bot API and bots started against it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.telegram import TelegramAdapter
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.quiz import Quiz
from bot.rounds import RoundClock
from bot.scheduling import Scheduler
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from fakes.telegram_chatter import Chatter
from quizbot.runner import telegram_config
from quizbot.settings import Settings
from quizbot.web import WebServer
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock, services_beside

Launch = Callable[..., Awaitable[TelegramAdapter]]
Reopen = Callable[[QuizCatalog], Awaitable[QuizEngine]]


def chatter(api: FakeBotApi, user_id: int, name: str, language: str | None = "en") -> Chatter:
    """A user of ``language`` (None: none stated) in a private chat with the bot."""
    user = api.user(user_id, name, language_code=language)
    return Chatter(api, user, api.private_chat(user))


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    fake = FakeBotApi()
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
def settings(api: FakeBotApi) -> Settings:
    return Settings(quiz_dir=QUIZ_DIR, telegram_token=TOKEN, telegram_api_base_url=api.base_url)


@pytest.fixture
async def launch(api: FakeBotApi, settings: Settings) -> AsyncIterator[Launch]:
    """Start a TelegramAdapter (a bot process) on the services beside an engine, then their
    scheduler, as the runner does; all are stopped at the end.

    ``clock``: the services' (a ManualClock the engine shares); ``jobs=False`` leaves the
    scheduler stopped (no feature's job runs). In webhook mode the process's web server is
    started first on ``PORT``, as the runner does."""
    started: list[TelegramAdapter] = []
    servers: list[WebServer] = []
    schedulers: list[Scheduler] = []

    async def start(
        engine: QuizEngine,
        custom: Settings | None = None,
        *,
        clock: RoundClock | None = None,
        jobs: bool = True,
        **options: Any,
    ) -> TelegramAdapter:
        chosen = custom or settings
        options.setdefault("polling_timeout", 1.0)
        if chosen.webhook_url and "web" not in options:
            web = WebServer(engine.healthy)
            await web.start("127.0.0.1", chosen.port)
            servers.append(web)
            options["web"] = web
        services = services_beside(engine, clock)
        adapter = TelegramAdapter(services, telegram_config(chosen), **options)
        await adapter.start()
        started.append(adapter)
        if jobs:
            services.scheduling.scheduler.start()
            schedulers.append(services.scheduling.scheduler)
        return adapter

    yield start
    for adapter in reversed(started):
        await adapter.stop()
    for scheduler in schedulers:
        await scheduler.stop()
    for server in servers:
        await server.stop()


async def stop_process(adapter: TelegramAdapter) -> None:
    """A bot process going down: its adapter, then the scheduler beside it (the runner's
    order); a later ``launch`` on the same database is the restarted process."""
    await adapter.stop()
    await adapter.services.scheduling.scheduler.stop()


@pytest.fixture
def clock() -> ManualClock:
    """Time for group rounds: it moves only when a test advances it."""
    return ManualClock(datetime(2026, 1, 1, tzinfo=UTC))


@pytest.fixture
def round_engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: ManualClock) -> QuizEngine:
    """An engine on the rounds' clock (give the services the same clock: ``clock``)."""
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def seed(catalog: QuizCatalog) -> Quiz:
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    return quiz


@pytest.fixture
async def reopen(db_path: Path) -> AsyncIterator[Reopen]:
    """A new engine on a new connection to the same database: what a restarted process has."""
    opened: list[SQLiteStorage] = []

    async def new_engine(catalog: QuizCatalog) -> QuizEngine:
        storage = SQLiteStorage(db_path)
        await storage.open()
        opened.append(storage)
        return QuizEngine(catalog, storage, clock=FakeClock())

    yield new_engine
    for storage in opened:
        await storage.close()


@pytest.fixture
async def reopened(db_path: Path) -> AsyncIterator[list[SQLiteStorage]]:
    """Storages of restarted processes, closed at the end."""
    opened: list[SQLiteStorage] = []
    yield opened
    for storage in opened:
        await storage.close()
