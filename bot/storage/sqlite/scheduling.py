"""The SQLite backend's scheduled jobs, outbox of outgoing messages and unreachable recipients.

SQLite has one writer: every claim and completion is one write transaction of the writer
(:mod:`.writer`), so claims never overlap and a completion checks its claim in the same
transaction that writes the messages.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

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
from bot.storage.sqlite.writer import SQLiteWriter, _ts

INSERT_JOB = (
    "INSERT INTO scheduled_jobs (kind, job_key, due_at, payload, stale_after_seconds, "
    "attempts, created_at) VALUES (?, ?, ?, ?, ?, 0, ?) "
)
REPLACE_JOB = (
    "ON CONFLICT (job_key) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, "
    "payload = excluded.payload, stale_after_seconds = excluded.stale_after_seconds, "
    "attempts = 0, claimed_by = NULL, claimed_until = NULL"
)
INSERT_MESSAGE = (
    "INSERT INTO outgoing_messages (platform, target, to_user, kind, payload, dedupe_key, "
    "status, attempts, next_try_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) "
    "ON CONFLICT (dedupe_key) DO NOTHING"
)
# Due messages to recipients that cannot be reached are not sent: undeliverable.
DROP_UNREACHABLE = """
UPDATE outgoing_messages SET status = 'undeliverable', claimed_by = NULL,
    claimed_until = NULL, last_error = 'recipient unreachable'
WHERE platform = ?1 AND status = 'pending' AND next_try_at <= ?2 AND EXISTS (
    SELECT 1 FROM unreachable_recipients u WHERE u.platform = outgoing_messages.platform
    AND u.target = outgoing_messages.target AND u.to_user = outgoing_messages.to_user)
"""
CLAIM_MESSAGES = """
UPDATE outgoing_messages SET claimed_by = ?3, claimed_until = ?4
WHERE id IN (
    SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY target, to_user ORDER BY id) AS n
        FROM outgoing_messages
        WHERE platform = ?1 AND status = 'pending' AND next_try_at <= ?2
            AND (claimed_until IS NULL OR claimed_until <= ?2) AND kind IN ({kinds})
    ) WHERE n <= ?5 ORDER BY id LIMIT ?6
)
RETURNING *, (SELECT language FROM users u WHERE outgoing_messages.to_user = 1
    AND u.platform = outgoing_messages.platform AND u.user_id = outgoing_messages.target)
    AS recipient_language
