"""The SQLite backend's connections: WAL mode, forward migrations, group commit, retries.

Writes from concurrent users are queued and committed together in one transaction (one failing
write does not undo the others: the batch is then run again with a SAVEPOINT per write); every
caller is answered only after that commit. This is what lets hundreds of simultaneous answers
stay durable without paying one fsync each. Reads use a second connection and therefore only
see committed data.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

import aiosqlite

from bot.storage.base import StorageError
from bot.storage.schema import migrations

T = TypeVar("T")
WriteOp = Callable[[sqlite3.Connection], Any]  # runs on the writer's thread


class GroupedWrite(Protocol):
    """A write whose kind can run several at once: the consecutive writes of one batch that
    are of the same class go to its ``run_together`` in one call, which returns their
    results in order, each what the write alone would have returned. Under a burst that
    makes a batch a few statements instead of a few per write, and every statement costs
    the writer's thread a hand-over of the GIL with the event loop."""

    def __call__(self, conn: sqlite3.Connection) -> Any:
        """Run this write alone."""

    @classmethod
    def run_together(cls, conn: sqlite3.Connection, writes: Sequence[Any]) -> list[Any]:
        """Run ``writes`` (instances of this class, in queue order) as if one after another."""


# Forward migrations: MIGRATIONS[n] brings the schema from version n to n + 1.
MIGRATIONS: list[str] = migrations("sqlite")

BUSY_TIMEOUT_MS = 5000
LOCK_RETRIES = 3  # whole-batch retries when another process holds the write lock too long
MAX_BATCH = 512


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


