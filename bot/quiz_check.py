"""The check ``quizbot validate`` makes of quiz files, shared by ``quizbot import`` and by
uploads in chat (:mod:`bot.uploads`), so all three say the same about the same file."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path

from bot.quiz_loader import LoadReport, QuizProblem, load_quizzes, quiz_files

# A further check of one quiz file (the JSON Schema's, which lives with the application):
# the problems it finds, at their lines.
FileCheck = Callable[[Path], list[QuizProblem]]


def check_quiz_files(
    paths: Iterable[Path], *, extra: FileCheck | None = None, base: Path | None = None
) -> LoadReport:
    """Load and validate the quiz files under ``paths`` (missing ones are skipped: the caller
    names them); ``extra`` adds what it alone notices (a line the loader reported already is
    not reported twice). With ``base``, problems name files relative to it."""
    existing = [p for p in paths if p.exists()]
    report = load_quizzes(existing, base=base)
    if extra is None:
        return report
    reported = {(e.path, e.line) for e in report.errors}
    for file in quiz_files(existing):
        for problem in extra(file):
            shown = problem.path
            if base is not None:
                with contextlib.suppress(ValueError):
                    shown = str(Path(problem.path).resolve().relative_to(base.resolve()))
            if (shown, problem.line) not in reported:
                report.errors.append(QuizProblem(shown, problem.line, problem.message))
    return report
