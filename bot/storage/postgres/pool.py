"""The PostgreSQL backend's connection pool: connecting, session setup, forward migrations,
the per-call timeout and the retry of a call whose connection dropped."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

import asyncpg

from bot.storage.base import StorageError
from bot.storage.schema import migrations

# Forward migrations, one per schema version, the same as the SQLite backend's.
MIGRATIONS: list[str] = migrations("postgres")

MIGRATION_LOCK = 0x5155495A  # advisory lock id: replicas starting together migrate one by one
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
S = TypeVar("S", bound="PostgresPool")


def retrying(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """Run a storage call again on a fresh connection when the connection drops; a call
    (each try) that takes longer than the storage's ``timeout`` fails with StorageError."""

    async def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
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
    return wrapper


def normalize_postgres_url(url: str) -> str:
    """asyncpg's form of a URL: Heroku's ``postgres://`` becomes ``postgresql://``."""
    if url.startswith("postgres://"):
        return "postgresql://" + url[len("postgres://") :]
    return url


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


class PostgresPool:
    """An asyncpg connection pool to one database, every call through it bounded by
    ``timeout``. The stores build on it."""

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.url = normalize_postgres_url(url)
        self.timeout = timeout
        self._min_size = min_size
        self._max_size = max_size
        self._pool: asyncpg.Pool | None = None

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
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async with self._acquire() as conn:
            return list(await conn.fetch(sql, *args))

    @retrying
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
