"""The daily question beside the engine, on every backend and a manual clock: what ``/daily``
accepts, the choice of questions without repeats, streaks counted from the posted days, and
the post job (once a day at the chat's local time, weekdays only, skipped when missed past its
window, the daylight-saving rule, several replicas)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.catalog import QuizCatalog
from bot.daily.choice import choose_question, question_pool
from bot.daily.request import DailyAction, DailyRequestError, parse_daily
from bot.daily.service import job_key
from bot.daily.streaks import count_streaks
from bot.daily.texts import DAILY_STRINGS, daily_t
from bot.daily.views import DailyOutcome
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES
from bot.rounds import RoundQuestion, RoundReveal
from bot.scheduling import Place
from bot.scheduling.timezones import find_zone
from bot.services import Services
from bot.storage import RoundKind, RoundStatus, Storage
from bot.storage.daily import DailyDay
from bot.views import Participant
from fakes.clock import ManualClock
from tests.conftest import SEED_QUIZ, OpenStorage
from tests.library_quizzes import FIRST, question, quiz_yaml, write_quiz

PLATFORM, CHAT = "chat", "room"
ADMIN = Participant(PLATFORM, "admin", "Admin", "en")
BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = datetime(2026, 3, 2, 6, 0, tzinfo=UTC)  # 07:00 in Berlin


def known(word: str) -> bool:
    return word in {"checkpoint-sharding", "mixed-precision"}


def test_daily_reads_a_time_weekdays_a_window_and_quizzes_in_any_order() -> None:
    assert parse_daily([], known).action is DailyAction.SHOW
    assert parse_daily(["OFF"], known).action is DailyAction.OFF
    request = parse_daily(["9:05"], known)
    assert (request.action, request.at, request.weekdays_only) == (
        DailyAction.SET,
        time(9, 5),
        False,
    )
    assert request.open_for == timedelta(hours=12) and request.quiz_ids == ()
    request = parse_daily(["18:30", "mixed-precision", "6h", "weekdays", "mixed-precision"], known)
    assert request.at == time(18, 30) and request.weekdays_only
    assert request.open_for == timedelta(hours=6) and request.quiz_ids == ("mixed-precision",)
    assert parse_daily(["07:00", "1h30m"], known).open_for == timedelta(minutes=90)


@pytest.mark.parametrize(
    ("words", "key", "unknown"),
    [
        (["25:00"], "daily_bad_time", None),
        (["tomorrow"], "daily_bad_time", None),
        (["off", "now"], "daily_bad_time", None),
        (["09:00", "5m"], "daily_bad_window", None),
        (["09:00", "2d"], "daily_bad_window", None),
        (["09:00", "0h"], "daily_bad_window", None),
        (["09:00", "no-such-quiz"], "daily_bad_time", "no-such-quiz"),
    ],
)
def test_words_daily_cannot_use_say_why(words: list[str], key: str, unknown: str | None) -> None:
    with pytest.raises(DailyRequestError) as error:
        parse_daily(words, known)
    assert (error.value.key, error.value.unknown_quiz) == (key, unknown)


def test_every_question_is_asked_once_before_any_comes_again() -> None:
    pool = [("q", f"{n}") for n in range(5)]
    cycle = 0
    asked: list[tuple[str, str]] = []
    seen: list[tuple[str, str]] = []
    for day in range(10):
        choice = choose_question(pool, cycle, asked, f"room:{day}")
        assert choice is not None
        if choice.cycle != cycle:
            cycle, asked = choice.cycle, []  # a new cycle: nothing asked in it yet
        asked.append((choice.quiz_id, choice.question_id))
        seen.append(asked[-1])
    assert sorted(seen[:5]) == pool and sorted(seen[5:]) == pool
    assert cycle == 2
    again = choose_question(pool, 1, seen[:2], "room:2")
    assert again == choose_question(pool, 1, seen[:2], "room:2")  # every replica the same
    assert choose_question([], 3, [], "x") is None


def test_the_pool_leaves_out_typed_questions(catalog: QuizCatalog) -> None:
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    assert question_pool([quiz]) == [(quiz.id, q.id) for q in quiz.questions if not q.typed]


def day(n: int, answers: dict[str, bool], *, open_: bool = False) -> DailyDay:
    return DailyDay(date(2026, 3, 1) + timedelta(days=n), n, open_, answers)


def test_streaks_run_back_until_a_miss_or_a_wrong_answer() -> None:
    days = [  # newest first
        day(5, {"asha": True}, open_=True),  # today, open: counts once answered
        day(4, {"asha": True, "boris": False}),
        day(3, {"asha": True, "boris": True}),
        day(2, {"boris": True}),  # asha missed a day
        day(1, {"asha": True, "boris": True}),
    ]
    counts = count_streaks(days, ["asha", "boris", "chen"])
    assert (counts["asha"].right, counts["asha"].answered) == (3, 3)
    assert (counts["boris"].right, counts["boris"].answered) == (0, 4)  # a wrong one yesterday
    assert (counts["chen"].right, counts["chen"].answered) == (0, 0)
    assert counts["asha"].over and not counts["boris"].over  # boris may answer further back
    # Today's open question, not answered yet, breaks nothing.
    waiting = count_streaks([day(5, {}, open_=True), *days[1:]], ["boris"])
    assert (waiting["boris"].right, waiting["boris"].answered) == (0, 4)


def test_every_daily_string_is_in_every_language() -> None:
    for key, by_language in DAILY_STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
    assert daily_t("streak_right", "ru", count=22) == "🔥 22 верных ответа подряд"
    assert daily_t("streak_answered", "en", count=1) == "answered 1 day in a row"


class World:
    """A process: engine, rounds, scheduling and the daily questions on one storage."""

    def __init__(self, catalog: QuizCatalog, storage: Storage, clock: ManualClock):
        self.storage = storage
        self.clock = clock
        self.engine = QuizEngine(catalog, storage, clock=clock)
        services = Services.build(self.engine, storage, clock=clock)
        self.rounds, self.scheduling, self.daily = (
            services.rounds,
            services.scheduling,
            services.daily,
        )
        self.posted: list[RoundQuestion] = []
        self.daily.on_posted(PLATFORM, self.posted.append)

    async def run(self) -> int:
        return await self.scheduling.scheduler.run_due()

    async def close_open(self) -> None:
        """What the round driver does at a daily question's deadline."""
        running = await self.storage.active_round(PLATFORM, CHAT, RoundKind.DAILY)
        if running is not None and running.deadline <= self.clock():
            assert await self.rounds.close(running.id, 1) is not None


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(MONDAY)


