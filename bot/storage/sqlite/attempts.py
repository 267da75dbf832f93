"""The SQLite backend's users, attempts, answers, review schedules, summaries and small
named values."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.storage.base import StateChanged
from bot.storage.ports import AttemptStore, KeyValueStore
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
from bot.storage.sqlite.writer import SQLiteWriter, _ts


class SQLiteAttempts(SQLiteWriter, AttemptStore, KeyValueStore):
    """:class:`AttemptStore` and :class:`KeyValueStore` in SQLite."""

    # -- reads ----------------------------------------------------------------------------

    async def get_user(self, platform: str, user_id: str) -> UserRecord | None:
        rows = await self._fetchall(
            "SELECT platform, user_id, display_name, language FROM users "
            "WHERE platform = ? AND user_id = ?",
            (platform, user_id),
        )
        if not rows:
            return None
        row = rows[0]
        return user_from(row)

    async def answer_state(self, attempt_id: int, platform: str, user_id: str) -> AnswerState:
        def read(conn: sqlite3.Connection) -> AnswerState:
            conn.execute("BEGIN")  # one snapshot for the four reads
            try:
                row = conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
                user = conn.execute(
                    "SELECT * FROM users WHERE platform = ? AND user_id = ?", (platform, user_id)
                ).fetchone()
                if row is None:
                    return AnswerState(None, user_from(user) if user else None, [], [])
                answers = conn.execute(
                    "SELECT * FROM answers WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
                ).fetchall()
                review = conn.execute(
                    "SELECT * FROM review_items WHERE platform = ? AND user_id = ? "
                    "AND quiz_id = ? ORDER BY due_at, quiz_id, question_id",
                    (platform, user_id, row["quiz_id"]),
                ).fetchall()
            finally:
                conn.execute("COMMIT")
            return AnswerState(
                attempt_from(row),
                user_from(user) if user else None,
                [answer_from(r) for r in answers],
                [review_item_from(r) for r in review],
            )

        return await self._read(read)

    async def get_attempt(self, attempt_id: int) -> AttemptRecord | None:
        rows = await self._fetchall("SELECT * FROM attempts WHERE id = ?", (attempt_id,))
        return attempt_from(rows[0]) if rows else None

    async def active_attempts(self, platform: str, user_id: str) -> list[AttemptRecord]:
        rows = await self._fetchall(
            "SELECT * FROM attempts WHERE platform = ? AND user_id = ? AND status = 'active' "
            "ORDER BY updated_at DESC, id DESC",
            (platform, user_id),
        )
        return [attempt_from(r) for r in rows]

    async def answers(self, attempt_id: int) -> list[AnswerRecord]:
        rows = await self._fetchall(
            "SELECT * FROM answers WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
        )
        return [answer_from(r) for r in rows]

    async def attempt_summaries(self, platform: str, user_id: str) -> list[AttemptSummary]:
        rows = await self._fetchall(
            "SELECT a.*, COUNT(s.question_id) AS answered, COALESCE(SUM(s.correct), 0) AS right "
            "FROM attempts a LEFT JOIN answers s ON s.attempt_id = a.id "
            "WHERE a.platform = ? AND a.user_id = ? GROUP BY a.id ORDER BY a.id",
            (platform, user_id),
        )
        return [AttemptSummary(attempt_from(r), int(r["answered"]), int(r["right"])) for r in rows]

    async def attempts_for_quiz(self, quiz_id: str | None) -> list[AttemptRecord]:
        rows = await self._fetchall(
            "SELECT * FROM attempts WHERE ? IS NULL OR quiz_id = ? ORDER BY id", (quiz_id, quiz_id)
        )
        return [attempt_from(r) for r in rows]

    async def answers_for_quiz(self, quiz_id: str | None) -> list[AnswerRecord]:
        rows = await self._fetchall(
            "SELECT s.* FROM answers s JOIN attempts a ON a.id = s.attempt_id "
            "WHERE ? IS NULL OR a.quiz_id = ? ORDER BY s.attempt_id, s.seq",
            (quiz_id, quiz_id),
        )
        return [answer_from(r) for r in rows]

    async def review_items(
        self, platform: str, user_id: str, quiz_id: str | None = None
    ) -> list[ReviewItem]:
        rows = await self._fetchall(
            "SELECT * FROM review_items WHERE platform = ? AND user_id = ? "
            "AND (? IS NULL OR quiz_id = ?) ORDER BY due_at, quiz_id, question_id",
            (platform, user_id, quiz_id, quiz_id),
        )
        return [review_item_from(r) for r in rows]

    async def quiz_summaries(self, quiz_id: str) -> list[AttemptSummary]:
        rows = await self._fetchall(
            "SELECT a.*, COUNT(s.question_id) AS answered, COALESCE(SUM(s.correct), 0) AS right "
            "FROM attempts a LEFT JOIN answers s ON s.attempt_id = a.id "
            "WHERE a.quiz_id = ? GROUP BY a.id ORDER BY a.id",
            (quiz_id,),
        )
        return [AttemptSummary(attempt_from(r), int(r["answered"]), int(r["right"])) for r in rows]

    async def get_value(self, scope: str, key: str) -> str | None:
        rows = await self._fetchall(
            "SELECT value FROM kv WHERE scope = ? AND key = ?", (scope, key)
        )
        return str(rows[0][0]) if rows else None

    # -- writes ---------------------------------------------------------------------------

    async def touch_user(self, platform: str, user_id: str, display_name: str | None) -> None:
        def op(conn: sqlite3.Connection) -> None:
            _upsert_user(conn, platform, user_id, display_name)

        await self._write(op)

    async def set_language(self, platform: str, user_id: str, language: str | None) -> None:
        def op(conn: sqlite3.Connection) -> None:
            _upsert_user(conn, platform, user_id, None)
            conn.execute(
                "UPDATE users SET language = ? WHERE platform = ? AND user_id = ?",
                (language, platform, user_id),
            )

        await self._write(op)

    async def create_attempt(self, new: NewAttempt) -> tuple[AttemptRecord, bool]:
        def op(conn: sqlite3.Connection) -> tuple[AttemptRecord, bool]:
            _upsert_user(conn, new.platform, new.user_id, None)
            select = (
                "SELECT * FROM attempts WHERE platform = ? AND user_id = ? AND quiz_id = ? "
                "AND kind = ? AND status = 'active'"
            )
            key = (new.platform, new.user_id, new.quiz_id, new.kind.value)
            cur = conn.execute(select, key)
            existing = cur.fetchone()
            if existing is not None:
                return attempt_from(existing), False
            started = _ts(new.started_at)
            cur = conn.execute(
                "INSERT INTO attempts (platform, user_id, chat_id, quiz_id, question_order, "
                "option_order, status, started_at, updated_at, kind, quiz_version) "
                "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?) RETURNING *",
                (
                    new.platform,
                    new.user_id,
                    new.chat_id,
                    new.quiz_id,
                    json.dumps(list(new.question_order)),
                    json.dumps({k: list(v) for k, v in new.option_order.items()}),
                    started,
                    started,
                    new.kind.value,
                    new.quiz_version,
                ),
            )
            row = cur.fetchone()
            assert row is not None
            return attempt_from(row), True

        result: tuple[AttemptRecord, bool] = await self._write(op)
        return result

    async def record_answer(
        self,
        answer: AnswerRecord,
        *,
        finishes: bool,
        review: ReviewItem | None = None,
        expected: ExpectedState | None = None,
    ) -> tuple[AnswerRecord, bool]:
        # The writer runs every write of this process in order, and BEGIN IMMEDIATE keeps
        # other processes out, so nothing can come between its checks and its insert.
        write = _AnswerWrite(answer, finishes, review, expected)
        stored: tuple[AnswerRecord, bool] | None = await self._write(write)
        if stored is None:
            raise StateChanged(f"attempt {answer.attempt_id} changed since it was read")
        return stored

    async def finish_attempt(self, attempt_id: int, status: AttemptStatus, at: datetime) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE attempts SET status = ?, finished_at = ?, updated_at = ? "
                "WHERE id = ? AND status = 'active'",
                (status.value, _ts(at), _ts(at), attempt_id),
            )
            return cur.rowcount == 1

        changed: bool = await self._write(op)
        return changed

    async def set_value(self, scope: str, key: str, value: str | None) -> None:
        def op(conn: sqlite3.Connection) -> None:
            if value is None:
                conn.execute("DELETE FROM kv WHERE scope = ? AND key = ?", (scope, key))
                return
            conn.execute(
                "INSERT INTO kv (scope, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (scope, key, value, _ts(datetime.now(UTC))),
            )

        await self._write(op)


_Stored = tuple[AnswerRecord, bool] | None


@dataclass(frozen=True, slots=True)
class _AnswerWrite:
    """One :meth:`SQLiteAttempts.record_answer` call, run on the writer's thread: the stored
    answer and whether this call inserted it; None when ``expected`` no longer holds.

    A :class:`~bot.storage.sqlite.writer.GroupedWrite`: the answers of a batch are checked
    and inserted together, their attempts and schedules updated together, in statements of
    up to :data:`MAX_ROWS` rows."""

    answer: AnswerRecord
    finishes: bool
    review: ReviewItem | None
    expected: ExpectedState | None

    def __call__(self, conn: sqlite3.Connection) -> _Stored:
        return self.run_together(conn, [self])[0]

    @classmethod
    def run_together(
        cls, conn: sqlite3.Connection, writes: Sequence[_AnswerWrite]
    ) -> list[_Stored]:
        results: list[_Stored] = []
        group: list[_AnswerWrite] = []
        touched: set[object] = set()
        for write in writes:
            keys = _touches(write)
            if write.expected is None or not touched.isdisjoint(keys):
                # What this write checks may change with the group: the group goes first.
                results.extend(_record_group(conn, group))
                group, touched = [], set()
            if write.expected is None:
                results.append(_record_unguarded(conn, write))
                continue
            group.append(write)
            touched.update(keys)
        results.extend(_record_group(conn, group))
        return results


def _touches(write: _AnswerWrite) -> tuple[object, ...]:
    """What a write reads or changes besides its own answer: its attempt, and the user whose
    language and schedule it checks or sets. Writes of one group touch nothing in common, so
    running them at once is running them one after another."""
    keys: list[object] = [write.answer.attempt_id]
    for who in (write.expected, write.review):
        if who is not None:
            keys.append((who.platform, who.user_id))
    return tuple(keys)


def _record_group(conn: sqlite3.Connection, writes: list[_AnswerWrite]) -> list[_Stored]:
    if not writes:
        return []
    return _after_inserts(conn, writes, _insert_if_still(conn, writes))


def _record_unguarded(conn: sqlite3.Connection, write: _AnswerWrite) -> _Stored:
    """Record an answer with no :class:`ExpectedState` to check: unless its question has one."""
    answer = write.answer
    earlier = _stored_answer(conn, answer.attempt_id, answer.question_id)
    if earlier is not None:
        return earlier, False
    seq = conn.execute(
        "SELECT COUNT(*) FROM answers WHERE attempt_id = ?", (answer.attempt_id,)
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO answers (attempt_id, question_id, option_id, correct, "
        "answered_at, seq) VALUES (?, ?, ?, ?, ?, ?)",
        (
            answer.attempt_id,
            answer.question_id,
            answer.option_id,
            int(answer.correct),
            _ts(answer.answered_at),
            seq,
        ),
    )
    return _after_inserts(conn, [write], [True])[0]


def _after_inserts(
    conn: sqlite3.Connection, writes: list[_AnswerWrite], inserted: list[bool]
) -> list[_Stored]:
    """Finish ``writes`` whose answers were just inserted (``inserted``, per write): update
    their attempts and schedules; for the others, the answer their question already has, or
    None (the state they expected no longer holds)."""
    done = [write for write, was in zip(writes, inserted, strict=True) if was]
    if done:
        _update_attempts(conn, done)
        _save_reviews(conn, [w.review for w in done if w.review is not None])
    return [
        (write.answer, True) if was else _already(conn, write.answer)
        for write, was in zip(writes, inserted, strict=True)
    ]


def _already(conn: sqlite3.Connection, answer: AnswerRecord) -> _Stored:
    """A refused answer's outcome: the answer its question already has, else None."""
    earlier = _stored_answer(conn, answer.attempt_id, answer.question_id)
    return (earlier, False) if earlier is not None else None


