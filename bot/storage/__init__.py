"""Durable state behind one interface (:class:`Storage`), with one backend per database."""

from bot.storage.base import Storage, StorageError
from bot.storage.records import (
    AnswerRecord,
    AttemptRecord,
    AttemptStatus,
    AttemptSummary,
    NewAttempt,
    UserRecord,
)
from bot.storage.sqlite import SQLiteStorage, sqlite_path_from_url

SUPPORTED_SCHEMES = ("sqlite:///",)


def storage_from_url(url: str) -> Storage:
    """The backend for a SQLAlchemy-style ``DATABASE_URL`` (not yet opened)."""
    if url.startswith("sqlite:///"):
        return SQLiteStorage(sqlite_path_from_url(url))
    scheme = url.split(":", 1)[0] if ":" in url else url
    raise ValueError(
        f'unsupported database URL scheme "{scheme}"; use sqlite:///relative.db '
        "or sqlite:////absolute/path.db"
    )


__all__ = [
    "SUPPORTED_SCHEMES",
    "AnswerRecord",
    "AttemptRecord",
    "AttemptStatus",
    "AttemptSummary",
    "NewAttempt",
    "SQLiteStorage",
    "Storage",
    "StorageError",
    "UserRecord",
    "sqlite_path_from_url",
    "storage_from_url",
]
