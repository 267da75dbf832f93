"""The round driver on its own: a platform that only records what it would post, the real
engine on SQLite, and a manual clock that moves only when a test says."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.rounds import (
    GroupRounds,
    LiveQuestion,
    RoundDriver,
    RoundEnd,
    RoundHistory,
    RoundQuestion,
    RoundReveal,
    RoundTiming,
    message_scope,
)
from bot.scheduling.reachability import Reachability
from bot.storage import (
    AnswerRecord,
    AttemptKind,
    AttemptStatus,
    ExpectedState,
    NewRound,
    OutboxKind,
    ReviewItem,
    RoundKind,
    RoundStatus,
    SQLiteStorage,
)
from bot.views import Participant
from fakes.clock import ManualClock
from tests.conftest import SEED_QUIZ, services_beside

PLATFORM = "chat"
CHAT = "room-1"
SECONDS = 10
TIMING = RoundTiming(pause=3.0, edit_interval=5.0, retry=4.0)
HOST = Participant(PLATFORM, "host", "Host", "en")
START = datetime(2026, 1, 1, tzinfo=UTC)


class Gone(Exception):
    """The chat is gone: the platform's fatal error."""


class Recorder(RoundDriver[LiveQuestion]):
    """A platform that posts nothing: it records what it would post, and when (seconds of
    the clock since START)."""

    fatal_errors = (Gone,)

    def __init__(self, engine: QuizEngine, clock: ManualClock, *, countdown: bool = False):
        super().__init__(services_beside(engine).rounds, PLATFORM, timing=TIMING, clock=clock)
        self.engine = engine
        self.countdown = countdown  # whether the message shows the seconds left
        self.events: list[tuple[Any, ...]] = []
        self.failures: list[Exception] = []  # raised by the next posts of a question
        self._ids = 100

    def _record(self, *event: Any) -> None:
        self.events.append((*event, (self.clock() - START).total_seconds()))

    def kinds(self) -> list[str]:
        return [event[0] for event in self.events]

    def new_live(self, question: RoundQuestion) -> LiveQuestion:
        return LiveQuestion(question)

    def content(self, live: LiveQuestion, answered: int, seconds_left: float) -> str:
        if self.countdown:
            return f"{answered} answers, {max(1, math.ceil(seconds_left))} s"
        return f"{answered} answers"

    async def post_question(self, live: LiveQuestion, answered: int, seconds_left: float) -> int:
        if self.failures:
            raise self.failures.pop(0)
        self._ids += 1
        self._record("question", live.question.number, answered)
        return self._ids

    async def refresh(self, live: LiveQuestion, answered: int, seconds_left: float) -> bool:
        self._record("refresh", live.question.number, self.content(live, answered, seconds_left))
        return True

    async def close_question(
        self, live: LiveQuestion, answered: int, outcome: RoundReveal | RoundEnd
    ) -> None:
        why = "stopped" if isinstance(outcome, RoundEnd) else "early" if live.close_now else "time"
        self._record("close", live.question.number, live.message_id, answered, why)

    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> None:
        self._record("reveal", reveal.number, sum(c.count for c in reveal.counts))

    async def post_end(self, end: RoundEnd, dedupe: str = "") -> None:
        self._record("end", "stopped" if end.stopped else "finished", end.chat_id)

    def message_fields(self, live: LiveQuestion) -> dict[str, object]:
        return {"shown": live.shown}

    def adopt_fields(self, live: LiveQuestion, fields: dict[str, Any]) -> None:
        live.shown = str(fields["shown"])


Make = Callable[..., Recorder]


@pytest.fixture
def engine(catalog: QuizCatalog, storage: SQLiteStorage) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=ManualClock(START))


@pytest.fixture
def clock(engine: QuizEngine) -> ManualClock:
    assert isinstance(engine.clock, ManualClock)
    return engine.clock


@pytest.fixture
async def make(engine: QuizEngine, clock: ManualClock) -> AsyncIterator[Make]:
    """New drivers (processes), on ``engine`` unless told otherwise; all stopped at the end."""
    made: list[Recorder] = []

    def new(on: QuizEngine | None = None, *, countdown: bool = False) -> Recorder:
        made.append(Recorder(on or engine, clock, countdown=countdown))
        return made[-1]

    yield new
    for recorder in made:
        await recorder.shutdown()


