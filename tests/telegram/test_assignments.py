"""Assignments through python-telegram-bot and the fake Bot API, on a manual clock across
days: a chat admin sets one, members start it from its button (in their private chat, or
through the deep link when they never opened one), from an attempt already in progress, one
finishes late; /report with the CSV and the chart, /assignments, /assign cancel, and those
who may not."""

from __future__ import annotations

import csv
import dataclasses
import io
from datetime import UTC, datetime

import pytest

from adapters.telegram.assignment_rendering import deep_link
from bot.assignments.texts import assignment_t
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.scheduling import Scheduling
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import BOT_USERNAME, FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, button_for, clean
from quizbot.charts import render_stats_png
from quizbot.settings import Settings
from tests.conftest import SEED_QUIZ
from tests.daily_harness import settle
from tests.telegram.conftest import Launch

GROUP_ID = -1005550
LEAD, OPERATOR = 9001, 9002
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # a Monday
TITLE = "Checkpoint sharding and resumable training"
DAY = 86400


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
def engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: ManualClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def operator_settings(settings: Settings) -> Settings:
    return dataclasses.replace(settings, admin_telegram_ids=frozenset({str(OPERATOR)}))


class Team:
    """The study group: its chat, and each person's view of it and of their private chat."""

    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        self.group = api.group_chat(GROUP_ID, "Study group")
        api.chat_admins[GROUP_ID][LEAD] = "administrator"

    def in_group(self, user_id: int, name: str) -> Chatter:
        return Chatter(self.api, self.api.user(user_id, name), self.group)

    def in_private(self, member: Chatter, *, opened: bool = True) -> Chatter:
        """The member's private chat with the bot (``opened``: they have started it)."""
        user = member.user
        if opened:
            return Chatter(self.api, user, self.api.private_chat(user))
        return Chatter(self.api, user, {"id": user["id"], "type": "private"})


async def play(me: Chatter, quiz: Quiz, pattern: str) -> None:
    """Answer questions from the next one on: "1" right, "0" wrong."""
    for right in pattern:
        question = await me.question()
        query = me.press(question, button_for(question, quiz, "en", right == "1"))
        await me.toast(query)
    await me.barrier()


async def the_post(lead: Chatter) -> StoredMessage:
    post = await lead.message(lambda m: clean(m.text).startswith("📝"))
    assert [b["text"] for b in post.buttons] == [assignment_t("assignment_start", "en")]
    return post


