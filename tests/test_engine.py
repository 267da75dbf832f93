"""The engine's rules as a user meets them: order, idempotency, stale presses, languages."""

from __future__ import annotations

import asyncio
import random
import textwrap
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.text_direction import strip_controls
from bot.views import AnswerOutcome, Participant, QuestionView, StartOutcome
from tests.conftest import SEED_QUIZ, FakeClock


@pytest.fixture
def storage(any_storage):
    """Every engine test runs on every storage backend."""
    return any_storage


ANN = Participant("telegram", "1", "Ann", "en-US")
BOB = Participant("telegram", "2", "Bob", "en")


def correct_index(catalog: QuizCatalog, view: QuestionView) -> int:
    quiz = catalog.get(view.quiz_id)
    assert quiz is not None
    question = quiz.question(view.question_id)
    assert question is not None
    return next(i for i, o in enumerate(view.options) if o.id == question.correct_option_id)


def wrong_index(catalog: QuizCatalog, view: QuestionView) -> int:
    return (correct_index(catalog, view) + 1) % len(view.options)


async def test_start_shows_the_first_question_with_letters_and_progress(engine, catalog):
    start = await engine.start(ANN, SEED_QUIZ)
    assert start.outcome is StartOutcome.STARTED
    question = start.question
    assert (question.number, question.total) == (1, 8)
    assert [o.letter for o in question.options] == ["A", "B", "C", "D"]
    assert question.text == "Why are large-model checkpoints split into shards?"
    seed = catalog.get(SEED_QUIZ).questions[0]
    assert sorted(o.id for o in question.options) == sorted(o.id for o in seed.options)


async def test_a_full_run_scores_right_and_explains_every_answer(engine, catalog):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    expected_marks = []
    while question is not None:
        right = question.number % 3 != 0  # answer some wrong on purpose
        index = correct_index(catalog, question) if right else wrong_index(catalog, question)
        feedback = await engine.answer_by_position(ANN, question.attempt_id, question.number, index)
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        assert feedback.correct is right
        assert feedback.notice == ("✅ Correct" if right else "❌ Not quite")
        assert feedback.explanation and len(feedback.explanation) > 50
        assert (
            feedback.correct_option.id
            == catalog.get(SEED_QUIZ).question(question.question_id).correct_option_id
        )
        if not right:
            assert feedback.wrong_note  # the seed quiz explains every wrong option
        expected_marks.append(right)
        question = feedback.next_question
    result = feedback.result
    assert [m.correct for m in result.marks] == expected_marks
    assert (result.correct, result.total) == (sum(expected_marks), 8)
    assert result.percent == round(100 * sum(expected_marks) / 8)


async def test_shuffled_order_is_fixed_per_attempt_and_survives_resume(catalog, storage):
    engine = QuizEngine(catalog, storage, clock=FakeClock(), rng=random.Random(7))
    first = (await engine.start(ANN, SEED_QUIZ)).question
    again = await engine.start(ANN, SEED_QUIZ)
    assert again.outcome is StartOutcome.RESUMED
    assert again.question == first
    # Other attempts get their own order: over a few users at least one differs.
    orders = set()
    for n in range(5):
        view = (await engine.start(Participant("t", f"u{n}"), SEED_QUIZ)).question
        assert view is not None
        orders.add(tuple(o.id for o in view.options))
    assert len(orders) > 1


async def test_the_same_answer_twice_is_recorded_once_with_the_same_feedback(
    engine, catalog, storage
):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    index = correct_index(catalog, question)
    first = await engine.answer_by_position(ANN, question.attempt_id, 1, index)
    second = await engine.answer_by_position(ANN, question.attempt_id, 1, index)
    assert first.outcome is AnswerOutcome.ACCEPTED
    assert second.outcome is AnswerOutcome.DUPLICATE
    assert (second.correct, second.explanation, second.chosen) == (
        first.correct,
        first.explanation,
        first.chosen,
    )
    assert second.next_question == first.next_question
    assert len(await storage.answers(question.attempt_id)) == 1


