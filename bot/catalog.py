"""The set of quizzes the bot serves, and the versions that attempts in progress still play."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from bot.quiz import Quiz
from bot.quiz_cache import QuizCache
from bot.quiz_loader import LoadReport, load_quizzes

PINNED_VERSIONS = 64  # older versions kept in memory, most recently used first


class OlderVersions(Protocol):
    """Where the catalog finds a version it does not hold (the quiz library)."""

    async def pinned_version(self, quiz_id: str, version: int) -> Quiz | None:
        """``quiz_id`` at ``version``, current or not, hidden or not; None if unknown."""


class QuizCatalog:
    """Quizzes by id, each at its current version (:attr:`Quiz.version`).

    The quiz library (:class:`bot.library.QuizLibrary`) fills it with what the database
    serves (:meth:`publish`) and answers for older versions (:attr:`older`), which attempts
    and rounds started before an edit keep playing (:meth:`pinned`). Without a library (a
    catalog made from files or quizzes, as tests and ``quizbot validate`` make them) every
    quiz is version 1, and a reload that finds a broken file keeps that file's previous
    quizzes.
    """

    def __init__(
        self,
        quizzes: Iterable[Quiz] = (),
        paths: Iterable[Path] = (),
        cache_dir: Path | None = None,
    ) -> None:
        self._quizzes = {q.id: q for q in quizzes}
        self._current: dict[str, Quiz] = dict(self._quizzes)  # hidden ones too
        self._older: OrderedDict[tuple[str, int], Quiz] = OrderedDict()
        self.older: OlderVersions | None = None
        self.paths = tuple(paths)
        self.cache = QuizCache(cache_dir) if cache_dir is not None else None

    @classmethod
    def from_paths(
        cls, paths: Iterable[Path], *, cache_dir: Path | None = None
    ) -> tuple[QuizCatalog, LoadReport]:
        """Load every quiz file under ``paths``; broken files are left out and reported.

        Validated files are cached in ``cache_dir`` (None: no cache), so an unchanged file is
        not parsed again on the next start.
        """
        catalog = cls(paths=tuple(paths), cache_dir=cache_dir)
        report = catalog.reload()
        return catalog, report

    def reload(self) -> LoadReport:
        """Read the files again (a catalog without a library; the library publishes instead)."""
        report = load_quizzes(self.paths, cache=self.cache)
        broken = {problem.path for problem in report.errors}
        loaded = {q.id: q for q in report.quizzes}
        for quiz in self._quizzes.values():
            if quiz.source in broken and quiz.id not in loaded:
                loaded[quiz.id] = quiz
        self.publish(loaded.values())
        return report

    def publish(self, quizzes: Iterable[Quiz], hidden: Iterable[Quiz] = ()) -> None:
        """Serve ``quizzes`` from now on (and nothing else); ``hidden`` ones are not served
        but still answer :meth:`pinned` for the attempts that play them. A version replaced
        here stays at hand (:meth:`pinned_now`) for the attempts still playing it."""
        for quiz in self._current.values():
            self._keep(quiz)
        self._quizzes = {q.id: q for q in sorted(quizzes, key=lambda q: q.id)}
        self._current = {**{q.id: q for q in hidden}, **self._quizzes}

    def _keep(self, quiz: Quiz) -> None:
        self._older[(quiz.id, quiz.version)] = quiz
        self._older.move_to_end((quiz.id, quiz.version))
        while len(self._older) > PINNED_VERSIONS:
            self._older.popitem(last=False)

    def get(self, quiz_id: str) -> Quiz | None:
        """The quiz served under ``quiz_id`` now (None: no such quiz, or it is hidden)."""
        return self._quizzes.get(quiz_id)

    def all(self) -> list[Quiz]:
        return list(self._quizzes.values())

    def __len__(self) -> int:
        return len(self._quizzes)

    def pinned_now(self, quiz_id: str, version: int) -> Quiz | None:
        """``quiz_id`` at ``version`` if this process holds it (see :meth:`pinned`)."""
        current = self._current.get(quiz_id)
        if current is not None and current.version == version:
            return current
        return self._older.get((quiz_id, version))

    async def pinned(self, quiz_id: str, version: int) -> Quiz | None:
        """``quiz_id`` at ``version``: what an attempt or round started on it plays to its
        end, after newer versions were published or the quiz was hidden."""
        quiz = self.pinned_now(quiz_id, version)
        if quiz is not None or self.older is None:
            return quiz
        quiz = await self.older.pinned_version(quiz_id, version)
        if quiz is not None:
            self._keep(quiz)
        return quiz
