"""Typed-answer questions: the file format (loader and JSON Schema agree) and the engine."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES
from bot.quiz_loader import load_quiz_text
from bot.storage import Storage
from bot.typed_texts import TYPED_STRINGS
from bot.views import AnswerOutcome, Participant
from tests.conftest import ROOT, FakeClock, services_beside
from tests.typed_quiz import RIGHT, TYPED_QUIZ, TYPED_QUIZ_ID, WRONG, typed_catalog

ANN = Participant("terminal", "ann", "Ann", "en")
IVAN = Participant("terminal", "ivan", "Иван", "ru")
SCHEMA = json.loads((ROOT / "schema" / "quiz.schema.json").read_text(encoding="utf-8"))


def report_of(text: str) -> Any:
    return load_quiz_text(textwrap.dedent(text), "quizzes/x.yaml", "x")


def errors_of(text: str) -> list[str]:
    return [str(e) for e in report_of(text).errors]


HEAD = """\
    languages: [en, ru]
    title: T
    questions:
"""


# -- format ---------------------------------------------------------------------------------


def test_a_typed_question_loads_with_its_spellings_per_language() -> None:
    (quiz,) = load_quiz_text(TYPED_QUIZ, "quizzes/trivia.yaml", "trivia").quizzes
    band = quiz.question("band")
    assert band is not None and band.typed and band.options == ()
    assert band.answers is not None
    assert band.answers.get("ru") == ("Битлз",)
    assert band.answers.get("bn") == ("The Beatles", "Beatles")  # falls back to the default
    assert band.answers.every() == ("The Beatles", "Beatles", "Битлз")
    assert band.explanation.get("en") == ""  # imported lists have none
    franchise = quiz.question("franchise")
    assert franchise is not None and franchise.answers is not None
    assert franchise.answers.get("ru") == ("Pokémon",)  # a plain list is the default language's
    planet = quiz.question("planet")
    assert planet is not None and not planet.typed


def test_whole_numbers_are_accepted_spellings() -> None:
    (quiz,) = report_of(
        HEAD + "      - {id: q, kind: typed, text: Moon landing?, answers: [1969]}\n"
    ).quizzes
    answers = quiz.questions[0].answers
    assert answers is not None and answers.get("en") == ("1969",)


def test_a_spelling_given_twice_is_accepted_once_and_kept_stripped() -> None:
    (quiz,) = report_of(
        HEAD + "      - {id: q, kind: typed, text: Capital?, answers: [Paris, ' Paris ', Lyon]}\n"
    ).quizzes
    answers = quiz.questions[0].answers
    assert answers is not None and answers.get("en") == ("Paris", "Lyon")


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        (
            "{id: q, kind: typed, text: Q}",
            'quizzes/x.yaml:4: question "q": a typed question needs answers',
        ),
        ("{id: q, kind: typed, text: Q, answers: {ru: [да]}}", "answers has no en spellings"),
        ("{id: q, kind: typed, text: Q, answers: {de: [ja]}}", 'language "de" is not in languages'),
        ("{id: q, kind: typed, text: Q, answers: []}", "must be a non-empty list"),
        ("{id: q, kind: typed, text: Q, answers: [yes, true]}", "must be text, not bool"),
        ("{id: q, kind: typed, text: Q, answers: ['?!']}", "has no letters or digits"),
        ("{id: q, kind: typed, text: Q, answers: [yes], correct: a}", 'unknown key "correct"'),
        ("{id: q, kind: typed, text: Q, answers: [yes], options: []}", 'unknown key "options"'),
        ("{id: q, kind: open, text: Q, answers: [yes]}", 'kind "open" is not one of choice, typed'),
        (
            "{id: q, text: Q, answers: [yes], correct: a, explanation: E,"
            " options: [{id: a, text: A}, {id: b, text: B}]}",
            'unknown key "answers"',
        ),
    ],
)
def test_mistakes_in_typed_questions_are_reported_with_their_line(
    question: str, problem: str
) -> None:
    errors = errors_of(HEAD + f"      - {question}\n")
    assert any(problem in e for e in errors), errors
    assert all(e.startswith("quizzes/x.yaml:4: ") for e in errors), errors


def test_too_long_a_spelling_is_refused_at_its_line() -> None:
    text = (
        HEAD
        + "      - id: q\n        kind: typed\n        text: Q\n"
        + "        answers:\n          - ok\n          - "
        + "x" * 201
        + "\n"
    )
    assert errors_of(text) == [
        'quizzes/x.yaml:9: question "q": answers (en) is 201 characters; the limit is 200'
    ]


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_accepts_what_the_loader_accepts(validator: Any) -> None:
    assert list(validator.iter_errors(yaml.safe_load(TYPED_QUIZ))) == []


@pytest.mark.parametrize(
    "question",
    [
        {"id": "q", "kind": "typed", "text": "Q"},
        {"id": "q", "kind": "typed", "text": "Q", "answers": ["a"], "correct": "a"},
        {"id": "q", "kind": "typed", "text": "Q", "answers": []},
        {"id": "q", "kind": "typed", "text": "Q", "answers": {"en": ["x" * 201]}},
        {"id": "q", "kind": "open", "text": "Q", "answers": ["a"]},
        {"id": "q", "text": "Q", "answers": ["a"]},
    ],
)
def test_the_schema_refuses_what_the_loader_refuses(
    validator: Any, question: dict[str, Any]
) -> None:
    doc = {"title": "T", "questions": [question]}
    assert list(validator.iter_errors(doc)) != []
    assert load_quiz_text(yaml.safe_dump(doc), "x.yaml", "x").errors != []


# -- engine ---------------------------------------------------------------------------------


@pytest.fixture
def engine(tmp_path: Path, storage: Any) -> QuizEngine:
    return QuizEngine(typed_catalog(tmp_path), storage, clock=FakeClock())


async def test_a_full_typed_quiz_scores_and_shows_the_accepted_answer(engine: QuizEngine) -> None:
    start = await engine.start(ANN, TYPED_QUIZ_ID)
    question = start.question
    assert question is not None and question.typed and question.options == ()
    feedback = await engine.answer_text(ANN, question.attempt_id, question.number, RIGHT["band"])
    assert feedback.outcome is AnswerOutcome.ACCEPTED and feedback.correct
    assert feedback.typed_answer == "the beatles"
    assert feedback.accepted_answer == "The Beatles"
    assert feedback.explanation == ""
    question = feedback.next_question
    assert question is not None and question.question_id == "franchise"
    feedback = await engine.answer_text(
        ANN, question.attempt_id, question.number, WRONG["franchise"]
    )
    assert feedback.outcome is AnswerOutcome.ACCEPTED and feedback.correct is False
    assert feedback.accepted_answer == "Pokémon"
    question = feedback.next_question
    assert question is not None and not question.typed  # a choice question in between
    choice = await engine.answer_by_position(ANN, question.attempt_id, question.number, 1)
    assert choice.correct
    question = choice.next_question
    assert question is not None and question.question_id == "city"
    feedback = await engine.answer_text(ANN, question.attempt_id, question.number, "moscow")
    assert feedback.correct and feedback.explanation == "Moscow has been the capital since 1918."
    assert feedback.result is not None
    assert [m.correct for m in feedback.result.marks] == [True, False, True, True]


async def test_any_languages_spelling_counts_and_feedback_is_in_the_players_language(
    engine: QuizEngine,
) -> None:
    question = (await engine.start(IVAN, TYPED_QUIZ_ID)).question
    assert question is not None and question.text == "Какая группа записала Abbey Road?"
    feedback = await engine.answer_text(IVAN, question.attempt_id, 1, "Beatles")
    assert feedback.correct and feedback.accepted_answer == "Битлз"


async def test_the_first_typed_answer_counts_and_a_redelivery_gets_the_same_feedback(
    engine: QuizEngine,
    storage: Storage,
) -> None:
    question = (await engine.start(ANN, TYPED_QUIZ_ID)).question
    assert question is not None
    first = await engine.answer_text(ANN, question.attempt_id, 1, WRONG["band"])
    again = await engine.answer_text(ANN, question.attempt_id, 1, WRONG["band"])
    assert again.outcome is AnswerOutcome.DUPLICATE
    assert (again.correct, again.typed_answer, again.next_question) == (
        first.correct,
        first.typed_answer,
        first.next_question,
    )
    other = await engine.answer_text(ANN, question.attempt_id, 1, RIGHT["band"])
    assert other.outcome is AnswerOutcome.ALREADY_ANSWERED and other.correct is False
    answers = await storage.answers(question.attempt_id)
    assert [(a.question_id, a.option_id, a.correct) for a in answers] == [
        ("band", "The Rolling Stones", False)
    ]


async def test_concurrent_typed_redeliveries_are_recorded_once(
    engine: QuizEngine, storage: Storage
) -> None:
    question = (await engine.start(ANN, TYPED_QUIZ_ID)).question
    assert question is not None
    results = await asyncio.gather(
        *(engine.answer_text(ANN, question.attempt_id, 1, "Beatles") for _ in range(5))
    )
    assert sorted(r.outcome for r in results).count(AnswerOutcome.ACCEPTED) == 1
    assert len(await storage.answers(question.attempt_id)) == 1


async def test_typed_and_choice_answers_cannot_be_swapped_or_forged(
    engine: QuizEngine, storage: Storage
) -> None:
    question = (await engine.start(ANN, TYPED_QUIZ_ID)).question
    assert question is not None
    attempt = question.attempt_id
    assert (await engine.answer_by_position(ANN, attempt, 1, 0)).outcome is AnswerOutcome.INVALID
    assert (
        await engine.answer_by_option(ANN, attempt, "band", "Beatles")
    ).outcome is AnswerOutcome.INVALID
    assert (await engine.answer_text(ANN, attempt, 1, "   ")).outcome is AnswerOutcome.INVALID
    assert (await engine.answer_text(ANN, attempt, 9, "x")).outcome is AnswerOutcome.INVALID
    assert (await engine.answer_text(ANN, attempt, 2, "pokemon")).outcome is AnswerOutcome.STALE
    bob = Participant("terminal", "bob", "Bob", "en")
    assert (await engine.answer_text(bob, attempt, 1, "Beatles")).outcome is AnswerOutcome.NOT_YOURS
    assert await storage.answers(attempt) == []
    feedback = await engine.answer_text(ANN, attempt, 1, "Beatles")
    planet = feedback.next_question
    assert planet is not None
    await engine.answer_text(ANN, attempt, 2, "pokemon")
    assert (await engine.answer_text(ANN, attempt, 3, "Jupiter")).outcome is AnswerOutcome.INVALID


async def test_typed_answers_count_in_stats_and_come_back_in_review(engine: QuizEngine) -> None:
    question = (await engine.start(ANN, TYPED_QUIZ_ID)).question
    assert question is not None
    await engine.answer_text(ANN, question.attempt_id, 1, WRONG["band"])
    (stats,) = await engine.stats(TYPED_QUIZ_ID)
    band = stats.questions[0]
    assert (band.answered, band.correct, band.options) == (1, 0, ())
    review = await engine.start_review(ANN, TYPED_QUIZ_ID)
    assert review.question is not None and review.question.question_id == "band"
    assert review.question.typed
    feedback = await engine.answer_text(ANN, review.question.attempt_id, 1, RIGHT["band"])
    assert feedback.correct and feedback.result is not None


async def test_group_rounds_leave_typed_questions_out(engine: QuizEngine) -> None:
    start = await services_beside(engine).rounds.start("terminal", "chat", ANN, TYPED_QUIZ_ID)
    assert start.question is not None
    assert (start.question.number, start.question.total) == (1, 1)
    assert start.question.text == "Which planet is the largest?"


async def test_a_round_of_a_quiz_with_only_typed_questions_says_why_it_cannot_start(
    tmp_path: Path, storage: Any
) -> None:
    before, rest = TYPED_QUIZ.split("  - id: planet")
    text = before + "  - id: city" + rest.split("  - id: city")[1]  # without the choice question
    folder = tmp_path / "only-typed"
    folder.mkdir()
    (folder / "trivia.yaml").write_text(text, encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([folder])
    assert not report.errors, report.errors
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    start = await services_beside(engine).rounds.start("terminal", "chat", ANN, TYPED_QUIZ_ID)
    assert start.question is None
    assert "only typed-answer questions" in start.notice
    assert await services_beside(engine).rounds.running("terminal", "chat") is None


def test_every_typed_string_is_in_every_supported_language() -> None:
    for key, by_language in TYPED_STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
