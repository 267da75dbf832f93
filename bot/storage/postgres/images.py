"""The PostgreSQL backend's quiz images and their platform uploads."""

from __future__ import annotations

from collections.abc import Collection

from bot.storage.image_store import ImageStore, StoredImage
from bot.storage.postgres.pool import PostgresPool, retrying


class PostgresImages(PostgresPool, ImageStore):
    """:class:`ImageStore` in PostgreSQL."""

    @retrying
    async def missing_images(self, sha256s: Collection[str]) -> set[str]:
        wanted = sorted(set(sha256s))
        if not wanted:
            return set()
        rows = await self._fetch("SELECT sha256 FROM images WHERE sha256 = ANY($1::text[])", wanted)
        return set(wanted) - {str(row[0]) for row in rows}

    @retrying
    async def put_image(self, image: StoredImage) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "INSERT INTO images (sha256, media_type, data, created_at) "
                "VALUES ($1, $2, $3, now()) ON CONFLICT (sha256) DO NOTHING",
                image.sha256,
                image.media_type,
                image.data,
            )

    @retrying
    async def get_image(self, sha256: str) -> StoredImage | None:
        rows = await self._fetch(
            "SELECT sha256, media_type, data FROM images WHERE sha256 = $1", sha256
        )
        if not rows:
            return None
        return StoredImage(str(rows[0][0]), str(rows[0][1]), bytes(rows[0][2]))

    @retrying
    async def image_upload(self, destination: str, sha256: str) -> str | None:
        rows = await self._fetch(
            "SELECT reference FROM image_uploads WHERE destination = $1 AND sha256 = $2",
            destination,
            sha256,
        )
        return str(rows[0][0]) if rows else None

    @retrying
    async def remember_image_upload(self, destination: str, sha256: str, reference: str) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "INSERT INTO image_uploads (destination, sha256, reference, created_at) "
                "VALUES ($1, $2, $3, now()) ON CONFLICT (destination, sha256) DO UPDATE SET "
                "reference = EXCLUDED.reference, created_at = now()",
                destination,
                sha256,
                reference,
            )