# Rows per statement, at most: a delivery of presses (Telegram sends at most 100 updates at a
# time) fits in one. Statements come in power-of-two sizes only, padded with rows of NULLs
# that match nothing: a statement prepared for every batch size (up to the writer's 512)
# kept hundreds of large statements in sqlite3's cache, tens of megabytes; these are eight
# per kind. Padding rather than pieces of falling sizes (64, 32, 4 for 100 rows) makes a
# batch one statement per kind: under a burst every statement is a hand-over of the GIL
# between the writer's thread and the busy event loop, which waits up to the interpreter's
# switch interval each.
MAX_ROWS = 128


def _rows(columns: int, count: int) -> str:
    """``count`` rows of ``columns`` parameters for a VALUES list."""
    row = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([row] * count)


def _execute_rows(
    conn: sqlite3.Connection, sql: Callable[[int], str], rows: Sequence[tuple[object, ...]]
) -> list[tuple[slice, sqlite3.Cursor]]:
    """Run ``sql(size)`` over ``rows``, at most :data:`MAX_ROWS` of them per statement, the
    last statement padded with rows of NULLs to a power of two: each piece (a slice of
    ``rows``) with its statement's cursor. ``sql`` must match no row whose first column is
    NULL."""
    done = []
    for start in range(0, len(rows), MAX_ROWS):
        piece = slice(start, min(start + MAX_ROWS, len(rows)))
        real = rows[piece]
        size = 1 << (len(real) - 1).bit_length()
        params = [v for row in real for v in row]
        params += [None] * (len(real[0]) * (size - len(real)))
        done.append((piece, conn.execute(sql(size), params)))
    return done