@pytest.fixture
def driver(make: Make) -> Recorder:
    return make()


async def settle(*drivers: RoundDriver[Any]) -> None:
    """Wait until every round waits for the clock with nothing to do before it moves."""
    deadline = time.monotonic() + 10
    calm = 0
    while calm < 2:  # twice in a row: nothing woke up in between
        await asyncio.sleep(0.005)
        calm = calm + 1 if all(d.settled() for d in drivers) else 0
        assert time.monotonic() < deadline, "the rounds did not settle"


async def advance(clock: ManualClock, seconds: float, *drivers: RoundDriver[Any]) -> None:
    await settle(*drivers)
    clock.advance(seconds)
    await settle(*drivers)


async def start(
    engine: QuizEngine, platform: str = PLATFORM, chat: str = CHAT, seconds: int = SECONDS
) -> RoundQuestion:
    host = Participant(platform, "host", "Host", "en")
    started = await services_beside(engine).rounds.start(
        platform, chat, host, SEED_QUIZ, time_limit=seconds
    )
    assert started.question is not None
    return started.question


async def launch(driver: Recorder, **options: Any) -> RoundQuestion:
    """Start a round and let ``driver`` post its first question."""
    question = await start(driver.engine, **options)
    driver.ensure(question)
    await settle(driver)
    return question


async def restart(driver: Recorder) -> None:
    """What a new process does at start."""
    await driver.resume()
    await settle(driver)


async def answer(
    driver: RoundDriver[Any], question: RoundQuestion, who: str, option: int = 0
) -> None:
    """What a platform's handler does with a member's press."""
    member = Participant(PLATFORM, who, who, "en")
    result = await driver.rounds.answer(question.round_id, member, question.number, option)
    driver.on_answer(question.round_id, question.number, result.answered, result.everyone_answered)


async def open_question(engine: QuizEngine) -> RoundQuestion:
    (question,) = await services_beside(engine).rounds.open_questions(PLATFORM)
    return question


async def recorded_message(engine: QuizEngine, question: RoundQuestion) -> str | None:
    return await services_beside(engine).rounds.store.get_value(
        message_scope(PLATFORM), str(question.round_id)
    )


