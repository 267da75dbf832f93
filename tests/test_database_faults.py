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
        assert question is not None
        feedback = await engine.answer_by_position(ZOE, question.attempt_id, 1, 0)
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
        assert question is not None
        failed = await engine.answer_by_position(ZOE, question.attempt_id, 1, 0)
        assert failed.outcome is AnswerOutcome.FAILED
        assert failed.notice == "Could not save that just now — please press again."
        await asyncio.to_thread(holder.join)
        assert await storage.answers(question.attempt_id) == []
        again = await engine.answer_by_position(
            ZOE, question.attempt_id, 1, 0
        )  # the user presses again
        assert again.outcome is AnswerOutcome.ACCEPTED
        assert len(await storage.answers(question.attempt_id)) == 1
    finally:
        await storage.close()


async def test_a_dropped_postgres_connection_during_answers_is_retried(catalog):
    import asyncpg

    from bot.storage.postgres import PostgresStorage

    url = postgres_url()
    assert url is not None
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
                assert question is not None
                feedback = await engine.answer_by_position(ZOE, question.attempt_id, number, 0)
                assert feedback.outcome is AnswerOutcome.ACCEPTED, feedback
                question = feedback.next_question or question
        finally:
            await admin.close()
        assert question is not None
        answers = await storage.answers(question.attempt_id)
        attempt = await storage.get_attempt(question.attempt_id)
        assert attempt is not None
        assert [a.question_id for a in answers] == list(attempt.question_order)
    finally:
        await storage.close()


class FreezableProxy:
    """A loopback TCP proxy to a server that can be frozen: it stops passing bytes either
    way while every socket stays open, which is what a client sees of a server that was
    SIGSTOPped, cut off by a partition or stuck in a failover."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._flowing.wait()  # a frozen server completes no handshake either
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while True:
                await self._flowing.wait()
                data = await source.read(65536)
                if not data:
                    break
                await self._flowing.wait()
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            sink.close()


async def test_a_frozen_postgres_server_fails_fast_and_health_says_so_within_2_s(catalog):
    from urllib.parse import urlsplit, urlunsplit

    import aiohttp

    from bot.storage.postgres import PostgresStorage
    from quizbot.web import WebServer

    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    parts = urlsplit(url)
    proxy = FreezableProxy(parts.hostname or "127.0.0.1", parts.port or 5432)
    port = await proxy.start()
    credentials = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    proxied = urlunsplit(parts._replace(netloc=f"{credentials}127.0.0.1:{port}"))
    storage = PostgresStorage(proxied, timeout=2.0)
    await storage.open()
    web = WebServer(QuizEngine(catalog, storage).healthy)
    await web.start("127.0.0.1", 0)
    loop = asyncio.get_running_loop()
    try:
        engine = QuizEngine(catalog, storage, clock=FakeClock())
        question = (await engine.start(ZOE, SEED_QUIZ)).question
        proxy.freeze()

        began = loop.time()
        async with asyncio.timeout(15):  # before the fix, it waited for ever
            assert question is not None
            failed = await engine.answer_by_position(ZOE, question.attempt_id, 1, 0)
        assert failed.outcome is AnswerOutcome.FAILED
        assert failed.notice == "Could not save that just now — please press again."
        assert loop.time() - began < 3.5  # the 2 s timeout, plus a brief language look-up

        began = loop.time()
        async with asyncio.timeout(15):
            assert await engine.healthy() is False
        assert loop.time() - began < 2.0
        async with aiohttp.ClientSession() as http:
            began = loop.time()
            async with http.get(f"http://127.0.0.1:{web.port}/healthz") as response:
                assert response.status == 503
            assert loop.time() - began < 2.0

            proxy.thaw()
            # Back to normal: the user presses again and the answer is stored once (the
            # first press either never reached the server or, if its bytes did, is the same
            # answer, committed whole).
            again = await engine.answer_by_position(ZOE, question.attempt_id, 1, 0)
            assert again.outcome is AnswerOutcome.ACCEPTED, again
            assert len(await storage.answers(question.attempt_id)) == 1
            assert await engine.healthy() is True
            async with http.get(f"http://127.0.0.1:{web.port}/healthz") as response:
                assert response.status == 200
    finally:
        proxy.thaw()
        await web.stop()
        await storage.close()
        await proxy.close()


def test_the_database_timeout_comes_from_the_environment_and_bad_values_are_refused():
    import pytest

    from bot.storage import storage_from_url
    from quizbot.settings import ConfigError, Settings
    from tests.conftest import QUIZ_DIR

    base = {"QUIZ_DIR": str(QUIZ_DIR)}
    assert Settings.from_env(base).database_timeout == 5.0
    settings = Settings.from_env(base | {"DATABASE_TIMEOUT": "2.5"})
    assert settings.database_timeout == 2.5
    sqlite = storage_from_url("sqlite:///x.db", timeout=settings.database_timeout)
    assert isinstance(sqlite, SQLiteStorage) and sqlite.busy_timeout_ms == 2500
    postgres = storage_from_url("postgresql://u@h/d", timeout=settings.database_timeout)
    from bot.storage.postgres import PostgresStorage

    assert isinstance(postgres, PostgresStorage) and postgres.timeout == 2.5
    for bad in ("0", "soon", "600"):
        with pytest.raises(ConfigError, match="DATABASE_TIMEOUT"):
            Settings.from_env(base | {"DATABASE_TIMEOUT": bad})
