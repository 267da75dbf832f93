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
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from quizbot.runner import telegram_config
from quizbot.settings import Settings
from quizbot.web import WebServer
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock, rounds_beside

Launch = Callable[..., Awaitable[TelegramAdapter]]
Reopen = Callable[[QuizCatalog], Awaitable[QuizEngine]]


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
    """Start a TelegramAdapter (a bot process) on an engine; all are stopped at the end.

    In webhook mode the process's web server is started first on ``PORT``, as the runner
    does."""
    started: list[TelegramAdapter] = []
    servers: list[WebServer] = []

    async def start(
        engine: QuizEngine, custom: Settings | None = None, **options: Any
    ) -> TelegramAdapter:
        chosen = custom or settings
        options.setdefault("polling_timeout", 1.0)
        if chosen.webhook_url and "web" not in options:
            web = WebServer(engine.healthy)
            await web.start("127.0.0.1", chosen.port)
            servers.append(web)
            options["web"] = web
        rounds = options.pop("rounds", None) or rounds_beside(engine)
        adapter = TelegramAdapter(engine, rounds, telegram_config(chosen), **options)
        await adapter.start()
        started.append(adapter)
        return adapter

    yield start
    for adapter in reversed(started):
        await adapter.stop()
    for server in servers:
        await server.stop()


@pytest.fixture
def clock() -> ManualClock:
    """Time for group rounds: it moves only when a test advances it."""
    return ManualClock(datetime(2026, 1, 1, tzinfo=UTC))


@pytest.fixture
def round_engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: ManualClock) -> QuizEngine:
    """An engine on the rounds' clock (give the adapter the same clock: ``round_clock``)."""
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
