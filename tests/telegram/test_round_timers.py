"""Group round timers on Telegram on a :class:`~fakes.clock.ManualClock`: time runs out,
the pause between questions, first answers, closing early, many members, restarts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean, find_question
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch, stop_process
from tests.telegram.rounds_harness import (
    GROUP_ID,
    TIMING,
    TITLE,
    Room,
    advance,
    count_line,
    member,
    posted_since,
    scores,
    settle,
)


async def test_time_up_closes_the_question_and_the_next_follows_after_the_pause(
    api: FakeBotApi, round_engine: QuizEngine, seed: Quiz, clock: ManualClock, launch: Launch
) -> None:
    adapter = await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    host = Chatter(api, member(api, 3, "Host"), group)
    host.send(f"/quiz group {SEED_QUIZ} 5")
    await room.notice()
    question, _ = await room.question()
    mark = len(api.calls)
    await advance(adapter, clock, 4.9)  # nobody answers
    assert posted_since(api, mark) == []  # still open
    await advance(adapter, clock, 0.1)
    reveal, _ = await room.reveal()
    assert clean(tt("round_no_answers", "en")) in reveal
    assert count_line(seed, question, True, 0) in reveal
    closed = room.now(question)
    assert closed.buttons == []
    assert clean(closed.text).endswith(f"⌛ {t('round_closed', 'en')} · Answers: 0")
    mark = len(api.calls)
    await advance(adapter, clock, TIMING.pause - 0.1)
    assert posted_since(api, mark) == []  # the pause runs from the close
    await advance(adapter, clock, 0.1)
    following, _ = await room.question()
    assert clean(following.text).startswith("👥 Question 2/8")
    late = host.press(question, button_for(question, seed, "en", correct=True))
    assert await host.toast(late) == clean(t("round_closed", "en"))
    host.send("/stop")
    assert scores(await room.final()) == []
    assert api.failed_calls() == []


async def test_fifty_members_answer_and_the_reveal_counts_them(
    api: FakeBotApi,
    round_engine: QuizEngine,
    storage: SQLiteStorage,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    adapter = await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    host = Chatter(api, api.user(7000, "Host"), group)
    host.send(f"/quiz group {SEED_QUIZ} 30")
    assert await room.notice() == clean(t("round_started", "en", seconds=30))
    question, _ = await room.question()
    assert clean(question.text).startswith("👥 Question 1/8")
    assert re.search(r"⏳ \d{1,2} s left · Answers: 0$", clean(question.text))
    running = await storage.active_round("telegram", str(GROUP_ID))
    assert running is not None and running.time_limit_seconds == 30
    right = button_for(question, seed, "en", correct=True)
    wrong = button_for(question, seed, "en", correct=False)
    people = [member(api, n) for n in range(50)]
    queries = [api.press(p, question, right if n < 30 else wrong) for n, p in enumerate(people)]
    for query in queries:
        assert await host.toast(query) == clean(t("round_answer_taken", "en"))
    await advance(adapter, clock, 30)  # time is up

    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=50)) in reveal
    assert count_line(seed, question, True, 30) in reveal
    assert count_line(seed, question, False, 20) in reveal
    asked = find_question(seed, "en", question.text or "")
    assert clean(t("correct_answer", "en", answer="")) in " ".join(reveal)
    assert clean(asked.explanation.get("en")) in " ".join(reveal)
    # Ten of the right answers (all equally fast, time standing still: by name); the rest
    # summarised.
    assert scores(reveal) == [(n + 1, f"Member {n:02}", 1) for n in range(10)]
    assert reveal[-1] == clean(t("round_more", "en", count=40))
    # The question was closed with the final count, buttons gone.
    closed = room.now(question)
    assert closed.buttons == []
    assert clean(closed.text).endswith(f"⌛ {t('round_closed', 'en')} · Answers: 50")

    # A member who neither started it nor administers the chat cannot stop it; an admin can.
    outsider = Chatter(api, people[40], group)
    outsider.send("/stop")
    assert await room.notice() == clean(t("round_not_starter", "en"))
    admin = Chatter(api, people[41], group)
    api.chat_admins[GROUP_ID][people[41]["id"]] = "administrator"
    admin.send("/stop")
    final = await room.final()
    assert final[0] == clean(t("round_stopped", "en", title=TITLE))
    ranking = scores(final)
    assert len(ranking) == 50  # everyone is ranked
    assert [score for _, _, score in ranking] == [1] * 30 + [0] * 20
    assert api.failed_calls() == []
    assert not [c for c in api.calls if c.error_code == 429]


async def test_first_answer_counts_and_a_question_closes_when_everyone_answered(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    adapter = await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    asha = Chatter(api, member(api, 1, "Asha"), group)
    boris = Chatter(api, member(api, 2, "Boris"), group)
    asha.send(f"/quiz group {SEED_QUIZ} 30")
    await room.notice()
    first, _ = await room.question()
    right = button_for(first, seed, "en", correct=True)
    wrong = button_for(first, seed, "en", correct=False)
    taken = clean(t("round_answer_taken", "en"))
    assert await asha.toast(asha.press(first, right)) == taken
    again = asha.press(first, wrong)  # a second answer, different: the first one counts
    assert await asha.toast(again) == clean(t("round_first_counts", "en"))
    assert await boris.toast(boris.press(first, wrong)) == taken
    await advance(adapter, clock, 30)  # time is up
    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    assert count_line(seed, first, True, 1) in reveal
    assert count_line(seed, first, False, 1) in reveal
    assert scores(reveal) == [(1, "Asha", 1), (2, "Boris", 0)]

    # Question 2: both answer, so it closes at once: time stands still, so it can only have
    # been closed early.
    await advance(adapter, clock, TIMING.pause)
    second, _ = await room.question()
    assert clean(second.text).startswith("👥 Question 2/8")
    asha.press(second, button_for(second, seed, "en", correct=True))
    boris.press(second, button_for(second, seed, "en", correct=True))
    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    # A press on a closed question changes nothing.
    late = boris.press(first, right)
    assert await boris.toast(late) == clean(t("round_closed", "en"))
    asha.send("/stop")
    final = await room.final()
    assert scores(final) == [(1, "Asha", 2), (2, "Boris", 1)]
    assert api.failed_calls() == []


async def test_a_restarted_bot_continues_the_round(
    api: FakeBotApi,
    round_engine: QuizEngine,
    catalog: QuizCatalog,
    seed: Quiz,
    clock: ManualClock,
    db_path: Path,
    reopened: list[SQLiteStorage],
    launch: Launch,
) -> None:
    async def restart() -> Any:
        storage = SQLiteStorage(db_path)
        await storage.open()
        reopened.append(storage)
        engine = QuizEngine(catalog, storage, clock=clock)
        return await launch(engine, round_timing=TIMING, clock=clock)

    first_process = await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    asha = Chatter(api, member(api, 4, "Asha"), group)
    boris = Chatter(api, member(api, 5, "Boris"), group)
    asha.send(f"/quiz group {SEED_QUIZ} 60")
    await room.notice()
    first, _ = await room.question()
    right = button_for(first, seed, "en", correct=True)
    assert await asha.toast(asha.press(first, right)) == clean(t("round_answer_taken", "en"))
    await stop_process(first_process)  # mid-question
    second_process = await restart()
    taken = await boris.toast(boris.press(first, right))
    assert taken == clean(t("round_answer_taken", "en"))
    await advance(second_process, clock, 60)  # time is up
    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    assert count_line(seed, first, True, 2) in reveal
    assert room.now(first).buttons == []  # the new process closed the old process's message
    await advance(second_process, clock, TIMING.pause)
    second, _ = await room.question()
    assert clean(second.text).startswith("👥 Question 2/8")

    # Down again, this time until question 2's time is up: it is revealed at once on start.
    await settle(second_process)
    await stop_process(second_process)
    clock.advance(61)
    third_process = await restart()
    reveal, _ = await room.reveal()
    assert reveal[0] == "📣 " + clean(t("question_progress", "en", number=2, total=8))
    assert clean(t("round_answers_count", "en", count=0)) in reveal
    assert scores(reveal) == [(1, "Asha", 1), (2, "Boris", 1)]  # the scoreboard so far
    await advance(third_process, clock, TIMING.pause)
    third, _ = await room.question()
    assert clean(third.text).startswith("👥 Question 3/8")
    asha.send("/stop")
    assert len(scores(await room.final())) == 2
    assert api.failed_calls() == []
