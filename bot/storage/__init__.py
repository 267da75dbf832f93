"""Durable state behind narrow ports (:mod:`bot.storage.ports`) that :class:`Storage` joins,
with one backend per database."""

from bot.storage.base import StateChanged, Storage, StorageError
from bot.storage.image_store import ImageStore, StoredImage
from bot.storage.library import LibraryStore, NewQuizVersion, QuizVersionRecord, VersionSource
from bot.storage.ports import AttemptStore, KeyValueStore, RoundStore
from bot.storage.records import (
    AnswerRecord,
    AnswerState,
    AttemptKind,
    AttemptRecord,
    AttemptStatus,
    AttemptSummary,
    ExpectedState,
    NewAttempt,
    NewRound,
    OutboxEntry,
    OutboxKind,
    ReviewItem,
    RoundAnswer,
    RoundKind,
    RoundProgress,
    RoundRecord,
    RoundStatus,
    UserRecord,
)
from bot.storage.sqlite import SQLiteStorage, sqlite_path_from_url


def storage_from_url(url: str, *, timeout: float | None = None) -> Storage:
    """The backend for a SQLAlchemy-style ``DATABASE_URL`` (not yet opened).

    ``timeout``: seconds a call may wait (PostgreSQL: each call, connecting and the pool
    included; SQLite: for another writer's lock, per try); None: the backend's default."""
    if url.startswith("sqlite:///"):
        if timeout is None:
            return SQLiteStorage(sqlite_path_from_url(url))
        return SQLiteStorage(sqlite_path_from_url(url), busy_timeout_ms=round(timeout * 1000))
    if url.startswith(("postgres://", "postgresql://")):
        # Imported here so that SQLite users need not install asyncpg.
        from bot.storage.postgres import PostgresStorage

        return PostgresStorage(url) if timeout is None else PostgresStorage(url, timeout=timeout)
    scheme = url.split(":", 1)[0] if ":" in url else url
    raise ValueError(
        f'unsupported database URL scheme "{scheme}"; use sqlite:///relative.db, '
        "sqlite:////absolute/path.db or postgresql://user:password@host/database"
    )


__all__ = [
    "AnswerRecord",
    "AnswerState",
    "AttemptKind",
    "AttemptRecord",
    "AttemptStatus",
    "AttemptStore",
    "AttemptSummary",
    "ExpectedState",
    "ImageStore",
    "KeyValueStore",
    "LibraryStore",
    "NewAttempt",
    "NewQuizVersion",
    "NewRound",
    "OutboxEntry",
    "OutboxKind",
    "QuizVersionRecord",
    "ReviewItem",
    "RoundAnswer",
    "RoundKind",
    "RoundProgress",
    "RoundRecord",
    "RoundStatus",
    "RoundStore",
    "SQLiteStorage",
    "StateChanged",
    "Storage",
    "StorageError",
    "StoredImage",
    "UserRecord",
    "VersionSource",
    "sqlite_path_from_url",
    "storage_from_url",
]