@pytest.fixture
async def world(catalog: QuizCatalog, any_storage: Storage, clock: ManualClock) -> World:
    zone = find_zone("Europe/Berlin")
    world = World(catalog, any_storage, clock)
    await world.scheduling.timezones.set_zone(Place(PLATFORM, CHAT, chat=True), zone)
    return world


async def days_posted(world: World, first: date, count: int) -> list[date]:
    """Run the job through ``count`` days from ``first`` (closing each question at its
    deadline, as the driver would); the days a question was posted."""
    posted = []
    for n in range(count):
        today = first + timedelta(days=n)
        end = datetime.combine(today + timedelta(days=1), time(0), tzinfo=BERLIN)
        while world.clock() < end:
            world.clock.advance(1800)
            await world.close_open()
            await world.run()
        if await world.storage.daily_post(PLATFORM, CHAT, today):
            posted.append(today)
    return posted


async def test_daily_turns_on_at_the_local_time_and_posts_once_a_day(world: World) -> None:
    reply = await world.daily.command(PLATFORM, CHAT, ADMIN, ["09:00"], is_chat_admin=True)
    assert reply.outcome is DailyOutcome.TURNED_ON and reply.status is not None
    status = reply.status
    assert status.next_post == datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 CET
    assert status.next_close == status.next_post + timedelta(hours=12)
    assert status.zone == "Europe/Berlin" and status.quiz_titles == ()
    job = await world.scheduling.scheduler.get(job_key(PLATFORM, CHAT))
    assert job is not None and job.due_at == status.next_post

    world.clock.advance(2 * 3600 - 1)
    assert await world.run() == 0 and world.posted == []
    world.clock.advance(1)
    assert await world.run() == 1
    (question,) = world.posted
    assert question.kind is RoundKind.DAILY and question.total == 1
    assert question.deadline == status.next_post + timedelta(hours=12)
    assert question.time_zone == "Europe/Berlin"
    assert await world.run() == 0  # once
    assert await days_posted(world, date(2026, 3, 3), 6) == [
        date(2026, 3, 3) + timedelta(days=n) for n in range(6)
    ]
    asked = [(q.quiz_id, q.text) for q in world.posted]
    assert len(set(asked)) == len(asked)  # no question twice (the pool is far larger)


