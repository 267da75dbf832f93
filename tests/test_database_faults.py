"""Database faults during an answer: retried, or reported to the user; never half-written."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from bot.views import AnswerOutcome, Participant
from tests.conftest import SEED_QUIZ, FakeClock, postgres_url, reset_postgres

ZOE = Participant("telegram", "zoe", "Zoe", "en")


def hold_write_lock(path, seconds: float, ready: threading.Event) -> None:
    """Another process-like writer holding SQLite's write lock for a while."""
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    ready.set()
    threading.Event().wait(seconds)
    conn.execute("ROLLBACK")
    conn.close()


async def test_a_briefly_locked_sqlite_database_is_retried(catalog, db_path):
    storage = SQLiteStorage(db_path, busy_timeout_ms=20)
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage, clock=FakeClock())
        question = (await engine.start(ZOE, SEED_QUIZ)).question
        ready = threading.Event()
        holder = threading.Thread(target=hold_write_lock, args=(db_path, 0.15, ready))
        holder.start()
        await asyncio.to_thread(ready.wait)
        feedback = await engine.answer_at(ZOE, question.attempt_id, 1, 0)
        holder.join()
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        assert len(await storage.answers(question.attempt_id)) == 1
    finally:
        await storage.close()


async def test_a_locked_database_is_reported_and_nothing_is_half_written(catalog, db_path):
    storage = SQLiteStorage(db_path, busy_timeout_ms=10)
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage, clock=FakeClock())
        question = (await engine.start(ZOE, SEED_QUIZ)).question
        ready = threading.Event()
        holder = threading.Thread(target=hold_write_lock, args=(db_path, 2.0, ready))
        holder.start()
        await asyncio.to_thread(ready.wait)
        failed = await engine.answer_at(ZOE, question.attempt_id, 1, 0)
        assert failed.outcome is AnswerOutcome.FAILED
        assert failed.notice == "Could not save that just now — please press again."
        await asyncio.to_thread(holder.join)
        assert await storage.answers(question.attempt_id) == []
        again = await engine.answer_at(ZOE, question.attempt_id, 1, 0)  # the user presses again
        assert again.outcome is AnswerOutcome.ACCEPTED
        assert len(await storage.answers(question.attempt_id)) == 1
    finally:
        await storage.close()


async def test_a_dropped_postgres_connection_during_answers_is_retried(catalog):
    import asyncpg

    from bot.storage.postgres import PostgresStorage

    url = postgres_url()
    await reset_postgres(url)
    storage = PostgresStorage(url, min_size=2, max_size=2)
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage, clock=FakeClock())
        question = (await engine.start(ZOE, SEED_QUIZ)).question
        admin = await asyncpg.connect(url)
        try:
            for number in range(1, 9):
                # Cut every connection of the bot's pool (as a failover or restart would).
                await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                feedback = await engine.answer_at(ZOE, question.attempt_id, number, 0)
                assert feedback.outcome is AnswerOutcome.ACCEPTED, feedback
                question = feedback.next_question or question
        finally:
            await admin.close()
        answers = await storage.answers(question.attempt_id)
        assert [a.question_id for a in answers] == list(
            (await storage.get_attempt(question.attempt_id)).question_order
        )
    finally:
        await storage.close()
