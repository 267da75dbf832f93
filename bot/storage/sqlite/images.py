"""The SQLite backend's quiz images and their platform uploads."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import UTC, datetime

from bot.storage.image_store import ImageStore, StoredImage
from bot.storage.sqlite.writer import SQLiteWriter, _ts

MAX_PARAMETERS = 500  # per statement: SQLite's limit is 999 on older builds


class SQLiteImages(SQLiteWriter, ImageStore):
    """:class:`ImageStore` in SQLite."""

    async def missing_images(self, sha256s: Collection[str]) -> set[str]:
        wanted = sorted(set(sha256s))

        def read(conn: sqlite3.Connection) -> set[str]:
            found: set[str] = set()
            for start in range(0, len(wanted), MAX_PARAMETERS):
                part = wanted[start : start + MAX_PARAMETERS]
                marks = ", ".join("?" * len(part))
                rows = conn.execute(f"SELECT sha256 FROM images WHERE sha256 IN ({marks})", part)
                found.update(str(row[0]) for row in rows)
            return set(wanted) - found

        return await self._read(read) if wanted else set()

    async def put_image(self, image: StoredImage) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO images (sha256, media_type, data, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (sha256) DO NOTHING",
                (image.sha256, image.media_type, image.data, _ts(datetime.now(UTC))),
            )

        await self._write(op)

    async def get_image(self, sha256: str) -> StoredImage | None:
        rows = await self._fetchall(
            "SELECT sha256, media_type, data FROM images WHERE sha256 = ?", (sha256,)
        )
        if not rows:
            return None
        return StoredImage(str(rows[0][0]), str(rows[0][1]), bytes(rows[0][2]))

    async def image_upload(self, destination: str, sha256: str) -> str | None:
        rows = await self._fetchall(
            "SELECT reference FROM image_uploads WHERE destination = ? AND sha256 = ?",
            (destination, sha256),
        )
        return str(rows[0][0]) if rows else None

    async def remember_image_upload(self, destination: str, sha256: str, reference: str) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO image_uploads (destination, sha256, reference, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (destination, sha256) DO UPDATE SET "
                "reference = excluded.reference, created_at = excluded.created_at",
                (destination, sha256, reference, _ts(datetime.now(UTC))),
            )

        await self._write(op)
