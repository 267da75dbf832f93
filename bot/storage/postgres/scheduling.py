"""The PostgreSQL backend's scheduled jobs, outbox of outgoing messages and unreachable
recipients.

Replicas claim with ``FOR UPDATE SKIP LOCKED``: two claiming at once take different rows, and
the claim's conditions sit on the locking level of each query, so a row another replica
claimed (and committed) meanwhile is re-checked and skipped. A completion locks its job row
and checks its claim in the transaction that writes the messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from bot.storage.postgres.pool import PostgresPool, retrying
from bot.storage.scheduling import (
    Job,
    NewJob,
    NewMessage,
    OutgoingMessage,
    SchedulingStore,
    Unreachable,
    job_from,
    like_prefix,
    message_from,
    payload_json,
    stale_seconds,
    unreachable_from,
)

INSERT_JOB = (
    "INSERT INTO scheduled_jobs (kind, job_key, due_at, payload, stale_after_seconds, "
    "attempts, created_at) VALUES ($1, $2, $3, $4, $5, 0, $6) "
)
REPLACE_JOB = (
    "ON CONFLICT (job_key) DO UPDATE SET kind = EXCLUDED.kind, due_at = EXCLUDED.due_at, "
    "payload = EXCLUDED.payload, stale_after_seconds = EXCLUDED.stale_after_seconds, "
    "attempts = 0, claimed_by = NULL, claimed_until = NULL"
)
# Every message of a batch in one statement; dedupe keys already queued are skipped.
INSERT_MESSAGES = """
INSERT INTO outgoing_messages (platform, target, to_user, kind, payload, dedupe_key, status,
    attempts, next_try_at, created_at)
SELECT m.platform, m.target, m.to_user, m.kind, m.payload, m.dedupe_key, 'pending', 0, $7, $7
FROM unnest($1::text[], $2::text[], $3::bool[], $4::text[], $5::text[], $6::text[])
    AS m (platform, target, to_user, kind, payload, dedupe_key)
ON CONFLICT (dedupe_key) DO NOTHING
"""
CLAIM_JOBS = """
UPDATE scheduled_jobs SET claimed_by = $1, claimed_until = $3
WHERE id IN (
    SELECT id FROM scheduled_jobs
    WHERE due_at <= $2 AND (claimed_until IS NULL OR claimed_until <= $2)
        AND ($5::text[] IS NULL OR kind = ANY($5::text[]))
    ORDER BY due_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
)
RETURNING *
"""
DROP_UNREACHABLE = """
UPDATE outgoing_messages m SET status = 'undeliverable', claimed_by = NULL,
    claimed_until = NULL, last_error = 'recipient unreachable'
FROM unreachable_recipients u
WHERE m.platform = $1 AND m.status = 'pending' AND m.next_try_at <= $2
    AND u.platform = m.platform AND u.target = m.target AND u.to_user = m.to_user
"""
CLAIM_MESSAGES = """
WITH ranked AS (
    SELECT id, row_number() OVER (PARTITION BY target, to_user ORDER BY id) AS n
    FROM outgoing_messages
    WHERE platform = $1 AND status = 'pending' AND next_try_at <= $2
        AND (claimed_until IS NULL OR claimed_until <= $2) AND kind = ANY($7::text[])
), chosen AS (
    SELECT id FROM outgoing_messages
    WHERE id IN (SELECT id FROM ranked WHERE n <= $5) AND status = 'pending'
        AND (claimed_until IS NULL OR claimed_until <= $2)
    ORDER BY id LIMIT $6 FOR UPDATE SKIP LOCKED
)
UPDATE outgoing_messages m SET claimed_by = $3, claimed_until = $4
FROM chosen WHERE m.id = chosen.id
RETURNING m.*, (SELECT u.language FROM users u WHERE m.to_user AND u.platform = m.platform
    AND u.user_id = m.target) AS recipient_language
