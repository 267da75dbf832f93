"""Group rounds on Telegram against Telegram's per-minute group limit: a whole round's pacing,
and picking a round's quiz. (Timers, first answers and restarts: ``test_round_timers.py``.)

Time is a :class:`~fakes.clock.ManualClock` shared by the engine, the adapter's rounds and
send budget, and the fake server's per-minute window: it moves only when the test advances it,
so how fast the machine is cannot decide whether members were in time or a minute was full.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from adapters.telegram import TelegramAdapter
from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.counting_storage import CountingStorage
from fakes.telegram_bot_api import GROUP_LIMIT, FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean, is_round_question
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch
from tests.telegram.rounds_harness import (
    GROUP_ID,
    TIMING,
    TITLE,
    Room,
    advance,
    member,
    on_the_clock,
    scores,
    settle,
)

SECONDS = 20  # each question's time limit in the full round


async def run_until(
    adapter: TelegramAdapter, clock: ManualClock, arrived: Callable[[], bool], limit: float
) -> float:
    """Advance the clock a second at a time (so every timer fires when due) until
    ``arrived()``; how many seconds that took, at most ``limit``."""
    waited = 0.0
    await settle(adapter)
    while not arrived():
        assert waited < limit, f"nothing arrived within {limit} s"
        await advance(adapter, clock, 1)
        waited += 1
    return waited


def posted(api: FakeBotApi, room: Room, predicate: Callable[[Any], bool]) -> Callable[[], bool]:
    """Whether the bot sent the group a message matching ``predicate`` since the room's mark."""

    def arrived() -> bool:
        return any(
            int(c.params.get("chat_id", 0)) == GROUP_ID and predicate(api.message_of(c))
            for c in api.calls_of("sendMessage", after=room.mark)
        )

    return arrived


