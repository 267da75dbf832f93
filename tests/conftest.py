"""Shared fixtures: the bundled quizzes, a fresh SQLite database and an engine on top."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage

ROOT = Path(__file__).resolve().parent.parent
QUIZ_DIR = ROOT / "quizzes"
SEED_QUIZ = "checkpoint-sharding"


class FakeClock:
    """A clock that moves only when told to (one second per reading by default)."""

    def __init__(self, start: datetime | None = None, step: timedelta = timedelta(seconds=1)):
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


@pytest.fixture
def catalog() -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([QUIZ_DIR])
    assert not report.errors, report.errors
    return catalog


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "quizbot.db"


@pytest.fixture
async def storage(db_path: Path) -> AsyncIterator[SQLiteStorage]:
    store = SQLiteStorage(db_path)
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def engine(catalog: QuizCatalog, storage: SQLiteStorage) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=FakeClock())
