"""Spaced repetition: missed questions come back, right answers push them further away."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.engine import QuizEngine
from bot.views import AnswerOutcome, Participant, StartOutcome
from tests.conftest import SEED_QUIZ, FakeClock
from tests.test_engine import correct_index, wrong_index

LEA = Participant("telegram", "lea", "Lea", "en")


@pytest.fixture
def storage(any_storage):
    return any_storage


@pytest.fixture
def clock():
    return FakeClock(step=timedelta(seconds=1))


@pytest.fixture
def engine(catalog, storage, clock):
    return QuizEngine(catalog, storage, clock=clock)


async def play(engine, catalog, who, wrong_numbers: set[int]):
    question = (await engine.start(who, SEED_QUIZ)).question
    while question is not None:
        pick = wrong_index if question.number in wrong_numbers else correct_index
        feedback = await engine.answer_by_position(
            who, question.attempt_id, question.number, pick(catalog, question)
        )
        question = feedback.next_question
    return feedback.result


async def review_all(engine, catalog, who, right: bool):
    start = await engine.start_review(who)
    asked = []
    question = start.question
    while question is not None:
        asked.append(question.question_id)
        pick = correct_index if right else wrong_index
        feedback = await engine.answer_by_position(
            who, question.attempt_id, question.number, pick(catalog, question)
        )
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        question = feedback.next_question
    return start, asked


async def test_nothing_to_review_before_any_mistake(engine, catalog):
    start = await engine.start_review(LEA)
    assert start.outcome is StartOutcome.NOTHING_DUE
    assert start.notice == "Nothing to review yet: questions you miss in a quiz come back here."
    await play(engine, catalog, LEA, wrong_numbers=set())
    assert (await engine.start_review(LEA)).outcome is StartOutcome.NOTHING_DUE


async def test_missed_questions_come_back_and_move_up_the_boxes(engine, catalog, clock, storage):
    result = await play(engine, catalog, LEA, wrong_numbers={2, 5})
    assert result.correct == 6
    start, asked = await review_all(engine, catalog, LEA, right=True)
    assert start.outcome is StartOutcome.STARTED
    assert start.notice == "🔁 Review: 2 questions to practise again."
    assert asked == ["resume-state", "index-file"]
    # Answered right: box 2, due in a day.
    later = await engine.start_review(LEA)
    assert later.notice == "Nothing due — next review in 1 day."
    clock.now += timedelta(days=1)
    _, asked = await review_all(engine, catalog, LEA, right=False)  # wrong: back to box 1
    assert asked == ["resume-state", "index-file"]
    _, asked = await review_all(engine, catalog, LEA, right=True)  # box 1 is due at once
    assert len(asked) == 2
    items = await storage.review_items("telegram", "lea")
    assert {i.box for i in items} == {2}


async def test_a_question_is_mastered_after_the_last_box(engine, catalog, clock, storage):
    await play(engine, catalog, LEA, wrong_numbers={1})
    for _ in range(5):
        _, asked = await review_all(engine, catalog, LEA, right=True)
        assert asked == ["why-shard"]
        clock.now += timedelta(days=30)
    assert await storage.review_items("telegram", "lea") == []
    assert (await engine.start_review(LEA)).notice.startswith("Nothing to review yet")


async def test_reviews_do_not_count_as_quiz_attempts(engine, catalog):
    await play(engine, catalog, LEA, wrong_numbers={3})
    await review_all(engine, catalog, LEA, right=True)
    (progress,) = (await engine.progress(LEA)).quizzes
    assert (progress.completed_attempts, progress.best) == (1, 7)
    (stats,) = await engine.stats(SEED_QUIZ)
    assert (stats.attempts, stats.completed) == (1, 1)


async def test_a_review_in_progress_resumes_and_a_quiz_can_run_beside_it(engine, catalog):
    await play(engine, catalog, LEA, wrong_numbers={1, 2, 3})
    review = (await engine.start_review(LEA)).question
    await engine.answer_by_position(LEA, review.attempt_id, 1, correct_index(catalog, review))
    quiz = await engine.start(LEA, SEED_QUIZ)
    assert quiz.outcome is StartOutcome.STARTED and quiz.question.attempt_id != review.attempt_id
    resumed = await engine.start_review(LEA)
    assert resumed.outcome is StartOutcome.RESUMED
    assert (resumed.question.attempt_id, resumed.question.number) == (review.attempt_id, 2)