# Inserts each answer only while the database holds what its ExpectedState says: the attempt
# active with ``answered`` answers and none to this question, the user's chosen language and
# the question's schedule entry unchanged. Folding the checks into the insert, and the answers
# of a batch into one insert, makes a burst of presses a few statements instead of three per
# press: under a burst every statement is a hand-over of the GIL between the writer's thread
# and the event loop.
@functools.cache
def _insert_sql(count: int) -> str:
    return (
        "INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at, seq) "
        "SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6 "
        f"FROM (VALUES {_rows(12, count)}) AS v "
        "WHERE (SELECT status FROM attempts WHERE id = v.column1) = 'active' "
        "AND (SELECT COUNT(*) FROM answers WHERE attempt_id = v.column1) = v.column6 "
        "AND NOT EXISTS (SELECT 1 FROM answers "
        "WHERE attempt_id = v.column1 AND question_id = v.column2) "
        "AND (SELECT language FROM users "
        "WHERE platform = v.column7 AND user_id = v.column8) IS v.column9 "
        "AND (SELECT box FROM review_items WHERE platform = v.column7 AND user_id = v.column8 "
        "AND quiz_id = v.column10 AND question_id = v.column2) IS v.column11 "
        "AND (SELECT due_at FROM review_items WHERE platform = v.column7 "
        "AND user_id = v.column8 AND quiz_id = v.column10 AND question_id = v.column2) "
        "IS v.column12"
    )