"""


def _message_params(message: NewMessage, now: datetime) -> tuple[object, ...]:
    return (
        message.platform,
        message.target,
        int(message.to_user),
        message.kind,
        payload_json(message.payload),
        message.dedupe_key,
        _ts(now),
        _ts(now),
    )


def _job_params(job: NewJob, now: datetime) -> tuple[object, ...]:
    return (
        job.kind,
        job.key,
        _ts(job.due_at),
        payload_json(job.payload),
        stale_seconds(job),
        _ts(now),
    )


def _schedule(conn: sqlite3.Connection, job: NewJob, now: datetime, replace: bool) -> bool:
    tail = REPLACE_JOB if replace else "ON CONFLICT (job_key) DO NOTHING"
    return conn.execute(INSERT_JOB + tail, _job_params(job, now)).rowcount == 1


def _holds(conn: sqlite3.Connection, job: Job) -> bool:
    row = conn.execute(
        "SELECT 1 FROM scheduled_jobs WHERE id = ? AND claimed_by = ?", (job.id, job.claim)
    ).fetchone()
    return row is not None


class SQLiteScheduling(SQLiteWriter, SchedulingStore):
    """:class:`~bot.storage.scheduling.SchedulingStore` in SQLite."""

    # -- jobs -------------------------------------------------------------------------------

    async def schedule_job(self, job: NewJob, now: datetime, *, replace: bool = False) -> bool:
        written: bool = await self._write(lambda conn: _schedule(conn, job, now, replace))
        return written

    async def get_job(self, key: str) -> Job | None:
        rows = await self._fetchall("SELECT * FROM scheduled_jobs WHERE job_key = ?", (key,))
        return job_from(rows[0]) if rows else None

    async def cancel_jobs(self, key_prefix: str) -> int:
        def op(conn: sqlite3.Connection) -> int:
            return conn.execute(
                "DELETE FROM scheduled_jobs WHERE job_key LIKE ? ESCAPE '\\'",
                (like_prefix(key_prefix),),
            ).rowcount

        removed: int = await self._write(op)
        return removed

    async def next_job_due(self) -> datetime | None:
        rows = await self._fetchall(
            "SELECT min(max(due_at, coalesce(claimed_until, due_at))) FROM scheduled_jobs"
        )
        return datetime.fromisoformat(rows[0][0]) if rows and rows[0][0] else None

    async def claim_jobs(
        self,
        claim: str,
        now: datetime,
        until: datetime,
        limit: int,
        kinds: Sequence[str] | None = None,
    ) -> list[Job]:
        only = "" if kinds is None else f"AND kind IN ({', '.join('?' * len(kinds))}) "

        def op(conn: sqlite3.Connection) -> list[Job]:
            rows = conn.execute(
                "UPDATE scheduled_jobs SET claimed_by = ?, claimed_until = ? WHERE id IN ("
                "SELECT id FROM scheduled_jobs WHERE due_at <= ? AND (claimed_until IS NULL "
                f"OR claimed_until <= ?) {only}ORDER BY due_at, id LIMIT ?) RETURNING *",
                (claim, _ts(until), _ts(now), _ts(now), *(kinds or ()), limit),
            ).fetchall()
            return sorted((job_from(r) for r in rows), key=lambda j: (j.due_at, j.id))

        claimed: list[Job] = await self._write(op)
        return claimed

    async def complete_job(
        self,
        job: Job,
        now: datetime,
        messages: Sequence[NewMessage] = (),
        next_job: NewJob | None = None,
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            if not _holds(conn, job):
                return False
            conn.executemany(INSERT_MESSAGE, [_message_params(m, now) for m in messages])
            if next_job is not None and next_job.key == job.key:
                _schedule(conn, next_job, now, replace=True)  # the same row, claim cleared
                return True
            conn.execute("DELETE FROM scheduled_jobs WHERE id = ?", (job.id,))
            if next_job is not None:
                _schedule(conn, next_job, now, replace=True)
            return True

        completed: bool = await self._write(op)
        return completed

    async def release_job(
        self, job: Job, retry_at: datetime | None, error: str, now: datetime
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            if retry_at is None:
                sql = "DELETE FROM scheduled_jobs WHERE id = ? AND claimed_by = ?"
                return conn.execute(sql, (job.id, job.claim)).rowcount == 1
            return (
                conn.execute(
                    "UPDATE scheduled_jobs SET due_at = ?, attempts = attempts + 1, "
                    "claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?",
                    (_ts(retry_at), job.id, job.claim),
                ).rowcount
                == 1
            )

        released: bool = await self._write(op)
        return released

    # -- outgoing messages ------------------------------------------------------------------

    async def queue_messages(self, messages: Sequence[NewMessage], now: datetime) -> int:
        def op(conn: sqlite3.Connection) -> int:
            return sum(
                conn.execute(INSERT_MESSAGE, _message_params(m, now)).rowcount for m in messages
            )

        queued: int = await self._write(op)
        return queued

    async def next_message_due(self, platform: str) -> datetime | None:
        rows = await self._fetchall(
            "SELECT min(max(next_try_at, coalesce(claimed_until, next_try_at))) "
            "FROM outgoing_messages WHERE platform = ? AND status = 'pending'",
            (platform,),
        )
        return datetime.fromisoformat(rows[0][0]) if rows and rows[0][0] else None

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
        marks = ", ".join(f"?{n}" for n in range(7, 7 + len(kinds)))

        def op(conn: sqlite3.Connection) -> list[OutgoingMessage]:
            conn.execute(DROP_UNREACHABLE, (platform, _ts(now)))
            rows = conn.execute(
                CLAIM_MESSAGES.format(kinds=marks),
                (platform, _ts(now), claim, _ts(until), per_target, limit, *kinds),
            ).fetchall()
            claimed = [message_from(r, r["recipient_language"]) for r in rows]
            return sorted(claimed, key=lambda m: m.id)

        claimed: list[OutgoingMessage] = await self._write(op)
        return claimed

    async def mark_message_sent(
        self, message: OutgoingMessage, at: datetime, message_id: str | None
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE outgoing_messages SET status = 'sent', sent_at = ?, message_id = ?, "
                "claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending'",
                (_ts(at), message_id, message.id),
            )
            return cur.rowcount == 1

        marked: bool = await self._write(op)
        return marked

    async def retry_message(self, message: OutgoingMessage, retry_at: datetime, error: str) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE outgoing_messages SET next_try_at = ?, attempts = attempts + 1, "
                "last_error = ?, claimed_by = NULL, claimed_until = NULL "
                "WHERE id = ? AND status = 'pending' AND claimed_by = ?",
                (_ts(retry_at), error[:500], message.id, message.claim),
            )
            return cur.rowcount == 1

        retried: bool = await self._write(op)
        return retried

    async def mark_message_undeliverable(
        self, message: OutgoingMessage, at: datetime, error: str
    ) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE outgoing_messages SET status = 'undeliverable', last_error = ?, "
                "attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL "
                "WHERE id = ? AND status = 'pending'",
                (error[:500], message.id),
            )
            return cur.rowcount == 1

        marked: bool = await self._write(op)
        return marked

    async def outgoing_messages(self, dedupe_prefix: str = "") -> list[OutgoingMessage]:
        rows = await self._fetchall(
            "SELECT * FROM outgoing_messages WHERE dedupe_key LIKE ? ESCAPE '\\' ORDER BY id",
            (like_prefix(dedupe_prefix),),
        )
        return [message_from(r) for r in rows]

    # -- unreachable recipients -------------------------------------------------------------

    async def mark_unreachable(
        self, platform: str, target: str, to_user: bool, reason: str, at: datetime
    ) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO unreachable_recipients (platform, target, to_user, reason, "
                "marked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (platform, target, to_user) "
                "DO UPDATE SET reason = excluded.reason, marked_at = excluded.marked_at",
                (platform, target, int(to_user), reason[:200], _ts(at)),
            )

        await self._write(op)

    async def clear_unreachable(self, platform: str, target: str, to_user: bool) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "DELETE FROM unreachable_recipients WHERE platform = ? AND target = ? "
                "AND to_user = ?",
                (platform, target, int(to_user)),
            )
            return cur.rowcount == 1

        cleared: bool = await self._write(op)
        return cleared

    async def unreachable(self, since: datetime | None = None) -> list[Unreachable]:
        rows = await self._fetchall(
            "SELECT * FROM unreachable_recipients WHERE ? IS NULL OR marked_at >= ? "
            "ORDER BY marked_at",
            (None if since is None else _ts(since), None if since is None else _ts(since)),
        )
        return [unreachable_from(r) for r in rows]
