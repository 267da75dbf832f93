"""The quiz library's port: published quiz versions, which one each quiz serves, and a
revision counter that every change bumps (what replicas poll to notice a new version).

A version is immutable once published: its content (the validated quiz as JSON, see
:func:`bot.quiz_cache.encode_quiz`), its content hash, where it came from and who published
it. Attempts and rounds name the version they play (``quiz_version``), so a version stays
readable after a newer one replaced it or the quiz was unpublished.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class VersionSource(enum.StrEnum):
    FILE = "file"  # a QUIZ_DIR file, published at start or by /reload
    UPLOAD = "upload"  # a file an admin sent in chat
    PUBLISH = "publish"  # ``quizbot publish FILE``


@dataclass(frozen=True)
class NewQuizVersion:
    """A validated quiz about to be published."""

    quiz_id: str
    content: str  # JSON
    content_hash: str
    question_count: int
    source: VersionSource
    published_by: str | None  # "telegram:123", "discord:456", a login name; None: QUIZ_DIR
    published_at: datetime


@dataclass(frozen=True)
class QuizVersionRecord:
    """One published version of a quiz; ``hidden``: the quiz is unpublished (this is the
    version it served last)."""

    quiz_id: str
    version: int
    content: str
    content_hash: str
    question_count: int
    source: VersionSource
    published_by: str | None
    published_at: datetime
    hidden: bool = False


class LibraryStore(Protocol):
    """Published quiz versions. Every write bumps the revision in the same transaction."""

    @abc.abstractmethod
    async def publish_quiz_version(
        self, new: NewQuizVersion, *, explicit: bool
    ) -> tuple[QuizVersionRecord, bool]:
        """Make ``new`` the quiz's current version, numbered one past its last (1 for a new
        quiz), unless it is no news. ``explicit`` (``quizbot publish``, an upload): no news
        when the current version has the same content hash; a hidden quiz is shown again.
        Otherwise (QUIZ_DIR, at start or on /reload): no news when any version ever had that
        hash, so a replica still running an older checkout never rolls a quiz back, and a
        hidden quiz stays hidden. Returns the version the quiz serves now (for no news: the
        current one) and whether it was created now."""

    @abc.abstractmethod
    async def current_quiz_versions(self) -> list[QuizVersionRecord]:
        """The version every quiz serves now, hidden ones included (``hidden`` says so),
        by quiz id."""

    @abc.abstractmethod
    async def quiz_version(self, quiz_id: str, version: int) -> QuizVersionRecord | None:
        """One version of a quiz, whether it is current or not."""

    @abc.abstractmethod
    async def unpublish_quiz(self, quiz_id: str) -> bool:
        """Hide the quiz (its versions stay, for attempts in progress); False when it is
        unknown or hidden already."""

    @abc.abstractmethod
    async def library_revision(self) -> int:
        """A number that changes whenever the library does: one cheap read, polled."""