def _insert_if_still(conn: sqlite3.Connection, writes: list[_AnswerWrite]) -> list[bool]:
    """Insert each write's answer as number ``expected.answered`` if its state still holds;
    which were inserted."""
    rows: list[tuple[object, ...]] = []
    for write in writes:
        answer, expected = write.answer, write.expected
        assert expected is not None
        review = expected.review
        rows.append(
            (
                answer.attempt_id,
                answer.question_id,
                answer.option_id,
                int(answer.correct),
                _ts(answer.answered_at),
                expected.answered,
                expected.platform,
                expected.user_id,
                expected.language,
                expected.quiz_id,
                review.box if review else None,
                _ts(review.due_at) if review else None,
            )
        )
    inserted: list[bool] = []
    for piece, cur in _execute_rows(conn, _insert_sql, rows):
        size = piece.stop - piece.start
        if cur.rowcount in (0, size):
            inserted += [cur.rowcount > 0] * size
            continue
        # Some were refused (rare: a state gone stale): the rows inserted are the last rowids.
        last = cur.lastrowid
        assert last is not None
        fresh = {
            row[0]
            for row in conn.execute(
                "SELECT attempt_id FROM answers WHERE rowid > ? AND rowid <= ?",
                (last - cur.rowcount, last),
            )
        }
        inserted += [write.answer.attempt_id in fresh for write in writes[piece]]
    return inserted


