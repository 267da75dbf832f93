"""The aiosqlite storage backend: WAL mode, forward migrations, group commit.

Writes from concurrent users are queued and committed together in one transaction (each in its
own SAVEPOINT, so one failing write does not undo the others); every caller is answered only
after that commit. This is what lets hundreds of simultaneous answers stay durable without
paying one fsync each. Reads use a second connection and therefore only see committed data.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

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

T = TypeVar("T")
WriteOp = Callable[[sqlite3.Connection], Any]  # runs on the writer's thread

# Forward migrations: MIGRATIONS[n] brings the schema from version n to n + 1.
MIGRATIONS: list[str] = migrations("sqlite")

BUSY_TIMEOUT_MS = 5000
LOCK_RETRIES = 3  # whole-batch retries when another process holds the write lock too long
MAX_BATCH = 512

ROUND_ANSWERS = "SELECT * FROM round_answers WHERE round_id = ? ORDER BY number, answered_at"
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


class _Connection:
    """An aiosqlite connection; ``run`` calls a function with the sqlite3 connection on
    aiosqlite's worker thread.

    aiosqlite's public methods hop to that thread once per statement, so a group commit
    (BEGIN, every write, COMMIT) would cost a hop per statement. ``run`` queues the whole
    function as one item of aiosqlite's own queue (``Connection._execute``, the primitive its
    public methods are built on; pinned by the version range in pyproject.toml): one hop.
    """

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._db: aiosqlite.Connection | None = None

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._db is None:
            raise StorageError("the storage is not open")
        db = self._db
        # The one use of aiosqlite's internals, explained above.
        execute: Callable[[Callable[[], T]], Awaitable[T]] = db._execute  # noqa: SLF001
        return await execute(lambda: fn(db._conn))  # noqa: SLF001

    async def open(self) -> None:
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        await self.run(self._configure)

    def _configure(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
            # FULL: a committed answer survives power loss too, not only a killed process.
            conn.execute("PRAGMA synchronous = FULL")

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()


def _statements(script: str) -> list[str]:
    """The complete SQL statements of a script (a ';' inside a literal does not split)."""
    statements: list[str] = []
    start = 0
    for end, char in enumerate(script):
        if char == ";" and sqlite3.complete_statement(script[start : end + 1]):
            if script[start:end].strip():
                statements.append(script[start : end + 1].strip())
            start = end + 1
    if script[start:].strip():
        raise ValueError(f"incomplete SQL statement: {script[start:].strip()[:60]!r}")
    return statements


def _ts(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def sqlite_path_from_url(url: str) -> str:
    """The file path in a ``sqlite:///relative.db`` or ``sqlite:////absolute.db`` URL."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        raise ValueError(f"not a sqlite URL (expected {prefix}PATH): {url!r}")
    path = url[len(prefix) :]
    if not path:
        raise ValueError("the sqlite URL names no file (expected sqlite:///PATH)")
    return path


