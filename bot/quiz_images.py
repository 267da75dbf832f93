"""Quiz images in the database: stored when quizzes are loaded, read back when they are sent.

:func:`store_quiz_images` is the one step that puts a quiz's images into the database (start-up
and ``/reload`` call it; so does anything else that publishes a quiz). :class:`QuizImages` is
what adapters send from: an image's bytes (kept in memory for a while, read from the database,
or, failing that, from the file it was loaded from) and the reference a platform gave back for
an upload (Telegram's ``file_id``), so that each image is uploaded once per bot.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bot.image_files import EXTENSIONS, ImageProblem, read_image_file, sha256_of
from bot.quiz import Quiz, QuizImage
from bot.storage import ImageStore, StorageError, StoredImage
from bot.text_direction import prepare
from bot.views import ImageView

log = logging.getLogger(__name__)

MEMORY_BYTES = 32 * 1024 * 1024  # image bytes kept in memory between sends, at most
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def image_view(image: QuizImage, language: str, *, explanation: bool = False) -> ImageView:
    """``image`` as shown in ``language``: its alt text there, and a plain file name (the
    file's own name, made safe, with the extension of what it really is). An
    ``explanation``'s file name says so: a message may carry the question's image too, and
    Discord tells a message's files apart by their names."""
    stem = _UNSAFE.sub("_", Path(image.file).stem).strip("_")[:60] or "image"
    if explanation:
        stem = f"explanation-{stem}"
    alt = prepare(image.alt.get(language), language) if image.alt is not None else ""
    return ImageView(
        sha256=image.sha256,
        media_type=image.media_type,
        filename=f"{stem}.{EXTENSIONS[image.media_type]}",
        alt=alt,
        path=image.path,
        width=image.width,
        height=image.height,
    )


def read_from_file(image: QuizImage) -> bytes:
    """The bytes of ``image`` from the file it was loaded from."""
    return read_image_file(Path(image.path))


@dataclass
class StoredImages:
    """What :func:`store_quiz_images` did: images newly stored, and those it could not."""

    stored: list[QuizImage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


async def store_quiz_images(
    store: ImageStore,
    quizzes: Iterable[Quiz],
    read: Callable[[QuizImage], bytes] = read_from_file,
) -> StoredImages:
    """Put every image of ``quizzes`` that the database lacks into it, under its SHA-256.

    ``read`` gives an image's bytes (by default from its file; bytes that no longer match the
    digest checked at load are not stored). One read of what is there, then one write per
    new image: a restart with nothing new costs one round trip. Failures are logged and
    returned, never raised: the quizzes are served anyway, and an image missing from the
    database is read from its file when it is sent.
    """
    done = StoredImages()
    images = {image.sha256: image for quiz in quizzes for image in quiz.images}
    if not images:
        return done
    try:
        missing = await store.missing_images(images.keys())
        for sha256 in sorted(missing):
            image = images[sha256]
            try:
                data = await asyncio.to_thread(read, image)
            except ImageProblem as problem:
                done.problems.append(f"{image.path}: {problem}")
                continue
            if sha256_of(data) != sha256:
                done.problems.append(f"{image.path}: changed since the quiz was loaded")
                continue
            await store.put_image(StoredImage(sha256, image.media_type, data))
            done.stored.append(image)
    except StorageError as exc:
        done.problems.append(f"the database did not take the images: {exc}")
    for reason in done.problems:
        log.warning("quiz image not stored: %s", reason)
    return done


class QuizImages:
    """The images adapters send: their bytes and the platforms' references to uploads."""

    def __init__(self, store: ImageStore, *, memory_bytes: int = MEMORY_BYTES) -> None:
        self._store = store
        self._memory: OrderedDict[str, bytes] = OrderedDict()  # sha256 -> bytes, newest last
        self._memory_bytes = memory_bytes
        self._kept = 0  # bytes in _memory
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def data(self, image: ImageView) -> bytes | None:
        """The image's bytes: from memory, the database, or the file it was loaded from
        (whichever has them, checked against the digest); None when none has."""
        known = self._memory.get(image.sha256)
        if known is not None:
            self._memory.move_to_end(image.sha256)
            return known
        data = await self._from_database(image.sha256) or await self._from_file(image)
        if data is not None:
            self._keep(image.sha256, data)
        return data

    async def _from_database(self, sha256: str) -> bytes | None:
        try:
            stored = await self._store.get_image(sha256)
        except StorageError as exc:
            log.warning("quiz image %s not read from the database: %s", sha256[:12], exc)
            return None
        if stored is None or sha256_of(stored.data) != sha256:
            return None
        return stored.data

    @staticmethod
    async def _from_file(image: ImageView) -> bytes | None:
        try:
            data = await asyncio.to_thread(read_image_file, Path(image.path))
        except ImageProblem:
            return None
        return data if sha256_of(data) == image.sha256 else None

    def _keep(self, sha256: str, data: bytes) -> None:
        if len(data) > self._memory_bytes or sha256 in self._memory:
            return
        self._memory[sha256] = data
        self._kept += len(data)
        while self._kept > self._memory_bytes:
            _, dropped = self._memory.popitem(last=False)
            self._kept -= len(dropped)

    def uploading(self, destination: str, sha256: str) -> asyncio.Lock:
        """Held while one image is uploaded to one destination, so that sends of the same
        image at once in this process upload it once and the others reuse the reference."""
        return self._locks.setdefault((destination, sha256), asyncio.Lock())

    async def upload_reference(self, destination: str, sha256: str) -> str | None:
        """The reference ``destination`` gave back for this image (None: upload it)."""
        try:
            return await self._store.image_upload(destination, sha256)
        except StorageError as exc:
            log.warning("image upload reference not read: %s", exc)
            return None

    async def remember_upload(self, destination: str, sha256: str, reference: str) -> None:
        """Keep what ``destination`` gave back for its upload of the image (a failure only
        costs another upload later)."""
        try:
            await self._store.remember_image_upload(destination, sha256, reference)
        except StorageError as exc:
            log.warning("image upload reference not kept: %s", exc)
