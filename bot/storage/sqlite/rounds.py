"""The SQLite backend's group rounds, round leases and round outbox."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from bot.storage.base import StorageError
from bot.storage.ports import RoundStore
from bot.storage.records import (
    NewRound,
    OutboxEntry,
    OutboxKind,
    RoundAnswer,
    RoundKind,
    RoundProgress,
    RoundRecord,
    RoundStatus,
    UserRecord,
)
from bot.storage.rows import (
    outbox_entry_from,
    round_answer_from,
    round_from,
    user_from,
)
from bot.storage.sqlite.writer import SQLiteWriter, _ts

# Every answer of a round, by question then arrival (then member, for ties).
ROUND_ANSWERS = (
    "SELECT * FROM round_answers WHERE round_id = ? ORDER BY number, answered_at, user_id"
)

# How question ?2 of round ?1 stands (see RoundProgress), from inside the answer's transaction.
ROUND_PROGRESS = """
SELECT
    (SELECT COUNT(*) FROM round_answers WHERE round_id = ?1 AND number = ?2),
    (SELECT COUNT(DISTINCT user_id) FROM round_answers WHERE round_id = ?1),
    EXISTS (SELECT 1 FROM round_answers WHERE round_id = ?1 AND number < ?2)
    AND NOT EXISTS (
        SELECT 1 FROM round_answers e WHERE e.round_id = ?1 AND e.number < ?2
        AND NOT EXISTS (
            SELECT 1 FROM round_answers t
            WHERE t.round_id = ?1 AND t.number = ?2 AND t.user_id = e.user_id
        )
    )
