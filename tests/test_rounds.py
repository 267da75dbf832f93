"""Group rounds in the engine: many members, first answer counts, deadlines, restarts."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.rounds import GroupRounds, RoundAnswerOutcome, RoundQuestion, RoundStartOutcome
from bot.storage import AttemptKind, AttemptStatus, NewAttempt
from bot.views import Participant
from tests.conftest import SEED_QUIZ, FakeClock

CHAT = "group-1"
HOST = Participant("telegram", "host", "Host", "en")


@pytest.fixture
def storage(any_storage):
    return any_storage


@pytest.fixture
def clock():
    return FakeClock(step=timedelta(milliseconds=10))


@pytest.fixture
def engine(catalog, storage, clock):
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def rounds(engine, storage):
    return GroupRounds(engine, storage)


def correct_position(catalog: QuizCatalog, question: RoundQuestion) -> int:
    quiz = catalog.get(question.quiz_id)
    assert quiz is not None
    asked = next(q for q in quiz.questions if q.text.get("en") == question.text)
    return next(i for i, o in enumerate(question.options) if o.id == asked.correct_option_id)


def member(n: int) -> Participant:
    return Participant("telegram", f"m{n}", f"Member {n}", "en")


async def test_fifty_members_play_a_round_and_the_reveal_counts_them(
    engine, rounds, catalog, clock
):
    start = await rounds.start("telegram", CHAT, HOST, SEED_QUIZ, time_limit=30)
    assert start.outcome is RoundStartOutcome.STARTED
    question = start.question
    assert (question.number, question.total, question.time_limit_seconds) == (1, 8, 30)
    right = correct_position(catalog, question)
    # Members 0-29 answer right, 30-49 pick the next option: all at once.
    results = await asyncio.gather(
        *(
            rounds.answer(question.round_id, member(n), 1, right if n < 30 else (right + 1) % 4)
            for n in range(50)
        )
    )
    assert all(r.outcome is RoundAnswerOutcome.ACCEPTED for r in results)
    assert results[-1].notice == "Answer recorded — the reveal comes when time is up."
    reveal = await rounds.close(question.round_id, 1)
    counts = {c.option.letter: c.count for c in reveal.counts}
    assert counts[question.options[right].letter] == 30
    assert counts[question.options[(right + 1) % 4].letter] == 20
    assert sum(counts.values()) == 50
    assert reveal.correct_option == question.options[right]
    assert reveal.explanation.startswith("A large model's weights")
    assert [line.score for line in reveal.scoreboard[:30]] == [1] * 30
    assert reveal.next_question.number == 2
    assert await rounds.close(question.round_id, 1) is None  # revealed once only


async def test_a_member_answering_twice_is_counted_once(engine, rounds, catalog):
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ)).question
    right = correct_position(catalog, question)
    first = await rounds.answer(question.round_id, member(1), 1, (right + 1) % 4)
    again = await rounds.answer(question.round_id, member(1), 1, right)
    assert first.outcome is RoundAnswerOutcome.ACCEPTED
    assert again.outcome is RoundAnswerOutcome.DUPLICATE
    assert again.notice == "You already answered: your first answer counts."
    reveal = await rounds.close(question.round_id, 1)
    assert sum(c.count for c in reveal.counts) == 1
    assert reveal.scoreboard[0].score == 0


async def test_the_question_closes_early_when_every_participant_answered(engine, rounds, catalog):
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ)).question
    a = await rounds.answer(question.round_id, member(1), 1, 0)
    assert not a.everyone_answered  # on question 1 nobody knows who else is playing yet
    reveal = await rounds.close(question.round_id, 1)
    second = reveal.next_question
    b = await rounds.answer(second.round_id, member(2), 2, 0)  # a late joiner
    assert (b.participants, b.answered, b.everyone_answered) == (2, 1, False)
    c = await rounds.answer(second.round_id, member(1), 2, 1)
    assert c.everyone_answered  # member 1, the one participant so far, has answered


async def test_time_up_refuses_answers_and_the_due_question_is_revealed(engine, rounds, clock):
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ, time_limit=10)).question
    assert await rounds.due() == []
    clock.now += timedelta(seconds=11)
    late = await rounds.answer(question.round_id, member(1), 1, 0)
    assert late.outcome is RoundAnswerOutcome.CLOSED
    assert late.notice == "Time is up for this question."
    assert await rounds.due() == [(question.round_id, 1)]
    reveal = await rounds.close(question.round_id, 1, pause_seconds=3)
    assert reveal.counts and sum(c.count for c in reveal.counts) == 0
    nxt = reveal.next_question
    early = await rounds.answer(nxt.round_id, member(1), 2, 0)  # during the pause
    assert (early.outcome, early.notice) == (
        RoundAnswerOutcome.CLOSED,
        "This question is not open yet.",
    )
    assert nxt.deadline - nxt.opens_at == timedelta(seconds=10)
    assert await rounds.due() == []


async def test_a_restart_mid_question_continues_the_round(catalog, storage, clock):
    rounds = GroupRounds(QuizEngine(catalog, storage, clock=clock), storage)
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ, time_limit=20)).question
    assert question is not None
    await rounds.answer(question.round_id, member(1), 1, 0)
    # The same database, in a fresh process.
    restarted = GroupRounds(QuizEngine(catalog, storage, clock=clock), storage)
    (open_question,) = await restarted.open_questions()
    assert (open_question.round_id, open_question.number) == (question.round_id, 1)
    assert open_question.options == question.options  # the same order after the restart
    await restarted.answer(question.round_id, member(2), 1, 1)
    clock.now += timedelta(seconds=25)
    ((round_id, number),) = await restarted.due()
    reveal = await restarted.close(round_id, number)
    assert reveal is not None and sum(c.count for c in reveal.counts) == 2


async def test_due_and_open_questions_of_one_platform_and_the_running_round(engine, rounds, clock):
    ours = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ, time_limit=10)).question
    guest = Participant("discord", "host", "Host", "en")
    theirs = (await rounds.start("discord", CHAT, guest, SEED_QUIZ, time_limit=10)).question
    assert {q.round_id for q in await rounds.open_questions()} == {
        ours.round_id,
        theirs.round_id,
    }
    assert [q.round_id for q in await rounds.open_questions("telegram")] == [ours.round_id]
    assert [q.round_id for q in await rounds.open_questions("discord")] == [theirs.round_id]
    clock.now += timedelta(seconds=11)
    assert sorted(await rounds.due()) == sorted([(ours.round_id, 1), (theirs.round_id, 1)])
    assert await rounds.due("telegram") == [(ours.round_id, 1)]
    assert await rounds.due("slack") == []
    running = await rounds.running("telegram", CHAT)
    assert running is not None and (running.id, running.starter_id) == (ours.round_id, "host")
    assert await rounds.running("telegram", "group-2") is None
    ended = await rounds.stop("telegram", CHAT, HOST)
    assert (ended.platform, ended.chat_id) == ("telegram", CHAT)
    assert await rounds.running("telegram", CHAT) is None
    assert (await rounds.running("discord", CHAT)).id == theirs.round_id


async def test_one_round_per_chat_and_only_the_starter_or_an_admin_stops_it(engine, rounds):
    await rounds.start("telegram", CHAT, HOST, SEED_QUIZ)
    again = await rounds.start("telegram", CHAT, member(3), SEED_QUIZ)
    assert again.outcome is RoundStartOutcome.ALREADY_RUNNING
    assert again.question.number == 1
    other_chat = await rounds.start("telegram", "group-2", member(3), SEED_QUIZ)
    assert other_chat.outcome is RoundStartOutcome.STARTED
    refused = await rounds.stop("telegram", CHAT, member(3))
    assert refused == "Only whoever started the round or a chat admin can stop it."
    ended = await rounds.stop("telegram", CHAT, member(3), is_chat_admin=True)
    assert ended.stopped and ended.notice.startswith("⏹ Round stopped early")
    assert await rounds.stop("telegram", CHAT, HOST) == "No round is running in this chat."


async def test_a_full_round_ranks_by_score_then_time_and_counts_in_history(
    engine, rounds, storage, catalog, clock
):
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ)).question
    fast, slow, weak = member(1), member(2), member(3)
    while question is not None:
        right = correct_position(catalog, question)
        await rounds.answer(question.round_id, fast, question.number, right)
        clock.now += timedelta(seconds=2)
        await rounds.answer(question.round_id, slow, question.number, right)
        await rounds.answer(question.round_id, weak, question.number, (right + 1) % 4)
        reveal = await rounds.close(question.round_id, question.number)
        question = reveal.next_question
    assert reveal.finished
    names = [(line.name, line.score) for line in reveal.scoreboard]
    assert names == [("Member 1", 8), ("Member 2", 8), ("Member 3", 0)]
    (progress,) = (await engine.progress(slow)).quizzes
    assert (progress.completed_attempts, progress.best) == (1, 8)
    assert len(await storage.review_items("telegram", "m3")) == 8  # misses come back
    board = await rounds.leaderboard(SEED_QUIZ, HOST, chat_id=CHAT)
    assert [(line.name, line.best) for line in board.lines] == [
        ("Member 1", 8),
        ("Member 2", 8),
        ("Member 3", 0),
    ]
    elsewhere = await rounds.leaderboard(SEED_QUIZ, HOST, chat_id="other")
    assert elsewhere.lines == ()


async def test_a_copy_another_round_left_unfinished_is_abandoned_and_a_rerun_changes_nothing(
    engine, rounds, catalog, storage, clock
):
    quiz = catalog.get(SEED_QUIZ)
    # An earlier round in this chat whose copy into member 1's history was cut short.
    leftover, _ = await storage.create_attempt(
        NewAttempt(
            platform="telegram",
            user_id="m1",
            chat_id=CHAT,
            quiz_id=SEED_QUIZ,
            question_order=tuple(q.id for q in quiz.questions),
            option_order={},
            started_at=clock.now - timedelta(hours=1),
            kind=AttemptKind.ROUND,
        )
    )
    question = (await rounds.start("telegram", CHAT, HOST, SEED_QUIZ)).question
    while question is not None:
        await rounds.answer(question.round_id, member(1), question.number, 0)
        reveal = await rounds.close(question.round_id, question.number)
        question = reveal.next_question

    async def mine():
        summaries = await storage.attempt_summaries("telegram", "m1")
        return [(s.attempt.id == leftover.id, s.attempt.status, s.answered) for s in summaries]

    copied = [(True, AttemptStatus.ABANDONED, 0), (False, AttemptStatus.COMPLETED, 8)]
    assert await mine() == copied
    schedule = await storage.review_items("telegram", "m1")
    for _ in range(2):
        assert await rounds.copy_history(reveal.round_id)
    assert await mine() == copied
    assert await storage.review_items("telegram", "m1") == schedule
