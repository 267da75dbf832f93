"""The quiz library: publishing validated quizzes to the database, and serving what it holds.

Every published quiz version lives in the database (:mod:`bot.storage.library`), so every
replica serves the same ones: QUIZ_DIR's files are published at start and by ``/reload``,
``quizbot publish`` and uploads in chat publish too, and each replica notices a change within
:data:`POLL_SECONDS` by polling the library's revision (one small read). A file that fails
validation publishes nothing, so the version already published stays live.

The catalog (:class:`~bot.catalog.QuizCatalog`) holds what this process serves; the library
fills it, and answers it for older versions, which attempts and rounds started before an edit
keep playing to their end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from bot.catalog import QuizCatalog
from bot.quiz import Quiz
from bot.quiz_cache import BadEntry, decode_quiz, encode_quiz, quiz_content_hash
from bot.quiz_check import FileCheck
from bot.quiz_images import store_quiz_images
from bot.quiz_loader import LoadReport, load_quizzes
from bot.storage import (
    ImageStore,
    LibraryStore,
    NewQuizVersion,
    QuizVersionRecord,
    StorageError,
    VersionSource,
)

log = logging.getLogger(__name__)
POLL_SECONDS = 2.0  # how soon a replica notices what another one published


@dataclass(frozen=True)
class Publication:
    """What publishing one quiz did: the version it serves now, and whether that version is
    new (False: the same content was published before)."""

    version: QuizVersionRecord
    new: bool


class ImagesNotStored(StorageError):
    """An uploaded or explicitly published quiz whose images the database did not take:
    nothing of it is published, since no replica could show them once its files are gone."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__(f"images not stored: {'; '.join(problems)}")
        self.problems = tuple(problems)


@dataclass
class PublishReport:
    """What a publish found (the quizzes' load report: errors name ``file:line``) and did."""

    load: LoadReport
    publications: list[Publication] = field(default_factory=list)


class LibraryStorage(LibraryStore, ImageStore, Protocol):
    """What the library keeps: quiz versions, and the images they show."""


