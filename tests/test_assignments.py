"""Assignments beside the engine, on every backend: set by an admin with a deadline, taken
from the assignment (or from an attempt already in progress), reported with each member's
status (done, late, in progress, not started), cancelled, exported as CSV."""

from __future__ import annotations

import csv
import io
import logging
from datetime import UTC, datetime, timedelta

import pytest

from bot.assignments import Assignments, AssignOutcome, MemberStatus
from bot.assignments.export import assignment_csv
from bot.assignments.messages import recap_lines, reminder_line, summary_lines
from bot.assignments.presenters import local_deadline, open_lines, report_lines
from bot.assignments.reminders import RECAP, REMINDER, SUMMARY
from bot.assignments.texts import ASSIGNMENT_STRINGS, assignment_t
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.scheduling import OutgoingMessage, Scheduling
from bot.scheduling.timezones import Place, find_zone
from bot.views import Participant, QuestionView
from fakes.clock import ManualClock
from quizbot.settings import ConfigError, Settings
from tests.conftest import QUIZ_DIR, SEED_QUIZ
from tests.test_i18n import assert_complete

GROUP = "-1001"
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # a Monday
LEAD = Participant("telegram", "lead", "Lead", "en")
TITLE = "Checkpoint sharding and resumable training"


def member(name: str, language: str = "en") -> Participant:
    return Participant("telegram", name.lower(), name, language)


