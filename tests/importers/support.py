"""Helpers for the importer tests: the samples, source lines and the round trip to the loader."""

from __future__ import annotations

from pathlib import Path

from bot.importers import ImportResult, dump_quiz_yaml
from bot.quiz import Question, Quiz
from bot.quiz_loader import LoadReport, load_quiz_text

SAMPLES = Path(__file__).resolve().parent / "samples"


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of an occurrence of ``needle`` (the first by default) in ``path``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = [number for number, line in enumerate(lines, start=1) if needle in line]
    assert len(found) >= occurrence, f"{needle!r} is not {occurrence} times in {path.name}"
    return found[occurrence - 1]


def reload(result: ImportResult, shown: str = "quizzes/imported.yaml") -> LoadReport:
    """Dump the imported quiz and read it back with the real loader."""
    return load_quiz_text(dump_quiz_yaml(result.quiz), shown, "imported")


def round_trip(result: ImportResult) -> Quiz:
    """The quiz the loader makes of the dumped import, which must have no errors or warnings."""
    report = reload(result)
    assert report.errors == [], [str(e) for e in report.errors]
    assert report.warnings == []
    (quiz,) = report.quizzes
    return quiz


def summary(question: Question) -> tuple[str, list[str], str, list[str | None], str]:
    """A question as (text, option texts, correct text, notes, explanation) in English."""
    right = question.option(question.correct_option_id)
    assert right is not None
    return (
        question.text.get("en"),
        [option.text.get("en") for option in question.options],
        right.text.get("en"),
        [option.note.get("en") if option.note else None for option in question.options],
        question.explanation.get("en"),
    )


def problems_by_line(result: ImportResult) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for problem in result.problems:
        found.setdefault(problem.line, []).append(problem.message)
    return found
