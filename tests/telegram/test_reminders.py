"""/timezone, /remind and /review through python-telegram-bot and the fake Bot API, on a
manual clock across days: a reminder comes at the local time when questions are due (its
button starts the review), none when nothing is due, a user who blocked the bot is not tried
again until they write to it, and a 02:30 reminder comes once on the spring-forward night (at
03:00) and once on the fall-back night (at its first 02:30)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from adapters.telegram import TelegramAdapter
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import SQLiteStorage
from bot.storage.scheduling import MessageStatus
from fakes.clock import ManualClock
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch, chatter

DUE_TWO = clean(t("review_due", "en", count=2))


async def start(
    launch: Launch, catalog: QuizCatalog, storage: SQLiteStorage, clock: ManualClock
) -> TelegramAdapter:
    engine = QuizEngine(catalog, storage, clock=clock)
    return await launch(engine, clock=clock)


async def settle(adapter: TelegramAdapter) -> None:
    """Wait until the scheduler and the outbox wait for the clock."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    await asyncio.sleep(0.01)
    while not adapter.services.scheduling.settled():
        assert loop.time() < deadline, "the scheduler never settled"
        await asyncio.sleep(0.01)


async def advance_to(adapter: TelegramAdapter, clock: ManualClock, moment: datetime) -> None:
    """Move the clock to ``moment`` an hour at a time, letting every due job run on the way."""
    while clock.now < moment:
        clock.advance(min(3600.0, (moment - clock.now).total_seconds()))
        await settle(adapter)


async def play(me: Chatter, catalog: QuizCatalog, pattern: str) -> None:
    """The seed quiz, answered right ("1") or wrong ("0") question by question."""
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me.send(f"/quiz {SEED_QUIZ}")
    for right in pattern:
        question = await me.question()
        await me.toast(me.press(question, button_for(question, quiz, "en", right == "1")))
    await me.message(lambda m: bool(m.buttons))  # the result


def attempts_to(api: FakeBotApi, chat_id: int, text: str, after: int = 0) -> list[bool]:
    """Every sendMessage of ``text`` to ``chat_id`` (since call ``after``): whether it went."""
    return [
        c.ok
        for c in api.calls[after:]
        if c.method == "sendMessage"
        and int(c.params.get("chat_id", 0)) == chat_id
        and clean(c.params.get("text")) == text
    ]


