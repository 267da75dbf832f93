"""The daily question's storage on every backend: a daily round beside a group round, a day
posted once however often it is tried, the history streaks are counted on, the settings, and
the standings the leaderboards over a period read."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot.storage import (
    AnswerRecord,
    AttemptKind,
    AttemptStatus,
    NewAttempt,
    NewRound,
    OutboxKind,
    RoundAnswer,
    RoundKind,
    Storage,
    StorageError,
)
from bot.storage.daily import DailySetting, NewDailyPost
from bot.storage.standings import StandingsQuery
from tests.test_replicas import new_round

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
DAY = timedelta(days=1)
PLATFORM, CHAT = "chat", "room"


def daily_round(at: datetime, question: str = "q1", chat: str = CHAT) -> NewRound:
    return NewRound(
        platform=PLATFORM,
        chat_id=chat,
        quiz_id="quiz",
        starter_id="admin",
        language="en",
        question_order=(question,),
        option_order={question: ("a", "b")},
        time_limit_seconds=12 * 3600,
        started_at=at,
        kind=RoundKind.DAILY,
        time_zone="Europe/Berlin",
    )


def post_for(day: date, question: str = "q1", cycle: int = 1, chat: str = CHAT) -> NewDailyPost:
    due = datetime.combine(day, time(9), tzinfo=UTC)
    return NewDailyPost(PLATFORM, chat, day, cycle, "quiz", question, due)


async def post_day(
    storage: Storage, day: date, answers: dict[str, bool], question: str = "q1"
) -> int:
    """Post ``day``'s question, take ``answers`` (user -> right) and close it."""
    at = datetime.combine(day, time(9), tzinfo=UTC)
    _, round_, created = await storage.open_daily_post(
        post_for(day, question), daily_round(at, question)
    )
    assert created
    for user, right in answers.items():
        answer = RoundAnswer(round_.id, 1, user, user.title(), "a" if right else "b", right, 5, at)
        await storage.record_round_answer(answer)
    assert await storage.close_round_question(round_.id, 1, at + timedelta(hours=12), None, None)
    return round_.id


async def test_a_daily_round_runs_beside_a_group_round_and_owes_no_ranking(
    any_storage: Storage,
) -> None:
    group = await new_round(any_storage, CHAT)
    daily, created = await any_storage.create_round(daily_round(T0))
    assert created and daily.kind is RoundKind.DAILY and daily.time_zone == "Europe/Berlin"
    assert daily.deadline == T0 + timedelta(hours=12)
    again, created = await any_storage.create_round(daily_round(T0 + DAY))
    assert not created and again.id == daily.id  # one active daily round per chat
    running = await any_storage.active_round(PLATFORM, CHAT)
    assert running is not None and running.id == group  # /stop and /quiz group see this one
    found = await any_storage.active_round(PLATFORM, CHAT, RoundKind.DAILY)
    assert found is not None and found.id == daily.id
    queued = await any_storage.close_round_question(daily.id, 1, T0, None, None)
    assert [entry.kind for entry in queued] == [OutboxKind.REVEAL, OutboxKind.HISTORY]
    closed = await any_storage.close_round_question(group, 1, T0, T0, T0 + DAY)
    assert [entry.kind for entry in closed] == [OutboxKind.REVEAL]
    ended = await any_storage.close_round_question(group, 2, T0, None, None)
    assert [e.kind for e in ended] == [OutboxKind.REVEAL, OutboxKind.END, OutboxKind.HISTORY]