class SQLiteStorage(Storage):
    """Storage in one SQLite file (or ``:memory:`` for throwaway use)."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self._writer: _Connection | None = None
        self._reader: _Connection | None = None
        self._queue: asyncio.Queue[tuple[WriteOp, asyncio.Future[Any]] | None] = asyncio.Queue()
        self._writer_task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Open, migrate and check that a write commits; a file, directory or disk that does
        not allow it fails here with one StorageError naming the path and the reason."""
        try:
            if self.path != ":memory:":
                _create_private_file(Path(self.path))
            self._writer = _Connection(self.path, self.busy_timeout_ms)
            await self._writer.open()
            await self._writer.run(_migrate)
            await self._writer.run(_probe_write)
        except (OSError, sqlite3.Error) as exc:
            await self._close_writer()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StorageError(
                f"cannot use the SQLite database {_absolute(self.path)}: {reason}{_hint(reason)}"
            ) from None
        except BaseException:
            await self._close_writer()
            raise
        # :memory: databases are private to a connection, so reads share the writer there.
        if self.path == ":memory:":
            self._reader = self._writer
        else:
            self._reader = _Connection(self.path, self.busy_timeout_ms)
            await self._reader.open()
        self._writer_task = asyncio.create_task(self._write_loop(), name="sqlite-writer")

    async def _close_writer(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await self._writer.close()
            self._writer = None

    async def close(self) -> None:
        if self._writer_task is not None:
            await self._queue.put(None)
            await self._writer_task
            self._writer_task = None
        if self._reader is not None and self._reader is not self._writer:
            await self._reader.close()
        if self._writer is not None:
            await self._writer.close()
        self._reader = self._writer = None

    # -- group commit ---------------------------------------------------------------------

    async def _write(self, op: WriteOp) -> Any:
        """Queue ``op`` (run on the writer's thread) and return its result after the commit."""
        if self._writer_task is None or self._writer_task.done():
            raise StorageError("the storage is not open")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put((op, future))
        return await future

    async def _write_loop(self) -> None:
        assert self._writer is not None
        conn = self._writer
        while True:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < MAX_BATCH and not self._queue.empty():
                item = self._queue.get_nowait()
                if item is None:
                    stop = True
                    break
                batch.append(item)
            await self._run_batch(conn, batch)
            if stop:
                return

    async def _run_batch(
        self, conn: _Connection, batch: list[tuple[WriteOp, asyncio.Future[Any]]]
    ) -> None:
        ops = [op for op, _ in batch]
        for attempt in range(LOCK_RETRIES + 1):
            try:
                results = await conn.run(functools.partial(_try_batch, ops))
            except sqlite3.OperationalError as exc:
                locked = "locked" in str(exc) or "busy" in str(exc)
                if locked and attempt < LOCK_RETRIES:
                    await asyncio.sleep(0.05 * 2**attempt)  # nothing was written: run it again
                    continue
                self._fail(batch, exc)
                return
            except Exception as exc:
                self._fail(batch, exc)
                return
            for (_, future), (ok, value) in zip(batch, results, strict=True):
                if future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
            return

    def _fail(self, batch: list[tuple[WriteOp, asyncio.Future[Any]]], exc: Exception) -> None:
        failure = StorageError(f"could not commit to {self.path}: {exc}")
        for _, future in batch:
            if not future.done():
                future.set_exception(failure)

    # -- reads ----------------------------------------------------------------------------

    def _read_conn(self) -> _Connection:
        if self._reader is None:
            raise StorageError("the storage is not open")
        return self._reader

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return await self._read_conn().run(fn)
        except sqlite3.Error as exc:  # a broken disk or file: the caller's usual failure
            raise StorageError(f"could not read {self.path}: {exc}") from exc

    async def _fetchall(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        # One step, in the reader's thread: a statement left open between execute() and fetch
        # (while hundreds of reads interleave) keeps the reader on an old snapshot, and a
        # confirmed answer would look unanswered to the very next read.
        return await self._read(lambda conn: conn.execute(sql, params).fetchall())

    async def schema_version(self) -> int:
        rows = await self._fetchall("SELECT version FROM schema_version")
        return int(rows[0][0]) if rows else 0

    async def healthy(self) -> bool:
        try:
            rows = await self._fetchall("SELECT 1")
        except (sqlite3.Error, StorageError):
            return False
        return bool(rows)

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

    async def get_value(self, scope: str, key: str) -> str | None:
        rows = await self._fetchall(
            "SELECT value FROM kv WHERE scope = ? AND key = ?", (scope, key)
        )
        return str(rows[0][0]) if rows else None

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

    async def active_round(self, platform: str, chat_id: str) -> RoundRecord | None:
        rows = await self._fetchall(
            "SELECT * FROM rounds WHERE platform = ? AND chat_id = ? AND status = 'active'",
            (platform, chat_id),
        )
        return round_from(rows[0]) if rows else None

    async def rounds_due(self, now: datetime) -> list[RoundRecord]:
        rows = await self._fetchall(
            "SELECT * FROM rounds WHERE status = 'active' AND deadline <= ? ORDER BY deadline",
            (_ts(now),),
        )
        return [round_from(r) for r in rows]

    async def round_answers(self, round_id: int) -> list[RoundAnswer]:
        rows = await self._fetchall(ROUND_ANSWERS, (round_id,))
        return [round_answer_from(r) for r in rows]

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
                "option_order, status, started_at, updated_at, kind) "
                "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?) RETURNING *",
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
        def op(conn: sqlite3.Connection) -> tuple[AnswerRecord, bool] | None:
            row = conn.execute(
                "SELECT * FROM answers WHERE attempt_id = ? AND question_id = ?",
                (answer.attempt_id, answer.question_id),
            ).fetchone()
            if row is not None:
                return answer_from(row), False
            if expected is None:
                seq = conn.execute(
                    "SELECT COUNT(*) FROM answers WHERE attempt_id = ?", (answer.attempt_id,)
                ).fetchone()[0]
            elif _still(conn, answer.attempt_id, answer.question_id, expected):
                seq = expected.answered
            else:
                return None
            at = _ts(answer.answered_at)
            conn.execute(
                "INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at, "
                "seq) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    answer.attempt_id,
                    answer.question_id,
                    answer.option_id,
                    int(answer.correct),
                    at,
                    seq,
                ),
            )
            conn.execute(
                "UPDATE attempts SET updated_at = ?, status = ?, "
                "finished_at = COALESCE(?, finished_at) WHERE id = ? AND status = 'active'",
                (
                    at,
                    "completed" if finishes else "active",
                    at if finishes else None,
                    answer.attempt_id,
                ),
            )
            if review is not None:
                _save_review(conn, review)
            return answer, True

        # The writer runs every write of this process in order, and BEGIN IMMEDIATE keeps
        # other processes out, so nothing can come between the reads above and the insert.
        stored: tuple[AnswerRecord, bool] | None = await self._write(op)
        if stored is None:
            raise StateChanged(f"attempt {answer.attempt_id} changed since it was read")
        return stored

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

    async def create_round(self, new: NewRound) -> tuple[RoundRecord, bool]:
        def op(conn: sqlite3.Connection) -> tuple[RoundRecord, bool]:
            cur = conn.execute(
                "SELECT * FROM rounds WHERE platform = ? AND chat_id = ? AND status = 'active'",
                (new.platform, new.chat_id),
            )
            existing = cur.fetchone()
            if existing is not None:
                return round_from(existing), False
            started = _ts(new.started_at)
            deadline = _ts(new.started_at + timedelta(seconds=new.time_limit_seconds))
            cur = conn.execute(
                "INSERT INTO rounds (platform, chat_id, quiz_id, starter_id, language, "
                "question_order, option_order, time_limit_seconds, status, current, "
                "question_started_at, deadline, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?) RETURNING *",
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
                ),
            )
            row = cur.fetchone()
            assert row is not None
            return round_from(row), True

        result: tuple[RoundRecord, bool] = await self._write(op)
        return result

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

    # == replicas: round leases and the round outbox =========================================

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
            if conn.execute(sql, params).rowcount != 1:
                return ()
            kinds = [OutboxKind.REVEAL]
            if next_opens is None:  # the round is over: its ranking, its members' history
                kinds += [OutboxKind.END, OutboxKind.HISTORY]
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


