"""The daily question on Telegram, through python-telegram-bot and the fake Bot API, on a
manual clock across days: /daily set by a chat admin, the post at the chat's local time, the
presses, the reveal with who got it right and their streaks, streaks kept and broken,
weekdays only, a bot down past the question's window, /daily off, the daylight-saving rule
(spring forward and fall back), a group that removed the bot,
/progress and the leaderboards over a week, a month and all time."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.telegram import TelegramAdapter
from bot.catalog import QuizCatalog
from bot.daily.service import job_key
from bot.daily.texts import daily_t
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import SENDING_METHODS, FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, button_for, clean, find_question
from tests.conftest import SEED_QUIZ
from tests.daily_harness import BERLIN, at, run_until, settle, streak
from tests.telegram.conftest import Launch, stop_process
from tests.telegram.rounds_harness import GROUP_ID, TIMING, Room, lines_of, member, on_the_clock

TITLE = "Checkpoint sharding and resumable training"


class Daily:
    """A group with a daily question, as a test drives it: its members, the clock, the bot."""

    def __init__(
        self, api: FakeBotApi, clock: ManualClock, adapter: TelegramAdapter, quiz: Quiz
    ) -> None:
        self.api = api
        self.clock = clock
        self.adapter = adapter
        self.quiz = quiz
        self.group = api.group_chat(GROUP_ID, "Study group")
        self.room = Room(api)
        self.admin = self.chatter(1, "Admin")
        api.chat_admins[GROUP_ID][self.admin.user["id"]] = "administrator"

    def chatter(self, number: int, name: str) -> Chatter:
        return Chatter(self.api, member(self.api, number, name), self.group)

    def quiet(self) -> bool:
        return self.adapter.round_driver.settled() and self.adapter.services.scheduling.settled()

    async def settle(self) -> None:
        await settle(self.quiet)

    async def until(self, moment: str) -> None:
        """Let time run to ``moment`` (Berlin)."""
        storage = self.adapter.services.scheduling.storage
        await run_until(self.clock, at(moment), self.quiet, storage.next_job_due)

    async def say(self, who: Chatter, text: str) -> list[str]:
        """What the bot answers ``who``'s message, line by line."""
        who.send(text)
        message, _ = await self.room.next(lambda m: not m.buttons)
        return lines_of(message)

    async def question(self) -> StoredMessage:
        message, _ = await self.room.question()
        return message

    async def answer(self, who: Chatter, question: StoredMessage, right: bool) -> str:
        return await who.toast(who.press(question, button_for(question, self.quiz, "en", right)))

    async def reveal(self) -> list[str]:
        lines, _ = await self.room.reveal()
        return lines

    def posts_since(self, mark: int) -> list[str]:
        return [
            clean(self.api.message_of(c).text)
            for c in self.api.calls_of("sendMessage", after=mark)
            if int(c.params.get("chat_id", 0)) == GROUP_ID
        ]

    async def posted_once_a_day(self, days: tuple[str, ...]) -> list[datetime]:
        """When the question was posted on each of ``days`` (time run to 06:00 Berlin), each
        day's one post: a day with none or more than one fails."""
        posted: list[datetime] = []
        for day in days:
            mark = len(self.api.calls)
            await self.until(f"{day} 06:00")
            calls = [
                call
                for call in self.api.calls_of("sendMessage", after=mark)
                if clean(self.api.message_of(call).text).startswith(daily_t("daily_title", "en"))
            ]
            assert len(calls) == 1, day  # once a day
            posted.append(datetime.fromtimestamp(calls[0].at, UTC))
        return posted


async def start(
    api: FakeBotApi,
    engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
    zone: str | None = BERLIN,
) -> Daily:
    """The bot, and the group with its admin, who sets the group's time zone (``zone``)."""
    on_the_clock(api, clock)
    adapter = await launch(engine, round_timing=TIMING, clock=clock)
    daily = Daily(api, clock, adapter, seed)
    if zone is not None:
        await daily.say(daily.admin, f"/timezone {zone}")
    return daily


