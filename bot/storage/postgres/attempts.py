"""The PostgreSQL backend's users, attempts, answers (recorded in groups), review
schedules, summaries and small named values."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from bot.storage.base import StateChanged, StorageError
from bot.storage.ports import AttemptStore, KeyValueStore
from bot.storage.postgres.pool import DEFAULT_TIMEOUT, PostgresPool, retrying
from bot.storage.records import (
    AnswerRecord,
    AnswerState,
    AttemptRecord,
    AttemptStatus,
    AttemptSummary,
    ExpectedState,
    NewAttempt,
    ReviewItem,
    UserRecord,
)
from bot.storage.rows import (
    answer_from,
    attempt_from,
    review_item_from,
    user_from,
)

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
        $13::int[], $14::timestamptz[], $15::int[], $16::timestamptz[], $17::text[]
    ) WITH ORDINALITY AS t(
        attempt_id, question_id, option_id, correct, answered_at, status,
        finished_at, expected, platform, user_id, quiz_id, language,
        was_box, was_due, box, due, card, position
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
    INSERT INTO review_items (platform, user_id, quiz_id, question_id, box, due_at, card)
    SELECT platform, user_id, quiz_id, question_id, box, due, card FROM done WHERE box > 0
    ON CONFLICT (platform, user_id, quiz_id, question_id)
    DO UPDATE SET box = EXCLUDED.box, due_at = EXCLUDED.due_at, card = EXCLUDED.card
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


class PostgresAttempts(PostgresPool, AttemptStore, KeyValueStore):
    """:class:`AttemptStore` and :class:`KeyValueStore` in PostgreSQL."""

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        super().__init__(url, min_size=min_size, max_size=max_size, timeout=timeout)
        self._pending: list[_AnswerWrite] = []
        self._answer_writer: asyncio.Task[None] | None = None

    async def close(self) -> None:
        if self._answer_writer is not None:  # answers already queued are still written
            with contextlib.suppress(Exception):
                await self._answer_writer
            self._answer_writer = None
        await super().close()

    @retrying
    async def get_user(self, platform: str, user_id: str) -> UserRecord | None:
        rows = await self._fetch(
            "SELECT * FROM users WHERE platform = $1 AND user_id = $2", platform, user_id
        )
        if not rows:
            return None
        row = rows[0]
        return user_from(row)

    @retrying
    async def touch_user(self, platform: str, user_id: str, display_name: str | None) -> None:
        async with self._acquire() as conn:
            await conn.execute(UPSERT_USER, platform, user_id, display_name)

    @retrying
    async def set_language(self, platform: str, user_id: str, language: str | None) -> None:
        async with self._acquire() as conn, conn.transaction():
            await conn.execute(UPSERT_USER, platform, user_id, None)
            await conn.execute(
                "UPDATE users SET language = $3 WHERE platform = $1 AND user_id = $2",
                platform,
                user_id,
                language,
            )

    @retrying
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

    @retrying
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

    @retrying
    async def get_attempt(self, attempt_id: int) -> AttemptRecord | None:
        rows = await self._fetch("SELECT * FROM attempts WHERE id = $1", attempt_id)
        return attempt_from(rows[0]) if rows else None

    @retrying
    async def active_attempts(self, platform: str, user_id: str) -> list[AttemptRecord]:
        rows = await self._fetch(
            "SELECT * FROM attempts WHERE platform = $1 AND user_id = $2 AND status = 'active' "
            "ORDER BY updated_at DESC, id DESC",
            platform,
            user_id,
        )
        return [attempt_from(r) for r in rows]

    @retrying
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

    @retrying
    async def _record_answers(self, batch: list[_AnswerWrite]) -> list[asyncpg.Record]:
        columns: list[list[Any]] = [[] for _ in range(17)]
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
                review.card if review else None,
            )
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        async with self._acquire() as conn:
            return list(await conn.fetch(RECORD_ANSWERS, *columns))

    @retrying
    async def _stored_answer(self, answer: AnswerRecord) -> tuple[AnswerRecord, bool] | None:
        rows = await self._fetch(
            "SELECT * FROM answers WHERE attempt_id = $1 AND question_id = $2",
            answer.attempt_id,
            answer.question_id,
        )
        return (answer_from(rows[0]), False) if rows else None

    @retrying
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

    @retrying
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

    @retrying
    async def attempts_for_quiz(self, quiz_id: str | None) -> list[AttemptRecord]:
        rows = await self._fetch(
            "SELECT * FROM attempts WHERE $1::text IS NULL OR quiz_id = $1 ORDER BY id", quiz_id
        )
        return [attempt_from(r) for r in rows]

    @retrying
    async def answers_for_quiz(self, quiz_id: str | None) -> list[AnswerRecord]:
        rows = await self._fetch(
            "SELECT s.* FROM answers s JOIN attempts a ON a.id = s.attempt_id "
            "WHERE $1::text IS NULL OR a.quiz_id = $1 ORDER BY s.attempt_id, s.seq",
            quiz_id,
        )
        return [answer_from(r) for r in rows]

    @retrying
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

    @retrying
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

    @retrying
    async def get_value(self, scope: str, key: str) -> str | None:
        rows = await self._fetch("SELECT value FROM kv WHERE scope = $1 AND key = $2", scope, key)
        return str(rows[0][0]) if rows else None

    @retrying
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
