"""The PostgreSQL backend's quiz library (see :mod:`bot.storage.library`)."""

from __future__ import annotations

from typing import Any

from bot.storage.library import LibraryStore, NewQuizVersion, QuizVersionRecord
from bot.storage.postgres.pool import PostgresPool, retrying
from bot.storage.rows import quiz_version_from

# A version with its quiz's visibility (``hidden`` is false for a version no library row names).
VERSIONS = (
    "SELECT v.*, COALESCE(l.hidden, FALSE) AS hidden FROM quiz_versions v "
    "LEFT JOIN quiz_library l ON l.quiz_id = v.quiz_id"
)
# Taken first in every write: the row lock makes concurrent publishes (other replicas) take
# turns, so version numbers never collide.
LOCK_REVISION = "SELECT revision FROM library_revision WHERE id = 1 FOR UPDATE"
BUMP_REVISION = "UPDATE library_revision SET revision = revision + 1 WHERE id = 1"


class PostgresLibrary(PostgresPool, LibraryStore):
    """:class:`LibraryStore` in PostgreSQL."""

    @retrying
    async def publish_quiz_version(
        self, new: NewQuizVersion, *, explicit: bool
    ) -> tuple[QuizVersionRecord, bool]:
        async with self._acquire() as conn, conn.transaction():
            await conn.execute(LOCK_REVISION)
            current = await conn.fetchrow(
                f"{VERSIONS} WHERE v.quiz_id = $1 AND v.version = l.version", new.quiz_id
            )
            if current is not None and not await _news(conn, current, new, explicit):
                if current["hidden"] and explicit:
                    await conn.execute(
                        "UPDATE quiz_library SET hidden = FALSE WHERE quiz_id = $1", new.quiz_id
                    )
                    await conn.execute(BUMP_REVISION)
                    return quiz_version_from({**dict(current), "hidden": False}), False
                return quiz_version_from(current), False
            row = await conn.fetchrow(
                "INSERT INTO quiz_versions (quiz_id, version, content, content_hash, "
                "question_count, source, published_by, published_at) "
                "SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4, $5, $6, $7 "
                "FROM quiz_versions WHERE quiz_id = $1 RETURNING *, FALSE AS hidden",
                new.quiz_id,
                new.content,
                new.content_hash,
                new.question_count,
                new.source.value,
                new.published_by,
                new.published_at,
            )
            assert row is not None
            await conn.execute(
                "INSERT INTO quiz_library (quiz_id, version, hidden) VALUES ($1, $2, FALSE) "
                "ON CONFLICT (quiz_id) DO UPDATE SET version = EXCLUDED.version, hidden = FALSE",
                new.quiz_id,
                row["version"],
            )
            await conn.execute(BUMP_REVISION)
            return quiz_version_from(row), True

    @retrying
    async def current_quiz_versions(self) -> list[QuizVersionRecord]:
        rows = await self._fetch(f"{VERSIONS} WHERE v.version = l.version ORDER BY v.quiz_id")
        return [quiz_version_from(row) for row in rows]

    @retrying
    async def quiz_version(self, quiz_id: str, version: int) -> QuizVersionRecord | None:
        rows = await self._fetch(
            f"{VERSIONS} WHERE v.quiz_id = $1 AND v.version = $2", quiz_id, version
        )
        return quiz_version_from(rows[0]) if rows else None

    @retrying
    async def unpublish_quiz(self, quiz_id: str) -> bool:
        async with self._acquire() as conn, conn.transaction():
            status = await conn.execute(
                "UPDATE quiz_library SET hidden = TRUE WHERE quiz_id = $1 AND NOT hidden", quiz_id
            )
            if status.endswith(" 0"):
                return False
            await conn.execute(BUMP_REVISION)
            return True

    @retrying
    async def library_revision(self) -> int:
        rows = await self._fetch("SELECT revision FROM library_revision WHERE id = 1")
        return int(rows[0][0]) if rows else 0


async def _news(conn: Any, current: Any, new: NewQuizVersion, explicit: bool) -> bool:
    """Whether ``new`` makes a new version (see :meth:`LibraryStore.publish_quiz_version`)."""
    if explicit:
        return bool(current["content_hash"] != new.content_hash)
    seen = await conn.fetchval(
        "SELECT 1 FROM quiz_versions WHERE quiz_id = $1 AND content_hash = $2 LIMIT 1",
        new.quiz_id,
        new.content_hash,
    )
    return seen is None
