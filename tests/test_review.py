"""Spaced repetition: missed questions come back, right answers push them further away."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.engine import QuizEngine
from bot.local_time import local_text
from bot.review import ReviewScheduler
from bot.storage import Storage
from bot.views import AnswerOutcome, Participant, StartOutcome
from tests.conftest import SEED_QUIZ, FakeClock
from tests.test_engine import correct_index, wrong_index

LEA = Participant("telegram", "lea", "Lea", "en")


@pytest.fixture
def storage(any_storage):
    return any_storage


@pytest.fixture
def clock():
    return FakeClock(step=timedelta(seconds=1))


@pytest.fixture
def engine(catalog, storage, clock):
    return QuizEngine(catalog, storage, clock=clock)


async def play(engine, catalog, who, wrong_numbers: set[int]):
    question = (await engine.start(who, SEED_QUIZ)).question
    while question is not None:
        pick = wrong_index if question.number in wrong_numbers else correct_index
        feedback = await engine.answer_by_position(
            who, question.attempt_id, question.number, pick(catalog, question)
        )
        question = feedback.next_question
    return feedback.result


async def review_all(engine, catalog, who, right: bool):
    start = await engine.start_review(who)
    asked = []
    question = start.question
    while question is not None:
        asked.append(question.question_id)
        pick = correct_index if right else wrong_index
        feedback = await engine.answer_by_position(
            who, question.attempt_id, question.number, pick(catalog, question)
        )
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        question = feedback.next_question
    return start, asked


async def test_nothing_to_review_before_any_mistake(engine, catalog):
    start = await engine.start_review(LEA)
    assert start.outcome is StartOutcome.NOTHING_DUE
    assert start.notice == "Nothing to review yet: questions you miss in a quiz come back here."
    await play(engine, catalog, LEA, wrong_numbers=set())
    assert (await engine.start_review(LEA)).outcome is StartOutcome.NOTHING_DUE


async def due_times(storage) -> list[datetime]:
    return sorted(i.due_at for i in await storage.review_items("telegram", "lea"))


async def test_missed_questions_come_back_at_once_and_fsrs_spaces_them_out(
    engine, catalog, clock, storage
):
    result = await play(engine, catalog, LEA, wrong_numbers={2, 5})
    assert result.correct == 6
    start, asked = await review_all(engine, catalog, LEA, right=True)
    assert start.outcome is StartOutcome.STARTED
    assert start.notice == "🔁 Review: 2 questions to practise again."
    assert asked == ["resume-state", "index-file"]
    # Right once: still learning (FSRS's 10-minute step), not due now; the notice says when.
    first, _ = await due_times(storage)
    assert timedelta(minutes=9) < first - clock.now <= timedelta(minutes=10)
    later = await engine.start_review(LEA)
    assert later.outcome is StartOutcome.NOTHING_DUE
    assert later.notice == f"Nothing due now — next review: {first:%Y-%m-%d %H:%M} UTC."
    # Right each time it is due: the intervals grow.
    intervals = []
    for _ in range(4):
        clock.now = max(await due_times(storage))
        _, asked = await review_all(engine, catalog, LEA, right=True)
        assert len(asked) == 2
        intervals.append(max(await due_times(storage)) - clock.now)
    assert intervals == sorted(intervals) and intervals[-1] > timedelta(days=10)
    # Wrong: due again at once, relearning (FSRS state 3).
    clock.now = max(await due_times(storage))
    _, asked = await review_all(engine, catalog, LEA, right=False)
    assert len(asked) == 2
    items = await storage.review_items("telegram", "lea")
    assert {i.box for i in items} == {3} and all(i.due_at <= clock.now for i in items)
    _, asked = await review_all(engine, catalog, LEA, right=True)
    assert len(asked) == 2


async def test_the_next_review_is_told_in_the_users_time_zone(engine, catalog, clock):
    await play(engine, catalog, LEA, wrong_numbers={1})
    await review_all(engine, catalog, LEA, right=True)
    berlin = ZoneInfo("Europe/Berlin")
    later = await engine.start_review(LEA, zone=berlin)
    due, next_due = await engine.review_status(LEA)
    assert due == 0 and next_due is not None
    assert later.notice == f"Nothing due now — next review: {local_text(next_due, berlin)}."
    assert later.notice.endswith("Europe/Berlin.")
    clock.now = next_due
    assert await engine.review_status(LEA) == (1, None)


async def test_a_higher_desired_retention_brings_questions_back_sooner(catalog, storage, clock):
    gaps = []
    for retention in (0.8, 0.95):
        engine = QuizEngine(catalog, storage, clock=clock, reviews=ReviewScheduler(retention))
        who = Participant("telegram", f"r{retention}", "R", "en")
        await play(engine, catalog, who, wrong_numbers={1})
        for _ in range(3):  # to the review state, then one interval more
            _, next_due = await engine.review_status(who)
            if next_due is not None:
                clock.now = next_due
            await review_all(engine, catalog, who, right=True)
        _, next_due = await engine.review_status(who)
        assert next_due is not None
        gaps.append(next_due - clock.now)
    assert gaps[1] < gaps[0]
    with pytest.raises(ValueError):
        ReviewScheduler(1.0)


async def test_reviews_do_not_count_as_quiz_attempts(engine, catalog):
    await play(engine, catalog, LEA, wrong_numbers={3})
    await review_all(engine, catalog, LEA, right=True)
    (progress,) = (await engine.progress(LEA)).quizzes
    assert (progress.completed_attempts, progress.best) == (1, 7)
    (stats,) = await engine.stats(SEED_QUIZ)
    assert (stats.attempts, stats.completed) == (1, 1)


async def test_a_review_in_progress_resumes_and_a_quiz_can_run_beside_it(engine, catalog):
    await play(engine, catalog, LEA, wrong_numbers={1, 2, 3})
    review = (await engine.start_review(LEA)).question
    await engine.answer_by_position(LEA, review.attempt_id, 1, correct_index(catalog, review))
    quiz = await engine.start(LEA, SEED_QUIZ)
    assert quiz.outcome is StartOutcome.STARTED and quiz.question.attempt_id != review.attempt_id
    resumed = await engine.start_review(LEA)
    assert resumed.outcome is StartOutcome.RESUMED
    assert (resumed.question.attempt_id, resumed.question.number) == (review.attempt_id, 2)


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
async def test_leitner_boxes_become_fsrs_cards_due_when_they_were(dialect, db_path, catalog):
    """A database written before FSRS (Leitner boxes 1 to 5) is migrated: each box
    becomes a card due at the same time, missed ones relearning, the others in review with a
    stability of their box's interval; reviewing them goes on from there."""
    import json
    import sqlite3

    from bot.storage import SQLiteStorage
    from bot.storage.schema import MIGRATIONS, migrations
    from bot.storage.sqlite.writer import _statements
    from tests.conftest import postgres_url, reset_postgres

    # The schema version just before the migration that turns boxes into cards.
    before = next(n for n, m in enumerate(MIGRATIONS) if "ADD COLUMN card" in str(m))
    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    questions = ["why-shard", "resume-state", "resume-benefit", "local-shards", "index-file"]
    rows = [
        ("telegram", "lea", SEED_QUIZ, question, box, t0 + timedelta(days=box - 1))
        for box, question in enumerate(questions, start=1)
    ]
    insert = "INSERT INTO review_items VALUES ({})"
    store: Storage
    if dialect == "sqlite":
        conn = sqlite3.connect(db_path)
        conn.execute("CREATE TABLE schema_version (version INTEGER)")
        for script in migrations("sqlite")[:before]:
            for statement in _statements(script):
                conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?)", (before,))
        for row in rows:
            stamp = row[5].isoformat(timespec="microseconds")
            conn.execute(insert.format(", ".join("?" * 6)), (*row[:5], stamp))
        conn.commit()
        conn.close()
        store = SQLiteStorage(db_path)
    else:
        import asyncpg

        from bot.storage.postgres import PostgresStorage

        url = postgres_url()
        assert url is not None
        await reset_postgres(url)
        pg = await asyncpg.connect(url)
        await pg.execute("CREATE TABLE schema_version (version INTEGER)")
        for script in migrations("postgres")[:before]:
            await pg.execute(script)
        await pg.execute("INSERT INTO schema_version VALUES ($1)", before)
        for row in rows:
            await pg.execute(insert.format("$1, $2, $3, $4, $5, $6"), *row)
        await pg.close()
        store = PostgresStorage(url)
    await store.open()
    try:
        items = {i.question_id: i for i in await store.review_items("telegram", "lea")}
        assert {q: items[q].due_at for q in questions} == {r[3]: r[5] for r in rows}
        assert [items[q].box for q in questions] == [3, 2, 2, 2, 2]
        stability = [json.loads(items[q].card or "{}")["stability"] for q in questions]
        assert stability == [0.5, 1.0, 3.0, 7.0, 16.0]
        # Reviewing a migrated card: right pushes it further the more stable it was.
        clock = FakeClock(start=t0 + timedelta(days=5), step=timedelta(0))
        engine = QuizEngine(catalog, store, clock=clock)
        due, _ = await engine.review_status(LEA)
        assert due == 5
        _, asked = await review_all(engine, catalog, LEA, right=True)
        assert sorted(asked) == sorted(questions)
        after = {i.question_id: i for i in await store.review_items("telegram", "lea")}
        gaps = [after[q].due_at - clock.now for q in questions[1:]]
        assert gaps == sorted(gaps) and gaps[0] >= timedelta(days=1)
        assert after["why-shard"].box == 3 or after["why-shard"].due_at > clock.now
    finally:
        await store.close()