async def test_concurrent_double_taps_are_counted_once(engine, catalog, storage):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    index = correct_index(catalog, question)
    taps = await asyncio.gather(
        *(engine.answer_by_position(ANN, question.attempt_id, 1, index) for _ in range(5))
    )
    outcomes = sorted(f.outcome for f in taps)
    assert outcomes.count(AnswerOutcome.ACCEPTED) == 1
    assert outcomes.count(AnswerOutcome.DUPLICATE) == 4
    assert len(await storage.answers(question.attempt_id)) == 1


async def test_a_different_answer_to_an_answered_question_changes_nothing(engine, catalog, storage):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    await engine.answer_by_position(ANN, question.attempt_id, 1, correct_index(catalog, question))
    late = await engine.answer_by_position(
        ANN, question.attempt_id, 1, wrong_index(catalog, question)
    )
    assert late.outcome is AnswerOutcome.ALREADY_ANSWERED
    assert late.correct is True  # it reports the answer that counts
    assert late.notice == "You already answered this question."
    answers = await storage.answers(question.attempt_id)
    assert [a.correct for a in answers] == [True]


async def test_a_question_that_is_not_current_is_stale(engine, catalog, storage):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    ahead = await engine.answer_by_position(ANN, question.attempt_id, 3, 0)
    assert ahead.outcome is AnswerOutcome.STALE
    assert ahead.notice == "This question is no longer active."
    await engine.stop(ANN)
    after_stop = await engine.answer_by_position(ANN, question.attempt_id, 1, 0)
    assert after_stop.outcome is AnswerOutcome.STALE
    assert await storage.answers(question.attempt_id) == []


async def test_unknown_ids_get_an_invalid_outcome_not_an_exception(engine, storage):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    attempt = question.attempt_id
    cases = [
        engine.answer_by_position(ANN, 999_999, 1, 0),
        engine.answer_by_position(ANN, attempt, 0, 0),
        engine.answer_by_position(ANN, attempt, 99, 0),
        engine.answer_by_position(ANN, attempt, 1, 4),
        engine.answer_by_position(ANN, attempt, 1, -1),
        engine.answer_by_option(ANN, attempt, "no-such-question", "a"),
        engine.answer_by_option(ANN, attempt, question.question_id, "zz"),
    ]
    for feedback in await asyncio.gather(*cases):
        assert feedback.outcome is AnswerOutcome.INVALID
        assert feedback.notice == "This button is no longer valid."
    assert await storage.answers(attempt) == []


