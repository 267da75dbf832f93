"""Assignments through discord.py and the fake Discord, on a virtual clock across days: a
member with Manage Messages sets one, members start it from its button (an ephemeral quiz),
from an attempt already in progress, one finishes late; reminders by DM only to who has not
finished, the recap and the summary in the channel once; /assign cancel stops them;
/report with the CSV and the chart; /assignments; those who may not are refused."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from adapters.discord import QuizClient
from bot.assignments.texts import assignment_t
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.discord_api import FakeDiscord, Message
from fakes.discord_users import (
    ADMINISTRATOR,
    GUILD_CHANNEL_ID,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    ClientFactory,
    Player,
    World,
    buttons,
    pick_letter,
    text_of,
    visible,
)
from quizbot.charts import render_stats_png
from tests.conftest import SEED_QUIZ
from tests.daily_harness import settle
from tests.discord.discord_harness import VirtualClock

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
DEADLINE = int(datetime(2026, 12, 9, 9, 0, tzinfo=UTC).timestamp())  # 48 h after T0
TITLE = "Checkpoint sharding and resumable training"
HOUR, DAY = 3600, 86400


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(T0)


@pytest.fixture
def engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: VirtualClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
async def world(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
) -> World:
    fake_discord.stamp = clock
    client = await make_client(engine, clock=clock, stats_chart=render_stats_png)
    return World(fake_discord, client)


async def advance(world: World, clock: VirtualClock, seconds: float) -> None:
    """Let what is due now happen, then ``seconds`` pass, and what falls due happen (the
    scheduler and the outbox wait for the clock again)."""
    assert isinstance(world.client, QuizClient)
    scheduling = world.client.services.scheduling
    await settle(scheduling.settled)
    clock.advance(seconds)
    await settle(scheduling.settled)


def channel(world: World) -> list[Message]:
    return world.fake.channel_messages(GUILD_CHANNEL_ID)


async def play(player: Player, quiz: Quiz, first: Message, pattern: str) -> Message:
    """Answer from ``first`` on: "1" right, "0" wrong; the last message shown."""
    shown = first
    for right in pattern:
        letter = pick_letter(quiz, shown, "en", correct=right == "1")
        shown = (await player.press_letter(shown, letter)).last
    return shown


def start_button(message: Message) -> str:
    (button,) = buttons(message)
    return str(button["custom_id"])


async def test_an_assignment_from_its_post_to_the_report(
    world: World, engine: QuizEngine, clock: VirtualClock, quiz: Quiz
) -> None:
    lead = world.user("Lead", permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES)
    asha, ben, cleo, dan = (world.user(name) for name in ["Asha", "Ben", "Cleo", "Dan"])
    # Cleo began the quiz on her own: her attempt in progress will count.
    begun = (await cleo.command("quiz", quiz=SEED_QUIZ)).last
    await play(cleo, quiz, begun, "110")
    await dan.command("help")  # seen in the channel, never starts

    refused = await dan.subcommand("assign", "set", quiz=SEED_QUIZ, deadline="2d")
    assert refused.notice == visible(assignment_t("assign_admins_only", "en"))
    posted = (await lead.subcommand("assign", "set", quiz=SEED_QUIZ, deadline="2d")).last
    assert not posted.ephemeral
    shown = text_of(posted)
    assert f"📝 Assignment #1: {TITLE}" in shown
    assert f"8 questions · ⏰ Due <t:{DEADLINE}:F> (<t:{DEADLINE}:R>)" in shown
    assert [b["label"] for b in buttons(posted)] == [assignment_t("assignment_start", "en")]

    started = (await asha.press(posted, start_button(posted))).new_messages
    assert started[0].ephemeral and started[0].content.startswith(f"📝 Assignment #1: {TITLE}")
    clock.advance(600)
    await play(asha, quiz, started[-1], "11111110")

    resumed = (await cleo.press(posted, start_button(posted))).new_messages
    assert t("resumed", "en") in visible(resumed[0].content)
    assert "Question 4/8" in text_of(resumed[-1])

    ben_first = (await ben.press(posted, start_button(posted))).last
    ben_at = await play(ben, quiz, ben_first, "11")
    clock.advance(3 * DAY)  # past the deadline: Ben finishes late
    await play(ben, quiz, ben_at, "111111")

    report = await lead.command("report")
    (message,) = report.new_messages
    assert message.ephemeral
    lines = text_of(message).split("\n")
    assert f"📊 Report · assignment #1: {TITLE}" in lines
    assert f"Was due <t:{DEADLINE}:F> (<t:{DEADLINE}:R>) (closed)" in lines
    assert "✅ Asha — 7/8 · ⏱ 10:00" in lines
    assert "⌛ Ben — late: 8/8 · ⏱ 72:00:00" in lines
    assert "⏳ Cleo — in progress 3/8" in lines
    assert "1 of the 4 members I know here has not started." in lines
    csv_file, chart = message.attachments
    assert csv_file.filename == "assignment-1.csv"
    rows = list(csv.DictReader(io.StringIO(csv_file.data.decode("utf-8-sig"))))
    assert [(r["name"], r["status"]) for r in rows] == [
        ("Asha", "done"),
        ("Ben", "late"),
        ("Cleo", "in_progress"),
        ("Dan", "not_started"),
    ]
    assert chart.filename == "assignment-1.png" and chart.data[:4] == b"\x89PNG"
    denied = await dan.command("report")
    assert denied.notice == visible(assignment_t("report_admins_only", "en"))


async def test_reminders_reach_only_who_has_not_finished_then_the_summary_once(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    lead = world.user("Lead", permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES)
    asha, ben, cleo = world.user("Asha"), world.user("Ben"), world.user("Cleo")
    await cleo.command("assignments")  # seen; never starts
    posted = (await lead.subcommand("assign", "set", quiz=SEED_QUIZ, deadline="2d")).last
    other = await lead.subcommand("assign", "set", quiz=SEED_QUIZ, deadline="2026-12-09 10:00")
    assert other.last.embeds
    listed = await ben.command("assignments")
    assert listed.last.ephemeral
    assert "#1 " in text_of(listed.last) and "#2 " in text_of(listed.last)
    denied = await ben.subcommand("assign", "cancel", id=2)
    assert denied.notice == visible(assignment_t("assign_admins_only", "en"))
    cancelled = await lead.subcommand("assign", "cancel", id=2)
    assert visible(cancelled.last.content) == visible(
        assignment_t("assignment_cancelled", "en", id=2, title=TITLE)
    )
    asha_at = (await asha.press(posted, start_button(posted))).last
    await play(asha, quiz, asha_at, "11111111")
    ben_at = (await ben.press(posted, start_button(posted))).last
    await play(ben, quiz, ben_at, "10")
    before = len(channel(world))
    await advance(world, clock, 23 * HOUR)
    assert len(channel(world)) == before and world.fake.dm_messages(ben.id) == []
    await advance(world, clock, HOUR)  # 24 hours before the deadline
    (reminder,) = world.fake.dm_messages(ben.id)
    assert text_of(reminder) == visible(  # in Ben's DMs: which channel's assignment it is
        assignment_t(
            "reminder_in_chat",
            "en",
            title=TITLE,
            chat="#general",
            id=1,
            deadline=f"<t:{DEADLINE}:F> (<t:{DEADLINE}:R>)",
            answered=2,
            total=8,
        )
    )
    assert world.fake.dm_messages(asha.id) == [] and world.fake.dm_messages(cleo.id) == []
    (recap,) = channel(world)[before:]
    assert text_of(recap) == visible(
        f"⏰ {TITLE} (assignment #1) is due in 24 hours.\nDone: 1 · in progress: 1 · not started: 1"
    )
    assert [b["label"] for b in buttons(recap)] == [assignment_t("assignment_start", "en")]
    # Ben continues from the reminder's button, in his DMs, where he stopped.
    ben_dm = world.user("Ben", dm=True)
    ben_dm.id = ben.id
    again = await ben_dm.press(reminder, start_button(reminder))
    assert "Question 3/8" in text_of(again.last)
    await advance(world, clock, 23 * HOUR)  # 1 hour before
    assert len(world.fake.dm_messages(ben.id)) == 2
    recap_1h = channel(world)[-1]
    assert text_of(recap_1h).startswith(f"⏰ {TITLE} (assignment #1) is due in 1 hour.")
    before = len(channel(world))
    await advance(world, clock, HOUR)  # the deadline
    await advance(world, clock, 3 * DAY)  # days after: nothing more
    (summary,) = channel(world)[before:]
    assert text_of(summary).startswith(
        f"🏁 Assignment #1 is closed: {TITLE}\n"
        "Completed by the deadline: 1 of 3 (33%)\nAverage score: 8.0/8\nHardest question:"
    )
    never = ("(assignment #2)", "Assignment #2 is closed")
    assert [m for m in channel(world) if any(n in text_of(m) for n in never)] == []


async def test_the_deadline_is_read_in_the_servers_time_zone(world: World) -> None:
    admin = world.user("Admin", permissions=ADMINISTRATOR)
    await admin.command("timezone", zone="Europe/Berlin")
    posted = (
        await admin.subcommand("assign", "set", quiz=SEED_QUIZ, deadline="2026-12-10 18:00")
    ).last
    berlin_six = int(datetime(2026, 12, 10, 17, 0, tzinfo=UTC).timestamp())
    assert f"⏰ Due <t:{berlin_six}:F> (<t:{berlin_six}:R>)" in text_of(posted)


async def test_help_lists_the_assignment_commands_as_the_client_names_them(world: World) -> None:
    shown = text_of((await world.user("Ivan", "ru").command("help")).last)
    for name, key in (("задание", "cmd_assign"), ("задания", "cmd_assignments")):
        assert f"\n/{name} — {visible(assignment_t(key, 'ru'))}" in shown