def test_the_desired_retention_comes_from_the_environment() -> None:
    from quizbot.settings import ConfigError, Settings
    from tests.conftest import QUIZ_DIR

    base = {"QUIZ_DIR": str(QUIZ_DIR)}
    assert Settings.from_env(base).review_retention == 0.9
    assert Settings.from_env(base | {"REVIEW_RETENTION": "0.85"}).review_retention == 0.85
    for bad in ("90", "0.5", "1", "high"):
        with pytest.raises(ConfigError) as error:
            Settings.from_env(base | {"REVIEW_RETENTION": bad})
        assert error.value.variable == "REVIEW_RETENTION"


@pytest.mark.parametrize("retention", [0.7, 0.9, 0.97])
def test_a_first_miss_is_scheduled_exactly_as_fsrs_schedules_it(retention: float) -> None:
    # The first miss skips FSRS (its memory is computed once): the stored card must be what
    # FSRS itself gives, at any time, and later reviews must go on from it the same way.
    import json

    import fsrs

    scheduler = ReviewScheduler(retention)
    reference = fsrs.Scheduler(desired_retention=retention, enable_fuzzing=False)
    for now in (
        datetime(2026, 12, 6, 18, 30, tzinfo=UTC),
        datetime(2031, 2, 28, 23, 59, 59, 999_999, tzinfo=UTC),
    ):
        item = scheduler.next_review(
            None, platform="telegram", user_id="7", quiz_id="q", question_id="x",
            correct=False, now=now,
        )  # fmt: skip
        card, _ = reference.review_card(fsrs.Card(card_id=1, due=now), fsrs.Rating.Again, now)
        assert item is not None and item.card is not None
        assert (item.box, item.due_at) == (int(card.state), now)
        assert json.loads(item.card) == {
            "difficulty": card.difficulty,
            "last_review": now.isoformat(),
            "stability": card.stability,
            "step": card.step,
        }
        later = now + timedelta(days=2)
        again = scheduler.next_review(
            item, platform="telegram", user_id="7", quiz_id="q", question_id="x",
            correct=True, now=later,
        )  # fmt: skip
        card, _ = reference.review_card(card, fsrs.Rating.Good, later)
        assert again is not None and (again.box, again.due_at) == (int(card.state), card.due)


def test_a_first_miss_at_a_time_not_in_utc_is_refused_as_fsrs_refuses_it() -> None:
    moscow = datetime(2026, 12, 6, 21, 30, tzinfo=ZoneInfo("Europe/Moscow"))
    with pytest.raises(ValueError, match="UTC"):
        ReviewScheduler().next_review(
            None, platform="telegram", user_id="7", quiz_id="q", question_id="x",
            correct=False, now=moscow,
        )  # fmt: skip
