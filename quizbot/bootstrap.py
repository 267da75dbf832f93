"""The one place that wires settings, quizzes, storage, the engine and the services beside it
together."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.quiz_check import FileCheck
from bot.review import ReviewScheduler
from bot.services import Services
from bot.storage import Storage, StorageError, storage_from_url
from quizbot.extras import require_extra
from quizbot.settings import ConfigError, Settings, ephemeral_disk_warning

log = logging.getLogger("quizbot")


@dataclass
class App:
    """A running engine and the services beside it (:class:`~bot.services.Services`)."""

    services: Services

    @property
    def catalog(self) -> QuizCatalog:
        """The engine's quizzes (the library's published ones)."""
        return self.services.engine.catalog


@asynccontextmanager
async def open_app(settings: Settings, storage: Storage | None = None) -> AsyncIterator[App]:
    """Open the storage, publish QUIZ_DIR's new quizzes to its library and build the engine
    (serving the library) and the services beside it; close the storage at the end.

    Broken quiz files are logged and publish nothing (a quiz's version already published
    stays served). A PostgreSQL
    ``DATABASE_URL`` without the postgres extra raises :class:`~quizbot.extras.MissingExtra`;
    a database that cannot be opened or written raises ConfigError naming ``DATABASE_URL``.
    """
    if storage is None and settings.database_url.startswith(("postgres://", "postgresql://")):
        require_extra("postgres", "DATABASE_URL is a PostgreSQL URL")
    warning = ephemeral_disk_warning(settings)
    if warning:
        log.warning(warning)
    catalog = QuizCatalog(paths=[settings.quiz_dir], cache_dir=settings.quiz_cache_dir)
    storage = storage or storage_from_url(settings.database_url, timeout=settings.database_timeout)
    try:
        await storage.open()
    except StorageError as exc:
        raise ConfigError("DATABASE_URL", str(exc)) from None
    try:
        engine = QuizEngine(
            catalog,
            storage,
            file_check=upload_file_check(),
            reviews=ReviewScheduler(settings.review_retention),
        )
        try:
            report = (await engine.library.publish_quiz_dir()).load
        except StorageError as exc:
            raise ConfigError("DATABASE_URL", f"cannot publish QUIZ_DIR's quizzes: {exc}") from None
        for problem in report.errors:
            log.error("quiz file skipped: %s", problem)
        services = Services.build(
            engine,
            storage,
            claim_lease=settings.claim_lease_seconds,
            assignment_reminders=settings.assignment_reminders,
        )
        yield App(services)
    finally:
        await storage.close()


def upload_file_check() -> FileCheck | None:
    """The JSON Schema check ``quizbot validate`` makes, for uploads (None: not installed)."""
    from quizbot.schema_check import schema_available, schema_problems

    return schema_problems if schema_available() else None