async def test_a_round_runs_question_refresh_reveal_pause_next_question_end(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> None:
    question = await launch(driver)
    assert driver.events == [("question", 1, 0, 0)]
    for name in ("Ana", "Ben", "Cy"):  # a burst of answers...
        await answer(driver, question, name)
    await advance(clock, 4, driver)
    assert driver.kinds() == ["question"]  # ...waits for the interval...
    await advance(clock, 1, driver)
    assert driver.events[1:] == [("refresh", 1, "3 answers", 5)]  # ...and is one refresh
    await advance(clock, SECONDS - 5 - 1, driver)
    assert len(driver.events) == 2  # nothing new to show: no refresh
    await advance(clock, 1, driver)  # time is up
    assert driver.events[2:] == [("close", 1, 101, 3, "time", 10), ("reveal", 1, 3, 10)]
    await advance(clock, TIMING.pause - 1, driver)
    assert len(driver.events) == 4  # the pause
    await advance(clock, 1, driver)
    assert driver.events[4:] == [("question", 2, 0, 13)]
    for _ in range(2, 9):  # nobody answers the rest
        await advance(clock, SECONDS, driver)
        await advance(clock, TIMING.pause, driver)
    numbers = [event[1] for event in driver.events if event[0] == "question"]
    assert numbers == list(range(1, 9))
    assert driver.kinds()[-3:] == ["close", "reveal", "end"]
    assert driver.events[-1][:3] == ("end", "finished", CHAT)
    assert "refresh" not in driver.kinds()[2:]
    assert not driver.running(question.round_id)
    assert await services_beside(engine).rounds.running(PLATFORM, CHAT) is None
    assert await recorded_message(engine, question) is None


async def test_a_countdown_is_refreshed_every_interval_and_never_shows_the_same_twice(
    clock: ManualClock, make: Make
) -> None:
    driver = make(countdown=True)
    question = await launch(driver, seconds=30)
    for second in range(1, 30):
        if second in (2, 3, 8):
            await answer(driver, question, f"m{second}")
        await advance(clock, 1, driver)
    refreshes = [(event[2], event[3]) for event in driver.events if event[0] == "refresh"]
    assert refreshes == [
        ("2 answers, 25 s", 5),
        ("3 answers, 20 s", 10),
        ("3 answers, 15 s", 15),
        ("3 answers, 10 s", 20),
        ("3 answers, 5 s", 25),
    ]
    await advance(clock, 1, driver)
    assert driver.kinds()[-2:] == ["close", "reveal"]


async def test_a_question_closes_early_once_everyone_taking_part_answered(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> None:
    first = await launch(driver)
    await answer(driver, first, "Ana")
    await answer(driver, first, "Ben")
    await settle(driver)
    assert driver.kinds() == ["question"]  # question 1 waits for latecomers
    await advance(clock, SECONDS, driver)
    await advance(clock, TIMING.pause, driver)
    second = await open_question(engine)
    assert second.number == 2
    await answer(driver, second, "Ana")
    await settle(driver)
    assert driver.kinds()[-1] == "question"
    await answer(driver, second, "Ben")  # the last of the two: no need to wait
    await settle(driver)
    assert driver.events[-2:] == [("close", 2, 102, 2, "early", 13), ("reveal", 2, 2, 13)]
    await advance(clock, TIMING.pause, driver)
    assert driver.events[-1] == ("question", 3, 0, 16)


async def test_shutdown_leaves_the_round_in_the_database_and_a_restart_reveals_what_is_due(
    engine: QuizEngine,
    catalog: QuizCatalog,
    clock: ManualClock,
    db_path: Path,
    driver: Recorder,
    make: Make,
) -> None:
    question = await launch(driver)
    elsewhere = await start(engine, platform="other", chat="room-2")  # not this driver's
    await answer(driver, question, "Ana")
    await driver.shutdown()
    assert not driver.running(question.round_id)
    clock.advance(5 * SECONDS)  # down for a while
    await asyncio.sleep(0.05)
    assert driver.kinds() == ["question"]  # nothing ran out while it was down
    running = await services_beside(engine).rounds.running(PLATFORM, CHAT)
    assert running is not None and running.status is RoundStatus.ACTIVE
    assert await services_beside(engine).rounds.due(PLATFORM) == [(question.round_id, 1)]
    assert await services_beside(engine).rounds.due("other") == [(elsewhere.round_id, 1)]

    storage = SQLiteStorage(db_path)  # a new process on the same database
    await storage.open()
    try:
        restarted = make(QuizEngine(catalog, storage, clock=clock))
        await restart(restarted)
        # Revealed at once, in the message the first process posted (not posted again).
        assert restarted.events == [("close", 1, 101, 1, "time", 50), ("reveal", 1, 1, 50)]
        assert await services_beside(restarted.engine).rounds.due(PLATFORM) == []
        assert not restarted.running(elsewhere.round_id)
        await advance(clock, TIMING.pause, restarted)
        assert restarted.events[-1] == ("question", 2, 0, 53)
        await restarted.shutdown()
    finally:
        await storage.close()


async def test_a_round_whose_quiz_is_gone_is_ended_at_restart(
    storage: SQLiteStorage, clock: ManualClock, driver: Recorder, make: Make
) -> None:
    question = await launch(driver)
    await driver.shutdown()
    clock.advance(SECONDS)
    without = QuizEngine(QuizCatalog(), storage, clock=clock)  # the quiz was removed
    restarted = make(without)
    await restart(restarted)
    assert restarted.events == []
    assert not restarted.running(question.round_id)
    assert await services_beside(without).rounds.running(PLATFORM, CHAT) is None
    assert await recorded_message(without, question) is None


async def test_a_restart_mid_question_adopts_its_message_and_keeps_counting(
    clock: ManualClock, driver: Recorder, make: Make
) -> None:
    question = await launch(driver)
    await answer(driver, question, "Ana")
    await advance(clock, 2, driver)
    await driver.shutdown()  # before the count was shown
    restarted = make()
    await restart(restarted)
    assert restarted.events == []  # the question's message is the first process's
    await answer(restarted, question, "Ben")
    # The first process may have refreshed just before it stopped: a full interval.
    await advance(clock, 4, restarted)
    assert restarted.events == []
    await advance(clock, 1, restarted)
    assert restarted.events == [("refresh", 1, "2 answers", 7)]
    await advance(clock, 3, restarted)
    assert restarted.events[1:] == [("close", 1, 101, 2, "time", 10), ("reveal", 1, 2, 10)]


async def test_a_stopped_round_halts_at_once_and_shows_its_ranking(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> None:
    question = await launch(driver)
    await answer(driver, question, "Ana")
    end = await services_beside(engine).rounds.stop(PLATFORM, CHAT, HOST)
    assert isinstance(end, RoundEnd) and end.chat_id == CHAT
    await driver.stopped(end)  # a platform may wait until the driver halted...
    assert not driver.running(question.round_id)
    name = f"round-{question.round_id}"
    assert all(task.done() for task in asyncio.all_tasks() if task.get_name() == name)
    await settle(driver)  # ...and the question is closed in the background
    assert driver.events[1:] == [("close", 1, 101, 1, "stopped", 0), ("end", "stopped", CHAT, 0)]
    await advance(clock, 10 * SECONDS, driver)
    assert len(driver.events) == 3  # no timer is left
    assert await recorded_message(engine, question) is None


async def test_an_error_is_retried_later_and_a_fatal_one_ends_the_round(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> None:
    driver.failures.append(RuntimeError("a hiccup"))
    question = await launch(driver)
    assert driver.events == []
    await advance(clock, TIMING.retry, driver)
    assert driver.events == [("question", 1, 0, TIMING.retry)]
    await advance(clock, SECONDS - TIMING.retry, driver)
    driver.failures.append(Gone("the chat was deleted"))
    await advance(clock, TIMING.pause, driver)
    assert driver.kinds() == ["question", "close", "reveal"]
    assert not driver.running(question.round_id)
    round_ = await services_beside(engine).rounds.store.get_round(question.round_id)
    assert round_ is not None and round_.status is RoundStatus.STOPPED


async def test_a_daily_question_that_cannot_post_ends_itself_not_the_group_round(
    engine: QuizEngine,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
    driver: Recorder,
) -> None:
    group = await start(engine)  # a group round runs in the chat too
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    store = services_beside(engine).rounds.store
    daily, _ = await store.create_round(
        NewRound(
            platform=PLATFORM,
            chat_id=CHAT,
            quiz_id=quiz.id,
            starter_id="admin",
            language="en",
            question_order=(quiz.questions[0].id,),
            option_order={},
            time_limit_seconds=12 * 3600,
            started_at=clock(),
            kind=RoundKind.DAILY,
        )
    )
    question = await services_beside(engine).rounds.question_of(daily)
    assert question is not None
    marks = Reachability(storage, clock)  # the outbox's marks, which the wiring gives it
    driver.unreachable = marks
    driver.failures.append(Gone("the bot was removed from the chat"))
    driver.ensure(question)
    await settle(driver)
    ended = await store.get_round(daily.id)
    assert ended is not None and ended.status is RoundStatus.STOPPED
    still = await store.get_round(group.round_id)
    assert still is not None and still.status is RoundStatus.ACTIVE
    # The chat is marked as one the bot cannot post in, so nothing is posted there on a
    # schedule (the daily question turns itself off) until someone talks to the bot in it.
    assert marks.is_marked(PLATFORM, CHAT, to_user=False)
    (mark,) = await storage.unreachable()
    assert (mark.target, mark.to_user, mark.reason) == (
        CHAT,
        False,
        "the bot was removed from the chat",
    )


async def test_an_answer_to_a_round_no_task_runs_picks_it_up(
    engine: QuizEngine, driver: Recorder
) -> None:
    question = await start(engine)  # started by another replica, say
    await answer(driver, question, "Ana")
    await settle(driver)
    assert driver.running(question.round_id)
    assert driver.events == [("question", 1, 1, 0)]


# -- several replicas on one database ---------------------------------------------------------


async def crash(driver: Recorder) -> None:
    """What kill -9 does to a process: every task stops where it is, nothing is released."""
    tasks = [*driver._tasks.values(), *driver._background]
    if driver._keeper is not None:
        tasks.append(driver._keeper)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_one_replica_drives_a_round_and_another_takes_over_when_it_dies(
    engine: QuizEngine, clock: ManualClock, driver: Recorder, make: Make
) -> None:
    other = make()  # a second replica on the same database
    question = await launch(driver)
    await answer(other, question, "Ana")  # its press: stored, and it does not drive the round
    await settle(driver, other)
    assert not other.running(question.round_id) and other.events == []
    await advance(clock, SECONDS, driver, other)
    assert driver.kinds() == ["question", "close", "reveal"]
    await advance(clock, TIMING.pause, driver, other)  # question 2 opens at 13
    assert driver.events[-1] == ("question", 2, 0, 13)
    await answer(other, await open_question(engine), "Ana")
    await crash(driver)  # its lease, last renewed at 10, runs out at 25
    await advance(clock, 5, other)
    await advance(clock, 5, other)
    assert other.events == []  # question 2's time is up (at 23), but the lease still runs
    await advance(clock, 5, other)  # the other's next look at the leases, after 25
    # Taken over: revealed once, in the message the dead replica posted; then question 3.
    assert other.events == [("close", 2, 102, 1, "time", 28), ("reveal", 2, 1, 28)]
    assert not driver.running(question.round_id)
    await advance(clock, TIMING.pause, other)
    assert other.events[-1] == ("question", 3, 0, 31)
    lease = await services_beside(engine).rounds.store.round_lease(question.round_id)
    assert lease is not None and lease[0] == other.owner
    reveals = [e for e in await services_beside(engine).rounds.store.outbox(question.round_id)]
    assert [(e.number, e.sent_at is not None) for e in reveals] == [(1, True), (2, True)]


async def test_a_reveal_committed_by_a_process_that_died_before_posting_it_is_posted_once(
    engine: QuizEngine, clock: ManualClock, driver: Recorder, make: Make
) -> None:
    question = await launch(driver)
    await answer(driver, question, "Ana")
    await crash(driver)
    clock.advance(SECONDS)
    # What the dead process committed before it could post: the close, and its outbox entry.
    assert await services_beside(engine).rounds.close(
        question.round_id, 1, pause_seconds=TIMING.pause
    )
    restarted = make()
    await restart(restarted)
    assert restarted.events == []  # the dead process's lease runs until 15
    await advance(clock, 5, restarted)
    assert restarted.events == [("reveal", 1, 1, 15), ("question", 2, 0, 15)]
    (entry,) = await services_beside(engine).rounds.store.outbox(question.round_id)
    assert entry.sent_at is not None
    await advance(clock, TIMING.lease, restarted)
    assert restarted.kinds().count("reveal") == 2  # question 2's; question 1's not again


async def test_presses_another_replica_took_are_counted_by_the_driver(
    clock: ManualClock, driver: Recorder, make: Make
) -> None:
    other = make()
    question = await launch(driver)
    for name in ("Ana", "Ben"):
        await answer(other, question, name)
    await advance(clock, TIMING.edit_interval, driver, other)
    assert driver.events[1:] == [("refresh", 1, "2 answers", 5)]
    await advance(clock, SECONDS - TIMING.edit_interval, driver, other)
    assert driver.events[2:] == [("close", 1, 101, 2, "time", 10), ("reveal", 1, 2, 10)]
    assert other.events == []


async def test_a_shut_down_replica_hands_its_rounds_over_at_once(
    clock: ManualClock, driver: Recorder, make: Make
) -> None:
    other = make()
    question = await launch(driver)
    await restart(other)  # it started too, and found the round driven
    assert not other.running(question.round_id)
    await driver.shutdown()  # a rolling restart: SIGTERM releases the lease
    await advance(clock, TIMING.lease / 3, other)
    assert other.running(question.round_id)
    await advance(clock, SECONDS - TIMING.lease / 3, other)
    assert other.kinds() == ["close", "reveal"]


# -- the members' history: copied once, even when a process dies around the copy --------------


class Died(Exception):
    """kill -9 at this point: nothing after it runs."""


class DiesBeforeCopying(RoundHistory):
    """A process killed right after it committed the end of a round, before the copy of the
    members' answers into their history."""

    async def copy(self, round_id: int) -> bool:
        raise Died


def dies_before_copying(engine: QuizEngine) -> GroupRounds:
    """The group rounds of a process that dies as it starts a history copy."""
    rounds = services_beside(engine).rounds
    rounds.history = DiesBeforeCopying(rounds.store, rounds.store, engine.catalog, engine.clock)
    return rounds


class DiesMidCopy(SQLiteStorage):
    """A process killed after ``writes`` answers of the history copy were written."""

    def __init__(self, path: Path, writes: int) -> None:
        super().__init__(path)
        self.writes = writes

    async def record_answer(
        self,
        answer: AnswerRecord,
        *,
        finishes: bool,
        review: ReviewItem | None = None,
        expected: ExpectedState | None = None,
    ) -> tuple[AnswerRecord, bool]:
        if self.writes == 0:
            raise Died
        self.writes -= 1
        return await super().record_answer(
            answer, finishes=finishes, review=review, expected=expected
        )


MEMBERS = ("Ana", "Ben", "Cy")  # Cy answers question 1 only, so no question closes early


async def play_to_the_last_question(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> RoundQuestion:
    """A round played up to its last question, which everyone but Cy has answered (Ana
    picks the first option, Ben the second): its time is not up yet."""
    question = await launch(driver)
    while True:
        await answer(driver, question, "Ana", 0)
        await answer(driver, question, "Ben", 1)
        if question.number == 1:
            await answer(driver, question, "Cy", 2)
        if question.number == question.total:
            return question
        await advance(clock, SECONDS, driver)
        await advance(clock, TIMING.pause, driver)
        question = await open_question(engine)


async def history(engine: QuizEngine, who: str) -> list[tuple[Any, ...]]:
    """Every attempt in the member's history, with its answers."""
    storage = services_beside(engine).rounds.store
    return [
        (
            s.attempt.kind,
            s.attempt.status,
            s.attempt.chat_id,
            [
                (a.question_id, a.option_id, a.correct, a.answered_at)
                for a in await storage.answers(s.attempt.id)
            ],
        )
        for s in await storage.attempt_summaries(PLATFORM, who)
    ]


async def schedule(engine: QuizEngine, who: str) -> set[tuple[str, int, datetime]]:
    items = await services_beside(engine).rounds.store.review_items(PLATFORM, who, SEED_QUIZ)
    return {(i.question_id, i.box, i.due_at) for i in items}


async def round_share(engine: QuizEngine, round_id: int, who: str) -> list[tuple[Any, ...]]:
    """What the member's history holds once the round is copied: one completed round
    attempt with every answer they gave in it."""
    round_ = await services_beside(engine).rounds.store.get_round(round_id)
    assert round_ is not None
    mine = [
        a
        for a in await services_beside(engine).rounds.store.round_answers(round_id)
        if a.user_id == who
    ]
    answers = [
        (round_.question_order[a.number - 1], a.option_id, a.correct, a.answered_at) for a in mine
    ]
    return [(AttemptKind.ROUND, AttemptStatus.COMPLETED, CHAT, answers)]


def missed(share: list[tuple[Any, ...]]) -> set[tuple[str, int, datetime]]:
    """The review schedule of a member new to the quiz after ``share``: every question they
    missed, in box 1, due from the moment they answered it."""
    ((*_, answers),) = share
    return {(question, 1, at) for question, _, correct, at in answers if not correct}


async def test_history_a_process_committed_but_died_before_copying_is_copied_once(
    engine: QuizEngine, clock: ManualClock, driver: Recorder, make: Make
) -> None:
    last = await play_to_the_last_question(engine, clock, driver)
    round_id = last.round_id
    await crash(driver)
    clock.advance(SECONDS)
    with pytest.raises(Died):  # the final close is committed, the copy never ran
        await dies_before_copying(engine).close(round_id, last.number, pause_seconds=TIMING.pause)
    assert [await history(engine, who) for who in MEMBERS] == [[], [], []]

    restarted = make()
    await restart(restarted)
    await advance(clock, TIMING.lease, restarted)  # once the dead process's lease ran out
    for who in MEMBERS:
        share = await round_share(engine, round_id, who)
        assert await history(engine, who) == share
        assert await schedule(engine, who) == missed(share)
        (progress,) = (await engine.progress(Participant(PLATFORM, who, who, "en"))).quizzes
        assert progress.completed_attempts == 1
    assert len((await round_share(engine, round_id, "Ana"))[0][3]) == last.total
    assert len((await round_share(engine, round_id, "Cy"))[0][3]) == 1
    # The posts the dead process owed, once each, and nothing for the history.
    assert restarted.kinds() == ["reveal", "end"]
    outbox = await services_beside(engine).rounds.store.outbox(round_id)
    assert [e.kind for e in outbox if e.number == last.number] == [
        OutboxKind.REVEAL,
        OutboxKind.END,
        OutboxKind.HISTORY,
    ]
    assert all(e.sent_at is not None for e in outbox)
    assert outbox[-1].message_id is None
    await advance(clock, 2 * TIMING.lease, restarted)
    assert restarted.kinds() == ["reveal", "end"]
    assert not restarted.running(round_id)


async def test_a_history_copy_that_died_half_way_is_completed_without_duplicates(
    engine: QuizEngine,
    catalog: QuizCatalog,
    clock: ManualClock,
    db_path: Path,
    driver: Recorder,
    make: Make,
) -> None:
    last = await play_to_the_last_question(engine, clock, driver)
    round_id = last.round_id
    await crash(driver)
    clock.advance(SECONDS)
    # Ana's 8 answers and 3 of Ben's were written, then the process died.
    dying = DiesMidCopy(db_path, writes=last.total + 3)
    await dying.open()
    try:
        with pytest.raises(Died):
            await services_beside(QuizEngine(catalog, dying, clock=clock)).rounds.close(
                round_id, last.number
            )
    finally:
        await dying.close()
    ana, ben = [await round_share(engine, round_id, who) for who in ("Ana", "Ben")]
    assert await history(engine, "Ana") == ana
    ((kind, status, _, answers),) = await history(engine, "Ben")
    assert (kind, status, answers) == (AttemptKind.ROUND, AttemptStatus.ACTIVE, ben[0][3][:3])
    assert await history(engine, "Cy") == []

    restarted = make()
    await restart(restarted)
    await advance(clock, TIMING.lease, restarted)
    for who in MEMBERS:
        share = await round_share(engine, round_id, who)
        assert await history(engine, who) == share  # one attempt each, every answer once
        assert await schedule(engine, who) == missed(share)
    assert restarted.kinds() == ["reveal", "end"]
    assert all(
        e.sent_at is not None for e in await services_beside(engine).rounds.store.outbox(round_id)
    )


async def test_running_the_history_copy_again_changes_nothing(
    engine: QuizEngine, clock: ManualClock, driver: Recorder
) -> None:
    last = await play_to_the_last_question(engine, clock, driver)
    await advance(clock, SECONDS, driver)  # the round ends, and its history is copied
    assert driver.kinds()[-2:] == ["reveal", "end"]
    before = [(await history(engine, w), await schedule(engine, w)) for w in MEMBERS]
    assert [h for h, _ in before] == [
        await round_share(engine, last.round_id, who) for who in MEMBERS
    ]
    for _ in range(2):
        assert await services_beside(engine).rounds.copy_history(last.round_id)
    assert [(await history(engine, w), await schedule(engine, w)) for w in MEMBERS] == before


async def test_history_of_a_stop_that_died_before_copying_is_copied_and_nothing_posted(
    engine: QuizEngine, clock: ManualClock, driver: Recorder, make: Make
) -> None:
    question = await launch(driver)
    await answer(driver, question, "Ana", 0)
    await answer(driver, question, "Ben", 1)
    await crash(driver)
    with pytest.raises(Died):  # the stop is committed, the copy never ran
        await dies_before_copying(engine).stop(PLATFORM, CHAT, HOST)
    restarted = make()
    await restart(restarted)
    await advance(clock, TIMING.lease, restarted)
    for who in ("Ana", "Ben"):
        share = await round_share(engine, question.round_id, who)
        assert await history(engine, who) == share
        assert await schedule(engine, who) == missed(share)
    assert restarted.events == []  # a history entry posts nothing
    (entry,) = await services_beside(engine).rounds.store.outbox(question.round_id)
    assert entry.kind == OutboxKind.HISTORY and entry.sent_at is not None
    assert not restarted.running(question.round_id)