async def test_an_assignment_from_its_post_to_the_report(
    api: FakeBotApi,
    engine: QuizEngine,
    clock: ManualClock,
    seed: Quiz,
    launch: Launch,
) -> None:
    # The scheduler stays off: the reminders have tests of their own.
    await launch(engine, clock=clock, stats_chart=render_stats_png, jobs=False)
    team = Team(api)
    lead = team.in_group(LEAD, "Lead")
    asha, ben, cleo, dan = (
        team.in_group(9100 + n, name) for n, name in enumerate(["Asha", "Ben", "Cleo", "Dan"])
    )
    # Cleo began the quiz on her own earlier: her attempt in progress will count.
    cleo_private = team.in_private(cleo)
    cleo_private.send(f"/quiz {SEED_QUIZ}")
    await play(cleo_private, seed, "110")
    dan.send("/help")  # seen in the group, never starts
    await dan.message()

    dan.send(f"/assign {SEED_QUIZ} 3d")  # not an admin
    assert clean((await dan.message()).text) == clean(assignment_t("assign_admins_only", "en"))
    lead.send(f"/assign {SEED_QUIZ} soon")
    refusal = clean((await lead.message()).text)
    assert refusal == clean(assignment_t("assign_bad_deadline", "en", text="soon"))
    lead.send(f"/assign {SEED_QUIZ} 3d")
    post = await the_post(lead)
    assert [clean(line) for line in (post.text or "").split("\n")] == [
        f"📝 Assignment #1: {TITLE}",
        "8 questions · ⏰ Due 2026-12-10 09:00 UTC",
        clean(assignment_t("assignment_hint_private", "en")),
    ]

    # Asha has talked to the bot before: the quiz comes to her private chat.
    asha_private = team.in_private(asha)
    query = asha.press_button(post, assignment_t("assignment_start", "en"))
    assert await asha.toast(query) == clean(assignment_t("assignment_sent_private", "en"))
    intro = await asha_private.message()
    assert clean(intro.text) == f"📝 Assignment #1: {TITLE} — due 2026-12-10 09:00 UTC."
    first = await asha_private.question()
    clock.advance(600)
    await asha_private.toast(asha_private.press(first, button_for(first, seed, "en", True)))
    await play(asha_private, seed, "1111110")

    # Ben never opened a chat with the bot: the press says so and opens it by a deep link.
    ben_private = team.in_private(ben, opened=False)
    query = ben.press_button(post, assignment_t("assignment_start", "en"))
    answer = await api.wait_for(
        "answerCallbackQuery", lambda c: c.params.get("callback_query_id") == query
    )
    link = f"https://t.me/{BOT_USERNAME}?start=A1"
    assert answer.params.get("url") == link == deep_link(BOT_USERNAME, 1)
    assert clean(answer.params.get("text")) == clean(assignment_t("assignment_open_private", "en"))
    api.open_deep_link(ben.user, link)
    assert clean((await ben_private.message()).text).startswith("📝 Assignment #1:")
    await play(ben_private, seed, "11")

    # Cleo's attempt in progress is resumed from the assignment and counts for it.
    cleo_private.mark = len(api.calls)
    query = cleo.press_button(post, assignment_t("assignment_start", "en"))
    await cleo.toast(query)
    await cleo_private.message(lambda m: clean(m.text).startswith("📝 Assignment #1"))
    assert clean((await cleo_private.message()).text) == clean(t("resumed", "en"))
    question = await cleo_private.question()
    assert "Question 4/8" in clean(question.text)

    # Past the deadline Ben finishes: late.
    clock.advance(4 * DAY)
    ben_private.send(f"/quiz {SEED_QUIZ}")
    await play(ben_private, seed, "110011")

    lead.send("/report")
    report = await lead.message(lambda m: clean(m.text).startswith("📊"))
    lines = [clean(line) for line in (report.text or "").split("\n")]
    assert lines[:7] == [
        f"📊 Report · assignment #1: {TITLE}",
        "Was due 2026-12-10 09:00 UTC (closed)",
        "✅ Asha — 7/8 · ⏱ 10:00",
        "⌛ Ben — late: 6/8 · ⏱ 96:00:00",
        "⏳ Cleo — in progress 3/8",
        "1 of the 4 members I know here has not started.",
        lines[6],
    ]
    assert lines[6].startswith("Hardest question:")
    document = await api.wait_for("sendDocument", lambda c: int(c.params["chat_id"]) == GROUP_ID)
    name, data = api.documents[-1]
    assert name == "assignment-1.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert [(r["name"], r["status"], r["correct"]) for r in rows] == [
        ("Asha", "done", "7"),
        ("Ben", "late", "6"),
        ("Cleo", "in_progress", "2"),
        ("Dan", "not_started", "0"),
    ]
    assert clean(document.params.get("caption")) == clean(assignment_t("report_csv_caption", "en"))
    photo = await api.wait_for("sendPhoto", lambda c: int(c.params["chat_id"]) == GROUP_ID)
    assert clean(photo.params.get("caption")) == f"#1 {TITLE}"
    dan.send("/report")
    assert clean((await dan.message()).text) == clean(assignment_t("report_admins_only", "en"))
    refused = [(c.method, c.error_code, c.params.get("chat_id")) for c in api.failed_calls()]
    assert refused == [("sendMessage", 403, ben.user["id"])]  # Ben, before he opened the chat