async def test_a_daily_question_is_posted_answered_revealed_and_streaks_grow(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-03-02 07:00")  # a Monday
    daily = await start(api, round_engine, seed, clock, launch)
    asha, boris, chen = (
        daily.chatter(2, "Asha"),
        daily.chatter(3, "Boris"),
        daily.chatter(4, "Chen"),
    )

    assert await daily.say(asha, "/daily 09:00") == [daily_t("daily_admins_only", "en")]
    assert await daily.say(asha, "/daily") == [daily_t("daily_none", "en")]
    reply = await daily.say(daily.admin, f"/daily 09:00 {SEED_QUIZ}")
    assert reply == [
        daily_t("daily_turned_on", "en"),
        daily_t("daily_title", "en"),
        "Every day at 09:00 (Europe/Berlin)",
        f"Questions from: {TITLE}",
        "Each question stays open 12 hours (until the next one at most)",
        "Next question: 2026-03-02 09:00 Europe/Berlin",
    ]
    assert (await daily.say(boris, "/daily"))[-1] == "Next question: 2026-03-02 09:00 Europe/Berlin"

    asked = []
    answers = {  # day -> who answers right (True) or wrong (False); the others do not answer
        "2026-03-02": {asha: True, boris: False, chen: True},
        "2026-03-03": {asha: True, boris: True},
        "2026-03-04": {asha: True, boris: True, chen: True},
    }
    reveals = []
    for day, given in answers.items():
        await daily.until(f"{day} 09:00")
        question = await daily.question()
        shown = clean(question.text)
        assert shown.startswith(f"{daily_t('daily_title', 'en')} · {TITLE}")
        closes = f"{day} 21:00 Europe/Berlin"
        assert shown.endswith(f"🕘 Open until {closes} · Answers: 0")
        asked.append(find_question(seed, "en", shown).id)
        for who, right in given.items():
            assert await daily.answer(who, question, right) == clean(t("round_answer_taken", "en"))
        await daily.until(f"{day} 20:59")
        assert daily.room.now(question).buttons != []  # open all day
        await daily.until(f"{day} 21:00")
        reveals.append(await daily.reveal())
        closed = daily.room.now(question)
        assert closed.buttons == []
        assert clean(closed.text).endswith(f"⌛ {t('round_closed', 'en')} · Answers: {len(given)}")
    assert len(set(asked)) == 3  # no question twice

    first, second, third = reveals
    assert first[0] == daily_t("daily_reveal", "en")
    explanation = clean(find_question(seed, "en", first[1]).explanation.get("en"))
    assert any(explanation in line for line in first)
    assert first[-3:] == [
        daily_t("daily_right", "en", count=2),
        streak("Asha", "🥇", 1, 1),
        streak("Chen", "🥈", 1, 1),
    ]
    assert second[-3:] == [
        daily_t("daily_right", "en", count=2),
        streak("Asha", "🥇", 2, 2),
        streak("Boris", "🥈", 1, 2),  # wrong on Monday: right 1, answered 2
    ]
    assert third[-4:] == [
        daily_t("daily_right", "en", count=3),
        streak("Asha", "🥇", 3, 3),
        streak("Boris", "🥈", 2, 3),
        streak("Chen", "🥉", 1, 1),  # missed Tuesday: both streaks start again
    ]

    progress = await daily.say(asha, "/progress")
    assert progress[-2:] == [
        daily_t("streaks_title", "en"),
        "• Study group: " + streak("", "", 3, 3).split(" — ", 1)[1],
    ]

    # Turned off: no more posts; the streaks stay.
    assert await daily.say(daily.admin, "/daily off") == [daily_t("daily_turned_off", "en")]
    mark = len(api.calls)
    await daily.until("2026-03-05 09:00")
    await daily.until("2026-03-06 21:00")
    assert daily.posts_since(mark) == []
    assert api.failed_calls() == []


async def test_the_question_shows_when_it_closes_and_is_edited_rarely(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-03-02 08:00")
    daily = await start(api, round_engine, seed, clock, launch)
    await daily.say(daily.admin, f"/daily 09:00 4h {SEED_QUIZ}")
    await daily.until("2026-03-02 09:00")
    question = await daily.question()
    assert clean(question.text).endswith("Open until 2026-03-02 13:00 Europe/Berlin · Answers: 0")
    mark = len(api.calls)
    for minute in range(1, 60):  # an answer a minute for an hour
        await daily.answer(daily.chatter(100 + minute, f"M{minute}"), question, minute % 2 == 0)
        await daily.until(f"2026-03-02 09:{minute:02}")
    await daily.until("2026-03-02 10:00")
    edits = [
        c
        for c in api.calls_of("editMessageText", after=mark)
        if int(c.params["message_id"]) == question.message_id
    ]
    assert 1 <= len(edits) <= 5  # at most one a quarter of an hour, not one a minute
    assert clean(daily.room.now(question).text).endswith("Answers: 59")
    assert not [c for c in api.calls if c.error_code == 429]


async def test_weekdays_only_skips_the_weekend_without_breaking_a_streak(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-03-06 08:00")  # a Friday
    daily = await start(api, round_engine, seed, clock, launch)
    asha = daily.chatter(2, "Asha")
    reply = await daily.say(daily.admin, f"/daily 09:00 weekdays {SEED_QUIZ}")
    assert "Monday to Friday at 09:00 (Europe/Berlin)" in reply
    posted = []
    for day in ("2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"):
        mark = len(api.calls)
        await daily.until(f"{day} 09:00")
        if daily.posts_since(mark):
            posted.append(day)
            await daily.answer(asha, await daily.question(), True)
            await daily.until(f"{day} 21:00")
            reveal = await daily.reveal()
    assert posted == ["2026-03-06", "2026-03-09"]  # Friday, then Monday
    assert reveal[-1] == streak("Asha", "🥇", 2, 2)


async def test_a_bot_down_past_the_window_skips_that_day_and_posts_no_backlog(
    api: FakeBotApi,
    round_engine: QuizEngine,
    catalog: QuizCatalog,
    seed: Quiz,
    clock: ManualClock,
    db_path: Path,
    reopened: list[SQLiteStorage],
    launch: Launch,
) -> None:
    clock.now = at("2026-03-02 08:00")
    daily = await start(api, round_engine, seed, clock, launch)
    asha = daily.chatter(2, "Asha")
    await daily.say(daily.admin, f"/daily 09:00 6h {SEED_QUIZ}")
    await daily.until("2026-03-02 09:00")
    await daily.answer(asha, await daily.question(), True)
    await daily.until("2026-03-02 15:00")
    await daily.reveal()
    await daily.settle()
    await stop_process(daily.adapter)
    clock.now = at("2026-03-05 16:00")  # down Tuesday to Thursday, back after 09:00 + 6 h

    storage = SQLiteStorage(db_path)
    await storage.open()
    reopened.append(storage)
    mark = len(api.calls)
    restarted = await launch(
        QuizEngine(catalog, storage, clock=clock), round_timing=TIMING, clock=clock
    )
    daily.adapter = restarted
    await daily.settle()
    assert daily.posts_since(mark) == []  # no backlog, and not Thursday's question late
    await daily.until("2026-03-06 09:00")
    daily.room.mark = mark
    question = await daily.question()
    assert clean(question.text).endswith("Open until 2026-03-06 15:00 Europe/Berlin · Answers: 0")
    await daily.answer(asha, question, True)
    await daily.until("2026-03-06 15:00")
    # No question on the days the bot was down: nothing to miss, the streak goes on.
    assert (await daily.reveal())[-1] == streak("Asha", "🥇", 2, 2)
    assert len(daily.posts_since(mark)) == 2  # the question and its reveal


async def test_a_0230_question_on_the_spring_forward_day_is_posted_once_at_0300(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-03-28 01:00")  # Saturday; clocks spring forward on Sunday at 02:00
    daily = await start(api, round_engine, seed, clock, launch)
    await daily.say(daily.admin, f"/daily 02:30 2h {SEED_QUIZ}")
    # No 02:30 on Sunday: time runs past it.
    posted = await daily.posted_once_a_day(("2026-03-28", "2026-03-29", "2026-03-30"))
    assert posted == [
        datetime(2026, 3, 28, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC),  # 03:00 CEST: the end of the gap
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST
    ]


async def test_a_0230_question_on_the_fall_back_day_is_posted_once_at_the_first_0230(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-10-24 01:00")  # Saturday; on Sunday 03:00 CEST becomes 02:00 CET
    daily = await start(api, round_engine, seed, clock, launch)
    await daily.say(daily.admin, f"/daily 02:30 2h {SEED_QUIZ}")
    # On Sunday 02:30 comes twice: time runs past both.
    posted = await daily.posted_once_a_day(("2026-10-24", "2026-10-25", "2026-10-26"))
    assert posted == [
        datetime(2026, 10, 24, 0, 30, tzinfo=UTC),  # 02:30 CEST
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),  # the first 02:30 (CEST), not 01:30 UTC
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),  # 02:30 CET
    ]


async def test_leaderboards_count_right_answers_in_the_week_the_month_and_ever(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = at("2026-02-28 00:00")  # Saturday
    daily = await start(api, round_engine, seed, clock, launch)
    asha, boris = daily.chatter(2, "Asha"), daily.chatter(3, "Boris")
    await daily.say(daily.admin, f"/daily 00:15 {SEED_QUIZ}")
    given: dict[str, dict[Chatter, bool]] = {
        "2026-02-28": {asha: True},  # last month
        "2026-03-01": {asha: True, boris: False},  # Sunday: this month, last week
        # Monday 00:15 in Berlin is still Sunday in UTC: the week is Berlin's.
        "2026-03-02": {asha: True, boris: True},
    }
    for day, answers in given.items():
        await daily.until(f"{day} 00:15")
        question = await daily.question()
        for who, right in answers.items():
            await daily.answer(who, question, right)
        await daily.until(f"{day} 12:15")
        await daily.reveal()

    askers = iter(range(10, 30))  # (each member's commands are rate limited)

    async def board(words: str) -> list[str]:
        asker = daily.chatter(next(askers), "Asker")
        return await daily.say(asker, f"/leaderboard {words}")

    assert await board("week") == [
        daily_t("period_week", "en"),
        "(since 2026-03-02 Europe/Berlin · members of this chat)",
        "🥇 Asha — 1 right of 1",
        "🥈 Boris — 1 right of 1",
    ]
    assert (await board("month"))[2:] == ["🥇 Asha — 2 right of 2", "🥈 Boris — 1 right of 2"]
    assert await board("ALL") == [
        daily_t("period_all", "en"),
        "(members of this chat)",
        "🥇 Asha — 3 right of 3",
        "🥈 Boris — 1 right of 2",
    ]
    assert (await board(f"week {SEED_QUIZ}"))[2] == f"Quiz: {TITLE}"
    assert (await board("week nope"))[0] == clean(round_engine.unknown_quiz_notice("nope", "en"))
    # The quiz leaderboard of old is still there; a word that is neither says what is.
    assert (await board(SEED_QUIZ))[0].startswith("🏆")
    assert (await board("year"))[-1] == clean(daily_t("period_unknown", "en"))
    assert api.failed_calls() == []


async def test_a_new_time_zone_moves_the_next_post_to_the_local_time_there(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
) -> None:
    clock.now = datetime(2026, 3, 2, 6, 0, tzinfo=UTC)
    daily = await start(api, round_engine, seed, clock, launch, zone=None)
    reply = await daily.say(daily.admin, f"/daily 09:00 {SEED_QUIZ}")
    assert "Every day at 09:00 (UTC)" in reply  # UTC until the group sets its zone
    await daily.say(daily.admin, "/timezone Europe/Berlin")
    shown = await daily.say(daily.admin, "/daily")
    assert "Every day at 09:00 (Europe/Berlin)" in shown
    assert shown[-1] == "Next question: 2026-03-02 09:00 Europe/Berlin"
    mark = len(api.calls)
    await daily.until("2026-03-02 09:00")  # 08:00 UTC
    question = await daily.question()
    assert clean(question.text).endswith("Open until 2026-03-02 21:00 Europe/Berlin · Answers: 0")
    await daily.until("2026-03-02 10:30")  # (09:00 UTC passes: nothing more)
    assert len(daily.posts_since(mark)) == 1


async def test_a_group_that_removed_the_bot_has_its_daily_question_turned_off(
    api: FakeBotApi,
    round_engine: QuizEngine,
    storage: SQLiteStorage,
    seed: Quiz,
    clock: ManualClock,
    launch: Launch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Telegram refuses the day's question with 403 (the bot was kicked): the round ends, the
    group is marked as one the bot cannot post in, and the next day's job turns the daily
    question off instead of posting a failing request every day."""
    clock.now = at("2026-03-02 08:00")
    daily = await start(api, round_engine, seed, clock, launch)
    await daily.say(daily.admin, f"/daily 09:00 {SEED_QUIZ}")
    api.remove_bot(daily.group)
    mark = len(api.calls)
    with caplog.at_level(logging.WARNING, logger="quizbot.daily"):
        await daily.until("2026-03-06 21:00")  # Monday to Friday
    tried = [
        call
        for call in api.calls[mark:]
        if call.method in SENDING_METHODS and int(call.params.get("chat_id", 0)) == GROUP_ID
    ]
    assert [(call.ok, call.description) for call in tried] == [
        (False, "Forbidden: bot was kicked from the supergroup chat")  # Monday's, once
    ]
    setting = await storage.daily_setting("telegram", str(GROUP_ID))
    assert setting is not None and not setting.enabled
    assert (
        await daily.adapter.services.scheduling.scheduler.get(job_key("telegram", str(GROUP_ID)))
        is None
    )
    assert "its daily question is turned off" in caplog.text
    # Added back, an admin turns it on again: their command clears the mark.
    api.refusing.pop(GROUP_ID)
    reply = await daily.say(daily.admin, f"/daily 09:00 {SEED_QUIZ}")
    assert reply[0] == daily_t("daily_turned_on", "en")
    await daily.until("2026-03-09 09:00")
    assert clean((await daily.question()).text).startswith(daily_t("daily_title", "en"))
