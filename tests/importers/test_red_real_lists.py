"""Every trivia list Red-DiscordBot ships imports into quizzes that validate.

The lists are GPL-3.0 and not in this repository: ``scripts/red-trivia-lists`` downloads them
from PyPI (CI does, with ``REQUIRE_RED_LISTS=1`` so that their absence fails instead of
skipping). ``RED_LISTS_DIR`` names the folder of ``*.yaml`` lists.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from bot.answer_matching import normalize
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.importers import ImportResult, dump_quiz_yaml, import_quiz, quiz_parts
from bot.quiz_loader import load_quiz_text
from bot.storage import SQLiteStorage
from bot.views import AnswerOutcome, Participant
from tests.conftest import ROOT


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
    for part, _ in quiz_parts(result.quiz):
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


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
async def test_a_real_list_plays_to_the_end_with_its_own_answers(path: Path, tmp_path) -> None:
    """Imported and written as `quizbot import` does, each list is served and played: the
    first accepted spelling of every question counts as right, a wrong guess as wrong."""
    part, _ = next(iter(quiz_parts(import_quiz(path, "red").quiz)))
    (tmp_path / f"{path.stem}.yaml").write_text(dump_quiz_yaml(part), encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([tmp_path])
    assert [str(e) for e in report.errors] == []
    quiz = catalog.all()[0]
    storage = SQLiteStorage(tmp_path / "play.db")
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage, rng=random.Random(0))
        who = Participant("terminal", "player", "Player", "en")
        started = await engine.start(who, quiz.id)
        question = started.question
        right = 0
        while question is not None:
            asked = quiz.question(question.question_id)
            assert asked is not None and asked.answers is not None
            guess = asked.answers.get("en")[0] if question.number % 2 else "zzqxzzqx"
            feedback = await engine.answer_text(who, question.attempt_id, question.number, guess)
            assert feedback.outcome is AnswerOutcome.ACCEPTED
            assert feedback.correct == (question.number % 2 == 1), (question.text, guess)
            right += feedback.correct
            question = feedback.next_question
        assert feedback.result is not None and feedback.result.correct == right
    finally:
        await storage.close()