def _progress(row: sqlite3.Row) -> RoundProgress:
    return RoundProgress(int(row[0]), int(row[1]), bool(row[2]))


def _still(
    conn: sqlite3.Connection, attempt_id: int, question_id: str, expected: ExpectedState
) -> bool:
    """Whether the attempt is active and the database holds what ``expected`` says."""
    row = conn.execute(
        "SELECT (SELECT status FROM attempts WHERE id = ?1), "
        "(SELECT COUNT(*) FROM answers WHERE attempt_id = ?1), "
        "(SELECT language FROM users WHERE platform = ?2 AND user_id = ?3), "
        "(SELECT box FROM review_items WHERE platform = ?2 AND user_id = ?3 "
        "AND quiz_id = ?4 AND question_id = ?5), "
        "(SELECT due_at FROM review_items WHERE platform = ?2 AND user_id = ?3 "
        "AND quiz_id = ?4 AND question_id = ?5)",
        (attempt_id, expected.platform, expected.user_id, expected.quiz_id, question_id),
    ).fetchone()
    review = expected.review
    return (row[0], row[1], row[2], row[3], row[4]) == (
        AttemptStatus.ACTIVE.value,
        expected.answered,
        expected.language,
        review.box if review else None,
        _ts(review.due_at) if review else None,
    )


