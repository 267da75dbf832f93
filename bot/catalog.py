"""The set of quizzes the bot serves, reloadable without losing the ones that still work."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bot.quiz import Quiz
from bot.quiz_cache import QuizCache
from bot.quiz_loader import LoadReport, load_quizzes


class QuizCatalog:
    """Quizzes by id. A reload that finds a broken file keeps that file's previous quizzes."""

    def __init__(
        self,
        quizzes: Iterable[Quiz] = (),
        paths: Iterable[Path] = (),
        cache_dir: Path | None = None,
    ) -> None:
        self._quizzes = {q.id: q for q in quizzes}
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
        report = load_quizzes(self.paths, cache=self.cache)
        broken = {problem.path for problem in report.errors}
        loaded = {q.id: q for q in report.quizzes}
        for quiz in self._quizzes.values():
            if quiz.source in broken and quiz.id not in loaded:
                loaded[quiz.id] = quiz
        self._quizzes = dict(sorted(loaded.items()))
        return report

    def get(self, quiz_id: str) -> Quiz | None:
        return self._quizzes.get(quiz_id)

    def all(self) -> list[Quiz]:
        return list(self._quizzes.values())

    def __len__(self) -> int:
        return len(self._quizzes)
