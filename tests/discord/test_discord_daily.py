"""The daily question in a Discord server channel, through discord.py and the fake Discord, on
a virtual clock across days: /daily set by a member who may manage messages, the post at the
channel's local time (times as Discord timestamps), presses, the reveal with who got it right
and their streaks, streaks kept and broken, weekdays only, a bot down past the question's
window, /daily off, the daylight-saving rule, /progress and the leaderboards over a period."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.discord import QuizClient
from adapters.discord.texts import text
from bot.catalog import QuizCatalog
from bot.daily.texts import daily_t
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.discord_api import FakeDiscord, Message
from fakes.discord_users import (
    ADMINISTRATOR,
    GUILD_CHANNEL_ID,
    GUILD_ID,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    ClientFactory,
    Player,
    World,
    buttons,
    find_question,
    pick_letter,
    text_of,
    visible,
)
from tests.conftest import SEED_QUIZ
from tests.daily_harness import BERLIN, at, run_until, settle, streak
from tests.discord.discord_harness import VirtualClock, close_process

TITLE = "Checkpoint sharding and resumable training"


def stamp(moment: datetime, style: str) -> str:
    return f"<t:{int(moment.timestamp())}:{style}>"


class Channel:
    """The server channel with a daily question, as a test drives it."""

    def __init__(self, world: World, clock: VirtualClock, quiz: Quiz) -> None:
        self.world = world
        self.clock = clock
        self.quiz = quiz
        self.moderator = world.user("Mod", permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES)

    @property
    def client(self) -> QuizClient:
        assert isinstance(self.world.client, QuizClient)
        return self.world.client

    def quiet(self) -> bool:
        return self.client.round_driver.settled() and self.client.services.scheduling.settled()

    async def settle(self) -> None:
        await settle(self.quiet)

    async def until(self, moment: str) -> None:
        """Let time run to ``moment`` (Berlin)."""
        storage = self.client.services.scheduling.storage
        await run_until(self.clock, at(moment), self.quiet, storage.next_job_due)

    def messages(self) -> list[Message]:
        return self.world.fake.channel_messages(GUILD_CHANNEL_ID)

    def daily_questions(self) -> list[Message]:
        return [
            m
            for m in self.messages()
            if any(str(b["custom_id"]).startswith("qz1:r:") for b in buttons(m))
        ]

    def reveals(self) -> list[Message]:
        return [m for m in self.messages() if daily_t("daily_reveal", "en") in text_of(m)]

    async def answer(self, who: Player, question: Message, right: bool) -> str:
        letter = pick_letter(self.quiz, question, "en", correct=right)
        return (await who.press_letter(question, letter)).notice

    async def day(self, date: str, answers: dict[Player, bool], closes: str = "21:00") -> str:
        """Post ``date``'s question at 09:00, take ``answers``, reveal it: the reveal's text."""
        await self.until(f"{date} 09:00")
        question = self.daily_questions()[-1]
        for who, right in answers.items():
            await self.answer(who, question, right)
        await self.until(f"{date} {closes}")
        return text_of(self.reveals()[-1])


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(at("2026-03-02 07:00"))  # a Monday


@pytest.fixture
def engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: VirtualClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


async def open_channel(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
    zone: str | None = BERLIN,
) -> Channel:
    fake_discord.stamp = clock
    client = await make_client(engine, clock=clock)
    assert isinstance(client, QuizClient)
    channel = Channel(World(fake_discord, client), clock, quiz)
    if zone is not None:  # the server's zone, which its channels keep
        await channel.world.user("Owner", permissions=ADMINISTRATOR).command("timezone", zone=zone)
    return channel


@pytest.fixture
async def channel(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
) -> Channel:
    return await open_channel(fake_discord, engine, make_client, clock, quiz)


async def test_a_daily_question_is_posted_answered_revealed_and_streaks_grow(
    channel: Channel,
) -> None:
    world = channel.world
    asha, boris, chen = world.user("Asha"), world.user("Boris"), world.user("Chen")
    refused = await asha.command("daily", time="09:00")
    assert visible(refused.notice) == visible(text("daily_admins_only", "en"))
    shown = await asha.command("daily")
    assert visible(text("daily_none", "en")) in visible(text_of(shown.last))  # in Discord's words
    turned_on = await channel.moderator.command(
        "daily", time="09:00", weekdays=False, hours=12, quizzes=SEED_QUIZ
    )
    reply = text_of(turned_on.last)
    assert not turned_on.last.ephemeral  # the channel sees it
    assert daily_t("daily_turned_on", "en") in reply
    assert "Every day at 09:00 (Europe/Berlin)" in reply
    assert f"Questions from: {TITLE}" in reply
    assert f"Next question: {stamp(at('2026-03-02 09:00'), 'F')}" in reply

    await channel.until("2026-03-02 09:00")
    (question,) = channel.daily_questions()
    shown_question = text_of(question)
    assert daily_t("daily_title", "en") in shown_question and TITLE in shown_question
    closes = at("2026-03-02 21:00")
    assert f"🕘 Open until {stamp(closes, 't')} ({stamp(closes, 'R')})" in shown_question
    assert "Answers: 0" in shown_question
    assert await channel.answer(asha, question, True) == visible(t("round_answer_taken", "en"))
    await channel.answer(boris, question, False)
    await channel.answer(chen, question, True)
    await channel.until("2026-03-02 21:00")
    first = text_of(channel.reveals()[-1])
    assert daily_t("daily_reveal", "en") in first
    explanation = find_question(channel.quiz, question, "en").explanation.get("en")
    assert visible(explanation).split()[0] in first
    assert daily_t("daily_right", "en", count=2) in first
    assert streak("Asha", "🥇", 1, 1) in first and streak("Chen", "🥈", 1, 1) in first
    closed = world.fake.messages[question.id]
    assert buttons(closed) and all(b["disabled"] for b in buttons(closed))

    second = await channel.day("2026-03-03", {asha: True, boris: True})
    assert streak("Asha", "🥇", 2, 2) in second and streak("Boris", "🥈", 1, 2) in second
    third = await channel.day("2026-03-04", {asha: True, chen: True})
    assert streak("Asha", "🥇", 3, 3) in third
    assert streak("Chen", "🥈", 1, 1) in third  # missed Tuesday: his streaks start again
    asked = {find_question(channel.quiz, q, "en").id for q in channel.daily_questions()}
    assert len(asked) == 3

    progress = text_of((await asha.command("progress")).last)
    assert daily_t("streaks_title", "en") in progress
    assert f"#general: {streak('', '', 3, 3).split(' — ', 1)[1]}" in progress

    off = await channel.moderator.command("daily", time="off")
    assert daily_t("daily_turned_off", "en") in text_of(off.last)
    await channel.until("2026-03-06 21:00")
    assert len(channel.daily_questions()) == 3


async def test_weekdays_only_and_a_bot_down_past_the_window(
    fake_discord: FakeDiscord,
    catalog: QuizCatalog,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
    db_path: Path,
) -> None:
    clock.now = at("2026-03-06 08:00")  # a Friday
    channel = await open_channel(fake_discord, engine, make_client, clock, quiz)
    asha = channel.world.user("Asha")
    reply = await channel.moderator.command(
        "daily", time="09:00", weekdays=True, hours=6, quizzes=SEED_QUIZ
    )
    assert "Monday to Friday at 09:00 (Europe/Berlin)" in text_of(reply.last)
    friday = await channel.day("2026-03-06", {asha: True}, closes="15:00")
    assert streak("Asha", "🥇", 1, 1) in friday
    await channel.until("2026-03-08 21:00")
    assert len(channel.daily_questions()) == 1  # nothing on Saturday or Sunday
    monday = await channel.day("2026-03-09", {asha: True}, closes="15:00")
    assert streak("Asha", "🥇", 2, 2) in monday  # the weekend breaks nothing

    # Down from Monday evening to Tuesday 16:00: past Tuesday's window (09:00 + 6 h).
    await channel.settle()
    await close_process(channel.client)
    clock.now = at("2026-03-10 16:00")
    storage = SQLiteStorage(db_path)
    await storage.open()
    try:
        restarted = await make_client(QuizEngine(catalog, storage, clock=clock), clock=clock)
        channel.world.client = restarted
        await channel.settle()
        assert len(channel.daily_questions()) == 2  # no late Tuesday, no backlog
        wednesday = await channel.day("2026-03-11", {asha: True}, closes="15:00")
        assert streak("Asha", "🥇", 3, 3) in wednesday  # no question Tuesday: nothing missed
    finally:
        await restarted.close()
        await storage.close()


async def test_a_0230_question_on_the_spring_forward_day_is_posted_once_at_0300(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
) -> None:
    clock.now = at("2026-03-28 01:00")  # Saturday; clocks spring forward on Sunday at 02:00
    channel = await open_channel(fake_discord, engine, make_client, clock, quiz)
    await channel.moderator.command("daily", time="02:30", hours=2, quizzes=SEED_QUIZ)
    for day in ("2026-03-28", "2026-03-29", "2026-03-30"):
        before = len(channel.daily_questions())
        await channel.until(f"{day} 06:00")  # (no 02:30 on Sunday: time runs past it)
        assert len(channel.daily_questions()) == before + 1, day  # once a day
    posted = [
        r.stamp
        for r in fake_discord.requests
        if r.method == "POST"
        and r.path.endswith(f"/channels/{GUILD_CHANNEL_ID}/messages")
        and "qz1:r:" in str((r.body or {}).get("components"))
    ]
    assert posted == [
        datetime(2026, 3, 28, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC),  # 03:00 CEST: the end of the gap
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST
    ]


async def test_leaderboards_over_the_week_the_month_and_ever(channel: Channel) -> None:
    world = channel.world
    channel.clock.now = at("2026-02-28 00:00")  # Saturday
    asha, boris = world.user("Asha"), world.user("Boris")
    await channel.moderator.command("daily", time="00:15", quizzes=SEED_QUIZ)
    days = {
        "2026-02-28": {asha: True},  # last month
        "2026-03-01": {asha: True, boris: False},  # Sunday: this month, last week
        "2026-03-02": {asha: True, boris: True},  # Monday 00:15 in Berlin, Sunday in UTC
    }
    for day, answers in days.items():
        await channel.until(f"{day} 00:15")
        question = channel.daily_questions()[-1]
        for who, right in answers.items():
            await channel.answer(who, question, right)
        await channel.until(f"{day} 12:15")

    async def board(period: str, **options: str) -> str:
        asker = world.user("Asker")
        exchange = await asker.command("leaderboard", period=period, **options)
        assert not exchange.last.ephemeral
        return text_of(exchange.last)

    week = await board("week")
    assert daily_t("period_week", "en") in week
    assert f"since {stamp(at('2026-03-02 00:00'), 'D')}" in week
    assert "🥇 Asha — 1 right of 1" in week and "🥈 Boris — 1 right of 1" in week
    month = await board("month")
    assert "🥇 Asha — 2 right of 2" in month and "🥈 Boris — 1 right of 2" in month
    ever = await board("all")
    assert "🥇 Asha — 3 right of 3" in ever and "since" not in ever
    assert f"Quiz: {TITLE}" in await board("week", quiz=SEED_QUIZ)
    dm = world.user("Dee", dm=True)
    private = text_of((await dm.command("leaderboard", period="all")).last)
    assert "🥇 Asha — 3 right of 3" in private  # in DMs: everyone's
    refused = await dm.command("daily", time="09:00")
    assert refused.last.ephemeral


async def test_the_servers_new_zone_moves_the_next_post(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
) -> None:
    channel = await open_channel(fake_discord, engine, make_client, clock, quiz, zone=None)
    reply = await channel.moderator.command("daily", time="09:00", quizzes=SEED_QUIZ)
    assert "Every day at 09:00 (UTC)" in text_of(reply.last)
    owner = channel.world.user("Owner", permissions=ADMINISTRATOR)
    await owner.command("timezone", zone=BERLIN)
    shown = text_of((await channel.world.user("Asha").command("daily")).last)
    assert "Every day at 09:00 (Europe/Berlin)" in shown
    assert f"Next question: {stamp(at('2026-03-02 09:00'), 'F')}" in shown
    await channel.until("2026-03-02 09:00")  # 08:00 UTC
    assert len(channel.daily_questions()) == 1


@pytest.mark.parametrize(
    ("gone", "refusal"),
    [("removed", (403, 50001)), ("deleted", (404, 10003))],
)
async def test_a_channel_the_bot_cannot_post_in_has_its_daily_question_turned_off(
    channel: Channel,
    storage: SQLiteStorage,
    gone: str,
    refusal: tuple[int, int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bot was kicked from the server (403 50001 Missing Access) or the channel was
    deleted (404 10003 Unknown Channel): the day's question is refused once, the channel is
    marked as one the bot cannot post in, and the next day's job turns the daily question off
    instead of posting a failing request every day."""
    fake = channel.world.fake
    await channel.moderator.command("daily", time="09:00", quizzes=SEED_QUIZ)
    if gone == "removed":
        fake.remove_bot(GUILD_ID)
    else:
        fake.delete_channel(GUILD_CHANNEL_ID)
    mark = len(fake.requests)
    with caplog.at_level(logging.WARNING, logger="quizbot.daily"):
        await channel.until("2026-03-06 21:00")  # Monday to Friday
    path = f"/api/v10/channels/{GUILD_CHANNEL_ID}/messages"
    tried = [r.status for r in fake.requests[mark:] if r.path.startswith(path)]
    assert tried == [refusal[0]]  # Monday's question, once
    setting = await storage.daily_setting("discord", str(GUILD_CHANNEL_ID))
    assert setting is not None and not setting.enabled
    assert "its daily question is turned off" in caplog.text
    marks = await storage.unreachable()
    assert [(m.target, m.to_user) for m in marks] == [(str(GUILD_CHANNEL_ID), False)]
    assert f"{refusal[0]} {refusal[1]}" in marks[0].reason