"""


def _job_args(job: NewJob, now: datetime) -> tuple[Any, ...]:
    return (job.kind, job.key, job.due_at, payload_json(job.payload), stale_seconds(job), now)


async def _schedule(conn: asyncpg.Connection, job: NewJob, now: datetime, replace: bool) -> bool:
    tail = REPLACE_JOB if replace else "ON CONFLICT (job_key) DO NOTHING"
    result = await conn.execute(INSERT_JOB + tail, *_job_args(job, now))
    return bool(result == "INSERT 0 1")


async def _queue(conn: asyncpg.Connection, messages: Sequence[NewMessage], now: datetime) -> int:
    if not messages:
        return 0
    result = await conn.execute(
        INSERT_MESSAGES,
        [m.platform for m in messages],
        [m.target for m in messages],
        [m.to_user for m in messages],
        [m.kind for m in messages],
        [payload_json(m.payload) for m in messages],
        [m.dedupe_key for m in messages],
        now,
    )
    return int(str(result).rsplit(" ", 1)[-1])


class PostgresScheduling(PostgresPool, SchedulingStore):
    """:class:`~bot.storage.scheduling.SchedulingStore` in PostgreSQL."""

    # -- jobs -------------------------------------------------------------------------------

    @retrying
    async def schedule_job(self, job: NewJob, now: datetime, *, replace: bool = False) -> bool:
        async with self._acquire() as conn:
            return await _schedule(conn, job, now, replace)

    @retrying
    async def get_job(self, key: str) -> Job | None:
        rows = await self._fetch("SELECT * FROM scheduled_jobs WHERE job_key = $1", key)
        return job_from(rows[0]) if rows else None

    @retrying
    async def cancel_jobs(self, key_prefix: str) -> int:
        async with self._acquire() as conn:
            result = await conn.execute(
                "DELETE FROM scheduled_jobs WHERE job_key LIKE $1 ESCAPE '\\'",
                like_prefix(key_prefix),
            )
        return int(str(result).rsplit(" ", 1)[-1])

    @retrying
    async def next_job_due(self) -> datetime | None:
        rows = await self._fetch(
            "SELECT min(greatest(due_at, coalesce(claimed_until, due_at))) FROM scheduled_jobs"
        )
        value = rows[0][0] if rows else None
        return value if isinstance(value, datetime) else None

    @retrying
    async def claim_jobs(
        self,
        claim: str,
        now: datetime,
        until: datetime,
        limit: int,
        kinds: Sequence[str] | None = None,
    ) -> list[Job]:
        only = None if kinds is None else list(kinds)
        rows = await self._fetch(CLAIM_JOBS, claim, now, until, limit, only)
        return sorted((job_from(r) for r in rows), key=lambda j: (j.due_at, j.id))

    @retrying
    async def complete_job(
        self,
        job: Job,
        now: datetime,
        messages: Sequence[NewMessage] = (),
        next_job: NewJob | None = None,
    ) -> bool:
        async with self._acquire() as conn, conn.transaction():
            held = await conn.fetchval(
                "SELECT id FROM scheduled_jobs WHERE id = $1 AND claimed_by = $2 FOR UPDATE",
                job.id,
                job.claim,
            )
            if held is None:
                return False
            await _queue(conn, messages, now)
            if next_job is None or next_job.key != job.key:
                await conn.execute("DELETE FROM scheduled_jobs WHERE id = $1", job.id)
            if next_job is not None:
                await _schedule(conn, next_job, now, replace=True)
            return True

    @retrying
    async def release_job(
        self, job: Job, retry_at: datetime | None, error: str, now: datetime
    ) -> bool:
        async with self._acquire() as conn:
            if retry_at is None:
                result = await conn.execute(
                    "DELETE FROM scheduled_jobs WHERE id = $1 AND claimed_by = $2",
                    job.id,
                    job.claim,
                )
                return bool(result == "DELETE 1")
            result = await conn.execute(
                "UPDATE scheduled_jobs SET due_at = $3, attempts = attempts + 1, "
                "claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2",
                job.id,
                job.claim,
                retry_at,
            )
        return bool(result == "UPDATE 1")

    # -- outgoing messages ------------------------------------------------------------------

    @retrying
    async def queue_messages(self, messages: Sequence[NewMessage], now: datetime) -> int:
        async with self._acquire() as conn:
            return await _queue(conn, messages, now)

    @retrying
    async def next_message_due(self, platform: str) -> datetime | None:
        rows = await self._fetch(
            "SELECT min(greatest(next_try_at, coalesce(claimed_until, next_try_at))) "
            "FROM outgoing_messages WHERE platform = $1 AND status = 'pending'",
            platform,
        )
        value = rows[0][0] if rows else None
        return value if isinstance(value, datetime) else None

    @retrying
    async def claim_messages(
        self,
        platform: str,
        kinds: Sequence[str],
        claim: str,
        now: datetime,
        until: datetime,
        limit: int,
        per_target: int,
    ) -> list[OutgoingMessage]:
        if not kinds:
            return []
        async with self._acquire() as conn, conn.transaction():
            await conn.execute(DROP_UNREACHABLE, platform, now)
            rows = await conn.fetch(
                CLAIM_MESSAGES, platform, now, claim, until, per_target, limit, list(kinds)
            )
        claimed = [message_from(r, r["recipient_language"]) for r in rows]
        return sorted(claimed, key=lambda m: m.id)

    @retrying
    async def mark_message_sent(
        self, message: OutgoingMessage, at: datetime, message_id: str | None
    ) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE outgoing_messages SET status = 'sent', sent_at = $2, message_id = $3, "
                "claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND status = 'pending'",
                message.id,
                at,
                message_id,
            )
        return bool(result == "UPDATE 1")

    @retrying
    async def retry_message(self, message: OutgoingMessage, retry_at: datetime, error: str) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE outgoing_messages SET next_try_at = $3, attempts = attempts + 1, "
                "last_error = $4, claimed_by = NULL, claimed_until = NULL "
                "WHERE id = $1 AND status = 'pending' AND claimed_by = $2",
                message.id,
                message.claim,
                retry_at,
                error[:500],
            )
        return bool(result == "UPDATE 1")

    @retrying
    async def mark_message_undeliverable(
        self, message: OutgoingMessage, at: datetime, error: str
    ) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE outgoing_messages SET status = 'undeliverable', last_error = $2, "
                "attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL "
                "WHERE id = $1 AND status = 'pending'",
                message.id,
                error[:500],
            )
        return bool(result == "UPDATE 1")

    @retrying
    async def outgoing_messages(self, dedupe_prefix: str = "") -> list[OutgoingMessage]:
        rows = await self._fetch(
            "SELECT * FROM outgoing_messages WHERE dedupe_key LIKE $1 ESCAPE '\\' ORDER BY id",
            like_prefix(dedupe_prefix),
        )
        return [message_from(r) for r in rows]

    # -- unreachable recipients -------------------------------------------------------------

    @retrying
    async def mark_unreachable(
        self, platform: str, target: str, to_user: bool, reason: str, at: datetime
    ) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "INSERT INTO unreachable_recipients (platform, target, to_user, reason, "
                "marked_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (platform, target, to_user) "
                "DO UPDATE SET reason = EXCLUDED.reason, marked_at = EXCLUDED.marked_at",
                platform,
                target,
                to_user,
                reason[:200],
                at,
            )

    @retrying
    async def clear_unreachable(self, platform: str, target: str, to_user: bool) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "DELETE FROM unreachable_recipients WHERE platform = $1 AND target = $2 "
                "AND to_user = $3",
                platform,
                target,
                to_user,
            )
        return bool(result == "DELETE 1")

    @retrying
    async def unreachable(self, since: datetime | None = None) -> list[Unreachable]:
        rows = await self._fetch(
            "SELECT * FROM unreachable_recipients "
            "WHERE $1::timestamptz IS NULL OR marked_at >= $1 ORDER BY marked_at",
            since,
        )
        return [unreachable_from(r) for r in rows]