"""


class SQLiteRounds(SQLiteWriter, RoundStore):
    """:class:`RoundStore` in SQLite."""

    async def create_round(self, new: NewRound) -> tuple[RoundRecord, bool]:
        def op(conn: sqlite3.Connection) -> tuple[RoundRecord, bool]:
            return insert_round(conn, new)

        result: tuple[RoundRecord, bool] = await self._write(op)
        return result

    async def get_round(self, round_id: int) -> RoundRecord | None:
        rows = await self._fetchall("SELECT * FROM rounds WHERE id = ?", (round_id,))
        return round_from(rows[0]) if rows else None

    async def round_press(
        self, round_id: int, platform: str, user_id: str
    ) -> tuple[RoundRecord | None, UserRecord | None]:
        def read(conn: sqlite3.Connection) -> tuple[RoundRecord | None, UserRecord | None]:
            conn.execute("BEGIN")  # one snapshot for the two reads
            try:
                row = conn.execute("SELECT * FROM rounds WHERE id = ?", (round_id,)).fetchone()
                user = conn.execute(
                    "SELECT * FROM users WHERE platform = ? AND user_id = ?", (platform, user_id)
                ).fetchone()
            finally:
                conn.execute("COMMIT")
            return (round_from(row) if row else None, user_from(user) if user else None)

        return await self._read(read)

    async def round_with_answers(
        self, round_id: int
    ) -> tuple[RoundRecord | None, list[RoundAnswer]]:
        def read(conn: sqlite3.Connection) -> tuple[RoundRecord | None, list[RoundAnswer]]:
            conn.execute("BEGIN")  # one snapshot for the two reads
            try:
                row = conn.execute("SELECT * FROM rounds WHERE id = ?", (round_id,)).fetchone()
                answers = conn.execute(ROUND_ANSWERS, (round_id,)).fetchall()
            finally:
                conn.execute("COMMIT")
            if row is None:
                return None, []
            return round_from(row), [round_answer_from(r) for r in answers]

        return await self._read(read)

    async def active_round(
        self, platform: str, chat_id: str, kind: RoundKind = RoundKind.GROUP
    ) -> RoundRecord | None:
        rows = await self._fetchall(
            "SELECT * FROM rounds WHERE platform = ? AND chat_id = ? AND kind = ? "
            "AND status = 'active'",
            (platform, chat_id, kind.value),
        )
        return round_from(rows[0]) if rows else None

    async def rounds_due(self, now: datetime) -> list[RoundRecord]:
        rows = await self._fetchall(
            "SELECT * FROM rounds WHERE status = 'active' AND deadline <= ? ORDER BY deadline",
            (_ts(now),),
        )
        return [round_from(r) for r in rows]

    async def record_round_answer(
        self, answer: RoundAnswer
    ) -> tuple[RoundAnswer, bool, RoundProgress]:
        def op(conn: sqlite3.Connection) -> tuple[RoundAnswer, bool, RoundProgress]:
            cur = conn.execute(
                "INSERT INTO round_answers (round_id, number, user_id, display_name, option_id, "
                "correct, elapsed_ms, answered_at) "
                "SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM rounds WHERE id = ? "
                "AND status = 'active' AND current = ?) "
                "ON CONFLICT (round_id, number, user_id) DO NOTHING",
                (
                    answer.round_id,
                    answer.number,
                    answer.user_id,
                    answer.display_name,
                    answer.option_id,
                    int(answer.correct),
                    answer.elapsed_ms,
                    _ts(answer.answered_at),
                    answer.round_id,
                    answer.number,
                ),
            )
            if cur.rowcount == 1:
                stored, inserted = answer, True
            else:
                row = conn.execute(
                    "SELECT * FROM round_answers WHERE round_id = ? AND number = ? AND user_id = ?",
                    (answer.round_id, answer.number, answer.user_id),
                ).fetchone()
                if row is None:
                    raise StorageError("the question is closed")
                stored, inserted = round_answer_from(row), False
            counts = conn.execute(ROUND_PROGRESS, (answer.round_id, answer.number)).fetchone()
            return stored, inserted, _progress(counts)

        result: tuple[RoundAnswer, bool, RoundProgress] = await self._write(op)
        return result

    async def round_answers(self, round_id: int) -> list[RoundAnswer]:
        rows = await self._fetchall(ROUND_ANSWERS, (round_id,))
        return [round_answer_from(r) for r in rows]

    async def end_round(
        self, round_id: int, status: RoundStatus, at: datetime, number: int | None = None
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE rounds SET status = ?, finished_at = ? "
                "WHERE id = ? AND status = 'active' AND (? IS NULL OR current = ?)",
                (status.value, _ts(at), round_id, number, number),
            )
            if cur.rowcount != 1:
                return False
            conn.execute(
                "INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, "
                "created_at) SELECT id, current, ?, platform, chat_id, ? FROM rounds WHERE id = ?",
                (OutboxKind.HISTORY.value, _ts(at), round_id),
            )
            return True

        ended: bool = await self._write(op)
        return ended

    async def close_round_question(
        self,
        round_id: int,
        number: int,
        at: datetime,
        next_opens: datetime | None,
        next_deadline: datetime | None,
    ) -> tuple[OutboxEntry, ...]:
        def op(conn: sqlite3.Connection) -> tuple[OutboxEntry, ...]:
            if next_opens is None:
                sql = (
                    "UPDATE rounds SET status = 'finished', finished_at = ? "
                    "WHERE id = ? AND status = 'active' AND current = ?"
                )
                params: tuple[Any, ...] = (_ts(at), round_id, number)
            else:
                assert next_deadline is not None
                sql = (
                    "UPDATE rounds SET current = current + 1, question_started_at = ?, "
                    "deadline = ? WHERE id = ? AND status = 'active' AND current = ?"
                )
                params = (_ts(next_opens), _ts(next_deadline), round_id, number)
            closed = conn.execute(sql + " RETURNING kind", params).fetchone()
            if closed is None:
                return ()
            kinds = [OutboxKind.REVEAL]
            if next_opens is None:  # the round is over: its ranking, its members' history
                kinds += [OutboxKind.END, OutboxKind.HISTORY]
                if closed["kind"] == RoundKind.DAILY:  # one question: its reveal is its end
                    kinds.remove(OutboxKind.END)
            queued = []
            for kind in kinds:
                row = conn.execute(
                    "INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, "
                    "created_at) SELECT id, ?, ?, platform, chat_id, ? FROM rounds WHERE id = ? "
                    "RETURNING *",
                    (number, kind.value, _ts(at), round_id),
                ).fetchone()
                queued.append(outbox_entry_from(row))
            return tuple(queued)

        queued: tuple[OutboxEntry, ...] = await self._write(op)
        return queued

    # -- leases -----------------------------------------------------------------------------

    async def claim_round(self, round_id: int, owner: str, now: datetime, until: datetime) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "INSERT INTO round_leases (round_id, owner, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (round_id) DO UPDATE SET owner = excluded.owner, "
                "expires_at = excluded.expires_at "
                "WHERE round_leases.owner = excluded.owner OR round_leases.expires_at <= ?",
                (round_id, owner, _ts(until), _ts(now)),
            )
            return cur.rowcount == 1

        granted: bool = await self._write(op)
        return granted

    async def release_round(self, round_id: int, owner: str) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "DELETE FROM round_leases WHERE round_id = ? AND owner = ?", (round_id, owner)
            )

        await self._write(op)

    async def round_lease(self, round_id: int) -> tuple[str, datetime] | None:
        rows = await self._fetchall(
            "SELECT owner, expires_at FROM round_leases WHERE round_id = ?", (round_id,)
        )
        return (rows[0]["owner"], datetime.fromisoformat(rows[0]["expires_at"])) if rows else None

    # -- outbox -----------------------------------------------------------------------------

    async def unsent_outbox(self, platform: str, round_id: int | None = None) -> list[OutboxEntry]:
        rows = await self._fetchall(
            "SELECT * FROM round_outbox WHERE platform = ? AND sent_at IS NULL "
            "AND (? IS NULL OR round_id = ?) ORDER BY id",
            (platform, round_id, round_id),
        )
        return [outbox_entry_from(r) for r in rows]

    async def mark_outbox_sent(self, entry_id: int, at: datetime, message_id: str | None) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE round_outbox SET sent_at = ?, message_id = ? "
                "WHERE id = ? AND sent_at IS NULL",
                (_ts(at), message_id, entry_id),
            )
            return cur.rowcount == 1

        marked: bool = await self._write(op)
        return marked

    async def outbox(self, round_id: int) -> list[OutboxEntry]:
        rows = await self._fetchall(
            "SELECT * FROM round_outbox WHERE round_id = ? ORDER BY id", (round_id,)
        )
        return [outbox_entry_from(r) for r in rows]


def insert_round(conn: sqlite3.Connection, new: NewRound) -> tuple[RoundRecord, bool]:
    """Start a round at question 1 (in the caller's transaction), or return the chat's active
    round of that kind (created=False)."""
    existing = conn.execute(
        "SELECT * FROM rounds WHERE platform = ? AND chat_id = ? AND kind = ? "
        "AND status = 'active'",
        (new.platform, new.chat_id, new.kind.value),
    ).fetchone()
    if existing is not None:
        return round_from(existing), False
    started = _ts(new.started_at)
    deadline = _ts(new.started_at + timedelta(seconds=new.time_limit_seconds))
    row = conn.execute(
        "INSERT INTO rounds (platform, chat_id, quiz_id, starter_id, language, "
        "question_order, option_order, time_limit_seconds, status, current, "
        "question_started_at, deadline, started_at, kind, time_zone, quiz_version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?, ?, ?, ?) RETURNING *",
        (
            new.platform,
            new.chat_id,
            new.quiz_id,
            new.starter_id,
            new.language,
            json.dumps(list(new.question_order)),
            json.dumps({k: list(v) for k, v in new.option_order.items()}),
            new.time_limit_seconds,
            started,
            deadline,
            started,
            new.kind.value,
            new.time_zone,
            new.quiz_version,
        ),
    ).fetchone()
    assert row is not None
    return round_from(row), True


def _progress(row: sqlite3.Row) -> RoundProgress:
    return RoundProgress(int(row[0]), int(row[1]), bool(row[2]))
