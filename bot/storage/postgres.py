"""The PostgreSQL storage backend (asyncpg), for deployments whose disk is not durable or that
run several replicas against one database.

It has the same schema and guarantees as the SQLite backend: every write is its own committed
transaction, and uniqueness (one answer per question, one active attempt per user and quiz) is
enforced by constraints, so two processes answering the same question at once record it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar

import asyncpg

from bot.storage.base import StateChanged, Storage, StorageError
from bot.storage.records import (
    AnswerRecord,
    AnswerState,
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
    RoundProgress,
    RoundRecord,
    RoundStatus,
    UserRecord,
)
from bot.storage.rows import (
    answer_from,
    attempt_from,
    outbox_entry_from,
    review_item_from,
    round_answer_from,
    round_from,
    user_from,
)
from bot.storage.schema import migrations

# Forward migrations, one per schema version, the same as the SQLite backend's.
MIGRATIONS: list[str] = migrations("postgres")

MIGRATION_LOCK = 0x5155495A
CONNECTION_RETRIES = 3
# Seconds any one storage call may take, connecting and waiting for a pooled connection
# included. A server that stops answering (a partition, a stuck failover, SIGSTOP) keeps its
# sockets open, so without a bound every call, and the health check, would wait forever.
DEFAULT_TIMEOUT = 5.0
HEALTH_TIMEOUT = 1.5  # the health check's own bound: /healthz must answer within 2 s
# A dropped connection (server restart, failover, idle timeout, pg_terminate_backend): the
# transaction did not commit, or committed and lost its reply; both are safe to run again
# because every write is idempotent (ON CONFLICT, compare-and-set updates).
RETRYABLE = (
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.ConnectionFailureError,
    # A connection killed while idle is noticed mid-query as a protocol state error.
    asyncpg.exceptions.InternalClientError,
    ConnectionError,
)

P = ParamSpec("P")
R = TypeVar("R")


def _retrying(
    method: Callable[Concatenate[PostgresStorage, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[PostgresStorage, P], Coroutine[Any, Any, R]]:
    """Run a storage call again on a fresh connection when the connection drops; a call
    (each try) that takes longer than the storage's ``timeout`` fails with StorageError."""

    async def wrapper(self: PostgresStorage, /, *args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(CONNECTION_RETRIES):
            try:
                return await self._bounded(method(self, *args, **kwargs))
            except RETRYABLE as exc:
                if attempt == CONNECTION_RETRIES - 1:
                    raise StorageError(f"PostgreSQL connection lost: {exc}") from exc
                if self._pool is not None:  # the others are likely dead too: start afresh
                    await self._pool.expire_connections()
                await asyncio.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")

    wrapper.__name__, wrapper.__qualname__ = method.__name__, method.__qualname__
    wrapper.__doc__ = method.__doc__
    return wrapper  # advisory lock id: replicas starting together migrate one by one


def normalize_postgres_url(url: str) -> str:
    """asyncpg's form of a URL: Heroku's ``postgres://`` becomes ``postgresql://``."""
    if url.startswith("postgres://"):
        return "postgresql://" + url[len("postgres://") :]
    return url


UPSERT_USER = (
    "INSERT INTO users (platform, user_id, display_name, created_at) "
    "VALUES ($1, $2, $3, now()) "
    "ON CONFLICT (platform, user_id) DO UPDATE SET "
    "display_name = COALESCE(EXCLUDED.display_name, users.display_name)"
)


# Answers from concurrent users, recorded together: one statement, so one round trip and one
# commit for the whole batch. Each input row is inserted unless its question already has an
# answer; with ``expected`` (see ExpectedState) only while the attempt is active and holds
# ``expected`` answers, the user's language is ``language`` and the question's review entry is
# (``was_box``, ``was_due``). Only for rows inserted, the attempt is updated and the review
# schedule set (``box`` NULL: no change, 0: removed). Returned: every row inserted, and every
# answer that was already there for a question of the batch. An input with neither was
# refused by its guard (or lost a race after the snapshot).
RECORD_ANSWERS = """
WITH input AS (
    SELECT * FROM unnest(
        $1::bigint[], $2::text[], $3::text[], $4::boolean[], $5::timestamptz[], $6::text[],
        $7::timestamptz[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[],
        $13::int[], $14::timestamptz[], $15::int[], $16::timestamptz[]
    ) WITH ORDINALITY AS t(
        attempt_id, question_id, option_id, correct, answered_at, status,
        finished_at, expected, platform, user_id, quiz_id, language,
        was_box, was_due, box, due, position
    )
), ok AS (
    SELECT i.* FROM input i
    JOIN attempts a ON a.id = i.attempt_id
    LEFT JOIN users u ON u.platform = i.platform AND u.user_id = i.user_id
    LEFT JOIN review_items r ON r.platform = i.platform AND r.user_id = i.user_id
        AND r.quiz_id = i.quiz_id AND r.question_id = i.question_id
    WHERE i.expected IS NULL OR (
        a.status = 'active'
        AND (SELECT count(*) FROM answers s WHERE s.attempt_id = i.attempt_id) = i.expected
        AND u.language IS NOT DISTINCT FROM i.language
        AND r.box IS NOT DISTINCT FROM i.was_box
        AND r.due_at IS NOT DISTINCT FROM i.was_due
    )
), ins AS (
    INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at, seq)
    SELECT attempt_id, question_id, option_id, correct, answered_at,
        coalesce(expected, (SELECT count(*) FROM answers s WHERE s.attempt_id = ok.attempt_id))
    FROM ok ORDER BY position
    ON CONFLICT (attempt_id, question_id) DO NOTHING
    RETURNING *
), done AS (
    SELECT DISTINCT ON (ok.attempt_id, ok.question_id) ok.* FROM ok
    JOIN ins ON ins.attempt_id = ok.attempt_id AND ins.question_id = ok.question_id
        AND ins.option_id = ok.option_id AND ins.answered_at = ok.answered_at
    ORDER BY ok.attempt_id, ok.question_id, ok.position
), attempt AS (
    UPDATE attempts a SET updated_at = d.answered_at, status = d.status,
        finished_at = coalesce(d.finished_at, a.finished_at)
    FROM done d WHERE a.id = d.attempt_id AND a.status = 'active'
), forget AS (
    DELETE FROM review_items r USING done d
    WHERE d.box <= 0 AND r.platform = d.platform AND r.user_id = d.user_id
        AND r.quiz_id = d.quiz_id AND r.question_id = d.question_id
), schedule AS (
    INSERT INTO review_items (platform, user_id, quiz_id, question_id, box, due_at)
    SELECT platform, user_id, quiz_id, question_id, box, due FROM done WHERE box > 0
    ON CONFLICT (platform, user_id, quiz_id, question_id)
    DO UPDATE SET box = EXCLUDED.box, due_at = EXCLUDED.due_at
)
SELECT ins.*, true AS inserted FROM ins
UNION ALL
SELECT s.*, false AS inserted FROM answers s
WHERE (s.attempt_id, s.question_id) IN (SELECT attempt_id, question_id FROM input)
"""
MAX_BATCH = 512  # answers per statement


@dataclass
class _AnswerWrite:
    """One record_answer call waiting for its batch."""

    answer: AnswerRecord
    finishes: bool
    review: ReviewItem | None
    expected: ExpectedState | None
    done: asyncio.Future[tuple[AnswerRecord, bool]]


def _settle(
    done: asyncio.Future[tuple[AnswerRecord, bool]],
    outcome: tuple[AnswerRecord, bool] | BaseException,
) -> None:
    """Answer a waiting record_answer call (unless it gave up waiting)."""
    if done.done():
        return
    if isinstance(outcome, BaseException):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Consume an abandoned call's outcome, so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Return a connection to the pool as it is (asyncpg still rolls back an open
    transaction first). The only session state this backend sets is ``plan_cache_mode``
    (:func:`_configure_session`), meant to last; asyncpg's default reset query would undo it
    and cost one more round trip per query."""


async def _configure_session(conn: asyncpg.Connection) -> None:
    """Plan each prepared statement once. Every query here looks rows up by key, so the
    generic plan is the right one, and the custom plans PostgreSQL tries first cost more to
    make than the answer statement takes to run (about 2 ms against 1)."""
    with contextlib.suppress(asyncpg.PostgresError):  # a server without the setting
        await conn.execute("SET plan_cache_mode = force_generic_plan")


# Everything answering reads first, as JSON, in one statement (one snapshot, one round trip).
ANSWER_STATE = """
SELECT
    (SELECT to_jsonb(a) FROM attempts a WHERE a.id = $1) AS attempt,
    (SELECT to_jsonb(u) FROM users u WHERE u.platform = $2 AND u.user_id = $3) AS "user",
    (SELECT coalesce(jsonb_agg(s ORDER BY s.seq), '[]') FROM answers s
        WHERE s.attempt_id = $1) AS answers,
    (SELECT coalesce(jsonb_agg(r ORDER BY r.due_at, r.question_id), '[]') FROM review_items r
        WHERE r.platform = $2 AND r.user_id = $3
        AND r.quiz_id = (SELECT quiz_id FROM attempts WHERE id = $1)) AS review
