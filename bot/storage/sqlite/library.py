"""The SQLite backend's quiz library (see :mod:`bot.storage.library`)."""

from __future__ import annotations

import dataclasses
import sqlite3

from bot.storage.library import LibraryStore, NewQuizVersion, QuizVersionRecord
from bot.storage.rows import quiz_version_from
from bot.storage.sqlite.writer import SQLiteWriter, _ts

# A version with its quiz's visibility (``hidden`` is 0 for a version no library row names).
VERSIONS = (
    "SELECT v.*, COALESCE(l.hidden, 0) AS hidden FROM quiz_versions v "
    "LEFT JOIN quiz_library l ON l.quiz_id = v.quiz_id"
)
BUMP_REVISION = "UPDATE library_revision SET revision = revision + 1 WHERE id = 1"


class SQLiteLibrary(SQLiteWriter, LibraryStore):
    """:class:`LibraryStore` in SQLite."""

    async def publish_quiz_version(
        self, new: NewQuizVersion, *, explicit: bool
    ) -> tuple[QuizVersionRecord, bool]:
        def op(conn: sqlite3.Connection) -> tuple[QuizVersionRecord, bool]:
            current = conn.execute(
                f"{VERSIONS} WHERE v.quiz_id = ? AND v.version = l.version", (new.quiz_id,)
            ).fetchone()
            if current is not None and not _news(conn, current, new, explicit):
                if current["hidden"] and explicit:
                    conn.execute(
                        "UPDATE quiz_library SET hidden = 0 WHERE quiz_id = ?", (new.quiz_id,)
                    )
                    conn.execute(BUMP_REVISION)
                    return dataclasses.replace(quiz_version_from(current), hidden=False), False
                return quiz_version_from(current), False
            last = conn.execute(
                "SELECT COALESCE(MAX(version), 0) FROM quiz_versions WHERE quiz_id = ?",
                (new.quiz_id,),
            ).fetchone()[0]
            version = int(last) + 1
            conn.execute(
                "INSERT INTO quiz_versions (quiz_id, version, content, content_hash, "
                "question_count, source, published_by, published_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new.quiz_id,
                    version,
                    new.content,
                    new.content_hash,
                    new.question_count,
                    new.source.value,
                    new.published_by,
                    _ts(new.published_at),
                ),
            )
            conn.execute(
                "INSERT INTO quiz_library (quiz_id, version, hidden) VALUES (?, ?, 0) "
                "ON CONFLICT (quiz_id) DO UPDATE SET version = excluded.version, hidden = 0",
                (new.quiz_id, version),
            )
            conn.execute(BUMP_REVISION)
            row = conn.execute(
                f"{VERSIONS} WHERE v.quiz_id = ? AND v.version = ?", (new.quiz_id, version)
            ).fetchone()
            return quiz_version_from(row), True

        result: tuple[QuizVersionRecord, bool] = await self._write(op)
        return result

    async def current_quiz_versions(self) -> list[QuizVersionRecord]:
        rows = await self._fetchall(f"{VERSIONS} WHERE v.version = l.version ORDER BY v.quiz_id")
        return [quiz_version_from(row) for row in rows]

    async def quiz_version(self, quiz_id: str, version: int) -> QuizVersionRecord | None:
        rows = await self._fetchall(
            f"{VERSIONS} WHERE v.quiz_id = ? AND v.version = ?", (quiz_id, version)
        )
        return quiz_version_from(rows[0]) if rows else None

    async def unpublish_quiz(self, quiz_id: str) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE quiz_library SET hidden = 1 WHERE quiz_id = ? AND hidden = 0", (quiz_id,)
            )
            if cur.rowcount == 0:
                return False
            conn.execute(BUMP_REVISION)
            return True

        hidden: bool = await self._write(op)
        return hidden

    async def library_revision(self) -> int:
        rows = await self._fetchall("SELECT revision FROM library_revision WHERE id = 1")
        return int(rows[0][0]) if rows else 0


def _news(
    conn: sqlite3.Connection, current: sqlite3.Row, new: NewQuizVersion, explicit: bool
) -> bool:
    """Whether ``new`` makes a new version (see :meth:`LibraryStore.publish_quiz_version`)."""
    if explicit:
        return bool(current["content_hash"] != new.content_hash)
    seen = conn.execute(
        "SELECT 1 FROM quiz_versions WHERE quiz_id = ? AND content_hash = ? LIMIT 1",
        (new.quiz_id, new.content_hash),
    ).fetchone()
    return seen is None
