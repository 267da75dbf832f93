"""A press costs one database round trip because the engine remembers each attempt's answer
state; these tests show that a remembered state that is behind (another replica, another
process, another attempt) never makes the engine refuse, double or misgrade an answer."""

from __future__ import annotations

import pytest

from bot.answer_state_cache import AnswerStateCache
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import AnswerState, AttemptStatus, Storage
from bot.views import AnswerOutcome, Participant, QuestionView
from tests.conftest import SEED_QUIZ, FakeClock, OpenStorage

ANN = Participant("telegram", "1", "Ann", "en-US")


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    return any_storage


@pytest.fixture
async def other_storage(any_storage: Storage, open_storage: OpenStorage) -> Storage:
    """A second connection to the same database, as another replica has."""
    return await open_storage()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()  # one time for both replicas, as their hosts' clocks agree


@pytest.fixture
def replica_a(catalog: QuizCatalog, storage: Storage, clock: FakeClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def replica_b(catalog: QuizCatalog, other_storage: Storage, clock: FakeClock) -> QuizEngine:
    return QuizEngine(catalog, other_storage, clock=clock)


def option_index(catalog: QuizCatalog, view: QuestionView, *, right: bool) -> int:
    quiz = catalog.get(view.quiz_id)
    assert quiz is not None
    question = quiz.question(view.question_id)
    assert question is not None
    correct = next(i for i, o in enumerate(view.options) if o.id == question.correct_option_id)
    return correct if right else (correct + 1) % len(view.options)


async def press(
    engine: QuizEngine, catalog: QuizCatalog, view: QuestionView, *, right: bool = True
) -> AnswerOutcome:
    index = option_index(catalog, view, right=right)
    feedback = await engine.answer_by_position(ANN, view.attempt_id, view.number, index)
    return feedback.outcome


class CountingReads:
    """Counts the answer-state reads a storage serves (wraps the bound method)."""

    def __init__(self, storage: Storage) -> None:
        self.count = 0
        read = storage.answer_state

        async def counted(attempt_id: int, platform: str, user_id: str) -> AnswerState:
            self.count += 1
            return await read(attempt_id, platform, user_id)

        # Patched on this one instance only, to count the reads the engine makes.
        storage.answer_state = counted  # type: ignore[method-assign]


async def test_presses_after_the_start_cost_no_read(replica_a, storage, catalog):
    question = (await replica_a.start(ANN, SEED_QUIZ)).question
    reads = CountingReads(storage)
    while question is not None:
        feedback = await replica_a.answer_by_position(ANN, question.attempt_id, question.number, 0)
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        question = feedback.next_question
    assert reads.count == 0
    assert feedback.result is not None and feedback.result.total == 8


async def test_an_answer_given_on_another_replica_is_not_mistaken_for_a_stale_press(
    replica_a, replica_b, storage, catalog
):
    first = (await replica_a.start(ANN, SEED_QUIZ)).question
    feedback = await replica_a.answer_by_position(ANN, first.attempt_id, 1, 0)
    second = feedback.next_question
    # The next press reaches the other replica (a load balancer spreads updates).
    on_b = await replica_b.answer_by_position(ANN, second.attempt_id, 2, 0)
    assert on_b.outcome is AnswerOutcome.ACCEPTED
    third = on_b.next_question
    # Replica A still remembers one answer; the third press must count all the same.
    on_a = await replica_a.answer_by_position(ANN, third.attempt_id, 3, 0)
    assert on_a.outcome is AnswerOutcome.ACCEPTED
    assert on_a.next_question.number == 4
    stored = await storage.answers(first.attempt_id)
    assert [a.question_id for a in stored] == [
        first.question_id,
        second.question_id,
        third.question_id,
    ]


async def test_a_press_answered_elsewhere_gets_the_stored_answer_back(
    replica_a, replica_b, storage, catalog
):
    question = (await replica_a.start(ANN, SEED_QUIZ)).question
    assert await press(replica_b, catalog, question, right=False) is AnswerOutcome.ACCEPTED
    # A redelivered press on A: same answer, same feedback; another option does not count.
    again = await replica_a.answer_by_position(
        ANN, question.attempt_id, 1, option_index(catalog, question, right=False)
    )
    assert again.outcome is AnswerOutcome.DUPLICATE and again.correct is False
    other = await replica_a.answer_by_position(
        ANN, question.attempt_id, 1, option_index(catalog, question, right=True)
    )
    assert other.outcome is AnswerOutcome.ALREADY_ANSWERED and other.correct is False
    (stored,) = await storage.answers(question.attempt_id)
    assert stored.correct is False


async def test_a_language_chosen_on_another_replica_applies_to_the_next_answer(
    replica_a, replica_b, catalog
):
    question = (await replica_a.start(ANN, SEED_QUIZ)).question
    assert question.language == "en"
    await replica_b.set_language(ANN, "ru")
    feedback = await replica_a.answer_by_position(ANN, question.attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.ACCEPTED
    assert feedback.language == "ru"
    assert feedback.next_question.language == "ru"


async def test_a_quiz_restarted_elsewhere_turns_the_old_buttons_stale(
    replica_a, replica_b, storage, catalog
):
    old = (await replica_a.start(ANN, SEED_QUIZ)).question
    new = (await replica_b.start(ANN, SEED_QUIZ, restart=True)).question
    assert new.attempt_id != old.attempt_id
    feedback = await replica_a.answer_by_position(ANN, old.attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.STALE
    assert await storage.answers(old.attempt_id) == []
    assert (await storage.get_attempt(old.attempt_id)).status is AttemptStatus.ABANDONED


async def answer_all(engine: QuizEngine, catalog: QuizCatalog, view, *, right: bool) -> None:
    while view is not None:
        feedback = await engine.answer_by_position(
            ANN, view.attempt_id, view.number, option_index(catalog, view, right=right)
        )
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        view = feedback.next_question


async def test_a_review_done_elsewhere_meanwhile_counts_for_the_schedule(
    replica_a, replica_b, storage, catalog
):
    # Every question missed once: all FSRS cards learning (state 1), at their first step.
    await answer_all(
        replica_a, catalog, (await replica_a.start(ANN, SEED_QUIZ)).question, right=False
    )
    again = (await replica_a.start(ANN, SEED_QUIZ)).question  # replica A remembers them so
    # Meanwhile a review on replica B gets them all right: still learning, at the next step.
    review = await replica_b.start_review(ANN, SEED_QUIZ)
    assert review.question is not None
    await answer_all(replica_b, catalog, review.question, right=True)
    items = await storage.review_items("telegram", "1", SEED_QUIZ)
    assert {i.box for i in items} == {1}
    # Right again in the quiz on replica A: from where they are now, past the last learning
    # step into review (state 2); from what A remembered it would still be learning.
    await answer_all(replica_a, catalog, again, right=True)
    items = await storage.review_items("telegram", "1", SEED_QUIZ)
    assert len(items) == 8 and {i.box for i in items} == {2}


async def test_an_attempt_no_longer_remembered_costs_one_read_and_still_counts(catalog, storage):
    engine = QuizEngine(catalog, storage, clock=FakeClock(), remembered_attempts=2)
    people = [Participant("telegram", str(n), f"P{n}", "en") for n in range(3)]
    starts = [(await engine.start(who, SEED_QUIZ)).question for who in people]
    reads = CountingReads(storage)
    # The first one started was forgotten (two are kept): one read, then accepted.
    assert starts[0] is not None
    feedback = await engine.answer_by_position(people[0], starts[0].attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.ACCEPTED and reads.count == 1
    # Remembered now: people[2] and people[0]; people[1] was pushed out by people[0].
    assert starts[2] is not None
    feedback = await engine.answer_by_position(people[2], starts[2].attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.ACCEPTED and reads.count == 1
    assert starts[1] is not None
    feedback = await engine.answer_by_position(people[1], starts[1].attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.ACCEPTED and reads.count == 2
    assert [len(await storage.answers(q.attempt_id)) for q in starts if q] == [1, 1, 1]


def test_the_cache_keeps_the_most_recently_used_states():
    cache = AnswerStateCache(capacity=2)
    state = AnswerState(None, None, [], [])
    cache.put((1, "t", "a"), state)
    cache.put((2, "t", "b"), state)
    assert cache.get((1, "t", "a")) is state  # used: now the most recent
    cache.put((3, "t", "c"), state)
    assert cache.get((2, "t", "b")) is None
    assert len(cache) == 2 and cache.get((1, "t", "a")) is state
    cache.forget((1, "t", "a"))
    assert cache.get((1, "t", "a")) is None
    off = AnswerStateCache(capacity=0)  # remembering nothing: every press reads first
    off.put((1, "t", "a"), state)
    assert len(off) == 0