async def test_a_day_is_posted_once_and_not_while_the_day_before_is_open(
    open_storage,
) -> None:
    first, replica = await open_storage(), await open_storage()
    monday = T0.date()
    post, round_, created = await first.open_daily_post(post_for(monday), daily_round(T0))
    assert created and post.round_id == round_.id and post.day == monday
    # Another replica (or a retry) posting the same day finds it, and writes nothing.
    again, same, created = await replica.open_daily_post(
        post_for(monday, "q2"), daily_round(T0, "q2")
    )
    assert not created and again == post and same.id == round_.id
    assert same.question_order == ("q1",)
    # Tuesday's post waits for Monday's question to close: nothing is written meanwhile.
    tuesday = monday + DAY
    with pytest.raises(StorageError):
        await replica.open_daily_post(post_for(tuesday), daily_round(T0 + DAY))
    assert await first.daily_post(PLATFORM, CHAT, tuesday) is None
    await first.close_round_question(round_.id, 1, T0 + timedelta(hours=12), None, None)
    post, _, created = await replica.open_daily_post(
        post_for(tuesday, "q2"), daily_round(T0 + DAY, "q2")
    )
    assert created and await first.daily_post(PLATFORM, CHAT, tuesday) == post
    assert await first.daily_cycle(PLATFORM, CHAT) == (1, [("quiz", "q1"), ("quiz", "q2")])
    assert await first.daily_cycle(PLATFORM, "elsewhere") == (0, [])


async def test_the_history_of_a_chat_holds_its_days_and_the_members_answers(
    any_storage: Storage,
) -> None:
    monday = T0.date()
    await post_day(any_storage, monday, {"asha": True, "boris": False})
    await post_day(any_storage, monday + DAY, {"asha": True}, "q2")
    wednesday = monday + 2 * DAY
    at = T0 + 2 * DAY
    _, open_round, _ = await any_storage.open_daily_post(
        post_for(wednesday, "q3"), daily_round(at, "q3")
    )
    await any_storage.record_round_answer(
        RoundAnswer(open_round.id, 1, "boris", "Boris", "a", True, 5, at)
    )
    days = await any_storage.daily_history(PLATFORM, CHAT, wednesday, 10, ["asha", "boris"])
    assert [(d.day, d.open, d.answers) for d in days] == [
        (wednesday, True, {"boris": True}),
        (monday + DAY, False, {"asha": True}),
        (monday, False, {"asha": True, "boris": False}),
    ]
    assert days[0].round_id == open_round.id
    # Up to a day, at most so many days, only the members asked about.
    older = await any_storage.daily_history(PLATFORM, CHAT, monday + DAY, 1, ["boris"])
    assert [(d.day, d.answers) for d in older] == [(monday + DAY, {})]
    assert await any_storage.daily_history(PLATFORM, CHAT, wednesday, 10, []) != []
    assert await any_storage.daily_history(PLATFORM, "elsewhere", wednesday, 10, ["asha"]) == []


async def test_a_setting_is_replaced_and_turned_off_keeping_the_chat_title(
    any_storage: Storage,
) -> None:
    setting = DailySetting(
        platform=PLATFORM,
        chat_id=CHAT,
        enabled=True,
        at=time(9, 30),
        weekdays_only=True,
        quiz_ids=("quiz", "other"),
        close_minutes=720,
        language="ru",
        chat_title="Study group",
        set_by="admin",
        updated_at=T0,
        zone_chat="server",
    )
    assert await any_storage.daily_setting(PLATFORM, CHAT) is None
    await any_storage.set_daily(setting)
    assert await any_storage.daily_setting(PLATFORM, CHAT) == setting
    off = DailySetting(**{**setting.__dict__, "enabled": False, "chat_title": None})
    await any_storage.set_daily(off)
    stored = await any_storage.daily_setting(PLATFORM, CHAT)
    assert stored is not None and not stored.enabled and stored.chat_title == "Study group"
    assert [s.chat_id for s in await any_storage.daily_settings(PLATFORM)] == [CHAT]
    # The chats of a member: those whose daily questions they answered.
    await post_day(any_storage, T0.date(), {"asha": True})
    assert [s.chat_id for s in await any_storage.daily_chats(PLATFORM, "asha")] == [CHAT]
    assert await any_storage.daily_chats(PLATFORM, "boris") == []


