"""The PostgreSQL backend's group rounds, round leases and round outbox."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import asyncpg

from bot.storage.base import StorageError
from bot.storage.ports import RoundStore
from bot.storage.postgres.pool import PostgresPool, retrying
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

# The round and the pressing user, as JSON, in one statement (one snapshot).
ROUND_PRESS = """
SELECT
    (SELECT to_jsonb(r) FROM rounds r WHERE r.id = $1) AS round,
    (SELECT to_jsonb(u) FROM users u WHERE u.platform = $2 AND u.user_id = $3) AS "user"
"""


# Every answer of a round, by question then arrival (then member, for ties).
ROUND_ANSWERS = (
    "SELECT * FROM round_answers WHERE round_id = $1 ORDER BY number, answered_at, user_id"
)


# The round and all its answers (ordered as ROUND_ANSWERS), as JSON, in one statement.
ROUND_WITH_ANSWERS = """
SELECT
    (SELECT to_jsonb(r) FROM rounds r WHERE r.id = $1) AS round,
    (SELECT coalesce(jsonb_agg(a ORDER BY a.number, a.answered_at, a.user_id), '[]')
        FROM round_answers a WHERE a.round_id = $1) AS answers
"""


# A member's answer to a round's open question and how that question stands after it, in one
# statement. The round row is locked (FOR SHARE) so that an answer and the question's close
# serialize: the answer is stored only while the question is open. The counts read the
# statement's snapshot, which does not hold the row a sibling CTE inserts: ``seen`` adds it.
# Nor does it hold an answer another transaction commits while this statement runs (two
# members pressing at the same moment may each count without the other; the next press, or
# the question's deadline, settles it). ``open`` without ``inserted`` or ``existing``: this
# member's own answer was committed so, and the statement is run again to read it.
RECORD_ROUND_ANSWER = """
WITH open AS (
    SELECT id FROM rounds WHERE id = $1 AND status = 'active' AND current = $2 FOR SHARE
), ins AS (
    INSERT INTO round_answers (round_id, number, user_id, display_name, option_id, correct,
        elapsed_ms, answered_at)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM open
    ON CONFLICT (round_id, number, user_id) DO NOTHING
    RETURNING user_id, number
), seen AS (
    SELECT user_id, number FROM round_answers WHERE round_id = $1
    UNION ALL
    SELECT user_id, number FROM ins
)
SELECT
    EXISTS (SELECT 1 FROM open) AS open,
    EXISTS (SELECT 1 FROM ins) AS inserted,
    (SELECT to_jsonb(a) FROM round_answers a
        WHERE a.round_id = $1 AND a.number = $2 AND a.user_id = $3) AS existing,
    (SELECT count(DISTINCT user_id) FROM seen WHERE number = $2)::int AS answered,
    (SELECT count(DISTINCT user_id) FROM seen)::int AS participants,
    EXISTS (SELECT 1 FROM seen WHERE number < $2) AND NOT EXISTS (
        SELECT 1 FROM seen e WHERE e.number < $2 AND NOT EXISTS (
            SELECT 1 FROM seen t WHERE t.number = $2 AND t.user_id = e.user_id
        )
    ) AS everyone