async def test_only_a_chat_admin_changes_it_and_bad_words_change_nothing(world: World) -> None:
    member = Participant(PLATFORM, "member", "Member", "en")
    reply = await world.daily.command(PLATFORM, CHAT, member, ["09:00"], is_chat_admin=False)
    assert (reply.outcome, reply.notice) == (
        DailyOutcome.REFUSED,
        daily_t("daily_admins_only", "en"),
    )
    shown = await world.daily.command(PLATFORM, CHAT, member, [], is_chat_admin=False)
    assert shown.outcome is DailyOutcome.SHOWN and shown.notice == daily_t("daily_none", "en")
    bad = await world.daily.command(PLATFORM, CHAT, ADMIN, ["09:00", "nope"], is_chat_admin=True)
    assert bad.outcome is DailyOutcome.REFUSED and '"nope"' in bad.notice
    assert await world.storage.daily_setting(PLATFORM, CHAT) is None
    assert await world.scheduling.scheduler.get(job_key(PLATFORM, CHAT)) is None


async def test_weekdays_only_skips_saturday_and_sunday(world: World) -> None:
    await world.daily.command(
        PLATFORM, CHAT, ADMIN, ["09:00", "weekdays", SEED_QUIZ], is_chat_admin=True
    )
    posted = await days_posted(world, date(2026, 3, 2), 14)
    assert [d.weekday() for d in posted] == [0, 1, 2, 3, 4] * 2
    # 8 questions in the seed quiz: the ninth post starts a new cycle.
    cycles = [
        (await world.storage.daily_post(PLATFORM, CHAT, d)).cycle  # type: ignore[union-attr]
        for d in posted
    ]
    assert cycles == [1] * 8 + [2] * 2


async def test_a_process_down_past_the_window_skips_that_day_without_a_flood(
    world: World,
) -> None:
    await world.daily.command(PLATFORM, CHAT, ADMIN, ["09:00", "6h"], is_chat_admin=True)
    world.clock.advance(3 * 24 * 3600)  # down from Monday 07:00 to Thursday 07:00
    assert await world.run() == 1  # the missed job, once: stale, nothing posted
    assert world.posted == []
    job = await world.scheduling.scheduler.get(job_key(PLATFORM, CHAT))
    assert job is not None and job.due_at == datetime(2026, 3, 5, 8, 0, tzinfo=UTC)
    # Down again, this time coming back within the window: posted late, closing on time.
    world.clock.advance(4 * 3600)  # Thursday 11:00 in Berlin, two hours late
    assert await world.run() == 1
    (question,) = world.posted
    assert question.opens_at == datetime(2026, 3, 5, 10, 0, tzinfo=UTC)
    assert question.deadline == datetime(2026, 3, 5, 14, 0, tzinfo=UTC)  # 09:00 CET + 6 h
    for monday_to_wednesday in range(2, 5):
        assert (
            await world.storage.daily_post(PLATFORM, CHAT, date(2026, 3, monday_to_wednesday))
            is None
        )


async def test_a_0230_post_on_the_spring_forward_day_is_posted_once_at_0300(
    world: World,
) -> None:
    world.clock.now = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)  # Friday before the change
    await world.daily.command(PLATFORM, CHAT, ADMIN, ["02:30"], is_chat_admin=True)
    posted = await days_posted(world, date(2026, 3, 28), 3)
    assert posted == [date(2026, 3, 28), date(2026, 3, 29), date(2026, 3, 30)]
    opened = [q.opens_at for q in world.posted]
    assert opened == [
        datetime(2026, 3, 28, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC),  # 02:30 does not exist: 03:00 CEST
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST
    ]


