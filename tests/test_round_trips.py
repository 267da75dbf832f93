"""The storage round trips a group round costs, held to their budget on every backend.

A press is what hundreds of members do at once, so it is two trips (the round with the
member, then the answer with how the question stands); closing a question is four (the round,
the close, its answers, the mark that its reveal was posted), the reveal built once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.rounds import (
    GroupRounds,
    LiveQuestion,
    RoundAnswerOutcome,
    RoundDriver,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    RoundTiming,
)
from bot.storage import Storage
from bot.views import Participant
from fakes.clock import ManualClock
from fakes.counting_storage import CountingStorage
from tests.conftest import SEED_QUIZ

PLATFORM = "chat"
SECONDS = 10
# No refresh, poll or lease renewal inside the measured moments: only the path measured.
TIMING = RoundTiming(pause=3.0, edit_interval=600.0, poll=600.0, lease=1800.0)
START = datetime(2026, 1, 1, tzinfo=UTC)


def member(n: int) -> Participant:
    return Participant(PLATFORM, f"m{n}", f"Member {n}", "en")


class Poster(RoundDriver[LiveQuestion]):
    """A platform that keeps the reveals it is asked to post, and the trips made by then."""

    def __init__(self, rounds: GroupRounds, clock: ManualClock, counted: CountingStorage):
        super().__init__(rounds, PLATFORM, timing=TIMING, clock=clock)
        self.counted = counted
        self.reveals: list[tuple[RoundReveal, list[str]]] = []

    def new_live(self, question: RoundQuestion) -> LiveQuestion:
        return LiveQuestion(question)

    def content(self, live: LiveQuestion, answered: int, seconds_left: float) -> str:
        return str(answered)

    async def post_question(self, live: LiveQuestion, answered: int, seconds_left: float) -> int:
        return 100 + live.question.number

    async def refresh(self, live: LiveQuestion, answered: int, seconds_left: float) -> bool:
        return True

    async def close_question(
        self, live: LiveQuestion, answered: int, outcome: RoundReveal | RoundEnd
    ) -> None:
        pass

    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> int:
        self.reveals.append((reveal, list(self.counted.calls)))
        return 200 + reveal.number

    async def post_end(self, end: RoundEnd, dedupe: str = "") -> int:
        return 300

    def message_fields(self, live: LiveQuestion) -> dict[str, object]:
        return {"shown": live.shown}

    def adopt_fields(self, live: LiveQuestion, fields: dict[str, Any]) -> None:
        live.shown = str(fields["shown"])


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def counted(any_storage: Storage) -> CountingStorage:
    return CountingStorage(any_storage)


@pytest.fixture
def rounds(catalog: QuizCatalog, counted: CountingStorage, clock: ManualClock) -> GroupRounds:
    storage = counted.as_storage()
    return GroupRounds(QuizEngine(catalog, storage, clock=clock), storage)


async def settle(driver: RoundDriver[Any]) -> None:
    for _ in range(2000):
        await asyncio.sleep(0.002)
        if driver.settled():
            await asyncio.sleep(0.002)
            if driver.settled():
                return
    raise AssertionError("the round did not settle")


async def test_a_press_is_two_round_trips_accepted_repeated_or_refused(
    rounds: GroupRounds, counted: CountingStorage
) -> None:
    host = member(0)
    question = (await rounds.start(PLATFORM, "room", host, SEED_QUIZ)).question
    assert question is not None
    for n in range(1, 6):
        counted.reset()
        result = await rounds.answer(question.round_id, member(n), 1, n % 4)
        assert result.outcome is RoundAnswerOutcome.ACCEPTED
        assert counted.calls == ["round_press", "record_round_answer"]
        assert result.answered == n  # what the acknowledgement counts, from the same trip
    counted.reset()
    again = await rounds.answer(question.round_id, member(1), 1, 0)
    assert again.outcome is RoundAnswerOutcome.DUPLICATE
    assert counted.calls == ["round_press", "record_round_answer"]
    counted.reset()
    junk = await rounds.answer(2**70, member(1), 1, 0)  # a forged button
    assert junk.outcome is RoundAnswerOutcome.INVALID and counted.total == 1


async def test_closing_a_question_is_four_round_trips_and_the_reveal_is_built_once(
    rounds: GroupRounds, counted: CountingStorage, clock: ManualClock
) -> None:
    question = await rounds.start(PLATFORM, "room", member(0), SEED_QUIZ, time_limit=SECONDS)
    assert question.question is not None
    first = question.question
    driver = Poster(rounds, clock, counted)
    driver.ensure(first)
    await settle(driver)
    for n in range(1, 4):
        await rounds.answer(first.round_id, member(n), 1, 0)
    clock.advance(SECONDS - 1)
    await settle(driver)
    counted.reset()
    clock.advance(1)  # time is up: the driver closes the question and posts its reveal
    await settle(driver)
    ((reveal, before_post),) = driver.reveals
    assert before_post == ["get_round", "close_round_question", "round_answers"]
    assert counted.calls[:4] == [*before_post, "mark_outbox_sent"]
    assert sum(c.count for c in reveal.counts) == 3
    assert reveal.next_question is not None and reveal.next_question.number == 2
    # Built once: nothing read the round back to rebuild it, and nothing is owed.
    assert "round_with_answers" not in counted.calls
    assert await counted.inner.unsent_outbox(PLATFORM) == []
    await driver.shutdown()
