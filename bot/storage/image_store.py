"""The port for quiz images in the database: their bytes, named by their SHA-256, and what each
platform gave back for them (Telegram's ``file_id``).

Images live in the database rather than only beside the quiz files so that every replica, and a
process restarted on a wiped disk, can send them (:func:`bot.quiz_images.store_quiz_images`
writes a quiz's images when it is loaded). Content-addressed: the same picture in two quizzes is
stored once, and a redrawn one is a new image.
"""

from __future__ import annotations

import abc
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class StoredImage:
    """An image's bytes and what they are."""

    sha256: str
    media_type: str
    data: bytes


class ImageStore(Protocol):
    """Image bytes by SHA-256, and the platforms' references to uploaded copies."""

    @abc.abstractmethod
    async def missing_images(self, sha256s: Collection[str]) -> set[str]:
        """Which of ``sha256s`` the database holds no bytes for (one round trip)."""

    @abc.abstractmethod
    async def put_image(self, image: StoredImage) -> None:
        """Store the image under its SHA-256; an image already there is left as it is."""

    @abc.abstractmethod
    async def get_image(self, sha256: str) -> StoredImage | None: ...

    @abc.abstractmethod
    async def image_upload(self, destination: str, sha256: str) -> str | None:
        """What ``destination`` (one platform account, e.g. ``telegram:<bot id>``) gave back
        for its upload of the image, if it was uploaded there."""

    @abc.abstractmethod
    async def remember_image_upload(self, destination: str, sha256: str, reference: str) -> None:
        """Keep ``reference`` for the image at ``destination`` (in place of any earlier one,
        which the platform may have stopped honouring): later sends reuse it instead of
        uploading the bytes again."""
