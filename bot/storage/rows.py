"""Database rows to records, shared by both backends.

A row is anything indexable by column name (``sqlite3.Row``, ``asyncpg.Record``). The
backends differ only in how a value arrives: SQLite stores timestamps as ISO 8601 text and
booleans as 0/1, PostgreSQL returns ``datetime`` and ``bool``; the mappers accept both.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from bot.storage.library import QuizVersionRecord, VersionSource
from bot.storage.records import (
    AnswerRecord,
    AttemptKind,
    AttemptRecord,
    AttemptStatus,
    OutboxEntry,
    OutboxKind,
    ReviewItem,
    RoundAnswer,
    RoundKind,
    RoundRecord,
    RoundStatus,
    UserRecord,
)


class Row(Protocol):
    def __getitem__(self, key: str, /) -> Any: ...


def timestamp(value: Any) -> datetime:
    """A timestamp column's value (ISO 8601 text in SQLite, ``datetime`` in PostgreSQL)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def optional_timestamp(value: Any) -> datetime | None:
    return None if value is None else timestamp(value)


# Question and option ids repeat in every attempt; interned, the attempts the engine keeps in
# memory (its answer-state cache) share one copy of each instead of holding their own.
def _ids(values: list[str]) -> tuple[str, ...]:
    return tuple(map(sys.intern, values))


def _option_order(text: str) -> Mapping[str, tuple[str, ...]]:
    return {sys.intern(k): _ids(v) for k, v in json.loads(text).items()}


def user_from(row: Row) -> UserRecord:
    return UserRecord(row["platform"], row["user_id"], row["display_name"], row["language"])


def attempt_from(row: Row) -> AttemptRecord:
    return AttemptRecord(
        id=row["id"],
        platform=row["platform"],
        user_id=row["user_id"],
        chat_id=row["chat_id"],
        quiz_id=row["quiz_id"],
        question_order=_ids(json.loads(row["question_order"])),
        option_order=dict(_option_order(row["option_order"])),
        status=AttemptStatus(row["status"]),
        started_at=timestamp(row["started_at"]),
        updated_at=timestamp(row["updated_at"]),
        finished_at=optional_timestamp(row["finished_at"]),
        kind=AttemptKind(row["kind"]),
        quiz_version=row["quiz_version"],
    )


def answer_from(row: Row) -> AnswerRecord:
    return AnswerRecord(
        attempt_id=row["attempt_id"],
        question_id=row["question_id"],
        option_id=row["option_id"],
        correct=bool(row["correct"]),
        answered_at=timestamp(row["answered_at"]),
    )


def review_item_from(row: Row) -> ReviewItem:
    return ReviewItem(
        row["platform"],
        row["user_id"],
        row["quiz_id"],
        row["question_id"],
        row["box"],
        timestamp(row["due_at"]),
        row["card"],
    )


def round_from(row: Row) -> RoundRecord:
    return RoundRecord(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        quiz_id=row["quiz_id"],
        starter_id=row["starter_id"],
        language=row["language"],
        question_order=_ids(json.loads(row["question_order"])),
        option_order=dict(_option_order(row["option_order"])),
        time_limit_seconds=row["time_limit_seconds"],
        status=RoundStatus(row["status"]),
        current=row["current"],
        question_started_at=timestamp(row["question_started_at"]),
        deadline=timestamp(row["deadline"]),
        started_at=timestamp(row["started_at"]),
        finished_at=optional_timestamp(row["finished_at"]),
        quiz_version=row["quiz_version"],
        kind=RoundKind(row["kind"]),
        time_zone=row["time_zone"],
    )


def round_answer_from(row: Row) -> RoundAnswer:
    return RoundAnswer(
        round_id=row["round_id"],
        number=row["number"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        option_id=row["option_id"],
        correct=bool(row["correct"]),
        elapsed_ms=row["elapsed_ms"],
        answered_at=timestamp(row["answered_at"]),
    )


def outbox_entry_from(row: Row) -> OutboxEntry:
    return OutboxEntry(
        id=row["id"],
        round_id=row["round_id"],
        number=row["number"],
        kind=OutboxKind(row["kind"]),
        platform=row["platform"],
        chat_id=row["chat_id"],
        created_at=timestamp(row["created_at"]),
        sent_at=optional_timestamp(row["sent_at"]),
        message_id=row["message_id"],
    )


def quiz_version_from(row: Row) -> QuizVersionRecord:
    return QuizVersionRecord(
        quiz_id=row["quiz_id"],
        version=row["version"],
        content=row["content"],
        content_hash=row["content_hash"],
        question_count=row["question_count"],
        source=VersionSource(row["source"]),
        published_by=row["published_by"],
        published_at=timestamp(row["published_at"]),
        hidden=bool(row["hidden"]),
    )
