"""Every trivia list Red-DiscordBot ships imports into quizzes that validate.

The lists are GPL-3.0 and not in this repository: ``scripts/red-trivia-lists`` downloads them
from PyPI (CI does, with ``REQUIRE_RED_LISTS=1`` so that their absence fails instead of
skipping). ``RED_LISTS_DIR`` names the folder of ``*.yaml`` lists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.importers import ImportResult, dump_quiz_yaml, import_quiz, quiz_parts
from bot.importers.base import normalize
from bot.quiz_loader import load_quiz_text
from tests.conftest import ROOT
from tests.importers.support import without_typed


def _lists_dir() -> Path | None:
    named = os.environ.get("RED_LISTS_DIR")
    if named:
        return Path(named)
    cached = sorted((ROOT / ".cache" / "red-trivia-lists").glob("*/.complete"))
    return cached[-1].parent if cached else None


LISTS_DIR = _lists_dir()
LISTS = sorted(LISTS_DIR.glob("*.yaml")) if LISTS_DIR and LISTS_DIR.is_dir() else []
REQUIRED = os.environ.get("REQUIRE_RED_LISTS") == "1"


def test_the_real_lists_are_there_when_required() -> None:
    if not REQUIRED and not LISTS:
        pytest.skip("Red's lists are not downloaded (run scripts/red-trivia-lists)")
    assert len(LISTS) >= 50, f"expected Red's ~54 bundled lists in {LISTS_DIR}"


def _validated(result: ImportResult, path: Path) -> int:
    """Validate every part of the import; the number of questions the loader accepted."""
    accepted = 0
    for part, _ in quiz_parts(without_typed(result).quiz):
        if not part["questions"]:
            continue
        report = load_quiz_text(dump_quiz_yaml(part), f"quizzes/{path.stem}.yaml", path.stem)
        assert [str(e) for e in report.errors] == []
        accepted += sum(len(q.questions) for q in report.quizzes)
    return accepted


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
def test_a_real_list_imports_as_typed_questions_that_validate(path: Path) -> None:
    result = import_quiz(path, "red")
    quiz = result.quiz
    assert quiz["description"]["en"]  # every bundled list has a DESCRIPTION (or an AUTHOR)
    texts = {q["text"]["en"] for q in quiz["questions"]}
    assert not {"AUTHOR", "DESCRIPTION", "CONFIG", "$schema"} & texts
    assert len(quiz["questions"]) >= 40
    assert all(q["kind"] == "typed" and q["answers"]["en"] for q in quiz["questions"])
    skipped = [p for p in result.problems if p.message.endswith("skipped")]
    assert skipped == []  # every bundled question is kept
    _validated(result, path)


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
def test_a_real_list_imports_as_multiple_choice_that_validates(path: Path) -> None:
    result = import_quiz(path, "red", choices=4)
    choice = [q for q in result.quiz["questions"] if "options" in q]
    assert len(choice) >= 0.9 * len(result.quiz["questions"])
    typed = {
        q["text"]["en"]: q["answers"]["en"] for q in import_quiz(path, "red").quiz["questions"]
    }
    for question in choice:
        right = next(o for o in question["options"] if o["id"] == question["correct"])
        wrong = [o["text"]["en"] for o in question["options"] if o is not right]
        accepted = {normalize(a).replace(" ", "") for a in typed[question["text"]["en"]]}
        assert not {normalize(w).replace(" ", "") for w in wrong} & accepted
    assert _validated(result, path) >= len(choice)
