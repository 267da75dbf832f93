"""The one place that wires settings, quizzes, storage, the engine, group rounds and
assignments together."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.assignments import Assignments
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.quiz_loader import LoadReport
from bot.review import ReviewScheduler
from bot.review_reminders import ReviewReminders
from bot.rounds import GroupRounds, SystemClock
from bot.scheduling import Scheduling
from bot.storage import Storage, StorageError, storage_from_url
from quizbot.extras import require_extra
from quizbot.settings import ConfigError, Settings, ephemeral_disk_warning

log = logging.getLogger("quizbot")


@dataclass
class App:
    """A running engine and what runs beside it (group rounds, scheduling, review reminders,
    assignments), with their catalog, storage and the report of the quiz load."""

    settings: Settings
    catalog: QuizCatalog
    storage: Storage
    engine: QuizEngine
    rounds: GroupRounds
    load_report: LoadReport
    scheduling: Scheduling
    reminders: ReviewReminders
    assignments: Assignments


@asynccontextmanager
async def open_app(settings: Settings, storage: Storage | None = None) -> AsyncIterator[App]:
    """Load the quizzes, open the storage and build the engine, the group rounds and the
    assignments; close the storage at the end.

    Broken quiz files are logged and left out; the others are served. A PostgreSQL
    ``DATABASE_URL`` without the postgres extra raises :class:`~quizbot.extras.MissingExtra`;
    a database that cannot be opened or written raises ConfigError naming ``DATABASE_URL``.
    """
    if storage is None and settings.database_url.startswith(("postgres://", "postgresql://")):
        require_extra("postgres", "DATABASE_URL is a PostgreSQL URL")
    warning = ephemeral_disk_warning(settings)
    if warning:
        log.warning(warning)
    catalog, report = QuizCatalog.from_paths([settings.quiz_dir], cache_dir=settings.quiz_cache_dir)
    for problem in report.errors:
        log.error("quiz file skipped: %s", problem)
    storage = storage or storage_from_url(settings.database_url, timeout=settings.database_timeout)
    try:
        await storage.open()
    except StorageError as exc:
        raise ConfigError("DATABASE_URL", str(exc)) from None
    try:
        engine = QuizEngine(catalog, storage, reviews=ReviewScheduler(settings.review_retention))
        rounds = GroupRounds(engine, storage)
        clock = SystemClock(engine.clock)
        scheduling = Scheduling.leased(storage, clock, settings.claim_lease_seconds)
        reminders = ReviewReminders(engine, scheduling)  # registers its job kind, once
        before = settings.assignment_reminders
        assignments = Assignments(engine, scheduling, reminders=before)  # its job kinds too
        yield App(
            settings, catalog, storage, engine, rounds, report, scheduling, reminders, assignments
        )
    finally:
        await storage.close()