def _save_review(conn: sqlite3.Connection, item: ReviewItem) -> None:
    key = (item.platform, item.user_id, item.quiz_id, item.question_id)
    if item.box <= 0:
        conn.execute(
            "DELETE FROM review_items WHERE platform = ? AND user_id = ? AND quiz_id = ? "
            "AND question_id = ?",
            key,
        )
        return
    conn.execute(
        "INSERT INTO review_items (platform, user_id, quiz_id, question_id, box, due_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (platform, user_id, quiz_id, question_id) "
        "DO UPDATE SET box = excluded.box, due_at = excluded.due_at",
        (*key, item.box, _ts(item.due_at)),
    )


def _try_batch(ops: list[WriteOp], conn: sqlite3.Connection) -> list[tuple[bool, Any]]:
    """Run every write in one transaction, each in its own savepoint, and commit.

    Runs on the writer's thread, all of it in one call. On any error other than one write's
    own failure the transaction is rolled back and the error raised: nothing was written.
    """
    results: list[tuple[bool, Any]] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for op in ops:
            conn.execute("SAVEPOINT op")
            try:
                value = op(conn)
            except (sqlite3.IntegrityError, StorageError) as exc:  # this write alone fails
                conn.execute("ROLLBACK TO op")
                conn.execute("RELEASE op")
                error = exc if isinstance(exc, StorageError) else StorageError(str(exc))
                results.append((False, error))
            else:
                conn.execute("RELEASE op")
                results.append((True, value))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return results


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema up to date in one transaction (replicas' opens serialize on it)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        version = row[0] if row else 0
        if row is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (0)")
        if version > len(MIGRATIONS):
            raise StorageError(
                f"the database is at schema version {version}, newer than this program "
                f"knows ({len(MIGRATIONS)}); upgrade quizbot"
            )
        for number in range(version, len(MIGRATIONS)):
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = ?", (number + 1,))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _probe_write(conn: sqlite3.Connection) -> None:
    """Commit a write that changes nothing, so a database that cannot take writes (read-only
    file or directory, full disk) is found at start rather than at the first answer."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("UPDATE schema_version SET version = version")
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _absolute(path: str) -> str:
    return os.path.abspath(path)


def _hint(reason: str) -> str:
    reason = reason.lower()
    if "readonly" in reason or "read-only" in reason or "unable to open" in reason:
        return " (the file and its directory must be writable: SQLite adds -wal and -shm files)"
    if "full" in reason or "no space" in reason:
        return " (the disk is full)"
    return ""


def _create_private_file(path: Path) -> None:
    """Create the database file readable by its owner only: progress is personal data."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def _upsert_user(
    conn: sqlite3.Connection, platform: str, user_id: str, display_name: str | None
) -> None:
    conn.execute(
        "INSERT INTO users (platform, user_id, display_name, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (platform, user_id) DO UPDATE SET "
        "display_name = COALESCE(excluded.display_name, users.display_name)",
        (platform, user_id, display_name, _ts(datetime.now(UTC))),
    )