async def test_off_stops_the_posts_and_leaves_the_open_question(world: World) -> None:
    await world.daily.command(PLATFORM, CHAT, ADMIN, ["09:00"], is_chat_admin=True)
    world.clock.advance(2 * 3600)
    await world.run()
    reply = await world.daily.command(PLATFORM, CHAT, ADMIN, ["off"], is_chat_admin=True)
    assert reply.outcome is DailyOutcome.TURNED_OFF
    assert reply.notice == daily_t("daily_turned_off", "en")
    assert await world.scheduling.scheduler.get(job_key(PLATFORM, CHAT)) is None
    running = await world.storage.active_round(PLATFORM, CHAT, RoundKind.DAILY)
    assert running is not None and running.status is RoundStatus.ACTIVE
    assert await days_posted(world, date(2026, 3, 3), 3) == []
    shown = await world.daily.command(PLATFORM, CHAT, ADMIN, [], is_chat_admin=False)
    assert shown.notice == daily_t("daily_none", "en")


async def test_replicas_post_each_day_once(
    catalog: QuizCatalog, open_storage: OpenStorage, clock: ManualClock
) -> None:
    worlds = [World(catalog, await open_storage(), clock) for _ in range(3)]
    place = Place(PLATFORM, CHAT, chat=True)
    await worlds[0].scheduling.timezones.set_zone(place, find_zone("Europe/Berlin"))
    await worlds[0].daily.command(PLATFORM, CHAT, ADMIN, ["09:00"], is_chat_admin=True)
    clock.advance(2 * 3600)  # Monday 09:00 in Berlin
    for _ in range(3):
        for world in worlds:
            await world.close_open()
        for world in worlds:
            await world.run()
        clock.advance(24 * 3600)
    posted = [q.round_id for w in worlds for q in w.posted]
    assert len(posted) == len(set(posted)) == 3


def test_a_week_starts_on_monday_and_a_month_on_the_first_at_local_midnight() -> None:
    from bot.leaderboard_periods import Period, parse_period, period_start

    sunday_night = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)  # Monday 00:30 in Berlin
    assert period_start(Period.WEEK, sunday_night, BERLIN) == datetime(
        2026, 3, 1, 23, 0, tzinfo=UTC
    )
    assert period_start(Period.WEEK, sunday_night, ZoneInfo("UTC")) == datetime(
        2026, 2, 23, tzinfo=UTC
    )
    assert period_start(Period.MONTH, sunday_night, BERLIN) == datetime(
        2026, 2, 28, 23, 0, tzinfo=UTC
    )
    assert period_start(Period.ALL, sunday_night, BERLIN) is None
    assert parse_period(" Month ") is Period.MONTH and parse_period("year") is None


async def test_the_question_of_the_day_plays_the_quiz_version_it_was_posted_on(
    any_storage: Storage, clock: ManualClock, tmp_path: Path
) -> None:
    """A daily question posted from version 2 is revealed from version 2, although version 3,
    published while it is open, removes that question."""
    folder = tmp_path / "quizzes"
    write_quiz(folder, FIRST)
    world = World(QuizCatalog(paths=[folder]), any_storage, clock)
    await world.engine.library.publish_quiz_dir()
    write_quiz(folder, quiz_yaml("Library quiz", question("q1", "b", "First, v2?")))
    assert (await world.engine.library.publish_quiz_dir()).publications[0].version.version == 2
    await world.daily.command(PLATFORM, CHAT, ADMIN, ["09:00", "library-quiz"], is_chat_admin=True)
    clock.advance(3 * 3600)  # 09:00 UTC: posted
    assert await world.run() == 1
    (posted,) = world.posted
    assert posted.text == "First, v2?"
    running = await any_storage.active_round(PLATFORM, CHAT, RoundKind.DAILY)
    assert running is not None and running.quiz_version == 2

    write_quiz(folder, quiz_yaml("Library quiz", question("q9", "c", "Ninth?")))  # q1 gone
    assert (await world.engine.library.publish_quiz_dir()).publications[0].version.version == 3
    member = Participant(PLATFORM, "m", "M", "en")
    pressed = next(n for n, option in enumerate(posted.options) if option.id == "b")
    await world.rounds.answer(running.id, member, 1, pressed)
    reveal = await world.rounds.close(running.id, 1)
    assert reveal is not None and isinstance(reveal, RoundReveal)
    assert (reveal.question_text, reveal.correct_option.id) == ("First, v2?", "b")
    assert [line.user_id for line in reveal.scoreboard if line.score] == ["m"]