@functools.cache
def _update_attempts_sql(count: int) -> str:
    return (
        "UPDATE attempts SET updated_at = v.column2, status = v.column3, "
        "finished_at = COALESCE(v.column4, attempts.finished_at) "
        f"FROM (VALUES {_rows(4, count)}) AS v "
        "WHERE attempts.id = v.column1 AND attempts.status = 'active'"
    )


def _update_attempts(conn: sqlite3.Connection, writes: list[_AnswerWrite]) -> None:
    """Each answered attempt: updated now, completed by the answer that ``finishes`` it."""
    rows: list[tuple[object, ...]] = []
    for write in writes:
        at = _ts(write.answer.answered_at)
        finished = at if write.finishes else None
        status = "completed" if write.finishes else "active"
        rows.append((write.answer.attempt_id, at, status, finished))
    _execute_rows(conn, _update_attempts_sql, rows)


def _stored_answer(
    conn: sqlite3.Connection, attempt_id: int, question_id: str
) -> AnswerRecord | None:
    row = conn.execute(
        "SELECT * FROM answers WHERE attempt_id = ? AND question_id = ?",
        (attempt_id, question_id),
    ).fetchone()
    return answer_from(row) if row is not None else None


@functools.cache
def _save_reviews_sql(count: int) -> str:
    return (
        "INSERT INTO review_items (platform, user_id, quiz_id, question_id, box, due_at, card) "
        f"SELECT * FROM (VALUES {_rows(7, count)}) WHERE column1 IS NOT NULL "
        "ON CONFLICT (platform, user_id, quiz_id, question_id) "
        "DO UPDATE SET box = excluded.box, due_at = excluded.due_at, card = excluded.card"
    )


@functools.cache
def _drop_reviews_sql(count: int) -> str:
    return (
        "DELETE FROM review_items WHERE (platform, user_id, quiz_id, question_id) "
        f"IN (VALUES {_rows(4, count)})"
    )


def _save_reviews(conn: sqlite3.Connection, items: list[ReviewItem]) -> None:
    """Set each item's schedule entry; box 0 or less takes the question off the schedule."""
    kept: list[tuple[object, ...]] = []
    dropped: list[tuple[object, ...]] = []
    for item in items:
        key = (item.platform, item.user_id, item.quiz_id, item.question_id)
        if item.box <= 0:
            dropped.append(key)
        else:
            kept.append((*key, item.box, _ts(item.due_at), item.card))
    _execute_rows(conn, _save_reviews_sql, kept)
    _execute_rows(conn, _drop_reviews_sql, dropped)


def _upsert_user(
    conn: sqlite3.Connection, platform: str, user_id: str, display_name: str | None
) -> None:
    conn.execute(
        "INSERT INTO users (platform, user_id, display_name, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (platform, user_id) DO UPDATE SET "
        "display_name = COALESCE(excluded.display_name, users.display_name)",
        (platform, user_id, display_name, _ts(datetime.now(UTC))),
    )
