"""Shared fixtures: the bundled quizzes, a fresh SQLite database and an engine on top
(``storage``, ``engine``), and the same on every storage backend in turn (``open_storage``,
``any_storage``, ``any_engine``)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.rounds import RoundClock
from bot.services import Services
from bot.storage import SQLiteStorage, Storage

# CI (which sets CI=true) runs the property tests on a fixed sequence of examples, so a red
# build is never a coin toss and a rerun shows the same failure; locally every run explores
# new examples (and replays failures from the local example database).
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    print_blob=True,
    max_examples=100,  # as locally: tests that need more ask for it
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parent.parent
QUIZ_DIR = ROOT / "quizzes"
SEED_QUIZ = "checkpoint-sharding"


def services_beside(engine: QuizEngine, clock: RoundClock | None = None) -> Services:
    """The services the wiring (quizbot/bootstrap.py) builds beside ``engine``, on the
    engine's own storage and on ``clock`` (a ManualClock the engine shares; default: the
    engine's, on asyncio's timers): for the harnesses that hand an engine to a bot, and for
    tests that make an engine on a storage of their own (a slow or failing one). Tests never
    assert through the engine's storage; this is the one place that reaches it."""
    return Services.build(engine, engine._storage, clock=clock)


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


def postgres_url() -> str | None:
    """The test PostgreSQL server (scripts/with-postgres starts one), or skip/fail without."""
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        return url
    if os.environ.get("REQUIRE_POSTGRES"):
        pytest.fail("REQUIRE_POSTGRES is set but TEST_DATABASE_URL is not")
    pytest.skip("no PostgreSQL: run under scripts/with-postgres (CI always does)")


async def reset_postgres(url: str) -> None:
    """Drop every table so that each test starts from an empty database."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
    finally:
        await conn.close()


OpenStorage = Callable[[], Awaitable[Storage]]


@pytest.fixture(params=["sqlite", "postgres"])
async def open_storage(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[OpenStorage]:
    """Each storage backend in turn, on one empty database that can be opened as often as
    asked: a second storage is a restarted process (or another replica), sharing nothing with
    the first but the database. All are closed after the test."""
    opened: list[Storage] = []
    url = None
    if request.param == "postgres":
        url = postgres_url()
        assert url is not None
        await reset_postgres(url)

    async def open_one() -> Storage:
        store: Storage
        if url is None:
            store = SQLiteStorage(db_path)
        else:
            from bot.storage.postgres import PostgresStorage

            store = PostgresStorage(url)
        await store.open()
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        await store.close()


@pytest.fixture
async def any_storage(open_storage: OpenStorage) -> Storage:
    """Each storage backend in turn: the storage contract is tested once against all."""
    return await open_storage()


@pytest.fixture
def any_engine(catalog: QuizCatalog, any_storage: Storage) -> QuizEngine:
    """An engine on each storage backend in turn; assertions on what it stored go through
    ``any_storage``, never the engine's private storage."""
    return QuizEngine(catalog, any_storage, clock=FakeClock())