class QuizLibrary:
    """Publishes quizzes to ``store`` and keeps ``catalog`` serving what it holds."""

    def __init__(
        self,
        catalog: QuizCatalog,
        store: LibraryStorage,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        file_check: FileCheck | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.clock = clock
        self.file_check = file_check  # what uploads are checked with beside the loader
        self._revision: int | None = None  # the revision the catalog reflects
        self._adopted = False
        self._lock = asyncio.Lock()  # one publish or refresh at a time in this process
        catalog.older = self

    # -- publishing -----------------------------------------------------------------------

    async def publish_quiz_dir(self) -> PublishReport:
        """Read QUIZ_DIR (the catalog's paths) and publish what is new in it: at start, and
        for ``/reload``. A broken file publishes nothing: its quizzes stay as they are."""
        report = await asyncio.to_thread(load_quizzes, self.catalog.paths, cache=self.catalog.cache)
        return await self.publish(report, VersionSource.FILE, None)

    async def publish(
        self,
        report: LoadReport,
        source: VersionSource,
        by: str | None,
    ) -> PublishReport:
        """Publish the valid quizzes of ``report`` (those of files without errors), each as
        a new version when its content is news (see
        :meth:`~bot.storage.library.LibraryStore.publish_quiz_version`), with the images they
        show (read from their files now). The catalog serves them before this returns."""
        explicit = source is not VersionSource.FILE
        async with self._lock:
            await self._adopt()
            # The images first, while their files are still there (an upload's folder is
            # deleted after this), so that every replica can send them; one read when the
            # database has them all.
            images = await store_quiz_images(self.store, report.quizzes)
            if images.problems and explicit:
                raise ImagesNotStored(images.problems)
            # What is current already needs no write, nor encoding (its hash tells): a restart
            # with unchanged files is one read.
            current = {v.quiz_id: v for v in await self.store.current_quiz_versions()}
            done = PublishReport(report)
            for quiz in report.quizzes:
                content_hash = quiz_content_hash(quiz)
                known = current.get(quiz.id)
                if known and known.content_hash == content_hash and not known.hidden:
                    done.publications.append(Publication(known, False))
                    continue
                new = self._new_version(quiz, content_hash, source, by)
                version, created = await self.store.publish_quiz_version(new, explicit=explicit)
                done.publications.append(Publication(version, created))
            await self._refresh()
        return done

    def _new_version(
        self, quiz: Quiz, content_hash: str, source: VersionSource, by: str | None
    ) -> NewQuizVersion:
        return NewQuizVersion(
            quiz_id=quiz.id,
            content=encode_quiz(quiz),
            content_hash=content_hash,
            question_count=len(quiz.questions),
            source=source,
            published_by=by,
            published_at=self.clock(),
        )

    async def _adopt(self) -> None:
        """Before the first publish, publish what the catalog was made with (a catalog
        loaded from files without the library: nothing in production, where the catalog
        starts empty), so that a broken file's previous quizzes stay served."""
        if self._adopted:
            return
        for quiz in self.catalog.all():
            await self.store.publish_quiz_version(
                self._new_version(quiz, quiz_content_hash(quiz), VersionSource.FILE, None),
                explicit=False,
            )
        self._adopted = True

    async def unpublish(self, quiz_id: str) -> bool:
        """Hide a quiz everywhere: it is no longer listed or started; attempts and rounds in
        progress finish on their version. False when no such quiz is served."""
        async with self._lock:
            await self._adopt()
            hidden = await self.store.unpublish_quiz(quiz_id)
            await self._refresh()
        return hidden

    async def listing(self) -> list[QuizVersionRecord]:
        """The version every served quiz is at (hidden ones left out), by quiz id."""
        return [v for v in await self.store.current_quiz_versions() if not v.hidden]

    # -- serving --------------------------------------------------------------------------

    async def refresh(self) -> bool:
        """Serve what the library holds if it changed since last time (one small read when
        it did not); True when the catalog was renewed."""
        async with self._lock:
            return await self._refresh(only_if_changed=True)

    async def _refresh(self, *, only_if_changed: bool = False) -> bool:
        revision = await self.store.library_revision()
        if only_if_changed and revision == self._revision:
            return False
        # The revision is read first: a change landing meanwhile moves it past this one, so
        # the next poll reads again.
        records = await self.store.current_quiz_versions()
        if not records and not self._adopted:
            return False  # an empty library and a catalog made without it: keep serving that
        served: list[Quiz] = []
        hidden: list[Quiz] = []
        for record in records:
            quiz = self._decoded(record)
            if quiz is not None:
                (hidden if record.hidden else served).append(quiz)
        self.catalog.publish(served, hidden)
        self._revision = revision
        return True

    def _decoded(self, record: QuizVersionRecord) -> Quiz | None:
        known = self.catalog.pinned_now(record.quiz_id, record.version)
        if known is not None:  # decoded before: the same object, so views stay cached
            return known
        try:
            return dataclasses.replace(decode_quiz(record.content), version=record.version)
        except (BadEntry, ValueError) as exc:
            log.error(
                "quiz %s version %s in the library cannot be read by this program (%s); "
                "it is not served",
                record.quiz_id,
                record.version,
                exc,
            )
            return None

    async def pinned_version(self, quiz_id: str, version: int) -> Quiz | None:
        """``quiz_id`` at ``version``, read from the library (the catalog asks, then keeps
        it)."""
        record = await self.store.quiz_version(quiz_id, version)
        return None if record is None else self._decoded(record)

    async def watch(self, interval: float = POLL_SECONDS) -> None:
        """Poll the library until cancelled, serving what other processes publish."""
        while True:
            await asyncio.sleep(interval)
            try:
                if await self.refresh():
                    log.info("quiz library changed: now serving %d quizzes", len(self.catalog))
            except StorageError as exc:  # the database is away: keep serving, ask again later
                log.warning("quiz library not refreshed: %s", exc)