async def test_open_assignments_are_listed_and_a_cancelled_one_cannot_be_started(
    api: FakeBotApi,
    engine: QuizEngine,
    clock: ManualClock,
    operator_settings: Settings,
    launch: Launch,
) -> None:
    await launch(engine, operator_settings, clock=clock, jobs=False)
    team = Team(api)
    lead, operator, asha = (
        team.in_group(LEAD, "Lead"),
        team.in_group(OPERATOR, "Olga"),
        team.in_group(9100, "Asha"),
    )
    lead.send(f"/assign {SEED_QUIZ} 2026-12-09 18:00")
    first = await the_post(lead)
    operator.send(f"/assign {SEED_QUIZ} 12h")  # a bot operator, not a chat admin
    await the_post(operator)
    asha.send("/assignments")
    listed = [clean(line) for line in ((await asha.message()).text or "").split("\n")]
    assert listed == [
        "📝 Open assignments",
        f"#2 {TITLE} — due 2026-12-07 21:00 UTC",
        f"#1 {TITLE} — due 2026-12-09 18:00 UTC",
    ]
    asha.send("/assign cancel 1")
    assert clean((await asha.message()).text) == clean(assignment_t("assign_admins_only", "en"))
    lead.send("/assign cancel 1")
    cancelled = clean((await lead.message()).text)
    assert cancelled == clean(assignment_t("assignment_cancelled", "en", id=1, title=TITLE))
    query = asha.press_button(first, assignment_t("assignment_start", "en"))
    assert await asha.toast(query) == clean(assignment_t("assignment_was_cancelled", "en", id=1))
    clock.advance(DAY)
    asha.send("/assignments")
    assert clean((await asha.message()).text) == clean(assignment_t("assignments_none", "en"))
    private = team.in_private(asha)
    private.send(f"/assign {SEED_QUIZ} 3d")
    assert clean((await private.message()).text) == clean(assignment_t("assign_group_only", "en"))
    junk = asha.press(first, "v1:as:x")
    assert await asha.toast(junk) == clean(t("invalid_button", "en"))
    assert api.failed_calls() == []


async def advance(scheduling: Scheduling, clock: ManualClock, seconds: float) -> None:
    """Let what is due now happen, then ``seconds`` pass, and what falls due happen (the
    scheduler and the posters wait for the clock again)."""
    await settle(scheduling.settled)
    clock.advance(seconds)
    await settle(scheduling.settled)


def texts_to(api: FakeBotApi, chat_id: int, after: int = 0) -> list[str]:
    return [
        clean(api.message_of(c).text)
        for c in api.calls_of("sendMessage", after=after)
        if int(c.params["chat_id"]) == chat_id
    ]


async def test_reminders_reach_only_who_has_not_finished_then_the_summary_once(
    api: FakeBotApi,
    engine: QuizEngine,
    clock: ManualClock,
    seed: Quiz,
    launch: Launch,
) -> None:
    running = (await launch(engine, clock=clock)).services.scheduling
    team = Team(api)
    lead = team.in_group(LEAD, "Lead")
    asha, ben, cleo = (
        team.in_group(9100 + n, name) for n, name in enumerate(["Asha", "Ben", "Cleo"])
    )
    cleo.send("/assignments")  # seen in the group; she never starts
    await cleo.message()
    lead.send(f"/assign {SEED_QUIZ} 2026-12-09 09:00")  # 48 hours from now
    post = await the_post(lead)
    lead.send(f"/assign {SEED_QUIZ} 2026-12-09 10:00")
    await the_post(lead)
    lead.send("/assign cancel 2")  # its reminders and summary are never sent
    await lead.message()
    for member, pattern in ((asha, "11111111"), (ben, "10")):
        private = team.in_private(member)
        await member.toast(member.press_button(post, assignment_t("assignment_start", "en")))
        await play(private, seed, pattern)
    mark = len(api.calls)
    await advance(running, clock, 23 * 3600)
    assert api.calls_of("sendMessage", after=mark) == []
    await advance(running, clock, 3600)  # 24 hours before the deadline
    (reminder,) = texts_to(api, ben.user["id"], mark)
    assert reminder == clean(  # in Ben's private chat: which group's assignment it is
        assignment_t(
            "reminder_in_chat",
            "en",
            title=TITLE,
            chat="Study group",
            id=1,
            deadline="2026-12-09 09:00 UTC",
            answered=2,
            total=8,
        )
    )
    assert texts_to(api, asha.user["id"], mark) == []  # she finished
    assert texts_to(api, cleo.user["id"], mark) == []  # she never started
    (recap,) = texts_to(api, GROUP_ID, mark)
    assert recap == clean(
        f"⏰ {TITLE} (assignment #1) is due in 24 hours. Done: 1 · in progress: 1 · not started: 1"
    )
    # Ben continues from the reminder's button, where he stopped.
    ben_private = team.in_private(ben)
    dm = next(
        api.message_of(c)
        for c in api.calls_of("sendMessage", after=mark)
        if int(c.params["chat_id"]) == ben.user["id"]
    )
    assert [b["text"] for b in dm.buttons] == [assignment_t("assignment_continue", "en")]
    await ben_private.toast(ben_private.press_button(dm, assignment_t("assignment_continue", "en")))
    await ben_private.message(lambda m: clean(m.text).startswith("📝 Assignment #1"))
    assert "Question 3/8" in clean((await ben_private.question()).text)
    mark = len(api.calls)
    await advance(running, clock, 23 * 3600)  # 1 hour before
    assert len(texts_to(api, ben.user["id"], mark)) == 1
    assert texts_to(api, GROUP_ID, mark)[0].startswith(
        f"⏰ {TITLE} (assignment #1) is due in 1 hour."
    )
    mark = len(api.calls)
    await advance(running, clock, 3600)  # the deadline
    await advance(running, clock, 3 * DAY)  # and days after it: nothing more
    (summary,) = texts_to(api, GROUP_ID, mark)
    assert summary.startswith(
        f"🏁 Assignment #1 is closed: {TITLE} Completed by the deadline: 1 of 3 (33%) "
        "Average score: 8.0/8 Hardest question: "
    )
    cancelled = ("(assignment #2)", "Assignment #2 is closed")
    assert [t for t in texts_to(api, GROUP_ID) if any(c in t for c in cancelled)] == []
    assert api.failed_calls() == []