"""


# Close a round's open question ({change}: move on, or finish) and queue the outbox entries
# ({kinds}, in order) it owes, in one statement; no row when the question was not open. A
# daily question is a round of one question: its reveal is its end, so it owes no ranking.
CLOSE_QUESTION = """
WITH closed AS (
    UPDATE rounds SET {change}
    WHERE id = $1 AND status = 'active' AND current = $2
    RETURNING id, platform, chat_id, kind
)
INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, created_at)
SELECT c.id, $2, k.kind, c.platform, c.chat_id, $3
FROM closed c, unnest({kinds}) WITH ORDINALITY AS k(kind, position)
WHERE NOT (k.kind = 'end' AND c.kind = 'daily')
ORDER BY k.position
RETURNING *
"""


class PostgresRounds(PostgresPool, RoundStore):
    """:class:`RoundStore` in PostgreSQL."""

    @retrying
    async def create_round(self, new: NewRound) -> tuple[RoundRecord, bool]:
        async with self._acquire() as conn, conn.transaction():
            return await insert_round(conn, new)

    @retrying
    async def get_round(self, round_id: int) -> RoundRecord | None:
        rows = await self._fetch("SELECT * FROM rounds WHERE id = $1", round_id)
        return round_from(rows[0]) if rows else None

    @retrying
    async def round_press(
        self, round_id: int, platform: str, user_id: str
    ) -> tuple[RoundRecord | None, UserRecord | None]:
        rows = await self._fetch(ROUND_PRESS, round_id, platform, user_id)
        round_, user = rows[0]["round"], rows[0]["user"]
        return (
            round_from(json.loads(round_)) if round_ else None,
            user_from(json.loads(user)) if user else None,
        )

    @retrying
    async def round_with_answers(
        self, round_id: int
    ) -> tuple[RoundRecord | None, list[RoundAnswer]]:
        rows = await self._fetch(ROUND_WITH_ANSWERS, round_id)
        round_ = rows[0]["round"]
        if not round_:
            return None, []
        answers = json.loads(rows[0]["answers"])
        return round_from(json.loads(round_)), [round_answer_from(a) for a in answers]

    @retrying
    async def active_round(
        self, platform: str, chat_id: str, kind: RoundKind = RoundKind.GROUP
    ) -> RoundRecord | None:
        rows = await self._fetch(
            "SELECT * FROM rounds WHERE platform = $1 AND chat_id = $2 AND kind = $3 "
            "AND status = 'active'",
            platform,
            chat_id,
            kind.value,
        )
        return round_from(rows[0]) if rows else None

    @retrying
    async def rounds_due(self, now: datetime) -> list[RoundRecord]:
        rows = await self._fetch(
            "SELECT * FROM rounds WHERE status = 'active' AND deadline <= $1 ORDER BY deadline",
            now,
        )
        return [round_from(r) for r in rows]

    @retrying
    async def record_round_answer(
        self, answer: RoundAnswer
    ) -> tuple[RoundAnswer, bool, RoundProgress]:
        args = (
            answer.round_id,
            answer.number,
            answer.user_id,
            answer.display_name,
            answer.option_id,
            answer.correct,
            answer.elapsed_ms,
            answer.answered_at,
        )
        async with self._acquire() as conn:
            row = await conn.fetchrow(RECORD_ROUND_ANSWER, *args)
            if row is not None and row["open"] and not row["inserted"] and not row["existing"]:
                # Another transaction stored this member's answer after this statement's
                # snapshot was taken: run it again to read that answer (and fresh counts).
                row = await conn.fetchrow(RECORD_ROUND_ANSWER, *args)
        assert row is not None
        progress = RoundProgress(row["answered"], row["participants"], row["everyone"])
        if row["inserted"]:
            return answer, True, progress
        if row["existing"]:
            return round_answer_from(json.loads(row["existing"])), False, progress
        raise StorageError("the question is closed")

    @retrying
    async def round_answers(self, round_id: int) -> list[RoundAnswer]:
        rows = await self._fetch(ROUND_ANSWERS, round_id)
        return [round_answer_from(r) for r in rows]

    @retrying
    async def end_round(
        self, round_id: int, status: RoundStatus, at: datetime, number: int | None = None
    ) -> bool:
        async with self._acquire() as conn:
            # One statement: the end and the history copy it owes commit together.
            result = await conn.execute(
                "WITH ended AS (UPDATE rounds SET status = $2, finished_at = $3 WHERE id = $1 "
                "AND status = 'active' AND ($4::int IS NULL OR current = $4) "
                "RETURNING id, current, platform, chat_id) "
                "INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, created_at) "
                "SELECT id, current, $5, platform, chat_id, $3 FROM ended",
                round_id,
                status.value,
                at,
                number,
                OutboxKind.HISTORY.value,
            )
        return bool(result == "INSERT 0 1")

    @retrying
    async def close_round_question(
        self,
        round_id: int,
        number: int,
        at: datetime,
        next_opens: datetime | None,
        next_deadline: datetime | None,
    ) -> tuple[OutboxEntry, ...]:
        async with self._acquire() as conn:
            # One statement: the close and the posts it owes commit together.
            if next_opens is None:
                kinds = [OutboxKind.REVEAL, OutboxKind.END, OutboxKind.HISTORY]
                rows = await conn.fetch(
                    CLOSE_QUESTION.format(
                        change="status = 'finished', finished_at = $3", kinds="$4::text[]"
                    ),
                    round_id,
                    number,
                    at,
                    [kind.value for kind in kinds],
                )
            else:
                rows = await conn.fetch(
                    CLOSE_QUESTION.format(
                        change="current = current + 1, question_started_at = $4, deadline = $5",
                        kinds="ARRAY[$6::text]",
                    ),
                    round_id,
                    number,
                    at,
                    next_opens,
                    next_deadline,
                    OutboxKind.REVEAL.value,
                )
        return tuple(sorted((outbox_entry_from(r) for r in rows), key=lambda e: e.id))

    # -- leases -----------------------------------------------------------------------------

    @retrying
    async def claim_round(self, round_id: int, owner: str, now: datetime, until: datetime) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "INSERT INTO round_leases (round_id, owner, expires_at) VALUES ($1, $2, $3) "
                "ON CONFLICT (round_id) DO UPDATE SET owner = EXCLUDED.owner, "
                "expires_at = EXCLUDED.expires_at "
                "WHERE round_leases.owner = EXCLUDED.owner OR round_leases.expires_at <= $4",
                round_id,
                owner,
                until,
                now,
            )
        return bool(result == "INSERT 0 1")

    @retrying
    async def release_round(self, round_id: int, owner: str) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "DELETE FROM round_leases WHERE round_id = $1 AND owner = $2", round_id, owner
            )

    @retrying
    async def round_lease(self, round_id: int) -> tuple[str, datetime] | None:
        rows = await self._fetch(
            "SELECT owner, expires_at FROM round_leases WHERE round_id = $1", round_id
        )
        return (str(rows[0]["owner"]), rows[0]["expires_at"]) if rows else None

    # -- outbox -----------------------------------------------------------------------------

    @retrying
    async def unsent_outbox(self, platform: str, round_id: int | None = None) -> list[OutboxEntry]:
        rows = await self._fetch(
            "SELECT * FROM round_outbox WHERE platform = $1 AND sent_at IS NULL "
            "AND ($2::bigint IS NULL OR round_id = $2) ORDER BY id",
            platform,
            round_id,
        )
        return [outbox_entry_from(r) for r in rows]

    @retrying
    async def mark_outbox_sent(self, entry_id: int, at: datetime, message_id: str | None) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE round_outbox SET sent_at = $2, message_id = $3 "
                "WHERE id = $1 AND sent_at IS NULL",
                entry_id,
                at,
                message_id,
            )
        return bool(result == "UPDATE 1")

    @retrying
    async def outbox(self, round_id: int) -> list[OutboxEntry]:
        rows = await self._fetch(
            "SELECT * FROM round_outbox WHERE round_id = $1 ORDER BY id", round_id
        )
        return [outbox_entry_from(r) for r in rows]


async def insert_round(conn: asyncpg.Connection, new: NewRound) -> tuple[RoundRecord, bool]:
    """Start a round at question 1 (in the caller's transaction), or return the chat's active
    round of that kind (created=False)."""
    row = await conn.fetchrow(
        "INSERT INTO rounds (platform, chat_id, quiz_id, starter_id, language, "
        "question_order, option_order, time_limit_seconds, status, current, "
        "question_started_at, deadline, started_at, kind, time_zone, quiz_version) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', 1, $9, $10, $9, $11, $12, $13) "
        "ON CONFLICT (platform, chat_id, kind) WHERE status = 'active' DO NOTHING RETURNING *",
        new.platform,
        new.chat_id,
        new.quiz_id,
        new.starter_id,
        new.language,
        json.dumps(list(new.question_order)),
        json.dumps({k: list(v) for k, v in new.option_order.items()}),
        new.time_limit_seconds,
        new.started_at,
        new.started_at + timedelta(seconds=new.time_limit_seconds),
        new.kind.value,
        new.time_zone,
        new.quiz_version,
    )
    if row is not None:
        return round_from(row), True
    existing = await conn.fetchrow(
        "SELECT * FROM rounds WHERE platform = $1 AND chat_id = $2 AND kind = $3 "
        "AND status = 'active'",
        new.platform,
        new.chat_id,
        new.kind.value,
    )
    if existing is None:
        raise StorageError("the chat's round changed while starting; retry")
    return round_from(existing), False
