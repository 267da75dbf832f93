"""The PostgreSQL backend's assignments and the attempts that count for them."""

from __future__ import annotations

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
from bot.storage.postgres.pool import PostgresPool, retrying
from bot.storage.records import AnswerRecord
from bot.storage.rows import answer_from

ASSIGNED_ATTEMPTS_SQL = ASSIGNED_ATTEMPTS.format(assignment="$1")


class PostgresAssignments(PostgresPool, AssignmentStore):
    """:class:`AssignmentStore` in PostgreSQL."""

    @retrying
    async def create_assignment(self, new: NewAssignment) -> AssignmentRecord:
        rows = await self._fetch(
            "INSERT INTO assignments (platform, chat_id, quiz_id, created_by, language, "
            "created_at, deadline, zone_chat, chat_title) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *",
            new.platform,
            new.chat_id,
            new.quiz_id,
            new.created_by,
            new.language,
            new.created_at,
            new.deadline,
            new.zone_chat,
            new.chat_title,
        )
        return assignment_from(rows[0])

    @retrying
    async def get_assignment(self, assignment_id: int) -> AssignmentRecord | None:
        rows = await self._fetch("SELECT * FROM assignments WHERE id = $1", assignment_id)
        return assignment_from(rows[0]) if rows else None

    @retrying
    async def find_assignments(
        self,
        platform: str | None = None,
        chat_id: str | None = None,
        *,
        created_by: str | None = None,
        quiz_id: str | None = None,
    ) -> list[AssignmentRecord]:
        sql, params = find_assignments_sql(
            numbered=True,
            platform=platform,
            chat_id=chat_id,
            created_by=created_by,
            quiz_id=quiz_id,
        )
        rows = await self._fetch(sql, *params)
        return [assignment_from(r) for r in rows]

    @retrying
    async def cancel_assignment(self, assignment_id: int, at: datetime) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE assignments SET cancelled_at = $2 WHERE id = $1 AND cancelled_at IS NULL",
                assignment_id,
                at,
            )
        return bool(result == "UPDATE 1")

    @retrying
    async def link_attempt(
        self, assignment_id: int, attempt_id: int, user_id: str, at: datetime
    ) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "INSERT INTO assignment_attempts (assignment_id, attempt_id, user_id, linked_at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (assignment_id, attempt_id) DO NOTHING",
                assignment_id,
                attempt_id,
                user_id,
                at,
            )
        return bool(result == "INSERT 0 1")

    @retrying
    async def assigned_attempts(self, assignment_id: int) -> list[AssignedAttempt]:
        rows = await self._fetch(ASSIGNED_ATTEMPTS_SQL, assignment_id)
        return [assigned_attempt_from(r) for r in rows]

    @retrying
    async def assignment_answers(self, assignment_id: int) -> list[AnswerRecord]:
        rows = await self._fetch(
            "SELECT s.* FROM answers s JOIN assignment_attempts l ON l.attempt_id = s.attempt_id "
            "WHERE l.assignment_id = $1 ORDER BY s.attempt_id, s.seq",
            assignment_id,
        )
        return [answer_from(r) for r in rows]