"""


# The round and the pressing user, as JSON, in one statement.
ROUND_PRESS = """
SELECT
    (SELECT to_jsonb(r) FROM rounds r WHERE r.id = $1) AS round,
    (SELECT to_jsonb(u) FROM users u WHERE u.platform = $2 AND u.user_id = $3) AS "user"
"""

ROUND_ANSWERS = "SELECT * FROM round_answers WHERE round_id = $1 ORDER BY number, answered_at"

# The round and all its answers (ordered as ROUND_ANSWERS), as JSON, in one statement.
ROUND_WITH_ANSWERS = """
SELECT
    (SELECT to_jsonb(r) FROM rounds r WHERE r.id = $1) AS round,
    (SELECT coalesce(jsonb_agg(a ORDER BY a.number, a.answered_at), '[]') FROM round_answers a
        WHERE a.round_id = $1) AS answers
"""

# A member's answer to a round's open question and how that question stands after it, in one
# statement. The round row is locked (FOR SHARE) so that an answer and the question's close
# serialize: the answer is stored only while the question is open. The counts read the
# statement's snapshot, which does not hold the row a sibling CTE inserts: ``seen`` adds it.
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
# ({kinds}, in order) it owes, in one statement; no row when the question was not open.
CLOSE_QUESTION = """
WITH closed AS (
    UPDATE rounds SET {change}
    WHERE id = $1 AND status = 'active' AND current = $2
    RETURNING id, platform, chat_id
)
INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, created_at)
SELECT c.id, $2, k.kind, c.platform, c.chat_id, $3
FROM closed c, unnest({kinds}) WITH ORDINALITY AS k(kind, position)
ORDER BY k.position
RETURNING *
"""


class PostgresStorage(Storage):
    """Storage in a PostgreSQL database, through an asyncpg connection pool."""

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.url = normalize_postgres_url(url)
        self.timeout = timeout
        self._min_size = min_size
        self._max_size = max_size
        self._pool: asyncpg.Pool | None = None
        self._pending: list[_AnswerWrite] = []
        self._answer_writer: asyncio.Task[None] | None = None

    async def open(self) -> None:
        try:
            self._pool = await asyncpg.create_pool(
                self.url,
                min_size=self._min_size,
                max_size=self._max_size,
                reset=_keep_session,
                init=_configure_session,
                timeout=self.timeout,  # connecting
            )
        except TimeoutError:
            raise StorageError(
                f"cannot connect to PostgreSQL: no answer within {self.timeout:g} s"
            ) from None
        except (OSError, asyncpg.PostgresError) as exc:
            raise StorageError(f"cannot connect to PostgreSQL: {exc}") from None
        await self._migrate()

    async def _migrate(self) -> None:
        async with self._acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            version = await conn.fetchval("SELECT version FROM schema_version")
            if version is None:
                await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                version = 0
            if version > len(MIGRATIONS):
                raise StorageError(
                    f"the database is at schema version {version}, newer than this program "
                    f"knows ({len(MIGRATIONS)}); upgrade quizbot"
                )
            for number in range(version, len(MIGRATIONS)):
                await conn.execute(MIGRATIONS[number])
                await conn.execute("UPDATE schema_version SET version = $1", number + 1)

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError("the storage is not open")
        return self._pool

    async def _bounded(self, call: Coroutine[Any, Any, R]) -> R:
        """``call``'s result, or StorageError after ``timeout`` seconds (not retried: the
        server is stuck, not gone). The call is cancelled but not waited for: releasing its
        connection waits for the cancellation to reach the server, up to ``timeout`` more."""
        task = asyncio.ensure_future(call)
        try:
            done, _ = await asyncio.wait((task,), timeout=self.timeout)
        except BaseException:
            task.cancel()
            raise
        if not done:
            task.cancel()
            task.add_done_callback(_retrieve)
            raise StorageError(f"PostgreSQL did not answer within {self.timeout:g} s")
        return task.result()

    def _acquire(self) -> Any:
        # The bound also limits how long a release waits for a timed-out query's cancellation
        # before the connection is dropped, so a stuck server cannot keep the pool's slots.
        return self.pool.acquire(timeout=self.timeout)

    async def close(self) -> None:
        if self._answer_writer is not None:  # answers already queued are still written
            with contextlib.suppress(Exception):
                await self._answer_writer
            self._answer_writer = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async with self._acquire() as conn:
            return list(await conn.fetch(sql, *args))

    @_retrying
    async def schema_version(self) -> int:
        rows = await self._fetch("SELECT version FROM schema_version")
        return int(rows[0][0]) if rows else 0

    async def healthy(self) -> bool:
        try:
            async with asyncio.timeout(min(self.timeout, HEALTH_TIMEOUT)):
                rows = await asyncio.shield(self._fetch("SELECT 1"))
        except (OSError, asyncpg.PostgresError, StorageError, TimeoutError):
            return False
        return bool(rows)

    @_retrying
    async def get_user(self, platform: str, user_id: str) -> UserRecord | None:
        rows = await self._fetch(
            "SELECT * FROM users WHERE platform = $1 AND user_id = $2", platform, user_id
        )
        if not rows:
            return None
        row = rows[0]
        return user_from(row)

    @_retrying
    async def touch_user(self, platform: str, user_id: str, display_name: str | None) -> None:
        async with self._acquire() as conn:
            await conn.execute(UPSERT_USER, platform, user_id, display_name)

    @_retrying
    async def set_language(self, platform: str, user_id: str, language: str | None) -> None:
        async with self._acquire() as conn, conn.transaction():
            await conn.execute(UPSERT_USER, platform, user_id, None)
            await conn.execute(
                "UPDATE users SET language = $3 WHERE platform = $1 AND user_id = $2",
                platform,
                user_id,
                language,
            )

    @_retrying
    async def create_attempt(self, new: NewAttempt) -> tuple[AttemptRecord, bool]:
        async with self._acquire() as conn, conn.transaction():
            await conn.execute(UPSERT_USER, new.platform, new.user_id, None)
            row = await conn.fetchrow(
                "INSERT INTO attempts (platform, user_id, chat_id, quiz_id, question_order, "
                "option_order, status, started_at, updated_at, kind) "
                "VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $7, $8) "
                "ON CONFLICT (platform, user_id, quiz_id, kind) WHERE status = 'active' "
                "DO NOTHING RETURNING *",
                new.platform,
                new.user_id,
                new.chat_id,
                new.quiz_id,
                json.dumps(list(new.question_order)),
                json.dumps({k: list(v) for k, v in new.option_order.items()}),
                new.started_at,
                new.kind.value,
            )
            if row is not None:
                return attempt_from(row), True
            existing = await conn.fetchrow(
                "SELECT * FROM attempts WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 "
                "AND kind = $4 AND status = 'active'",
                new.platform,
                new.user_id,
                new.quiz_id,
                new.kind.value,
            )
            if existing is None:  # finished between the two statements: try once more
                raise StorageError("the attempt changed while it was being created; retry")
            return attempt_from(existing), False

    @_retrying
    async def answer_state(self, attempt_id: int, platform: str, user_id: str) -> AnswerState:
        rows = await self._fetch(ANSWER_STATE, attempt_id, platform, user_id)
        row = rows[0]
        attempt = json.loads(row["attempt"]) if row["attempt"] else None
        user = json.loads(row["user"]) if row["user"] else None
        return AnswerState(
            attempt_from(attempt) if attempt else None,
            user_from(user) if user else None,
            [answer_from(a) for a in json.loads(row["answers"])],
            [review_item_from(r) for r in json.loads(row["review"])],
        )

    @_retrying
    async def get_attempt(self, attempt_id: int) -> AttemptRecord | None:
        rows = await self._fetch("SELECT * FROM attempts WHERE id = $1", attempt_id)
        return attempt_from(rows[0]) if rows else None

    @_retrying
    async def active_attempts(self, platform: str, user_id: str) -> list[AttemptRecord]:
        rows = await self._fetch(
            "SELECT * FROM attempts WHERE platform = $1 AND user_id = $2 AND status = 'active' "
            "ORDER BY updated_at DESC, id DESC",
            platform,
            user_id,
        )
        return [attempt_from(r) for r in rows]

    @_retrying
    async def answers(self, attempt_id: int) -> list[AnswerRecord]:
        rows = await self._fetch(
            "SELECT * FROM answers WHERE attempt_id = $1 ORDER BY seq", attempt_id
        )
        return [answer_from(r) for r in rows]

    async def record_answer(
        self,
        answer: AnswerRecord,
        *,
        finishes: bool,
        review: ReviewItem | None = None,
        expected: ExpectedState | None = None,
    ) -> tuple[AnswerRecord, bool]:
        # Group commit: answers arriving while a batch is being written go together in the
        # next one, so under load many answers share a round trip and a commit, and a lone
        # answer still goes at once.
        done: asyncio.Future[tuple[AnswerRecord, bool]] = asyncio.get_running_loop().create_future()
        self._pending.append(_AnswerWrite(answer, finishes, review, expected, done))
        if self._answer_writer is None or self._answer_writer.done():
            self._answer_writer = asyncio.create_task(self._write_answers())
        return await done

    async def _write_answers(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                await self._write_batch(batch)
            except StorageError as exc:
                # Unreachable or stuck: the answers queued meanwhile would only wait as long
                # again for the same fate, so they fail now too (their users press again).
                waiting, self._pending = self._pending, []
                for write in waiting:
                    _settle(write.done, exc)
                return

    async def _write_batch(self, batch: list[_AnswerWrite]) -> None:
        try:
            rows = await self._record_answers(batch)
        except asyncpg.PostgresError as exc:  # a write the database refuses, not a lost link
            if len(batch) > 1:  # one bad write must not fail the others: each on its own
                for write in batch:
                    await self._write_batch([write])
            else:
                _settle(batch[0].done, StorageError(f"answer not stored: {exc}"))
            return
        except BaseException as exc:  # the database is unreachable (StorageError), or we stop
            for write in batch:
                _settle(write.done, exc)
            raise
        inserted = {(r["attempt_id"], r["question_id"]): r for r in rows if r["inserted"]}
        stored = {(r["attempt_id"], r["question_id"]): r for r in rows if not r["inserted"]}
        claimed: set[tuple[int, str]] = set()  # twins of a double tap: the first one is stored
        for write in batch:
            key = (write.answer.attempt_id, write.answer.question_id)
            mine = inserted.get(key)
            outcome: tuple[AnswerRecord, bool] | Exception | None
            if mine is not None and key not in claimed and answer_from(mine) == write.answer:
                claimed.add(key)
                outcome = (write.answer, True)
            elif (row := mine or stored.get(key)) is not None:
                outcome = (answer_from(row), False)
            elif write.expected is not None:
                outcome = StateChanged(f"attempt {key[0]} changed since it was read")
            else:  # unguarded: stored meanwhile by another transaction, or no such attempt
                outcome = await self._stored_answer(write.answer)
            _settle(write.done, outcome or StorageError("answer not stored: no such attempt"))

    @_retrying
    async def _record_answers(self, batch: list[_AnswerWrite]) -> list[asyncpg.Record]:
        columns: list[list[Any]] = [[] for _ in range(16)]
        for write in batch:
            answer, expected, review = write.answer, write.expected, write.review
            # Whose schedule a review update touches: the guard's user, else the update's own.
            who = expected or review
            was = expected.review if expected else None
            values = (
                answer.attempt_id,
                answer.question_id,
                answer.option_id,
                answer.correct,
                answer.answered_at,
                "completed" if write.finishes else "active",
                answer.answered_at if write.finishes else None,
                expected.answered if expected else None,
                who.platform if who else None,
                who.user_id if who else None,
                who.quiz_id if who else None,
                expected.language if expected else None,
                was.box if was else None,
                was.due_at if was else None,
                review.box if review else None,
                review.due_at if review else None,
            )
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        async with self._acquire() as conn:
            return list(await conn.fetch(RECORD_ANSWERS, *columns))

    @_retrying
    async def _stored_answer(self, answer: AnswerRecord) -> tuple[AnswerRecord, bool] | None:
        rows = await self._fetch(
            "SELECT * FROM answers WHERE attempt_id = $1 AND question_id = $2",
            answer.attempt_id,
            answer.question_id,
        )
        return (answer_from(rows[0]), False) if rows else None

    @_retrying
    async def finish_attempt(self, attempt_id: int, status: AttemptStatus, at: datetime) -> bool:
        async with self._acquire() as conn:
            result = await conn.execute(
                "UPDATE attempts SET status = $2, finished_at = $3, updated_at = $3 "
                "WHERE id = $1 AND status = 'active'",
                attempt_id,
                status.value,
                at,
            )
        return bool(result == "UPDATE 1")

    @_retrying
    async def attempt_summaries(self, platform: str, user_id: str) -> list[AttemptSummary]:
        rows = await self._fetch(
            "SELECT a.*, COUNT(s.question_id) AS answered, "
            "COUNT(*) FILTER (WHERE s.correct) AS right_count "
            "FROM attempts a LEFT JOIN answers s ON s.attempt_id = a.id "
            "WHERE a.platform = $1 AND a.user_id = $2 GROUP BY a.id ORDER BY a.id",
            platform,
            user_id,
        )
        return [
            AttemptSummary(attempt_from(r), int(r["answered"]), int(r["right_count"])) for r in rows
        ]

    @_retrying
    async def attempts_for_quiz(self, quiz_id: str | None) -> list[AttemptRecord]:
        rows = await self._fetch(
            "SELECT * FROM attempts WHERE $1::text IS NULL OR quiz_id = $1 ORDER BY id", quiz_id
        )
        return [attempt_from(r) for r in rows]

    @_retrying
    async def answers_for_quiz(self, quiz_id: str | None) -> list[AnswerRecord]:
        rows = await self._fetch(
            "SELECT s.* FROM answers s JOIN attempts a ON a.id = s.attempt_id "
            "WHERE $1::text IS NULL OR a.quiz_id = $1 ORDER BY s.attempt_id, s.seq",
            quiz_id,
        )
        return [answer_from(r) for r in rows]

    @_retrying
    async def review_items(
        self, platform: str, user_id: str, quiz_id: str | None = None
    ) -> list[ReviewItem]:
        rows = await self._fetch(
            "SELECT * FROM review_items WHERE platform = $1 AND user_id = $2 "
            "AND ($3::text IS NULL OR quiz_id = $3) ORDER BY due_at, quiz_id, question_id",
            platform,
            user_id,
            quiz_id,
        )
        return [review_item_from(r) for r in rows]

    @_retrying
    async def quiz_summaries(self, quiz_id: str) -> list[AttemptSummary]:
        rows = await self._fetch(
            "SELECT a.*, COUNT(s.question_id) AS answered, "
            "COUNT(*) FILTER (WHERE s.correct) AS right_count "
            "FROM attempts a LEFT JOIN answers s ON s.attempt_id = a.id "
            "WHERE a.quiz_id = $1 GROUP BY a.id ORDER BY a.id",
            quiz_id,
        )
        return [
            AttemptSummary(attempt_from(r), int(r["answered"]), int(r["right_count"])) for r in rows
        ]

    @_retrying
    async def create_round(self, new: NewRound) -> tuple[RoundRecord, bool]:
        async with self._acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "INSERT INTO rounds (platform, chat_id, quiz_id, starter_id, language, "
                "question_order, option_order, time_limit_seconds, status, current, "
                "question_started_at, deadline, started_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', 1, $9, $10, $9) "
                "ON CONFLICT (platform, chat_id) WHERE status = 'active' DO NOTHING RETURNING *",
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
            )
            if row is not None:
                return round_from(row), True
            existing = await conn.fetchrow(
                "SELECT * FROM rounds WHERE platform = $1 AND chat_id = $2 AND status = 'active'",
                new.platform,
                new.chat_id,
            )
            if existing is None:
                raise StorageError("the chat's round changed while starting; retry")
            return round_from(existing), False

    @_retrying
    async def get_round(self, round_id: int) -> RoundRecord | None:
        rows = await self._fetch("SELECT * FROM rounds WHERE id = $1", round_id)
        return round_from(rows[0]) if rows else None

    @_retrying
    async def round_press(
        self, round_id: int, platform: str, user_id: str
    ) -> tuple[RoundRecord | None, UserRecord | None]:
        rows = await self._fetch(ROUND_PRESS, round_id, platform, user_id)
        round_, user = rows[0]["round"], rows[0]["user"]
        return (
            round_from(json.loads(round_)) if round_ else None,
            user_from(json.loads(user)) if user else None,
        )

    @_retrying
    async def round_with_answers(
        self, round_id: int
    ) -> tuple[RoundRecord | None, list[RoundAnswer]]:
        rows = await self._fetch(ROUND_WITH_ANSWERS, round_id)
        round_ = rows[0]["round"]
        if not round_:
            return None, []
        answers = json.loads(rows[0]["answers"])
        return round_from(json.loads(round_)), [round_answer_from(a) for a in answers]

    @_retrying
    async def active_round(self, platform: str, chat_id: str) -> RoundRecord | None:
        rows = await self._fetch(
            "SELECT * FROM rounds WHERE platform = $1 AND chat_id = $2 AND status = 'active'",
            platform,
            chat_id,
        )
        return round_from(rows[0]) if rows else None

    @_retrying
    async def rounds_due(self, now: datetime) -> list[RoundRecord]:
        rows = await self._fetch(
            "SELECT * FROM rounds WHERE status = 'active' AND deadline <= $1 ORDER BY deadline",
            now,
        )
        return [round_from(r) for r in rows]

    @_retrying
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

    @_retrying
    async def round_answers(self, round_id: int) -> list[RoundAnswer]:
        rows = await self._fetch(ROUND_ANSWERS, round_id)
        return [round_answer_from(r) for r in rows]

    @_retrying
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

    @_retrying
    async def get_value(self, scope: str, key: str) -> str | None:
        rows = await self._fetch("SELECT value FROM kv WHERE scope = $1 AND key = $2", scope, key)
        return str(rows[0][0]) if rows else None

    @_retrying
    async def set_value(self, scope: str, key: str, value: str | None) -> None:
        async with self._acquire() as conn:
            if value is None:
                await conn.execute("DELETE FROM kv WHERE scope = $1 AND key = $2", scope, key)
                return
            await conn.execute(
                "INSERT INTO kv (scope, key, value, updated_at) VALUES ($1, $2, $3, now()) "
                "ON CONFLICT (scope, key) DO UPDATE SET value = EXCLUDED.value, "
                "updated_at = now()",
                scope,
                key,
                value,
            )

    # == replicas: round leases and the round outbox =========================================

    @_retrying
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

    @_retrying
    async def release_round(self, round_id: int, owner: str) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "DELETE FROM round_leases WHERE round_id = $1 AND owner = $2", round_id, owner
            )

    @_retrying
    async def round_lease(self, round_id: int) -> tuple[str, datetime] | None:
        rows = await self._fetch(
            "SELECT owner, expires_at FROM round_leases WHERE round_id = $1", round_id
        )
        return (str(rows[0]["owner"]), rows[0]["expires_at"]) if rows else None

    @_retrying
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

    @_retrying
    async def unsent_outbox(self, platform: str, round_id: int | None = None) -> list[OutboxEntry]:
        rows = await self._fetch(
            "SELECT * FROM round_outbox WHERE platform = $1 AND sent_at IS NULL "
            "AND ($2::bigint IS NULL OR round_id = $2) ORDER BY id",
            platform,
            round_id,
        )
        return [outbox_entry_from(r) for r in rows]

    @_retrying
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

    @_retrying
    async def outbox(self, round_id: int) -> list[OutboxEntry]:
        rows = await self._fetch(
            "SELECT * FROM round_outbox WHERE round_id = $1 ORDER BY id", round_id
        )
        return [outbox_entry_from(r) for r in rows]