class SQLiteWriter:
    """One SQLite file (or ``:memory:`` for throwaway use): its writer connection, fed by one
    queue and committing in groups, and its reader connection. The stores build on it."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self._writer: _Connection | None = None
        self._reader: _Connection | None = None
        # The writes waiting for the writer (None: stop), and what wakes it when it waits for
        # one. Not an asyncio.Queue: the writer takes items by the batch, and the queue's
        # bookkeeping per item (a count of unfinished tasks, getters and putters to wake) is
        # work every press's write paid for nothing.
        self._queue: deque[tuple[WriteOp, asyncio.Future[Any]] | None] = deque()
        self._queued = asyncio.Event()
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
            self._queue.append(None)
            self._queued.set()
            await self._writer_task
            self._writer_task = None
        if self._reader is not None and self._reader is not self._writer:
            await self._reader.close()
        if self._writer is not None:
            await self._writer.close()
        self._reader = self._writer = None

    # -- group commit ---------------------------------------------------------------------

    def _write(self, op: WriteOp) -> asyncio.Future[Any]:
        """Queue ``op`` (run on the writer's thread); the future has its result after the
        commit. A future, not a coroutine: under a burst every press's write is in flight,
        and a coroutine more each is more for the garbage collector to scan."""
        if self._writer_task is None or self._writer_task.done():
            raise StorageError("the storage is not open")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((op, future))  # unbounded: never waits
        self._queued.set()
        return future

    async def _write_loop(self) -> None:
        assert self._writer is not None
        conn = self._writer
        queue = self._queue
        drain = functools.partial(self._drain, asyncio.get_running_loop())
        while True:
            while not queue:
                self._queued.clear()
                await self._queued.wait()
            if await conn.run(drain):
                return

    def _drain(self, loop: asyncio.AbstractEventLoop, conn: sqlite3.Connection) -> bool:
        """On the writer's thread: commit what is queued a batch at a time until nothing is,
        handing each batch's results to the event loop as soon as it commits. True once the
        stop marker came.

        The next batch starts right after a commit: under a burst the event loop is busy for
        tens of milliseconds at a time, and a writer that waited for it between batches
        (for the previous batch's results to be read) left the thread idle meanwhile, with the
        presses of the next batch waiting for their acknowledgement behind it."""
        queue = self._queue
        while queue:
            batch: list[tuple[WriteOp, asyncio.Future[Any]]] = []
            stop = False
            while queue and len(batch) < MAX_BATCH:
                item = queue.popleft()  # deque: safe against the event loop's appends
                if item is None:
                    stop = True
                    break
                batch.append(item)
            if batch:
                outcome = _commit_batch(conn, [op for op, _ in batch])
                loop.call_soon_threadsafe(self._settle, batch, outcome)
            if stop:
                return True
        return False

    def _settle(
        self,
        batch: list[tuple[WriteOp, asyncio.Future[Any]]],
        outcome: list[tuple[bool, Any]] | Exception,
    ) -> None:
        """On the event loop: each write's result (or failure) to its waiting caller."""
        if isinstance(outcome, Exception):
            failure = StorageError(f"could not commit to {self.path}: {outcome}")
            outcome = [(False, failure)] * len(batch)
        for (_, future), (ok, value) in zip(batch, outcome, strict=True):
            if future.done():  # its caller gave up waiting
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

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


class _WriteFailed(Exception):
    """A write failed in a batch run without savepoints; the batch was rolled back."""

    def __init__(self, error: StorageError) -> None:
        super().__init__(str(error))
        self.error = error


def _failure(exc: sqlite3.IntegrityError | StorageError) -> StorageError:
    return exc if isinstance(exc, StorageError) else StorageError(str(exc))


def _commit_batch(
    conn: sqlite3.Connection, ops: list[WriteOp]
) -> list[tuple[bool, Any]] | Exception:
    """Commit ``ops`` (see :func:`_try_batch`): each write's result, or why nothing was
    written. Runs on the writer's thread.

    A batch runs without savepoints first: nearly every write succeeds, and each statement
    is a GIL hand-over between this thread and the event loop (a savepoint and its release
    were two of an answer's five). When a write fails, the whole transaction is rolled back
    and the batch run again with a savepoint per write, so that the failure undoes that
    write alone. When another process holds the write lock past the busy timeout, the batch
    is tried again a few times, a little later each time."""
    savepoints = False
    attempt = 0
    while True:
        try:
            return _try_batch(ops, savepoints, conn)
        except _WriteFailed:
            savepoints = True  # nothing was written: run it again, each write apart
        except sqlite3.OperationalError as exc:
            locked = "locked" in str(exc) or "busy" in str(exc)
            if not (locked and attempt < LOCK_RETRIES):
                return exc
            time.sleep(0.05 * 2**attempt)  # nothing was written: run it again
            attempt += 1
        except Exception as exc:
            return exc


def _try_batch(
    ops: list[WriteOp], savepoints: bool, conn: sqlite3.Connection
) -> list[tuple[bool, Any]]:
    """Run every write in one transaction and commit; with ``savepoints`` each write runs
    alone in its own, so that one failing write is undone alone and reported as its result.

    Runs on the writer's thread, all of it in one call. Without ``savepoints`` the writes
    run in order, consecutive :class:`GroupedWrite` of one class together, and a failing
    write rolls the transaction back and raises :class:`_WriteFailed` (a lone write's
    failure is its result: there is nothing else to keep). On any other error the
    transaction is rolled back and the error raised: nothing was written.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        if savepoints:
            results = [_in_savepoint(conn, op) for op in ops]
        else:
            try:
                results = [(True, value) for value in _run_in_order(conn, ops)]
            except _WriteFailed as failed:
                if len(ops) > 1:
                    raise
                conn.execute("ROLLBACK")  # the batch's only write: undone with it
                return [(False, failed.error)]
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return results


def _in_savepoint(conn: sqlite3.Connection, op: WriteOp) -> tuple[bool, Any]:
    """Run ``op`` in a savepoint: its result, or its failure with its changes undone."""
    conn.execute("SAVEPOINT op")
    try:
        value = op(conn)
    except (sqlite3.IntegrityError, StorageError) as exc:  # this write alone fails
        conn.execute("ROLLBACK TO op")
        conn.execute("RELEASE op")
        return False, _failure(exc)
    conn.execute("RELEASE op")
    return True, value


def _run_in_order(conn: sqlite3.Connection, ops: list[WriteOp]) -> list[Any]:
    """Run ``ops`` in order, each run of consecutive :class:`GroupedWrite` of one class in
    one call; the first failing write raises :class:`_WriteFailed`."""
    values: list[Any] = []
    start = 0
    while start < len(ops):
        kind = type(ops[start])
        together = getattr(kind, "run_together", None)
        end = start + 1
        if together is not None:
            while end < len(ops) and type(ops[end]) is kind:
                end += 1
        try:
            if together is not None and end - start > 1:
                values.extend(together(conn, ops[start:end]))
            else:
                values.append(ops[start](conn))
        except (sqlite3.IntegrityError, StorageError) as exc:
            raise _WriteFailed(_failure(exc)) from exc
        start = end
    return values


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
