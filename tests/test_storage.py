"""The storage backends: migrations, uniqueness enforced by the database, durability, and
the one-trip reads and writes of group rounds."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.engine import QuizEngine
from bot.storage import (
    AnswerRecord,
    AttemptStatus,
    ExpectedState,
    NewAttempt,
    OutboxKind,
    ReviewItem,
    RoundAnswer,
    RoundProgress,
    RoundStatus,
    SQLiteStorage,
    StateChanged,
    Storage,
    StorageError,
    storage_from_url,
)
from bot.storage.sqlite.writer import MIGRATIONS, SQLiteWriter
from bot.views import AnswerOutcome, Participant
from tests.conftest import ROOT, SEED_QUIZ, postgres_url, reset_postgres
from tests.test_replicas import new_round

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def new_attempt(user: str = "u1", quiz: str = "q") -> NewAttempt:
    return NewAttempt("test", user, None, quiz, ("q1", "q2"), {"q1": ("a", "b")}, T0)


async def test_an_empty_file_is_migrated_to_the_latest_schema(db_path):
    store = SQLiteStorage(db_path)
    await store.open()
    assert await store.schema_version() == len(MIGRATIONS)
    await store.close()
    again = SQLiteStorage(db_path)  # reopening migrates nothing and keeps the data
    await again.open()
    assert await again.schema_version() == len(MIGRATIONS)
    await again.close()
    with sqlite3.connect(db_path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"users", "attempts", "answers", "kv", "schema_version"} <= tables
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_a_database_from_a_newer_version_is_refused(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER)")
        conn.execute("INSERT INTO schema_version VALUES (?)", (len(MIGRATIONS) + 1,))
    store = SQLiteStorage(db_path)
    with pytest.raises(StorageError, match="newer than this program"):
        await store.open()


async def test_the_database_file_is_private_to_its_owner(storage, db_path):
    assert stat.S_IMODE(os.stat(db_path).st_mode) == 0o600


async def test_one_active_attempt_per_user_and_quiz(any_storage):
    storage = any_storage
    first, created = await storage.create_attempt(new_attempt())
    again, created_again = await storage.create_attempt(new_attempt())
    assert created and not created_again and again.id == first.id
    other, _ = await storage.create_attempt(new_attempt(quiz="other"))
    assert other.id != first.id
    assert await storage.finish_attempt(first.id, AttemptStatus.ABANDONED, T0)
    assert not await storage.finish_attempt(first.id, AttemptStatus.ABANDONED, T0)
    fresh, created = await storage.create_attempt(new_attempt())
    assert created and fresh.id not in (first.id, other.id)


async def test_an_answer_is_stored_once_even_when_sent_concurrently(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    answers = [AnswerRecord(attempt.id, "q1", option, option == "a", T0) for option in "abab"]
    results = await asyncio.gather(*(storage.record_answer(a, finishes=False) for a in answers))
    assert [inserted for _, inserted in results].count(True) == 1
    winner = next(stored for stored, inserted in results if inserted)
    assert all(stored == winner for stored, _ in results)
    assert await storage.answers(attempt.id) == [winner]


async def test_the_last_answer_completes_the_attempt_in_the_same_commit(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    await storage.record_answer(AnswerRecord(attempt.id, "q1", "a", True, T0), finishes=False)
    await storage.record_answer(AnswerRecord(attempt.id, "q2", "b", False, T0), finishes=True)
    done = await storage.get_attempt(attempt.id)
    assert done.status is AttemptStatus.COMPLETED and done.finished_at is not None
    (summary,) = await storage.attempt_summaries("test", "u1")
    assert (summary.answered, summary.correct) == (2, 1)


async def test_an_answer_updates_its_review_schedule_only_when_it_is_stored(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    due = ReviewItem("test", "u1", "q", "q1", 1, T0)
    wrong = AnswerRecord(attempt.id, "q1", "b", False, T0)
    assert await storage.record_answer(wrong, finishes=False, review=due) == (wrong, True)
    assert await storage.review_items("test", "u1", "q") == [due]
    later = dataclasses.replace(due, box=2)
    again = AnswerRecord(attempt.id, "q1", "a", True, T0)  # refused: q1 is answered
    assert await storage.record_answer(again, finishes=True, review=later) == (wrong, False)
    assert await storage.review_items("test", "u1", "q") == [due]
    assert (await storage.get_attempt(attempt.id)).status is AttemptStatus.ACTIVE
    mastered = dataclasses.replace(due, question_id="q2", box=0)
    await storage.record_answer(
        AnswerRecord(attempt.id, "q2", "a", True, T0), finishes=True, review=mastered
    )
    assert await storage.review_items("test", "u1", "q") == [due]


async def test_the_answer_state_is_what_the_separate_reads_return(any_storage):
    storage = any_storage
    await storage.set_language("test", "u1", "ru")
    attempt, _ = await storage.create_attempt(new_attempt())
    due = ReviewItem("test", "u1", "q", "q1", 1, T0)
    first = AnswerRecord(attempt.id, "q1", "b", False, T0)
    await storage.record_answer(first, finishes=False, review=due)
    state = await storage.answer_state(attempt.id, "test", "u1")
    assert state.attempt == await storage.get_attempt(attempt.id)
    assert state.user == await storage.get_user("test", "u1")
    assert state.answers == [first]
    assert state.review == [due]
    missing = await storage.answer_state(999_999, "test", "nobody")
    assert (missing.attempt, missing.user, missing.answers, missing.review) == (None, None, [], [])


def expecting(answered: int, **changes: Any) -> ExpectedState:
    """What the engine assumes when it records an answer for u1 in quiz "q"."""
    return dataclasses.replace(ExpectedState(answered, "test", "u1", None, "q", None), **changes)


async def test_a_guarded_answer_is_stored_only_while_the_attempt_is_as_expected(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    first = AnswerRecord(attempt.id, "q1", "a", True, T0)
    assert await storage.record_answer(first, finishes=False, expected=expecting(0)) == (
        first,
        True,
    )
    second = AnswerRecord(attempt.id, "q2", "b", False, T0)
    due = ReviewItem("test", "u1", "q", "q2", 1, T0)
    # Each assumption that no longer holds refuses the write, and nothing is written.
    for wrong in (
        expecting(0),  # the attempt has one answer already
        expecting(1, language="ru"),  # the user chose no language
        expecting(1, review=due),  # q2 has no review entry
    ):
        with pytest.raises(StateChanged):
            await storage.record_answer(second, finishes=True, review=due, expected=wrong)
    assert await storage.answers(attempt.id) == [first]
    assert await storage.review_items("test", "u1", "q") == []
    await storage.set_language("test", "u1", "ru")
    with pytest.raises(StateChanged):  # the language changed since it was read
        await storage.record_answer(second, finishes=True, expected=expecting(1))
    # A question answered already gives that answer back, whatever the guard says.
    again = AnswerRecord(attempt.id, "q1", "b", False, T0)
    assert await storage.record_answer(again, finishes=False, expected=expecting(7)) == (
        first,
        False,
    )
    assert await storage.record_answer(
        second, finishes=True, review=due, expected=expecting(1, language="ru")
    ) == (second, True)
    assert await storage.review_items("test", "u1", "q") == [due]
    assert (await storage.get_attempt(attempt.id)).status is AttemptStatus.COMPLETED


async def test_a_guarded_answer_to_a_closed_attempt_is_refused(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    await storage.finish_attempt(attempt.id, AttemptStatus.ABANDONED, T0)
    late = AnswerRecord(attempt.id, "q1", "a", True, T0)
    with pytest.raises(StateChanged):
        await storage.record_answer(late, finishes=False, expected=expecting(0))
    assert await storage.answers(attempt.id) == []


async def test_concurrent_answers_of_many_users_are_all_stored_once(any_storage):
    storage = any_storage
    attempts = [(await storage.create_attempt(new_attempt(user=f"u{n}")))[0] for n in range(60)]
    due = {a.id: ReviewItem("test", a.user_id, "q", "q1", 1, T0) for a in attempts}
    writes = [
        storage.record_answer(
            AnswerRecord(a.id, "q1", "b", False, T0),
            finishes=False,
            review=due[a.id],
            expected=expecting(0, user_id=a.user_id),
        )
        for a in attempts
    ]
    # Each answer pressed twice at once (a double tap): each is stored once.
    twins = [
        storage.record_answer(
            AnswerRecord(a.id, "q1", "a", True, T0),
            finishes=False,
            expected=expecting(0, user_id=a.user_id),
        )
        for a in attempts
    ]
    outcomes = await asyncio.gather(*writes, *twins, return_exceptions=True)
    assert [r for r in outcomes if isinstance(r, BaseException)] == []
    results = [r for r in outcomes if not isinstance(r, BaseException)]
    assert [inserted for _, inserted in results].count(True) == len(attempts)
    for attempt in attempts:
        (stored,) = await storage.answers(attempt.id)
        assert [r for r, _ in results if r.attempt_id == attempt.id] == [stored, stored]
        items = await storage.review_items("test", attempt.user_id, "q")
        assert items == ([due[attempt.id]] if not stored.correct else [])


async def _answer_scenario(storage: Storage, prefix: str) -> list[dict[str, Any]]:
    """Users ``prefix``1-8, each with an attempt in quiz "q" in a state of its own, and the
    record_answer calls of one burst for them (one user twice): the writes a batch may mix."""

    def user(n: int) -> str:
        return f"{prefix}{n}"

    def attempt_of(n: int) -> NewAttempt:
        return new_attempt(user=user(n))

    async def missed_before(n: int) -> ReviewItem:  # q1 scheduled by an earlier attempt
        item = ReviewItem("test", user(n), "q", "q1", 1, T0)
        old, _ = await storage.create_attempt(attempt_of(n))
        await storage.record_answer(
            AnswerRecord(old.id, "q1", "b", False, T0), finishes=False, review=item
        )
        await storage.finish_attempt(old.id, AttemptStatus.ABANDONED, T0)
        return item

    later = T0 + timedelta(minutes=5)
    scheduled = {n: await missed_before(n) for n in (6, 8)}
    attempts = {n: (await storage.create_attempt(attempt_of(n)))[0].id for n in range(1, 9)}
    await storage.record_answer(AnswerRecord(attempts[4], "q1", "a", True, T0), finishes=False)

    def write(
        n: int,
        question: str,
        option: str,
        *,
        answered: int | None = 0,
        finishes: bool = False,
        review: ReviewItem | None = None,
        was: ReviewItem | None = None,
        language: str | None = None,
    ) -> dict[str, Any]:
        guard = None
        if answered is not None:
            guard = expecting(answered, user_id=user(n), language=language, review=was)
        return {
            "answer": AnswerRecord(attempts[n], question, option, option == "a", later),
            "finishes": finishes,
            "review": review,
            "expected": guard,
        }

    def due(n: int, question: str, box: int) -> ReviewItem:
        return ReviewItem("test", user(n), "q", question, box, later, '{"step":0}')

    return [
        write(1, "q1", "b", review=due(1, "q1", 1)),  # a first miss: scheduled
        write(2, "q1", "a", finishes=True),  # the attempt's last answer
        write(3, "q1", "a", answered=1),  # stale: the attempt has no answer yet
        write(4, "q1", "b"),  # the question has its answer already
        write(1, "q2", "b", answered=1, review=due(1, "q2", 1)),  # after the user's first
        write(5, "q1", "a", answered=None),  # unguarded
        write(6, "q1", "a", review=due(6, "q1", 0), was=scheduled[6]),  # off the schedule
        write(7, "q1", "a", language="ru"),  # stale: the user chose no language
        write(8, "q1", "a", review=due(8, "q1", 2), was=scheduled[8]),  # rescheduled
    ]


async def _outcome(write: Any) -> tuple[Any, ...]:
    try:
        stored, inserted = await write
    except StateChanged:
        return ("changed",)
    return (stored.question_id, stored.option_id, inserted)


async def _answers_state(storage: Storage) -> tuple[Any, ...]:
    attempts = await storage.attempts_for_quiz("q")
    reviews = [await storage.review_items("test", f"u{n}", "q") for n in range(1, 9)]
    return attempts, await storage.answers_for_quiz("q"), reviews


async def test_answers_written_together_end_as_if_written_one_by_one(tmp_path):
    """SQLite's writer records a burst's answers in a few shared statements; every caller
    still gets, and the database ends with, what writing them one after another gives."""
    alone, together = SQLiteStorage(tmp_path / "alone.db"), SQLiteStorage(tmp_path / "at-once.db")
    await alone.open()
    await together.open()
    try:
        one_by_one = [
            await _outcome(alone.record_answer(**w)) for w in await _answer_scenario(alone, "u")
        ]
        writes = await _answer_scenario(together, "u")
        statements: list[str] = []
        writer = together._writer
        assert writer is not None
        await writer.run(lambda conn: conn.set_trace_callback(statements.append))
        at_once = await asyncio.gather(*(_outcome(together.record_answer(**w)) for w in writes))
        assert one_by_one == [
            ("q1", "b", True),
            ("q1", "a", True),
            ("changed",),
            ("q1", "a", False),  # the answer the question had
            ("q2", "b", True),
            ("q1", "a", True),
            ("q1", "a", True),
            ("changed",),
            ("q1", "a", True),
        ]
        assert list(at_once) == one_by_one
        state = await _answers_state(together)
        assert state == await _answers_state(alone)
        attempts, _, reviews = state
        assert [a.status for a in attempts if a.user_id == "u2"] == [AttemptStatus.COMPLETED]
        assert [(i.question_id, i.box) for i in reviews[0]] == [("q1", 1), ("q2", 1)]
        assert reviews[5] == []  # taken off the schedule
        assert [(i.question_id, i.box) for i in reviews[7]] == [("q1", 2)]
        inserts = [s for s in statements if s.startswith("INSERT INTO answers")]
        # The first four together; the user's second answer must see their first, so it
        # starts a group, which the unguarded answer (run alone) ends; the last three (in
        # one statement of four rows, the fourth padding: see the next test).
        assert len(inserts) == 4
    finally:
        await alone.close()
        await together.close()


async def test_a_burst_of_answers_takes_few_statements_of_few_shapes(storage):
    """200 answers at once: two inserts of 128 rows (the second padded), not one per answer,
    and no statement of a size of its own for every batch (sqlite3 caches each one
    prepared); the padding stores nothing."""
    created = await asyncio.gather(
        *(storage.create_attempt(new_attempt(user=f"u{n}")) for n in range(200))
    )
    attempts = [attempt for attempt, _ in created]
    statements: list[str] = []
    writer = storage._writer
    assert writer is not None
    await writer.run(lambda conn: conn.set_trace_callback(statements.append))
    results = await asyncio.gather(
        *(
            storage.record_answer(
                AnswerRecord(a.id, "q1", "b", False, T0),
                finishes=False,
                review=ReviewItem("test", a.user_id, "q", "q1", 1, T0),
                expected=expecting(0, user_id=a.user_id),
            )
            for a in attempts
        )
    )
    assert all(inserted for _, inserted in results)
    for prefix in ("INSERT INTO answers", "UPDATE attempts", "INSERT INTO review_items"):
        # The traced statements have their values filled in: rows are "(...), (...)".
        shapes = [s.count("), (") + 1 for s in statements if s.startswith(prefix)]
        assert shapes == [128, 128], prefix
    # Every row of both tables, whatever its keys: a padding row stored would show here.
    rows = await writer.run(
        lambda conn: conn.execute(
            "SELECT (SELECT COUNT(*) FROM answers), (SELECT COUNT(*) FROM review_items)"
        ).fetchone()
    )
    assert tuple(rows) == (200, 200)


async def test_postgres_writes_concurrent_answers_in_shared_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.storage.postgres import PostgresStorage

    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    storage = PostgresStorage(url)
    await storage.open()
    attempts = [(await storage.create_attempt(new_attempt(user=f"u{n}")))[0] for n in range(50)]
    statements = []
    record = storage._record_answers

    async def counted(batch):
        statements.append(len(batch))
        return await record(batch)

    monkeypatch.setattr(storage, "_record_answers", counted)
    await asyncio.gather(
        *(
            storage.record_answer(
                AnswerRecord(a.id, "q1", "a", True, T0),
                finishes=False,
                expected=expecting(0, user_id=a.user_id),
            )
            for a in attempts
        )
    )
    assert sum(statements) == 50 and len(statements) <= 2  # the first alone, the rest together
    assert len(await storage.answers_for_quiz("q")) == 50
    await storage.close()


async def test_a_failing_write_does_not_undo_others_in_the_same_batch(any_storage):
    storage = any_storage
    attempt, _ = await storage.create_attempt(new_attempt())
    bad = AnswerRecord(999_999, "q1", "a", True, T0)  # no such attempt: foreign key fails
    good = AnswerRecord(attempt.id, "q1", "a", True, T0)
    results = await asyncio.gather(
        storage.record_answer(bad, finishes=False),
        storage.record_answer(good, finishes=False),
        return_exceptions=True,
    )
    assert isinstance(results[0], StorageError)
    assert results[1] == (good, True)
    assert await storage.answers(attempt.id) == [good]


async def test_a_write_failing_halfway_is_undone_alone_in_its_batch(tmp_path):
    """The writer runs a batch without savepoints first; a write that fails after writing
    part of its rows must still be undone alone, and the batch's other writes kept."""
    writer = SQLiteWriter(tmp_path / "batch.db")
    await writer.open()
    try:
        await writer._write(lambda conn: conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
        started = threading.Event()

        def hold(conn: sqlite3.Connection) -> None:  # keeps the writer busy: the rest queue
            started.set()
            time.sleep(0.2)

        def insert(*ids: int) -> Any:
            def op(conn: sqlite3.Connection) -> list[int]:
                for row_id in ids:  # the repeated id fails after the first row is written
                    conn.execute("INSERT INTO t (id) VALUES (?)", (row_id,))
                return list(ids)

            return op

        first = writer._write(hold)
        await asyncio.to_thread(started.wait, 5)
        results = await asyncio.gather(
            writer._write(insert(1)),
            writer._write(insert(2, 2)),
            writer._write(insert(3)),
            return_exceptions=True,
        )
        await first
        assert results[0] == [1] and results[2] == [3]
        assert isinstance(results[1], StorageError)
        rows = await writer._fetchall("SELECT id FROM t ORDER BY id")
        assert [r[0] for r in rows] == [1, 3]  # row 2 of the failed write was undone
    finally:
        await writer.close()


def _rows_committed_while_the_loop_is_held(path: Path) -> list[Any]:
    """Table t's rows once any are committed (5 s at most), read by another connection while
    this thread, and with it the event loop, is busy."""
    deadline = time.monotonic() + 5
    rows: list[Any] = []
    while not rows and time.monotonic() < deadline:
        time.sleep(0.01)
        with contextlib.closing(sqlite3.connect(path)) as other:
            rows = other.execute("SELECT id FROM t").fetchall()
    return rows


async def test_the_next_batch_commits_while_the_event_loop_is_busy(tmp_path):
    """Under a burst of presses the event loop is busy for tens of milliseconds at a time:
    the writer goes on from one committed batch to the next without waiting for it, so the
    next answers are durable, and can be acknowledged, as soon as the loop comes back."""
    path = tmp_path / "busy.db"
    writer = SQLiteWriter(path)
    await writer.open()
    try:
        await writer._write(lambda conn: conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
        started = threading.Event()

        def hold(conn: sqlite3.Connection) -> None:  # the first batch: the next one queues
            started.set()
            time.sleep(0.1)

        first = writer._write(hold)
        await asyncio.to_thread(started.wait, 5)
        second = writer._write(lambda conn: conn.execute("INSERT INTO t (id) VALUES (1)"))
        assert _rows_committed_while_the_loop_is_held(path) == [(1,)]
        await asyncio.gather(first, second)
    finally:
        await writer.close()


async def test_small_values_round_trip_and_delete(any_storage):
    storage = any_storage
    assert await storage.get_value("telegram:poll", "p1") is None
    await storage.set_value("telegram:poll", "p1", '{"attempt": 1}')
    await storage.set_value("telegram:poll", "p1", '{"attempt": 2}')
    assert await storage.get_value("telegram:poll", "p1") == '{"attempt": 2}'
    await storage.set_value("telegram:poll", "p1", None)
    assert await storage.get_value("telegram:poll", "p1") is None


async def test_language_choice_is_remembered(any_storage):
    storage = any_storage
    await storage.touch_user("test", "u1", "Ann")
    await storage.set_language("test", "u1", "ur")
    await storage.touch_user("test", "u1", None)  # a later touch keeps name and language
    user = await storage.get_user("test", "u1")
    assert (user.display_name, user.language) == ("Ann", "ur")


def test_database_url_selects_the_backend(tmp_path):
    relative = storage_from_url("sqlite:///data/quiz.db")
    assert isinstance(relative, SQLiteStorage) and relative.path == "data/quiz.db"
    absolute = storage_from_url(f"sqlite:///{tmp_path}/quiz.db")
    assert isinstance(absolute, SQLiteStorage) and absolute.path == f"{tmp_path}/quiz.db"
    with pytest.raises(ValueError, match='unsupported database URL scheme "mysql"'):
        storage_from_url("mysql://localhost/quiz")


def test_kill_9_during_a_run_of_answers_loses_no_acknowledged_one(tmp_path, catalog):
    db = tmp_path / "crash.db"
    acked: set[tuple[int, str]] = set()
    for _round in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.crash_worker", str(db), "20"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY"
        target = len(acked) + 150
        while len(acked) < target:
            line = proc.stdout.readline()
            assert line.startswith("ACK "), line
            _, attempt_id, question_id = line.split()
            acked.add((int(attempt_id), question_id))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        asyncio.run(_check_after_crash(db, catalog, acked))


async def _check_after_crash(db, catalog, acked: set[tuple[int, str]]) -> None:
    store = SQLiteStorage(db)
    await store.open()
    try:
        stored: set[tuple[int, str]] = set()
        for attempt_id in {a for a, _ in acked}:
            keys = [(a.attempt_id, a.question_id) for a in await store.answers(attempt_id)]
            assert len(keys) == len(set(keys))  # never counted twice
            stored.update(keys)
        assert acked <= stored
        # Every user resumes at their next unanswered question.
        engine = QuizEngine(catalog, store)
        for n in range(20):
            question = (await engine.start(Participant("crash", f"u{n}"), SEED_QUIZ)).question
            assert question is not None
            attempt = await store.get_attempt(question.attempt_id)
            assert attempt is not None
            answered = {a.question_id for a in await store.answers(attempt.id)}
            expected = next(q for q in attempt.question_order if q not in answered)
            assert question.question_id == expected
    finally:
        await store.close()


def test_postgres_urls_select_the_postgres_backend():
    from bot.storage.postgres import PostgresStorage

    heroku = storage_from_url("postgres://u:p@db.example:5432/quiz")
    assert isinstance(heroku, PostgresStorage)
    assert heroku.url == "postgresql://u:p@db.example:5432/quiz"
    assert isinstance(storage_from_url("postgresql://localhost/quiz"), PostgresStorage)


async def test_two_replicas_answering_the_same_question_at_once_record_it_once(catalog):
    from bot.storage.postgres import PostgresStorage

    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    replicas = [PostgresStorage(url), PostgresStorage(url)]
    for replica in replicas:
        await replica.open()
    try:
        engines = [QuizEngine(catalog, replica) for replica in replicas]
        for n in range(10):
            who = Participant("telegram", f"user{n}")
            question = (await engines[0].start(who, SEED_QUIZ)).question
            assert question is not None
            presses = [
                engines[i % 2].answer_by_position(who, question.attempt_id, 1, i % 3)
                for i in range(6)
            ]
            outcomes = [f.outcome for f in await asyncio.gather(*presses)]
            assert outcomes.count(AnswerOutcome.ACCEPTED) == 1, outcomes
            assert len(await replicas[1].answers(question.attempt_id)) == 1
    finally:
        for replica in replicas:
            await replica.close()


async def test_reads_after_a_confirmed_write_see_it_under_heavy_concurrency(catalog, storage):
    """Each answer's confirmation must be visible to the next read, with a thousand users
    answering at once (a read left open on the reader connection would pin an old snapshot and
    the next answer would be refused as stale)."""
    engine = QuizEngine(catalog, storage)
    users = [Participant("load", f"u{n}") for n in range(1000)]
    questions = [(await engine.start(who, SEED_QUIZ)).question for who in users]

    async def answer_all(who, question):
        outcomes = []
        for _ in range(8):
            feedback = await engine.answer_by_position(who, question.attempt_id, question.number, 0)
            outcomes.append(feedback.outcome)
            question = feedback.next_question
        return outcomes

    results = await asyncio.gather(
        *(answer_all(w, q) for w, q in zip(users, questions, strict=True))
    )
    refused = [o for outcomes in results for o in outcomes if o is not AnswerOutcome.ACCEPTED]
    assert refused == []


# -- group rounds: the reads and writes that take one round trip ---------------------------


def round_answer(round_id: int, number: int, user: str, option: str = "a") -> RoundAnswer:
    return RoundAnswer(round_id, number, user, user.title(), option, option == "a", 1500, T0)


async def next_question(storage: Storage, round_id: int, number: int) -> None:
    assert await storage.close_round_question(round_id, number, T0, T0, T0)


async def test_a_press_reads_the_round_and_the_pressing_user_together(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=3)
    await any_storage.touch_user("chat", "ana", "Ana")
    round_ = await any_storage.get_round(round_id)
    user = await any_storage.get_user("chat", "ana")
    assert round_ is not None and user is not None
    assert await any_storage.round_press(round_id, "chat", "ana") == (round_, user)
    assert await any_storage.round_press(round_id, "chat", "nobody") == (round_, None)
    assert await any_storage.round_press(round_id, "other", "ana") == (round_, None)
    assert await any_storage.round_press(999_999, "chat", "ana") == (None, user)


async def test_a_round_is_read_with_all_its_answers_together(any_storage: Storage) -> None:
    round_id = await new_round(any_storage, questions=3)
    other = await new_round(any_storage, chat="elsewhere", questions=3)
    assert await any_storage.round_with_answers(round_id) == (
        await any_storage.get_round(round_id),
        [],
    )
    for user in ("ana", "bob"):
        await any_storage.record_round_answer(round_answer(round_id, 1, user))
    await any_storage.record_round_answer(round_answer(other, 1, "carl"))
    await next_question(any_storage, round_id, 1)
    await any_storage.record_round_answer(round_answer(round_id, 2, "bob", "b"))
    round_, answers = await any_storage.round_with_answers(round_id)
    assert round_ == await any_storage.get_round(round_id)
    assert round_ is not None and round_.current == 2
    assert answers == await any_storage.round_answers(round_id)
    assert [(a.number, a.user_id, a.correct) for a in answers] == [
        (1, "ana", True),
        (1, "bob", True),
        (2, "bob", False),
    ]
    assert answers[0] == round_answer(round_id, 1, "ana")  # every field survives the trip
    assert await any_storage.round_with_answers(999_999) == (None, [])


async def test_a_round_answer_reports_how_its_question_stands_right_after(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=3)
    ana, bob, carl = (round_answer(round_id, 1, u) for u in ("ana", "bob", "carl"))
    # The first question: who plays is not known yet, so never "everyone".
    assert await any_storage.record_round_answer(ana) == (ana, True, RoundProgress(1, 1, False))
    assert await any_storage.record_round_answer(bob) == (bob, True, RoundProgress(2, 2, False))
    again = dataclasses.replace(ana, option_id="b", correct=False)  # a second press: ana's first
    assert await any_storage.record_round_answer(again) == (ana, False, RoundProgress(2, 2, False))

    await next_question(any_storage, round_id, 1)
    ana, bob, carl = (round_answer(round_id, 2, u) for u in ("ana", "bob", "carl"))
    assert await any_storage.record_round_answer(ana) == (ana, True, RoundProgress(1, 2, False))
    assert await any_storage.record_round_answer(bob) == (bob, True, RoundProgress(2, 2, True))
    # A latecomer joins: everyone who played before answered this one too.
    assert await any_storage.record_round_answer(carl) == (carl, True, RoundProgress(3, 3, True))
    assert await any_storage.record_round_answer(bob) == (bob, False, RoundProgress(3, 3, True))

    await next_question(any_storage, round_id, 2)
    carl = round_answer(round_id, 3, "carl")
    assert await any_storage.record_round_answer(carl) == (carl, True, RoundProgress(1, 3, False))
    # A closed question takes no new answer; a repeat of one it holds gets that one back.
    with pytest.raises(StorageError):
        await any_storage.record_round_answer(round_answer(round_id, 2, "dan"))
    ana = round_answer(round_id, 1, "ana")
    assert await any_storage.record_round_answer(ana) == (ana, False, RoundProgress(2, 3, False))
    assert len(await any_storage.round_answers(round_id)) == 6


async def test_a_later_question_nobody_answered_before_is_not_everyone_yet(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=3)
    await next_question(any_storage, round_id, 1)  # the first question went unanswered
    ana = round_answer(round_id, 2, "ana")
    assert await any_storage.record_round_answer(ana) == (ana, True, RoundProgress(1, 1, False))


async def test_concurrent_presses_of_one_member_store_one_answer(any_storage: Storage) -> None:
    round_id = await new_round(any_storage, questions=3)
    presses = [round_answer(round_id, 1, "ana", option) for option in "abcd"]
    results = await asyncio.gather(*(any_storage.record_round_answer(p) for p in presses))
    stored = [answer for answer, inserted, _ in results if inserted]
    assert len(stored) == 1
    assert {answer for answer, _, _ in results} == set(stored)
    assert {progress for _, _, progress in results} == {RoundProgress(1, 1, False)}
    assert await any_storage.round_answers(round_id) == stored


async def test_a_close_returns_the_outbox_entries_it_queued(any_storage: Storage) -> None:
    round_id = await new_round(any_storage, questions=2)
    opens, deadline = T0 + timedelta(seconds=3), T0 + timedelta(seconds=13)
    (reveal,) = await any_storage.close_round_question(round_id, 1, T0, opens, deadline)
    assert (reveal.round_id, reveal.number, reveal.kind) == (round_id, 1, OutboxKind.REVEAL)
    assert (reveal.platform, reveal.chat_id, reveal.created_at) == ("chat", "room", T0)
    assert (reveal.sent_at, reveal.message_id) == (None, None)
    assert await any_storage.outbox(round_id) == [reveal]
    # Not open any more: nothing queued, nothing written.
    assert await any_storage.close_round_question(round_id, 1, T0, opens, deadline) == ()
    assert await any_storage.outbox(round_id) == [reveal]

    queued = await any_storage.close_round_question(round_id, 2, deadline, None, None)
    assert [(e.number, e.kind, e.created_at) for e in queued] == [
        (2, OutboxKind.REVEAL, deadline),
        (2, OutboxKind.END, deadline),
        (2, OutboxKind.HISTORY, deadline),
    ]
    assert await any_storage.outbox(round_id) == [reveal, *queued]
    assert all(isinstance(e.kind, OutboxKind) for e in await any_storage.outbox(round_id))
    assert await any_storage.close_round_question(round_id, 2, deadline, None, None) == ()

    stopped = await new_round(any_storage, chat="elsewhere", questions=3)
    assert await any_storage.end_round(stopped, RoundStatus.STOPPED, T0)
    assert await any_storage.close_round_question(stopped, 1, T0, None, None) == ()
    assert [e.kind for e in await any_storage.outbox(stopped)] == [OutboxKind.HISTORY]