async def test_nobody_can_answer_someone_elses_attempt(engine, storage):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    feedback = await engine.answer_by_position(BOB, question.attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.NOT_YOURS
    assert feedback.notice == "This quiz is Ann's — send /quiz to start your own."
    assert await storage.answers(question.attempt_id) == []
    assert await engine.current_question(BOB, question.attempt_id) is None
    assert await engine.result(BOB, question.attempt_id) is None


async def test_language_comes_from_choice_then_platform_tag_then_quiz_default(engine):
    russian_tag = Participant("telegram", "3", "Ivan", "ru-RU")
    view = (await engine.start(russian_tag, SEED_QUIZ)).question
    assert view.text == "Зачем чекпойнты больших моделей разбивают на шарды?"
    unknown_tag = Participant("telegram", "4", "Hans", "de-DE")
    assert (await engine.start(unknown_tag, SEED_QUIZ)).question.language == "en"
    assert await engine.set_language(unknown_tag, "bn") == "bn"
    assert (await engine.start(unknown_tag, SEED_QUIZ)).question.language == "bn"
    assert await engine.set_language(unknown_tag, "xx") is None
    feedback = await engine.answer_by_position(unknown_tag, view.attempt_id, 1, 0)
    assert feedback.notice == "এই কুইজটি Ivan-এর — নিজের কুইজ শুরু করতে /quiz পাঠান।"


async def test_urdu_views_keep_english_terms_in_order(engine, catalog):
    urdu = Participant("telegram", "5", "Ali", "ur")
    question = (await engine.start(urdu, SEED_QUIZ)).question
    assert question.rtl
    for number in range(1, 6):
        question = (
            await engine.answer_by_position(
                urdu, question.attempt_id, number, correct_index(catalog, question)
            )
        ).next_question
    assert question.question_id == "safe-format"
    labels = [o.text for o in question.options]
    assert "\u2066safetensors\u2069" in labels  # isolated, so it reads correctly inside Urdu
    assert "safetensors" in [strip_controls(text) for text in labels]


def _tiny_quiz(tmp_path: Path, languages: str = "[en, ru]") -> Path:
    (tmp_path / "tiny.yaml").write_text(
        textwrap.dedent(
            f"""\
            title: {{en: Tiny, ru: Крошка}}
            languages: {languages}
            shuffle: {{options: false}}  # the options in the file's order
            questions:
              - id: q1
                correct: a
                text: {{en: "One?", ru: "Один?"}}
                options:
                  - {{id: a, text: {{en: "yes", ru: "да"}}}}
                  - {{id: b, text: {{en: "no"}}}}
                explanation: {{en: Because.}}
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


async def test_missing_translations_fall_back_to_the_default_language(tmp_path, storage):
    catalog, report = QuizCatalog.from_paths([_tiny_quiz(tmp_path)])
    assert not report.errors and report.warnings
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    who = Participant("t", "ru-user", language_tag="ru")
    view = (await engine.start(who)).question  # the only quiz starts without asking
    assert view is not None
    assert view.text == "Один?"
    assert [o.text for o in view.options] == ["да", "no"]
    feedback = await engine.answer_by_option(who, view.attempt_id, "q1", "a")
    assert feedback.explanation == "Because."
    assert feedback.notice == "✅ Верно"


async def test_with_several_quizzes_and_none_named_the_user_chooses(tmp_path, storage):
    _tiny_quiz(tmp_path)
    (tmp_path / "second.yaml").write_text(
        (tmp_path / "tiny.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    catalog, _ = QuizCatalog.from_paths([tmp_path])
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    start = await engine.start(ANN)
    assert start.outcome is StartOutcome.CHOOSE
    assert [q.id for q in start.quizzes] == ["second", "tiny"]
    unknown = await engine.start(ANN, "nope")
    assert unknown.outcome is StartOutcome.UNKNOWN_QUIZ
    assert unknown.notice == 'There is no quiz "nope". Available: second, tiny'
    begun = await engine.start(ANN, "tiny")
    resumed = await engine.start(ANN)  # no id: the attempt in progress continues
    assert resumed.outcome is StartOutcome.RESUMED
    assert resumed.question == begun.question


async def test_with_no_quizzes_start_says_so(tmp_path, storage):
    catalog, _ = QuizCatalog.from_paths([tmp_path])  # an empty folder
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    start = await engine.start(ANN)
    assert (start.outcome, start.notice) == (StartOutcome.NO_QUIZZES, t("no_quizzes", "en"))
    assert start.question is None


async def test_an_attempt_left_with_nothing_to_answer_completes_and_a_new_one_starts(
    tmp_path, storage
):
    quiz_file = _tiny_quiz(tmp_path) / "tiny.yaml"
    one_question = quiz_file.read_text(encoding="utf-8")
    second = one_question.split("questions:\n", 1)[1].replace("id: q1", "id: q2")
    quiz_file.write_text(one_question + second, encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([tmp_path])
    quiz = catalog.get("tiny")
    assert quiz is not None and quiz.attempt_size() == 2, report.errors
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    first = (await engine.start(ANN, "tiny")).question
    assert first is not None and first.total == 2
    await engine.answer_by_option(ANN, first.attempt_id, "q1", "a")

    quiz_file.write_text(one_question, encoding="utf-8")  # q2 is gone: q1, answered, is all
    shrunk, _ = QuizCatalog.from_paths([tmp_path])
    engine = QuizEngine(shrunk, storage, clock=FakeClock())
    start = await engine.start(ANN, "tiny")
    assert start.outcome is StartOutcome.STARTED
    assert start.question is not None and start.question.attempt_id != first.attempt_id
    assert (start.question.number, start.question.total) == (1, 1)
    old = await engine.attempt_info(first.attempt_id)
    assert old is not None and not old.active  # completed, not left active


async def test_resume_across_a_new_engine_on_the_same_database(catalog, open_storage):
    first_storage = await open_storage()
    engine = QuizEngine(catalog, first_storage, clock=FakeClock())
    question = (await engine.start(ANN, SEED_QUIZ)).question
    for number in (1, 2, 3):
        assert question is not None
        feedback = await engine.answer_by_position(ANN, question.attempt_id, number, 0)
        question = feedback.next_question
    await first_storage.close()

    restarted = QuizEngine(catalog, await open_storage(), clock=FakeClock())
    resumed = await restarted.start(ANN)
    assert resumed.outcome is StartOutcome.RESUMED
    assert resumed.question == question
    assert resumed.question is not None
    assert resumed.question.number == 4


async def test_stop_abandons_and_the_next_start_is_fresh(engine):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    await engine.answer_by_position(ANN, question.attempt_id, 1, 0)
    assert (await engine.active_attempt(ANN))[1] == "Checkpoint sharding and resumable training"
    notice = await engine.stop(ANN)
    assert notice == (
        "Quiz stopped: Checkpoint sharding and resumable training. Send /quiz to start again."
    )
    assert await engine.stop(ANN) == "You have no quiz in progress."
    fresh = await engine.start(ANN, SEED_QUIZ)
    assert fresh.outcome is StartOutcome.STARTED
    assert fresh.question.number == 1 and fresh.question.attempt_id != question.attempt_id


async def test_restart_abandons_the_attempt_in_progress(engine):
    question = (await engine.start(ANN, SEED_QUIZ)).question
    await engine.answer_by_position(ANN, question.attempt_id, 1, 0)
    again = await engine.start(ANN, SEED_QUIZ, restart=True)
    assert again.outcome is StartOutcome.STARTED and again.question.number == 1


async def play_through(engine: QuizEngine, catalog: QuizCatalog, who, right: int) -> None:
    question = (await engine.start(who, SEED_QUIZ)).question
    while question is not None:
        good = question.number <= right
        index = correct_index(catalog, question) if good else wrong_index(catalog, question)
        question = (
            await engine.answer_by_position(who, question.attempt_id, question.number, index)
        ).next_question


async def test_progress_counts_best_and_last_scores_and_the_attempt_in_progress(engine, catalog):
    assert (await engine.progress(ANN)).quizzes == ()
    await play_through(engine, catalog, ANN, right=6)
    await play_through(engine, catalog, ANN, right=3)
    question = (await engine.start(ANN, SEED_QUIZ)).question
    await engine.answer_by_position(ANN, question.attempt_id, 1, 0)
    (item,) = (await engine.progress(ANN)).quizzes
    assert (item.completed_attempts, item.best, item.last, item.total) == (2, 6, 3, 8)
    assert item.in_progress_answered == 1
    assert (await engine.progress(BOB)).quizzes == ()


def test_quiz_summaries_are_localized(engine: QuizEngine) -> None:
    summary = next(q for q in engine.quizzes("ru") if q.id == SEED_QUIZ)
    assert summary.title == "Шардирование чекпойнтов и возобновляемое обучение"
    assert summary.question_count == 8 and summary.level == "intermediate"
    assert isinstance(engine.catalog.get(SEED_QUIZ), Quiz)


async def test_retry_after_a_review_resumes_the_unfinished_quiz(
    engine: QuizEngine, catalog: QuizCatalog
) -> None:
    """ "Try again" under a review's result never throws away a quiz in progress; under a
    quiz's result it starts that quiz afresh; someone else's attempt cannot be retried."""
    me = Participant("telegram", "rae", "Rae", "en")
    start = await engine.start(me, SEED_QUIZ)
    assert start.question is not None
    first = start.question
    await engine.answer_by_position(me, first.attempt_id, 1, wrong_index(catalog, first))
    review = await engine.start_review(me)
    assert review.question is not None
    right = correct_index(catalog, review.question)
    done = await engine.answer_by_position(me, review.question.attempt_id, 1, right)
    assert done.result is not None and done.result.review
    again = await engine.retry(me, done.result.attempt_id)
    assert again.outcome is StartOutcome.RESUMED
    assert again.question is not None and again.question.number == 2
    assert again.question.attempt_id == first.attempt_id
    stranger = Participant("telegram", "sly", "Sly", "en")
    refused = await engine.retry(stranger, done.result.attempt_id)
    assert refused.outcome is StartOutcome.INVALID and refused.question is None
