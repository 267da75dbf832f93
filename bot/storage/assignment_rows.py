"""Rows of the assignment and chat member tables to records, shared by both backends (see
:mod:`bot.storage.rows` for how the two databases' values differ)."""

from __future__ import annotations

from bot.storage.assignments import AssignedAttempt, AssignmentRecord
from bot.storage.chat_members import ChatMember
from bot.storage.rows import Row, attempt_from, optional_timestamp, timestamp


def assignment_from(row: Row) -> AssignmentRecord:
    return AssignmentRecord(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        quiz_id=row["quiz_id"],
        created_by=row["created_by"],
        language=row["language"],
        created_at=timestamp(row["created_at"]),
        deadline=timestamp(row["deadline"]),
        cancelled_at=optional_timestamp(row["cancelled_at"]),
        zone_chat=row["zone_chat"],
        chat_title=row["chat_title"],
    )


def assigned_attempt_from(row: Row) -> AssignedAttempt:
    """An attempt row with ``answered``, ``right_count``, ``player_name`` and ``linked_at``."""
    return AssignedAttempt(
        attempt=attempt_from(row),
        answered=int(row["answered"]),
        correct=int(row["right_count"]),
        display_name=row["player_name"],
        linked_at=timestamp(row["linked_at"]),
    )


def chat_member_from(row: Row, platform: str, chat_id: str) -> ChatMember:
    return ChatMember(platform, chat_id, row["user_id"], row["display_name"])