async def test_a_group_that_removed_the_bot_is_tried_once_and_its_members_still_reminded(
    api: FakeBotApi,
    engine: QuizEngine,
    clock: ManualClock,
    seed: Quiz,
    launch: Launch,
) -> None:
    """The bot is kicked from the group after setting an assignment: the 24-hour recap is
    refused (403) and marks the group, so neither the 1-hour recap nor the summary is tried
    there; Ben, who has not finished, gets both reminders in his private chat."""
    running = (await launch(engine, clock=clock)).services.scheduling
    team = Team(api)
    lead, ben = team.in_group(LEAD, "Lead"), team.in_group(9101, "Ben")
    lead.send(f"/assign {SEED_QUIZ} 2026-12-09 09:00")  # 48 hours from now
    post = await the_post(lead)
    private = team.in_private(ben)
    await ben.toast(ben.press_button(post, assignment_t("assignment_start", "en")))
    await play(private, seed, "10")
    api.remove_bot(team.group)
    mark = len(api.calls)
    await advance(running, clock, 24 * 3600)  # 24 hours before the deadline
    await advance(running, clock, 23 * 3600)  # 1 hour before
    await advance(running, clock, 2 * DAY)  # the deadline, and after it
    to_group = [
        (c.ok, c.description)
        for c in api.calls_of("sendMessage", after=mark, ok=None)
        if int(c.params["chat_id"]) == GROUP_ID
    ]
    assert to_group == [(False, "Forbidden: bot was kicked from the supergroup chat")]
    assert len(texts_to(api, ben.user["id"], mark)) == 2


async def test_the_menu_offers_assignments_to_everyone_and_their_commands_to_group_admins(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    await launch(engine)
    everyone = [c["command"] for c in api.commands[('{"type": "default"}', "ru")]]
    assert everyone[-2:] == ["assignments", "help"] and "assign" not in everyone
    admins = api.commands[('{"type": "all_chat_administrators"}', "ru")]
    assert [c["command"] for c in admins][-4:] == ["assignments", "assign", "report", "help"]
    described = {c["command"]: c["description"] for c in admins}
    assert described["report"] == assignment_t("cmd_report", "ru")
    team = Team(api)
    member = team.in_group(9100, "Asha")
    member.send("/help")
    shown = clean((await member.message()).text)
    assert f"/assign — {clean(assignment_t('cmd_assign', 'en'))}" in shown