async def test_the_history_copy_of_a_daily_question_is_a_daily_attempt(
    any_storage: Storage,
) -> None:
    from bot.catalog import QuizCatalog
    from bot.rounds import RoundHistory
    from tests.conftest import QUIZ_DIR, SEED_QUIZ

    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    question = quiz.questions[0]
    new = NewRound(
        **{**daily_round(T0, question.id).__dict__, "quiz_id": quiz.id, "option_order": {}}
    )
    round_, _ = await any_storage.create_round(new)
    right = question.correct_option_id
    await any_storage.record_round_answer(
        RoundAnswer(round_.id, 1, "asha", "Asha", right, True, 5, T0)
    )
    await any_storage.close_round_question(round_.id, 1, T0 + DAY, None, None)
    history = RoundHistory(any_storage, any_storage, catalog, lambda: T0 + DAY)
    assert await history.copy(round_.id)
    assert await history.copy(round_.id)  # again: nothing more
    summaries = await any_storage.attempt_summaries(PLATFORM, "asha")
    assert [(s.attempt.kind, s.attempt.status, s.correct) for s in summaries] == [
        (AttemptKind.DAILY, AttemptStatus.COMPLETED, 1)
    ]


async def answered(
    storage: Storage,
    user: str,
    rights: list[bool],
    at: datetime,
    *,
    chat: str | None = CHAT,
    kind: AttemptKind = AttemptKind.QUIZ,
    platform: str = PLATFORM,
    quiz: str = "quiz",
) -> None:
    """A completed attempt of ``user`` with one answer per entry of ``rights``, given at ``at``."""
    await storage.touch_user(platform, user, user.title())
    questions = tuple(f"q{n}" for n in range(len(rights)))
    new = NewAttempt(platform, user, chat, quiz, questions, {}, at, kind)
    attempt, _ = await storage.create_attempt(new)
    for question, right in zip(questions, rights, strict=True):
        record = AnswerRecord(attempt.id, question, "a" if right else "b", right, at)
        await storage.record_answer(record, finishes=False)
    await storage.finish_attempt(attempt.id, AttemptStatus.COMPLETED, at)


async def test_standings_count_right_answers_in_a_chat_since_a_moment(
    any_storage: Storage,
) -> None:
    week = T0
    await answered(any_storage, "asha", [True, True, False], week - DAY)  # last week
    await answered(any_storage, "asha", [True], week + DAY)
    await answered(any_storage, "boris", [True, True], week + DAY, kind=AttemptKind.ROUND)
    await answered(any_storage, "chen", [True, False, True], week + DAY, kind=AttemptKind.DAILY)
    await answered(any_storage, "dana", [True] * 5, week + DAY, kind=AttemptKind.REVIEW)
    await answered(any_storage, "erin", [True] * 5, week + DAY, chat="other room")
    await answered(any_storage, "asha", [True], week + 2 * DAY, quiz="other")

    def table(rows):
        return [(s.user_id, s.name, s.right, s.answered) for s in rows]

    here = StandingsQuery(PLATFORM, CHAT, since=week)
    assert table(await any_storage.standings(here, 10)) == [
        ("asha", "Asha", 2, 2),
        ("boris", "Boris", 2, 2),
        ("chen", "Chen", 2, 3),  # as many right, but more answers
    ]
    assert table(await any_storage.standings(StandingsQuery(PLATFORM, CHAT), 10))[0] == (
        "asha",
        "Asha",
        4,
        5,
    )
    assert table(await any_storage.standings(StandingsQuery(PLATFORM, CHAT), 1)) == [
        ("asha", "Asha", 4, 5)
    ]
    one_quiz = StandingsQuery(PLATFORM, CHAT, since=week, quiz_id="other")
    assert table(await any_storage.standings(one_quiz, 10)) == [("asha", "Asha", 1, 1)]
    everywhere = await any_storage.standings(StandingsQuery(since=week), 10)
    assert [s.user_id for s in everywhere] == ["erin", "asha", "boris", "chen"]
    assert await any_storage.standings(StandingsQuery("elsewhere", CHAT), 10) == []
