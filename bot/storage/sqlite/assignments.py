"""The SQLite backend's assignments and the attempts that count for them."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.storage.assignment_rows import assigned_attempt_from, assignment_from
from bot.storage.assignments import (
    ASSIGNED_ATTEMPTS,
    AssignedAttempt,
    AssignmentRecord,
    AssignmentStore,
    NewAssignment,
    find_assignments_sql,
)
from bot.storage.records import AnswerRecord
from bot.storage.rows import answer_from
from bot.storage.sqlite.writer import SQLiteWriter, _ts

ASSIGNED_ATTEMPTS_SQL = ASSIGNED_ATTEMPTS.format(assignment="?")


class SQLiteAssignments(SQLiteWriter, AssignmentStore):
    """:class:`AssignmentStore` in SQLite."""

    async def create_assignment(self, new: NewAssignment) -> AssignmentRecord:
        def op(conn: sqlite3.Connection) -> AssignmentRecord:
            row = conn.execute(
                "INSERT INTO assignments (platform, chat_id, quiz_id, created_by, language, "
                "created_at, deadline, zone_chat, chat_title) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    new.platform,
                    new.chat_id,
                    new.quiz_id,
                    new.created_by,
                    new.language,
                    _ts(new.created_at),
                    _ts(new.deadline),
                    new.zone_chat,
                    new.chat_title,
                ),
            ).fetchone()
            return assignment_from(row)

        created: AssignmentRecord = await self._write(op)
        return created

    async def get_assignment(self, assignment_id: int) -> AssignmentRecord | None:
        rows = await self._fetchall("SELECT * FROM assignments WHERE id = ?", (assignment_id,))
        return assignment_from(rows[0]) if rows else None

    async def find_assignments(
        self,
        platform: str | None = None,
        chat_id: str | None = None,
        *,
        created_by: str | None = None,
        quiz_id: str | None = None,
    ) -> list[AssignmentRecord]:
        sql, params = find_assignments_sql(
            numbered=False,
            platform=platform,
            chat_id=chat_id,
            created_by=created_by,
            quiz_id=quiz_id,
        )
        rows = await self._fetchall(sql, tuple(params))
        return [assignment_from(r) for r in rows]

    async def cancel_assignment(self, assignment_id: int, at: datetime) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE assignments SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL",
                (_ts(at), assignment_id),
            )
            return cur.rowcount == 1

        cancelled: bool = await self._write(op)
        return cancelled

    async def link_attempt(
        self, assignment_id: int, attempt_id: int, user_id: str, at: datetime
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "INSERT INTO assignment_attempts (assignment_id, attempt_id, user_id, linked_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (assignment_id, attempt_id) DO NOTHING",
                (assignment_id, attempt_id, user_id, _ts(at)),
            )
            return cur.rowcount == 1

        linked: bool = await self._write(op)
        return linked

    async def assigned_attempts(self, assignment_id: int) -> list[AssignedAttempt]:
        rows = await self._fetchall(ASSIGNED_ATTEMPTS_SQL, (assignment_id,))
        return [assigned_attempt_from(r) for r in rows]

    async def assignment_answers(self, assignment_id: int) -> list[AnswerRecord]:
        rows = await self._fetchall(
            "SELECT s.* FROM answers s JOIN assignment_attempts l ON l.attempt_id = s.attempt_id "
            "WHERE l.assignment_id = ? ORDER BY s.attempt_id, s.seq",
            (assignment_id,),
        )
        return [answer_from(r) for r in rows]