async def test_a_full_round_stays_within_the_group_rate_limit(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    on_the_clock(api, clock)  # the fake's minute is the clock's
    adapter = await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    players = [Chatter(api, member(api, 10 + n, name), group) for n, name in enumerate("ABC")]
    players[0].send(f"/quiz group {SEED_QUIZ} {SECONDS}")
    await room.notice()
    expected = {"A": 0, "B": 0, "C": 0}
    questions = []
    for number in range(1, 9):
        # The pause between questions stretches when the chat's minute is busy.
        await run_until(adapter, clock, posted(api, room, is_round_question), limit=60)
        question, asked = await room.question()
        assert clean(question.text).startswith(f"👥 Question {number}/8")
        questions.append(question)
        # Odd questions: C sits out, so the question runs until time is up; even ones close
        # as soon as all three answered (the first question always runs its full time).
        answering = players if number % 2 == 0 or number == 1 else players[:2]
        for index, player in enumerate(answering):
            right = (number + index) % 3 != 0
            query = player.press(question, button_for(question, seed, "en", correct=right))
            assert await player.toast(query) == clean(t("round_answer_taken", "en"))
            expected[player.user["first_name"]] += right
        is_reveal = posted(api, room, lambda m: clean(m.text).startswith("📣"))
        await run_until(adapter, clock, is_reveal, limit=2 * SECONDS)
        _, revealed = await room.reveal()
        # (The reveal itself may wait for a slot in the chat's minute.)
        if number % 2 == 0:
            assert revealed.at - asked.at < SECONDS  # closed before its time was up
        else:
            assert revealed.at - asked.at >= SECONDS  # open until its time was up
    final = await room.final()
    assert final[0] == clean(t("round_finished", "en", title=TITLE))
    ranking = scores(final)
    assert sorted((name, score) for _, name, score in ranking) == sorted(expected.items())
    assert [score for _, _, score in ranking] == sorted(expected.values(), reverse=True)

    # Never over Telegram's 20 a minute in the group (nor the bot's own budget of 15), and
    # never refused.
    assert not [c for c in api.calls if c.error_code == 429]
    assert api.busiest_window(GROUP_ID) <= TIMING.chat_budget <= GROUP_LIMIT
    assert api.failed_calls() == []
    # Countdown edits were made, coalesced: at most one per 5 s per question message.
    edits = [
        c
        for c in api.calls_of("editMessageText")
        if int(c.params["chat_id"]) == GROUP_ID and c.params.get("reply_markup")
    ]
    assert edits, "no countdown edits at all"
    for question in questions:
        mine = [c.at for c in edits if int(c.params["message_id"]) == question.message_id]
        assert len(mine) <= SECONDS / TIMING.edit_interval
        gaps = [b - a for a, b in itertools.pairwise(mine)]
        assert all(gap >= TIMING.edit_interval for gap in gaps), gaps

    # The chat's leaderboard now has the three of them; a private chat shows everyone's.
    players[0].send("/leaderboard")
    board, _ = await room.next(lambda m: "🏆" in (m.text or ""))
    text = clean(board.text)
    assert clean(t("leaderboard_title", "en", title=TITLE)) in text
    assert clean(tt("leaderboard_here", "en")) in text
    assert all(f" {name} — " in text for name in "ABC")
    alone = Chatter(api, players[1].user, api.private_chat(players[1].user))
    alone.send(f"/leaderboard {SEED_QUIZ}")
    text = clean((await alone.message()).text)
    assert clean(tt("leaderboard_everyone", "en")) in text and " B — " in text


async def test_picking_the_quiz_of_a_round_and_rounds_only_in_groups(
    api: FakeBotApi,
    round_engine: QuizEngine,
    storage: SQLiteStorage,
    catalog: QuizCatalog,
    clock: ManualClock,
    launch: Launch,
) -> None:
    await launch(round_engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    host_user = member(api, 30, "Host")
    private = Chatter(api, host_user, api.private_chat(host_user))
    private.send("/quiz group")
    assert clean((await private.message()).text) == clean(tt("round_group_only", "en"))
    room = Room(api)
    host = Chatter(api, host_user, group)
    host.send("/leaderboard")
    assert await room.notice() == clean(t("leaderboard_empty", "en"))
    host.send("/quiz group 7")
    picker, _ = await room.next(lambda m: bool(m.buttons))
    assert clean(picker.text).startswith(clean(tt("round_choose", "en")))
    assert len(picker.buttons) == len(catalog)
    stranger = Chatter(api, member(api, 31, "Zoe"), group)
    refused = stranger.press(picker, picker.buttons[0]["callback_data"])
    assert await stranger.toast(refused) == "These buttons are Host's — send /quiz to get your own."
    host.press_button(picker, TITLE)
    assert await room.notice() == clean(t("round_started", "en", seconds=7))
    question, _ = await room.question()
    assert clean(question.text).endswith("⏳ 7 s left · Answers: 0")
    running = await storage.active_round("telegram", str(GROUP_ID))
    assert running is not None and running.time_limit_seconds == 7
    host.send(f"/quiz group {SEED_QUIZ}")
    assert await room.notice() == clean(t("round_running", "en"))
    host.send("/stop")
    await room.final()
    assert api.failed_calls() == []


async def test_a_round_press_through_telegram_costs_two_storage_round_trips(
    api: FakeBotApi,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
    seed: Quiz,
    launch: Launch,
) -> None:
    """From the press's update to its toast, through python-telegram-bot and the fake Bot
    API: the round with the member, then the answer with how the question stands."""
    counted = CountingStorage(storage)
    engine = QuizEngine(catalog, counted.as_storage(), clock=clock)
    adapter = await launch(engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    players = [Chatter(api, member(api, 40 + n, name), group) for n, name in enumerate("DE")]
    players[0].send(f"/quiz group {SEED_QUIZ} {SECONDS}")
    await room.notice()
    await settle(adapter)
    question, _ = await room.question()
    for player in players:
        await settle(adapter)
        counted.reset()
        query = player.press(question, button_for(question, seed, "en", correct=True))
        assert await player.toast(query) == clean(t("round_answer_taken", "en"))
        assert counted.calls == ["round_press", "record_round_answer"]