@pytest.fixture
def storage(any_storage):
    return any_storage


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
def engine(catalog, storage, clock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def scheduling(storage, clock) -> Scheduling:
    return Scheduling(storage, clock)


@pytest.fixture
def assignments(engine, scheduling) -> Assignments:
    return Assignments(engine, scheduling)


async def play(engine: QuizEngine, who: Participant, question: QuestionView, count: int) -> None:
    """Answer ``count`` questions from ``question`` on, the first wrong and the rest right."""
    quiz = engine.catalog.get(question.quiz_id)
    assert quiz is not None
    current: QuestionView | None = question
    for n in range(count):
        assert current is not None
        asked = quiz.question(current.question_id)
        assert asked is not None
        option = (
            asked.correct_option_id
            if n
            else next(o.id for o in asked.options if o.id != asked.correct_option_id)
        )
        feedback = await engine.answer_by_option(who, current.attempt_id, asked.id, option)
        current = feedback.next_question


async def assign(assignments: Assignments, deadline: str = "3d", quiz: str = SEED_QUIZ) -> int:
    result = await assignments.assign(GROUP, LEAD, quiz, deadline, in_group=True, allowed=True)
    assert result.outcome is AssignOutcome.CREATED, result.notice
    assert result.post is not None
    return result.post.assignment_id


async def test_an_admin_sets_an_assignment_and_everyone_else_is_told_why_not(assignments):
    result = await assignments.assign(GROUP, LEAD, SEED_QUIZ, "3d", in_group=True, allowed=True)
    assert result.outcome is AssignOutcome.CREATED and result.post is not None
    post = result.post
    assert (post.quiz_id, post.question_count, post.open) == (SEED_QUIZ, 8, True)
    assert post.title == "Checkpoint sharding and resumable training"
    assert post.deadline == T0 + timedelta(days=3)
    assert post.local_deadline == "2026-12-10 09:00 UTC"

    async def refused(who=LEAD, quiz=SEED_QUIZ, deadline="3d", **kw):
        options = {"in_group": True, "allowed": True} | kw
        result = await assignments.assign(GROUP, who, quiz, deadline, **options)
        assert result.post is None
        return result.outcome, result.notice

    assert await refused(allowed=False) == (
        AssignOutcome.NOT_ALLOWED,
        assignment_t("assign_admins_only", "en"),
    )
    assert (await refused(in_group=False))[0] is AssignOutcome.NOT_IN_GROUP
    assert await refused(quiz=None) == (
        AssignOutcome.USAGE,
        assignment_t("assign_usage", "en", zone="UTC"),
    )
    outcome, notice = await refused(quiz="nope")
    assert outcome is AssignOutcome.UNKNOWN_QUIZ and notice.startswith('There is no quiz "nope"')
    assert await refused(deadline="friday") == (
        AssignOutcome.BAD_DEADLINE,
        assignment_t("assign_bad_deadline", "en", text="friday"),
    )
    assert await refused(deadline="2026-12-01") == (
        AssignOutcome.BAD_DEADLINE,
        assignment_t("assign_past_deadline", "en", text="2026-12-01"),
    )
    assert await refused(deadline="400d") == (
        AssignOutcome.BAD_DEADLINE,
        assignment_t("assign_far_deadline", "en", text="400d"),
    )
    ru = Participant("telegram", "lead", "Lead", "ru")
    _, notice = await refused(who=ru, allowed=False)
    assert notice == "Задавать и отменять задания могут только администраторы этого чата."


async def test_members_start_from_the_assignment_or_from_an_attempt_in_progress_and_are_reported(
    engine, assignments, clock, storage
):
    asha, ben, cleo, dan = member("Asha"), member("Ben"), member("Cleo"), member("Dan")
    # Ben began the quiz on his own yesterday; it counts once he opens it from the assignment.
    earlier = await engine.start(ben, SEED_QUIZ, chat_id="ben")
    assert earlier.question is not None
    await play(engine, ben, earlier.question, 3)
    number = await assign(assignments)
    await assignments.members.seen(GROUP, dan)  # seen in the group, never starts
    await assignments.members.seen(GROUP, LEAD)  # the author is not waited for

    started = await assignments.start(number, asha, chat_id="asha")
    assert started.start is not None and started.start.question is not None
    assert started.start.notice == "" and started.post is not None
    clock.advance(600)
    await play(engine, asha, started.start.question, 8)  # done by the deadline: 7/8

    resumed = await assignments.start(number, ben, chat_id="ben")
    assert resumed.start is not None and resumed.start.question is not None
    assert resumed.start.question.attempt_id == earlier.question.attempt_id
    assert resumed.start.question.number == 4 and resumed.start.notice == t("resumed", "en")

    cleo_start = await assignments.start(number, cleo, chat_id="cleo")
    assert cleo_start.start is not None and cleo_start.start.question is not None
    clock.advance(4 * 86400)  # past the deadline: Cleo finishes late
    await play(engine, cleo, cleo_start.start.question, 8)
    again = await assignments.start(number, cleo, chat_id="cleo")  # a new try counts less
    assert again.start is not None and again.start.notice == assignment_t("assignment_late", "en")

    reports = await assignments.reports("telegram", GROUP, LEAD)
    (report,) = reports.reports
    assert [(m.name, m.status, m.correct, m.answered) for m in report.started] == [
        ("Asha", MemberStatus.DONE, 7, 8),
        ("Cleo", MemberStatus.LATE, 7, 8),
        ("Ben", MemberStatus.IN_PROGRESS, 2, 3),
    ]
    assert report.started[0].seconds == 600
    assert [m.user_id for m in report.waiting] == ["dan"]
    assert report.known == 4 and report.stats is not None
    assert report_lines(report, local_deadline(report.post)) == [
        "📊 Report · assignment #1: Checkpoint sharding and resumable training",
        "Was due 2026-12-10 09:00 UTC (closed)",
        "✅ Asha — 7/8 · ⏱ 10:00",
        "⌛ Cleo — late: 7/8 · ⏱ 96:00:00",
        "⏳ Ben — in progress 3/8",
        "1 of the 4 members I know here has not started.",
        report_lines(report, "")[-1],
    ]
    assert report_lines(report, "")[-1].startswith("Hardest question: 1. ")

    rows = list(csv.DictReader(io.StringIO(assignment_csv(reports.reports))))
    assert [(r["name"], r["status"], r["correct"], r["seconds"]) for r in rows] == [
        ("Asha", "done", "7", "600"),
        ("Cleo", "late", "7", "345600"),
        ("Ben", "in_progress", "2", ""),
        ("Dan", "not_started", "0", ""),
    ]
    assert {r["assignment_id"] for r in rows} == {str(number)}


async def test_cancelled_assignments_cannot_be_started_and_leave_the_open_list(assignments, clock):
    first = await assign(assignments)
    second = await assign(assignments, "2026-12-08 18:00")
    listed = await assignments.open_in("telegram", GROUP, LEAD)
    assert [post.assignment_id for post in listed.posts] == [second, first]
    assert open_lines(listed.posts, "en", local_deadline) == [
        "📝 Open assignments",
        f"#{second} Checkpoint sharding and resumable training — due 2026-12-08 18:00 UTC",
        f"#{first} Checkpoint sharding and resumable training — due 2026-12-10 09:00 UTC",
    ]
    asha = member("Asha")
    refused = await assignments.cancel(GROUP, asha, str(first), in_group=True, allowed=False)
    assert refused.cancelled is None
    assert refused.notice == assignment_t("assign_admins_only", "en")
    cancelled = await assignments.cancel(GROUP, LEAD, f"#{first}", in_group=True, allowed=True)
    assert cancelled.cancelled is not None and cancelled.cancelled.cancelled
    title = "Checkpoint sharding and resumable training"
    assert cancelled.notice == assignment_t("assignment_cancelled", "en", id=first, title=title)
    twice = await assignments.cancel(GROUP, LEAD, str(first), in_group=True, allowed=True)
    assert twice.notice == assignment_t("assignment_was_cancelled", "en", id=first)
    for wrong in ("999", "x", None):
        unknown = await assignments.cancel(GROUP, LEAD, wrong, in_group=True, allowed=True)
        assert unknown.cancelled is None and unknown.notice.startswith("There is no assignment")
    elsewhere = await assignments.cancel("-2002", LEAD, str(second), in_group=True, allowed=True)
    assert elsewhere.cancelled is None  # an assignment of another chat
    start = await assignments.start(first, member("Asha"), chat_id="asha")
    assert start.start is None
    assert start.notice == assignment_t("assignment_was_cancelled", "en", id=first)
    listed = await assignments.open_in("telegram", GROUP, LEAD)
    assert [post.assignment_id for post in listed.posts] == [second]
    clock.advance(86400 * 2)  # both past their deadlines
    listed = await assignments.open_in("telegram", GROUP, LEAD)
    assert listed.posts == () and listed.notice == assignment_t("assignments_none", "en")


async def test_reports_name_a_quiz_or_a_number_and_show_the_newest_few(
    assignments, catalog: QuizCatalog
):
    numbers = [await assign(assignments, f"{days}d") for days in range(1, 6)]
    other = next(q.id for q in catalog.all() if q.id != SEED_QUIZ)
    other_number = await assign(assignments, "9d", quiz=other)
    everything = await assignments.reports("telegram", GROUP, LEAD)
    assert [r.post.assignment_id for r in everything.reports] == [other_number, *numbers[:2:-1]]
    assert everything.more == 3
    only_seed = await assignments.reports("telegram", GROUP, LEAD, SEED_QUIZ)
    assert [r.post.assignment_id for r in only_seed.reports] == numbers[:1:-1]
    one = await assignments.reports("telegram", GROUP, LEAD, f"#{numbers[0]}")
    assert [r.post.assignment_id for r in one.reports] == [numbers[0]] and one.more == 0
    assert (await assignments.reports("telegram", GROUP, LEAD, "nope")).notice.startswith(
        'There is no quiz "nope"'
    )
    missing = await assignments.reports("telegram", GROUP, LEAD, "77")
    assert missing.notice == assignment_t("assignment_unknown", "en", id=77)
    empty = await assignments.reports("telegram", "-3003", LEAD)
    assert empty.reports == () and empty.notice == assignment_t("report_none", "en")
    mine = await assignments.reports("telegram", None, LEAD, created_by=LEAD.user_id)
    assert len(mine.reports) == 3 and mine.more == 3


def test_a_name_that_a_spreadsheet_would_run_is_kept_as_text():
    from bot.assignments.export import _cell

    assert _cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert _cell("Asha") == "Asha"


def test_every_assignment_string_exists_in_every_language_with_the_same_fields():
    assert_complete(ASSIGNMENT_STRINGS)


async def test_deadlines_are_read_and_shown_in_the_chats_time_zone(assignments):
    await assignments.zones.set_zone(Place("telegram", GROUP, chat=True), find_zone("Asia/Dhaka"))
    result = await assignments.assign(
        GROUP, LEAD, SEED_QUIZ, "2026-12-10 18:00", in_group=True, allowed=True
    )
    assert result.post is not None
    assert result.post.deadline == datetime(2026, 12, 10, 12, tzinfo=UTC)
    assert result.post.local_deadline == "2026-12-10 18:00 Asia/Dhaka"
    usage = await assignments.assign(GROUP, LEAD, None, None, in_group=True, allowed=True)
    assert usage.notice == assignment_t("assign_usage", "en", zone="Asia/Dhaka")


async def due_messages(
    scheduling: Scheduling, clock: ManualClock, seconds: float
) -> list[OutgoingMessage]:
    """Let ``seconds`` pass, run the jobs due by then; the messages queued since."""
    before = {m.id for m in await scheduling.storage.outgoing_messages()}
    clock.advance(seconds)
    while await scheduling.scheduler.run_due():
        pass
    return [m for m in await scheduling.storage.outgoing_messages() if m.id not in before]


async def test_reminders_go_to_those_who_started_and_did_not_finish_and_the_summary_at_the_deadline(
    engine, assignments, scheduling, clock, catalog
):
    number = await assign(assignments, "2026-12-09 09:00")  # due in 48 h
    asha, ben, cleo = member("Asha"), member("Ben"), member("Cleo")
    await assignments.members.seen(GROUP, cleo)  # never starts
    for who, count in ((asha, 8), (ben, 2)):
        started = await assignments.start(number, who, chat_id=who.user_id)
        assert started.start is not None and started.start.question is not None
        await play(engine, who, started.start.question, count)
    assert await due_messages(scheduling, clock, 23 * 3600) == []  # 25 h left
    first = await due_messages(scheduling, clock, 3600)  # 24 h left
    assert [(m.kind, m.target, m.to_user) for m in first] == [
        (REMINDER, "ben", True),
        (RECAP, GROUP, False),
    ]
    quiz = catalog.get(SEED_QUIZ)
    (dm, recap) = first
    assert reminder_line(dm.payload, "en", catalog, dm.payload["local"]) == assignment_t(
        "reminder",
        "en",
        title=TITLE,
        id=number,
        deadline="2026-12-09 09:00 UTC",
        answered=2,
        total=8,
    )
    assert recap_lines(recap.payload, "ru", catalog) == [
        f"⏰ До срока задания #{number} ({quiz.title.get('ru')}) осталось 24 часа.",
        "Завершили: 1 · в процессе: 1 · не начали: 1",
    ]
    assert await due_messages(scheduling, clock, 22 * 3600) == []
    last = await due_messages(scheduling, clock, 3600)  # 1 h left
    assert [(m.kind, m.target) for m in last] == [(REMINDER, "ben"), (RECAP, GROUP)]
    assert recap_lines(last[1].payload, "en", catalog)[0] == assignment_t(
        "recap_hours", "en", count=1, title=TITLE, id=number
    )
    (summary,) = await due_messages(scheduling, clock, 3600)  # the deadline
    assert summary.kind == SUMMARY and summary.target == GROUP
    lines = summary_lines(summary.payload, "en", catalog)
    assert lines[:3] == [
        f"🏁 Assignment #{number} is closed: {TITLE}",
        "Completed by the deadline: 1 of 3 (33%)",
        "Average score: 7.0/8",
    ]
    assert lines[3].startswith("Hardest question: 1. ")
    assert await due_messages(scheduling, clock, 7 * 86400) == []  # nothing more, ever


async def test_a_reminder_names_the_chat_it_was_set_in_and_else_the_quiz_alone(
    engine, assignments, scheduling, storage, clock, catalog
):
    titled = await assignments.assign(
        GROUP, LEAD, SEED_QUIZ, "2d", in_group=True, allowed=True, chat_title=" Study\n group "
    )
    assert titled.post is not None
    untitled = await assign(assignments, "2d")  # set before titles were kept, or never given
    stored = await storage.get_assignment(titled.post.assignment_id)
    assert stored is not None and stored.chat_title == "Study group"  # on one line
    ben = member("Ben")
    for number in (titled.post.assignment_id, untitled):
        started = await assignments.start(number, ben, chat_id="ben")
        assert started.start is not None and started.start.question is not None
        await play(engine, ben, started.start.question, 1)
    reminders = [m for m in await due_messages(scheduling, clock, 24 * 3600) if m.kind == REMINDER]
    by_number = {m.payload["assignment"]: m.payload for m in reminders}
    named = by_number[titled.post.assignment_id]
    # (one attempt counts for both: the second start resumed it)
    values = {"title": TITLE, "deadline": "2026-12-09 09:00 UTC", "answered": 2, "total": 8}
    assert reminder_line(named, "en", catalog, named["local"]) == assignment_t(
        "reminder_in_chat", "en", chat="Study group", id=titled.post.assignment_id, **values
    )
    plain = by_number[untitled]
    assert reminder_line(plain, "en", catalog, plain["local"]) == assignment_t(
        "reminder", "en", id=untitled, **values
    )
    # In Urdu the group's Latin name is isolated, so it keeps its own direction in the line.
    urdu = reminder_line(named, "ur", catalog, named["local"])
    assert "\u2066Study group\u2069" in urdu


async def test_a_chat_the_bot_cannot_post_in_gets_no_recap_nor_summary_but_members_reminders(
    engine, assignments, scheduling, clock, caplog
):
    number = await assign(assignments, "2026-12-09 09:00")
    ben = member("Ben")
    started = await assignments.start(number, ben, chat_id="ben")
    assert started.start is not None and started.start.question is not None
    await play(engine, ben, started.start.question, 2)
    # The bot was removed from the group: a post there was refused (a daily question's, a
    # round's or an earlier recap's) and the chat is marked, as the outbox marks one.
    await scheduling.reachability.mark("telegram", GROUP, False, "Forbidden: bot was kicked")
    with caplog.at_level(logging.WARNING, logger="quizbot.assignments"):
        first = await due_messages(scheduling, clock, 24 * 3600)  # 24 h before the deadline
        last = await due_messages(scheduling, clock, 23 * 3600)  # 1 h before
        closed = await due_messages(scheduling, clock, 3600)  # the deadline
    assert [(m.kind, m.target) for m in first + last] == [(REMINDER, "ben")] * 2  # no recap
    assert closed == []  # no summary
    assert f"assignment {number}: the bot can no longer post in telegram:{GROUP}" in caplog.text
    assert "its recap is skipped" in caplog.text and "its summary is skipped" in caplog.text


async def test_a_cancelled_assignment_sends_nothing_more_and_a_late_process_no_flood(
    engine, assignments, scheduling, clock
):
    cancelled = await assign(assignments, "2026-12-09 09:00")
    kept = await assign(assignments, "2026-12-09 09:00")
    ben = member("Ben")
    started = await assignments.start(kept, ben, chat_id="ben")
    assert started.start is not None and started.start.question is not None
    await play(engine, ben, started.start.question, 1)
    result = await assignments.cancel(GROUP, LEAD, str(cancelled), in_group=True, allowed=True)
    assert result.cancelled is not None
    assert await scheduling.scheduler.get(f"assignment:{cancelled}:deadline") is None
    # The process was down from before the first reminder until half an hour before the
    # deadline: only the latest reminder goes out, once.
    woke = await due_messages(scheduling, clock, 47.5 * 3600)
    assert [(m.kind, m.dedupe_key) for m in woke] == [
        (REMINDER, f"assignment:{kept}:remind:3600:ben"),
        (RECAP, f"assignment:{kept}:remind:3600"),
    ]
    assert woke[1].payload["minutes"] == 30
    (summary,) = await due_messages(scheduling, clock, 3600)
    assert summary.dedupe_key == f"assignment:{kept}:summary"


def test_reminder_times_come_from_assignment_reminders():
    def reminders(text: str | None) -> tuple[timedelta, ...]:
        env = {"QUIZ_DIR": str(QUIZ_DIR)} | ({} if text is None else {"ASSIGNMENT_REMINDERS": text})
        return Settings.from_env(env).assignment_reminders

    assert reminders(None) == (timedelta(hours=24), timedelta(hours=1))
    assert reminders(" 30m, 2d ,6H") == (
        timedelta(days=2),
        timedelta(hours=6),
        timedelta(minutes=30),
    )
    assert reminders("none") == ()
    for wrong in ("soon", "1h,60m", "0m", "31d", "24h;1h", ","):
        with pytest.raises(ConfigError) as error:
            reminders(wrong)
        assert error.value.variable == "ASSIGNMENT_REMINDERS", wrong