async def test_a_reminder_comes_at_local_time_when_reviews_are_due_and_starts_the_review(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
) -> None:
    adapter = await start(launch, catalog, storage, clock)  # 2026-01-01 00:00 UTC
    me = chatter(api, 9101, "Ada")
    me.send("/timezone Europe/Berlin")
    set_text = t("timezone_set_user", "en", zone="Europe/Berlin", time="01:00")
    assert clean((await me.message()).text) == clean(set_text)
    await play(me, catalog, "10101111")  # two misses
    me.send("/remind 08:00")
    expected = t(
        "remind_set",
        "en",
        time="08:00",
        zone="Europe/Berlin",
        next="2026-01-01 08:00 Europe/Berlin",
    )
    assert clean((await me.message()).text) == clean(expected)
    await settle(adapter)
    await advance_to(adapter, clock, datetime(2026, 1, 1, 6, 59, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO) == []  # 07:59 in Berlin: not yet
    await advance_to(adapter, clock, datetime(2026, 1, 1, 7, 0, tzinfo=UTC))
    reminder = await me.message(lambda m: clean(m.text) == DUE_TWO)
    assert [clean(b["text"]) for b in reminder.buttons] == [clean(t("review_button", "en"))]
    (sent,) = await storage.outgoing_messages("review-due:")
    assert sent.status is MessageStatus.SENT and sent.message_id == str(reminder.message_id)
    me.press_button(reminder, t("review_button", "en"))
    assert clean((await me.message()).text) == clean(t("review_started", "en", count=2))
    assert await me.question()
    # /remind shows the next check, tomorrow at 08:00 in Berlin.
    me.send("/remind")
    current = t(
        "remind_current",
        "en",
        time="08:00",
        zone="Europe/Berlin",
        next="2026-01-02 08:00 Europe/Berlin",
    )
    assert clean((await me.message()).text) == clean(current)
    me.send("/remind off")
    assert clean((await me.message()).text) == clean(t("remind_off", "en"))
    await advance_to(adapter, clock, datetime(2026, 1, 3, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO) == [True]  # off: no more


async def test_no_reminder_is_sent_when_nothing_is_due(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
) -> None:
    adapter = await start(launch, catalog, storage, clock)
    me = chatter(api, 9102, "Bo")
    await play(me, catalog, "11111111")  # nothing missed
    me.send("/remind 9:30")
    assert "09:30" in clean((await me.message()).text)
    mark = len(api.calls)
    await advance_to(adapter, clock, datetime(2026, 1, 4, tzinfo=UTC))
    assert [c for c in api.calls[mark:] if c.method == "sendMessage"] == []
    assert await storage.outgoing_messages("review-due:") == []
    job = await adapter.services.scheduling.scheduler.get("review-reminder:telegram:9102")
    assert job is not None and job.due_at == datetime(2026, 1, 4, 9, 30, tzinfo=UTC)


async def test_a_user_who_blocked_the_bot_is_not_tried_again_until_they_write_to_it(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
) -> None:
    adapter = await start(launch, catalog, storage, clock)
    me = chatter(api, 9103, "Cy")
    await play(me, catalog, "10101111")
    me.send("/remind 08:00")
    await me.message()
    api.block(me.user)
    await advance_to(adapter, clock, datetime(2026, 1, 1, 9, 0, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO) == [False]  # refused: 403
    (refused,) = await storage.outgoing_messages("review-due:")
    assert refused.status is MessageStatus.UNDELIVERABLE
    assert refused.last_error == "Forbidden: bot was blocked by the user"
    await advance_to(adapter, clock, datetime(2026, 1, 3, 9, 0, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO) == [False]  # not tried again
    # They unblock the bot and write to it: the next reminder comes.
    me.send("/start")
    await me.message()
    await advance_to(adapter, clock, datetime(2026, 1, 4, 9, 0, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO) == [False, True]


async def test_a_0230_reminder_comes_once_at_0300_on_the_spring_forward_night(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
) -> None:
    clock = ManualClock(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    adapter = await start(launch, catalog, storage, clock)
    me = chatter(api, 9104, "Di")
    me.send("/timezone europe/berlin")
    await me.message()
    await play(me, catalog, "10101111")
    me.send("/remind 02:30")
    text = clean((await me.message()).text)
    assert "2026-03-29 03:00 Europe/Berlin" in text  # the time the clocks skip: at 03:00
    mark = len(api.calls)
    await advance_to(adapter, clock, datetime(2026, 3, 29, 0, 59, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == []
    await advance_to(adapter, clock, datetime(2026, 3, 29, 1, 0, tzinfo=UTC))  # 03:00 CEST
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True]
    await advance_to(adapter, clock, datetime(2026, 3, 29, 23, 0, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True]  # once that night
    await advance_to(adapter, clock, datetime(2026, 3, 30, 0, 30, tzinfo=UTC))  # 02:30 CEST
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True, True]


async def test_a_0230_reminder_comes_once_at_its_first_0230_on_the_fall_back_night(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
) -> None:
    """On 2026-10-25 Berlin's clocks go back from 03:00 CEST to 02:00 CET: 02:30 happens at
    00:30 UTC and again at 01:30 UTC. The reminder comes at the first, and not again."""
    clock = ManualClock(datetime(2026, 10, 24, 12, 0, tzinfo=UTC))
    adapter = await start(launch, catalog, storage, clock)
    me = chatter(api, 9106, "Fa")
    me.send("/timezone Europe/Berlin")
    await me.message()
    await play(me, catalog, "10101111")
    me.send("/remind 02:30")
    await me.message()
    job = await adapter.services.scheduling.scheduler.get("review-reminder:telegram:9106")
    assert job is not None and job.due_at == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    mark = len(api.calls)
    await advance_to(adapter, clock, datetime(2026, 10, 25, 0, 29, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == []
    await advance_to(adapter, clock, datetime(2026, 10, 25, 0, 30, tzinfo=UTC))  # 02:30 CEST
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True]
    await advance_to(adapter, clock, datetime(2026, 10, 25, 1, 30, tzinfo=UTC))  # 02:30 CET
    await advance_to(adapter, clock, datetime(2026, 10, 25, 23, 0, tzinfo=UTC))
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True]  # once that night
    job = await adapter.services.scheduling.scheduler.get("review-reminder:telegram:9106")
    assert job is not None and job.due_at == datetime(2026, 10, 26, 1, 30, tzinfo=UTC)
    await advance_to(adapter, clock, datetime(2026, 10, 26, 1, 30, tzinfo=UTC))  # 02:30 CET
    assert attempts_to(api, me.chat_id, DUE_TWO, mark) == [True, True]


async def test_timezone_names_are_checked_and_a_group_zone_is_its_admins(
    api: FakeBotApi,
    launch: Launch,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    clock: ManualClock,
) -> None:
    adapter = await start(launch, catalog, storage, clock)
    me = chatter(api, 9105, "Ed")
    me.send("/timezone")
    shown = t("timezone_current_user", "en", zone="UTC", time="00:00")
    assert clean((await me.message()).text) == clean(shown)
    me.send("/timezone Mars/Olympus")
    assert clean((await me.message()).text) == clean(
        t("timezone_unknown", "en", name="Mars/Olympus")
    )
    group = api.group_chat(-100_9105, "Team")
    member = Chatter(api, me.user, group)
    api.chat_admins[-100_9105][9105] = "member"
    member.send("/timezone Asia/Dhaka")
    assert clean((await member.message()).text) == clean(t("timezone_admins_only", "en"))
    api.chat_admins[-100_9105][9105] = "administrator"
    member.send("/timezone Asia/Dhaka")
    assert clean((await member.message()).text) == clean(
        t("timezone_set_chat", "en", zone="Asia/Dhaka", time="06:00")
    )
    member.send("/remind 08:00")
    assert clean((await member.message()).text) == clean(t("remind_private_only", "en"))
    zones = adapter.services.scheduling.timezones  # the user's own zone is not the group's
    assert (await zones.of_user("telegram", "9105")).key == "UTC"
    assert (await zones.of_chat("telegram", "-1009105")).key == "Asia/Dhaka"
