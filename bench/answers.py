"""(a) and (e): durable answers per second and answer latency, engine vs. the raw driver.

What is measured
    ``users`` simulated users are *concurrent*: that many asyncio tasks ("slots") run at once,
    and each takes one pre-started user through the whole seed quiz (8 questions), answering
    question after question with :meth:`QuizEngine.answer_by_position` -- exactly what an
    adapter does on a button press -- then picks up the next user, until every user is done. So
    the number of answers in flight stays at ``users`` until the last users finish.
    When ``users`` times 8 is below ``min_answers``, more users than slots are prepared (the
    slot count, i.e. the concurrency, does not change).

    * latency: from calling ``answer_by_position`` until it returns. It returns only after the
      answer is committed (the engine's contract), so this includes queueing for the group commit.
    * throughput: acknowledged answers / wall time of the whole answering phase.
    * the attempts are started with :meth:`QuizEngine.start` *before* the timed phase (with
      the same concurrency); that phase's rate is reported separately as ``starts_per_s``.

    The database is a fresh file (SQLite) or a fresh schema (PostgreSQL) for every run. After
    the run, the answers stored in the database are counted and must equal the answers the
    engine acknowledged (a correctness check, independent of timing).

Baseline for SQLite (a): raw aiosqlite, same kind of database file
    One aiosqlite connection shared by the same number of concurrent tasks, with the engine's
    pragmas (``journal_mode=WAL``, ``synchronous=FULL``, same busy timeout), on a table with
    the engine's ``answers`` columns and primary key, in the same directory. Each task, for
    each of its answers, awaits its own ``INSERT`` (the engine's statement) and then its own
    ``commit()``; latency is measured from the insert until the commit returns.

    The primary baseline holds an ``asyncio.Lock`` around each insert+commit pair, so that
    every commit carries exactly its own row: "inserting and committing one row per answer",
    as the issue defines it. Without the lock, aiosqlite runs the statements of concurrent
    tasks on its one thread in arrival order, so a task's ``commit()`` silently commits the
    rows other tasks have inserted meanwhile: accidental group commit. That variant is what
    the most naive bot would write; it is measured too and reported as ``baseline_unlocked``
    (informative, with its own ratio), because it is the fastest way to write rows that a
    single connection allows, but it is not one commit per answer.

Baseline for PostgreSQL (e): raw asyncpg
    A pool of the same size as :class:`PostgresStorage`'s (10), the same concurrency, and for
    every answer one ``INSERT ... ON CONFLICT DO NOTHING RETURNING *`` (the engine's
    statement) on an acquired connection in autocommit, i.e. one single-statement transaction
    committed per answer, into a table with the engine's ``answers`` columns.

Rounds
    Each concurrency level is measured ``rounds`` times, alternating which of engine and
    baseline goes first; figures are the medians over rounds (all rounds are in the JSON).

Paced run
    Above, every user presses again the moment an answer is acknowledged, so ``users`` answers
    are always waiting and latency is mostly queueing: by Little's law, mean latency = answers
    in flight / answers per second, e.g. 1,000 / 3,500 per second = 286 ms even for the raw
    baseline. So the largest level is also run once *paced*: each user pauses a random time
    (uniform, mean ``think_s``: 2 s, quick 0.25 s) before every answer, offering ``users /
    think_s`` answers per second, below what either side can do. Its latency is what users see
    at that rate; both the saturated and the paced p99 are judged against the 20 ms target.

An answer that the engine refuses although it is valid and in order (e.g. "stale") is a
correctness failure: it is counted, the simulated user presses again after 10 ms, and the
check "no valid in-order answer refused" fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import secrets
import statistics
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bench import QUIZ_DIR, SEED_QUIZ
from bench.report import (
    STATUS_OK,
    STATUS_SKIPPED,
    Json,
    check,
    figure,
    percentile,
    scratch_dir,
    section,
)
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import AttemptStatus, AttemptStore, SQLiteStorage, Storage
from bot.views import AnswerOutcome, Participant

T = TypeVar("T")

LANGUAGES = ("en", "bn", "ur", "ru")
PG_POOL_SIZE = 10  # PostgresStorage's default max_size: the baseline gets the same pool
P99_TARGET_MS = 20.0
RATE_TARGET = 1.0  # SQLite (a), as the issue sets it
PG_RATE_TARGET = 0.8  # PostgreSQL (e): the issue asks >= 0.8x raw asyncpg
TARGET_USERS = 1000

SQLITE_ANSWERS_TABLE = """
CREATE TABLE answers (
    attempt_id INTEGER NOT NULL,
    question_id TEXT NOT NULL,
    option_id TEXT NOT NULL,
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    answered_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, question_id)
)
"""
# The engine's insert for one answer (bot/storage/sqlite/attempts.py; it takes seq from its guard).
SQLITE_INSERT = (
    "INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at, "
    "seq) VALUES (?, ?, ?, ?, ?, (SELECT COUNT(*) FROM answers WHERE attempt_id = ?))"
    " ON CONFLICT (attempt_id, question_id) DO NOTHING"
)
PG_ANSWERS_TABLE = """
CREATE TABLE answers (
    seq BIGSERIAL,
    attempt_id BIGINT NOT NULL,
    question_id TEXT NOT NULL,
    option_id TEXT NOT NULL,
    correct BOOLEAN NOT NULL,
    answered_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (attempt_id, question_id)
)
"""
# The engine's insert for one answer (bot/storage/postgres/attempts.py batches them with unnest).
PG_INSERT = (
    "INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (attempt_id, question_id) DO NOTHING "
    "RETURNING *"
)


class BenchError(Exception):
    """The benchmark itself went wrong (not a performance result)."""


@dataclass(frozen=True)
class Sizes:
    levels: tuple[int, ...]
    min_answers: int
    rounds: int
    think_s: float  # mean pause before each answer in the paced run; 0: no paced run


def sizes(
    quick: bool,
    levels: Sequence[int] | None = None,
    rounds: int | None = None,
    think_s: float | None = None,
) -> Sizes:
    if quick:
        think = 0.25 if think_s is None else think_s
        return Sizes(tuple(levels or (1, 10, 100)), 200, rounds or 1, think)
    think = 2.0 if think_s is None else think_s
    return Sizes(tuple(levels or (1, 100, 1000)), 2000, rounds or 3, think)


async def think(rng: random.Random, think_s: float) -> None:
    """A user's pause before pressing: uniform in [0, 2 * think_s] (mean ``think_s``)."""
    if think_s > 0:
        await asyncio.sleep(rng.uniform(0, 2 * think_s))


@dataclass
class Run:
    """One timed phase: answers acknowledged, answers found stored, wall time, latencies."""

    acknowledged: int
    stored: int
    wall_s: float
    latencies_s: list[float]
    extra: Json = field(default_factory=dict)

    def summary(self) -> Json:
        ms = [x * 1000 for x in self.latencies_s]
        return {
            "answers_per_s": self.acknowledged / self.wall_s if self.wall_s else math.nan,
            "p50_ms": percentile(ms, 50),
            "p99_ms": percentile(ms, 99),
            "max_ms": max(ms) if ms else math.nan,
            "mean_ms": statistics.fmean(ms) if ms else math.nan,
            "wall_s": self.wall_s,
            "acknowledged": self.acknowledged,
            "stored": self.stored,
            **self.extra,
        }


async def run_slots(
    concurrency: int, jobs: Sequence[T], work: Callable[[T, list[float]], Awaitable[int]]
) -> tuple[float, list[float], int]:
    """Run ``work`` over ``jobs`` with ``concurrency`` tasks; returns wall time, latencies
    appended by ``work``, and the sum of what ``work`` returned (acknowledged answers)."""
    queue: Iterator[T] = iter(jobs)
    latencies: list[float] = []
    done = 0

    async def slot() -> None:
        nonlocal done
        for job in queue:  # one shared iterator: each job is taken by exactly one slot
            finished = await work(job, latencies)
            done += finished  # not `done += await ...`: that would read `done` before awaiting

    start = time.perf_counter()
    await asyncio.gather(*(slot() for _ in range(concurrency)))
    return time.perf_counter() - start, latencies, done


def total_users(concurrency: int, min_answers: int, questions: int) -> int:
    return max(concurrency, math.ceil(min_answers / questions))


# -- the engine side ------------------------------------------------------------------------


@dataclass(frozen=True)
class User:
    who: Participant
    attempt_id: int
    option_counts: tuple[int, ...]  # options of each question, in the attempt's order


def seed_catalog() -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([QUIZ_DIR])
    if catalog.get(SEED_QUIZ) is None:
        raise BenchError(f"the seed quiz {SEED_QUIZ} does not load: {report.errors}")
    return catalog


def question_count(catalog: QuizCatalog) -> int:
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    return len(quiz.questions)


async def start_users(
    engine: QuizEngine, storage: AttemptStore, prefix: str, count: int, concurrency: int
) -> tuple[list[User], float, list[float]]:
    """Start the seed quiz for ``count`` new users (their attempts read back from
    ``storage``, the engine's); returns them, wall time, latencies."""
    quiz = engine.catalog.get(SEED_QUIZ)
    assert quiz is not None
    users: list[User] = []
    people = [
        Participant("bench", f"{prefix}-{i}", None, LANGUAGES[i % len(LANGUAGES)])
        for i in range(count)
    ]

    async def work(who: Participant, latencies: list[float]) -> int:
        t0 = time.perf_counter()
        started = await engine.start(who, SEED_QUIZ)
        latencies.append(time.perf_counter() - t0)
        if started.question is None:
            raise BenchError(f"start gave no question: {started.outcome}")
        attempt = await storage.get_attempt(started.question.attempt_id)
        assert attempt is not None
        counts = []
        for question_id in attempt.question_order:
            question = quiz.question(question_id)
            assert question is not None
            counts.append(len(question.options))
        users.append(User(who, attempt.id, tuple(counts)))
        return 1

    wall, latencies, _ = await run_slots(concurrency, people, work)
    return users, wall, latencies


RETRY_PAUSE_S = 0.01
MAX_TRIES = 100


async def answer_once(
    engine: QuizEngine,
    who: Participant,
    attempt_id: int,
    number: int,
    option: int,
    latencies: list[float] | None,
    refusals: dict[str, int],
) -> None:
    """Answer question ``number`` of the user's attempt, pressing again if it is refused.

    Every answer here is valid and in order, so the engine must accept it at once; a refusal
    (e.g. "stale" because a read did not see the user's previous, acknowledged answer) is
    counted in ``refusals`` (a correctness failure) and the user presses again after a pause,
    as a person would. Only accepted answers add a latency.
    """
    for _ in range(MAX_TRIES):
        t0 = time.perf_counter()
        feedback = await engine.answer_by_position(who, attempt_id, number, option)
        # The views every adapter renders after the acknowledgement (the answered question,
        # the next one or the result): the engine builds them on first use, so read them
        # here, or an answer would be measured without them.
        _ = feedback.details
        elapsed = time.perf_counter() - t0
        if feedback.outcome is AnswerOutcome.ACCEPTED:
            if latencies is not None:
                latencies.append(elapsed)
            return
        refusals[feedback.outcome.value] = refusals.get(feedback.outcome.value, 0) + 1
        await asyncio.sleep(RETRY_PAUSE_S)
    raise BenchError(f"answer {number} of {who.user_id} refused {MAX_TRIES} times: {refusals}")


async def answer_all(
    engine: QuizEngine, users: Sequence[User], concurrency: int, seed: int, think_s: float = 0
) -> tuple[float, list[float], int, dict[str, int]]:
    """The timed phase: every user answers every question of their attempt, in order
    (pausing ``think_s`` on average before each answer when it is not 0)."""
    rng = random.Random(seed)
    choices = {u.attempt_id: [rng.randrange(n) for n in u.option_counts] for u in users}
    refusals: dict[str, int] = {}

    async def work(user: User, latencies: list[float]) -> int:
        options = choices[user.attempt_id]
        pauses = random.Random(user.attempt_id)
        for number, option in enumerate(options, start=1):
            await think(pauses, think_s)
            await answer_once(
                engine, user.who, user.attempt_id, number, option, latencies, refusals
            )
        return len(options)

    wall, latencies, accepted = await run_slots(concurrency, users, work)
    return wall, latencies, accepted, refusals


def count_commits(storage: Storage) -> dict[str, int] | None:
    """Count the group commits of either backend, by wrapping what runs one (diagnostics):
    SQLite's batch of writes, PostgreSQL's statement of answers.

    Returns ``None`` when the storage has no group commit to observe.
    """
    counts = {"commits": 0, "writes": 0}
    run_batch = getattr(storage, "_run_batch", None)
    record_answers = getattr(storage, "_record_answers", None)
    if run_batch is not None:

        async def counting(conn: Any, batch: list[Any]) -> None:
            counts["commits"] += 1
            counts["writes"] += len(batch)
            await run_batch(conn, batch)

        storage._run_batch = counting  # type: ignore[attr-defined]
    elif record_answers is not None:

        async def counting_answers(batch: list[Any]) -> Any:
            counts["commits"] += 1
            counts["writes"] += len(batch)
            return await record_answers(batch)

        storage._record_answers = counting_answers  # type: ignore[attr-defined]
    else:
        return None
    return counts


async def engine_run(
    storage: Storage,
    catalog: QuizCatalog,
    concurrency: int,
    users_total: int,
    seed: int,
    think_s: float = 0,
) -> Run:
    """Start ``users_total`` users (untimed), then time them all answering the seed quiz."""
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage, rng=random.Random(seed))
        users, start_wall, start_latencies = await start_users(
            engine, storage, f"c{concurrency}-s{seed}", users_total, concurrency
        )
        counts = count_commits(storage)
        wall, latencies, acknowledged, refusals = await answer_all(
            engine, users, concurrency, seed, think_s
        )
        committed = dict(counts) if counts is not None else None
        stored = len(await storage.answers_for_quiz(SEED_QUIZ))
        attempts = await storage.attempts_for_quiz(SEED_QUIZ)
        completed = sum(1 for a in attempts if a.status is AttemptStatus.COMPLETED)
    finally:
        await storage.close()
    extra: Json = {
        "users_total": users_total,
        "completed_attempts": completed,
        "starts_per_s": users_total / start_wall if start_wall else math.nan,
        "start_p99_ms": percentile([x * 1000 for x in start_latencies], 99),
        "refused": sum(refusals.values()),
        "refused_by_outcome": refusals,
    }
    if committed is not None:
        extra["commits"] = committed["commits"]
        extra["answers_per_commit"] = (
            committed["writes"] / committed["commits"] if committed["commits"] else math.nan
        )
    return Run(acknowledged, stored, wall, latencies, extra)


# -- the SQLite baseline --------------------------------------------------------------------


async def sqlite_connect(path: Path) -> aiosqlite.Connection:
    """A connection configured like the engine's (bot/storage/sqlite/writer.py, _Connection)."""
    conn = await aiosqlite.connect(path)
    await conn.execute("PRAGMA busy_timeout = 5000")
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA synchronous = FULL")
    return conn


async def sqlite_baseline(
    path: Path,
    concurrency: int,
    users_total: int,
    questions: int,
    think_s: float = 0,
    *,
    locked: bool,
) -> Run:
    conn = await sqlite_connect(path)
    try:
        await conn.execute(SQLITE_ANSWERS_TABLE)
        await conn.commit()
        async with conn.execute("PRAGMA synchronous") as cur:
            row = await cur.fetchone()
        if row is None or row[0] != 2:  # 2 = FULL
            raise BenchError(f"the baseline's synchronous pragma is {row}, not FULL")
        lock: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if locked else contextlib.nullcontext()
        )

        async def work(attempt_id: int, latencies: list[float]) -> int:
            pauses = random.Random(attempt_id)
            for number in range(questions):
                await think(pauses, think_s)
                answered_at = datetime.now(UTC).isoformat(timespec="microseconds")
                params = (attempt_id, f"q{number}", "a", number % 2, answered_at, attempt_id)
                t0 = time.perf_counter()
                async with lock:
                    await conn.execute(SQLITE_INSERT, params)
                    await conn.commit()
                latencies.append(time.perf_counter() - t0)
            return questions

        wall, latencies, acknowledged = await run_slots(
            concurrency, range(1, users_total + 1), work
        )
    finally:
        await conn.close()
    # A new connection sees only what was committed.
    async with (
        aiosqlite.connect(path) as check_conn,
        check_conn.execute("SELECT COUNT(*) FROM answers") as cur,
    ):
        row = await cur.fetchone()
    stored = int(row[0]) if row else 0
    return Run(acknowledged, stored, wall, latencies, {"users_total": users_total})


# -- the PostgreSQL side ---------------------------------------------------------------------


def postgres_url() -> str | None:
    """``DATABASE_URL`` when it names PostgreSQL, else ``TEST_DATABASE_URL``, else None."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return url
    return os.environ.get("TEST_DATABASE_URL") or None


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``search_path`` set (asyncpg passes unknown query keys as settings)."""
    from bot.storage.postgres import normalize_postgres_url

    parts = urllib.parse.urlsplit(normalize_postgres_url(url))
    query = urllib.parse.parse_qsl(parts.query)
    query = [(k, v) for k, v in query if k != "search_path"] + [("search_path", schema)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


@contextlib.asynccontextmanager
async def pg_schema(url: str) -> AsyncIterator[str]:
    """A fresh, private schema (dropped afterwards); yields a URL that uses it.

    Nothing outside that schema is touched, so pointing the benchmark at a real database
    does not disturb its data.
    """
    import asyncpg

    from bot.storage.postgres import normalize_postgres_url

    schema = f"quizbot_bench_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(normalize_postgres_url(url))
    try:
        await admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield with_search_path(url, schema)
        finally:
            await admin.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await admin.close()


async def pg_server_info(url: str) -> Json:
    import asyncpg

    from bot.storage.postgres import normalize_postgres_url

    conn = await asyncpg.connect(normalize_postgres_url(url))
    try:
        return {
            "server_version": await conn.fetchval("SHOW server_version"),
            "synchronous_commit": await conn.fetchval("SHOW synchronous_commit"),
            "fsync": await conn.fetchval("SHOW fsync"),
        }
    finally:
        await conn.close()


async def pg_baseline(
    url: str, concurrency: int, users_total: int, questions: int, think_s: float = 0
) -> Run:
    import asyncpg

    pool = await asyncpg.create_pool(url, min_size=1, max_size=PG_POOL_SIZE)
    try:
        await pool.execute(PG_ANSWERS_TABLE)

        async def work(attempt_id: int, latencies: list[float]) -> int:
            pauses = random.Random(attempt_id)
            for number in range(questions):
                await think(pauses, think_s)
                t0 = time.perf_counter()
                async with pool.acquire() as conn:  # autocommit: one transaction per row
                    await conn.fetchrow(
                        PG_INSERT,
                        attempt_id,
                        f"q{number}",
                        "a",
                        number % 2 == 0,
                        datetime.now(UTC),
                    )
                latencies.append(time.perf_counter() - t0)
            return questions

        wall, latencies, acknowledged = await run_slots(
            concurrency, range(1, users_total + 1), work
        )
    finally:
        await pool.close()
    conn = await asyncpg.connect(url)
    try:
        stored = int(await conn.fetchval("SELECT COUNT(*) FROM answers"))
    finally:
        await conn.close()
    return Run(acknowledged, stored, wall, latencies, {"users_total": users_total})


# -- putting it together --------------------------------------------------------------------


SUMMED = ("acknowledged", "stored", "users_total", "completed_attempts", "commits", "refused")


def median_summary(runs: Sequence[Run]) -> Json:
    summaries = [r.summary() for r in runs]
    out: Json = {}
    for key, value in summaries[0].items():
        if key in SUMMED:
            out[key] = sum(s[key] for s in summaries)  # totals over rounds, for the checks
        elif isinstance(value, int | float):
            out[key] = statistics.median(s[key] for s in summaries)
        elif isinstance(value, dict):  # counts by kind: totals over rounds
            merged: dict[str, int] = {}
            for s in summaries:
                for kind, count in s[key].items():
                    merged[kind] = merged.get(kind, 0) + count
            out[key] = merged
        else:
            out[key] = value
    out["rounds"] = summaries
    return out


@dataclass
class Backend:
    """How to get a fresh engine storage and run the baseline(s) on one kind of database."""

    name: str
    engine_storage: Callable[[], contextlib.AbstractAsyncContextManager[Storage]]
    # name -> run(concurrency, users_total, questions, think_s); the first is the primary one
    baselines: dict[str, Callable[[int, int, int, float], Awaitable[Run]]]


def sqlite_backend(workdir: Path) -> Backend:
    counter = iter(range(1_000_000))

    def fresh() -> Path:
        path = workdir / f"run-{next(counter)}"
        path.mkdir()
        return path

    @contextlib.asynccontextmanager
    async def engine_storage() -> AsyncIterator[Storage]:
        yield SQLiteStorage(fresh() / "engine.db")

    async def locked(concurrency: int, users_total: int, questions: int, think_s: float) -> Run:
        path = fresh() / "baseline.db"
        return await sqlite_baseline(
            path, concurrency, users_total, questions, think_s, locked=True
        )

    async def unlocked(concurrency: int, users_total: int, questions: int, think_s: float) -> Run:
        path = fresh() / "baseline.db"
        return await sqlite_baseline(
            path, concurrency, users_total, questions, think_s, locked=False
        )

    return Backend("sqlite", engine_storage, {"baseline": locked, "baseline_unlocked": unlocked})


def postgres_backend(url: str) -> Backend:
    @contextlib.asynccontextmanager
    async def engine_storage() -> AsyncIterator[Storage]:
        from bot.storage.postgres import PostgresStorage

        async with pg_schema(url) as schema_url:
            yield PostgresStorage(schema_url, max_size=PG_POOL_SIZE)

    async def baseline(concurrency: int, users_total: int, questions: int, think_s: float) -> Run:
        async with pg_schema(url) as schema_url:
            return await pg_baseline(schema_url, concurrency, users_total, questions, think_s)

    return Backend("postgres", engine_storage, {"baseline": baseline})


async def measure(backend: Backend, size: Sizes, progress: Callable[[str], None]) -> Json:
    catalog = seed_catalog()
    questions = question_count(catalog)
    levels: list[Json] = []
    # Warm-up (untimed): first connections, imports and code paths.
    async with backend.engine_storage() as storage:
        await engine_run(storage, catalog, 4, 4, seed=0)
    for baseline in backend.baselines.values():
        await baseline(4, 4, questions, 0)
    for concurrency in size.levels:
        users = total_users(concurrency, size.min_answers, questions)
        runs: dict[str, list[Run]] = {"engine": [], **{k: [] for k in backend.baselines}}
        for round_no in range(size.rounds):
            order = ["engine", *backend.baselines]
            if round_no % 2:
                order.reverse()
            for which in order:
                progress(
                    f"{backend.name}: {concurrency} users, round {round_no + 1}/{size.rounds}, "
                    f"{which}"
                )
                if which == "engine":
                    async with backend.engine_storage() as storage:
                        run = await engine_run(
                            storage, catalog, concurrency, users, seed=round_no + 1
                        )
                else:
                    run = await backend.baselines[which](concurrency, users, questions, 0)
                runs[which].append(run)
        levels.append(
            {
                "users": concurrency,
                "users_total": users,
                "questions_per_user": questions,
                **{k: median_summary(v) for k, v in runs.items()},
            }
        )
    result: Json = {"backend": backend.name, "levels": levels, "rounds": size.rounds}
    if size.think_s > 0:
        result["paced"] = await measure_paced(backend, catalog, questions, size, progress)
    return result


async def measure_paced(
    backend: Backend,
    catalog: QuizCatalog,
    questions: int,
    size: Sizes,
    progress: Callable[[str], None],
) -> Json:
    """The largest level again, with each user pausing before every answer (one round).

    The runs above keep every user's next answer waiting, so their latency is mostly queueing
    (Little's law: in-flight answers / answers per second). Here the offered load is
    ``users / think_s`` answers per second, below what both sides can do, so the latency is
    what a user pressing a button at that rate would see.
    """
    users = max(size.levels)
    name, primary = next(iter(backend.baselines.items()))
    progress(f"{backend.name}: {users} users paced ({size.think_s:g} s per answer), engine")
    async with backend.engine_storage() as storage:
        engine = await engine_run(storage, catalog, users, users, seed=99, think_s=size.think_s)
    progress(f"{backend.name}: {users} users paced ({size.think_s:g} s per answer), {name}")
    baseline = await primary(users, users, questions, size.think_s)
    return {
        "users": users,
        "users_total": users,
        "questions_per_user": questions,
        "think_s": size.think_s,
        "offered_answers_per_s": users / size.think_s,
        "engine": median_summary([engine]),
        "baseline": median_summary([baseline]),
    }


def _p99_verdict(p99_ms: float) -> str:
    if p99_ms <= P99_TARGET_MS:
        return "MET"
    return f"MISSED by {p99_ms - P99_TARGET_MS:,.0f} ms ({p99_ms / P99_TARGET_MS:.1f}x the target)"


def _figures(
    prefix: str, label: str, result: Json, baseline_label: str, rate_target: float
) -> list[Json]:
    figures: list[Json] = []
    for level in result["levels"]:
        users = level["users"]
        engine, base = level["engine"], level["baseline"]
        at_target = users == TARGET_USERS
        rate_ratio = engine["answers_per_s"] / base["answers_per_s"]
        rate_met = rate_ratio >= rate_target if at_target else None
        rate_verdict = None
        if at_target:
            rate_verdict = (
                "MET" if rate_met else f"MISSED: {rate_ratio:.2f}x, needs >= {rate_target:.2f}x"
            )
        who = f"{users:,} user" + ("s" if users != 1 else "")
        figures.append(
            figure(
                f"{prefix}.users_{users}.answers_per_s",
                f"{label} {who}: durable answers/s",
                "answers/s",
                engine["answers_per_s"],
                base["answers_per_s"],
                baseline_label,
                higher_is_better=True,
                target=f">= {rate_target:.1f}x baseline" if at_target else None,
                met=rate_met,
                verdict=rate_verdict,
            )
        )
        for q in ("p50", "p99"):
            judged = q == "p99" and at_target
            figures.append(
                figure(
                    f"{prefix}.users_{users}.{q}_ms",
                    f"{label} {who}: {q} answer latency",
                    "ms",
                    engine[f"{q}_ms"],
                    base[f"{q}_ms"],
                    baseline_label,
                    higher_is_better=False,
                    target=f"<= {P99_TARGET_MS:.0f} ms" if judged else None,
                    met=engine["p99_ms"] <= P99_TARGET_MS if judged else None,
                    verdict=_p99_verdict(engine["p99_ms"]) if judged else None,
                )
            )
        if "baseline_unlocked" in level:
            unlocked = level["baseline_unlocked"]
            figures.append(
                figure(
                    f"{prefix}.users_{users}.answers_per_s_vs_unlocked",
                    f"{label} {who}: answers/s vs. unlocked naive",
                    "answers/s",
                    engine["answers_per_s"],
                    unlocked["answers_per_s"],
                    "shared conn, no lock: commits batch by accident",
                    higher_is_better=True,
                )
            )
    paced = result.get("paced")
    if paced:
        users = paced["users"]
        engine, base = paced["engine"], paced["baseline"]
        at_target = users == TARGET_USERS
        who = f"{users:,} users paced, 1 answer/{paced['think_s']:g} s each"
        figures.append(
            figure(
                f"{prefix}.paced_{users}.answers_per_s",
                f"{label} {who}: answers/s (offered {paced['offered_answers_per_s']:,.0f}/s)",
                "answers/s",
                engine["answers_per_s"],
                base["answers_per_s"],
                baseline_label,
                higher_is_better=True,
            )
        )
        for q in ("p50", "p99"):
            judged = q == "p99" and at_target
            figures.append(
                figure(
                    f"{prefix}.paced_{users}.{q}_ms",
                    f"{label} {who}: {q} latency",
                    "ms",
                    engine[f"{q}_ms"],
                    base[f"{q}_ms"],
                    baseline_label,
                    higher_is_better=False,
                    target=f"<= {P99_TARGET_MS:.0f} ms (paced)" if judged else None,
                    met=engine["p99_ms"] <= P99_TARGET_MS if judged else None,
                    verdict=_p99_verdict(engine["p99_ms"]) if judged else None,
                )
            )
    return figures


def _checks(result: Json) -> list[Json]:
    checks = []
    runs = [(f"{level['users']} users", level) for level in result["levels"]]
    if result.get("paced"):
        runs.append((f"{result['paced']['users']} users paced", result["paced"]))
    for name, level in runs:
        where = f"{result['backend']} {name}"
        for which in ("engine", "baseline", "baseline_unlocked"):
            if which in level:
                run = level[which]
                checks.append(
                    check(
                        f"{where} {which}: stored == acknowledged",
                        run["acknowledged"],
                        run["stored"],
                    )
                )
        engine = level["engine"]
        checks.append(
            check(
                f"{where} engine: every attempt completed",
                engine["users_total"],
                engine["completed_attempts"],
            )
        )
        checks.append(
            check(
                f"{where} engine: no valid in-order answer refused "
                f"(refused: {engine['refused_by_outcome']})",
                0,
                engine["refused"],
            )
        )
    return checks


def run_sqlite(size: Sizes, progress: Callable[[str], None], tmp_root: str | None = None) -> Json:
    with scratch_dir("quizbot-bench-", tmp_root) as workdir:
        result = asyncio.run(measure(sqlite_backend(workdir), size, progress))
    result["database_dir"] = str(workdir.parent)
    return section(
        "a",
        "Engine + SQLite: answers (baseline: raw aiosqlite insert+commit per answer)",
        STATUS_OK,
        note=(
            "attempts started before the timed phase; latency = answer_by_position call to return "
            "(after commit); medians of "
            f"{size.rounds} round(s)"
        ),
        figures=_figures("sqlite", "SQLite", result, "aiosqlite, 1 commit/answer", RATE_TARGET),
        details=result,
        checks=_checks(result),
    )


def run_postgres(size: Sizes, progress: Callable[[str], None]) -> Json:
    title = "Engine + PostgreSQL: answers (baseline: raw asyncpg insert+commit per answer)"
    url = postgres_url()
    if url is None:
        return section(
            "e",
            title,
            STATUS_SKIPPED,
            note="no PostgreSQL: set DATABASE_URL or TEST_DATABASE_URL (scripts/with-postgres)",
        )

    async def go() -> Json:
        info = await pg_server_info(url)
        result = await measure(postgres_backend(url), size, progress)
        result["server"] = info
        return result

    result = asyncio.run(go())
    return section(
        "e",
        title,
        STATUS_OK,
        note=(
            f"PostgreSQL {result['server']['server_version']}, synchronous_commit="
            f"{result['server']['synchronous_commit']}; pool of {PG_POOL_SIZE} on both sides; "
            f"medians of {size.rounds} round(s)"
        ),
        figures=_figures(
            "postgres", "PostgreSQL", result, "asyncpg, 1 commit/answer", PG_RATE_TARGET
        ),
        details=result,
        checks=_checks(result),
    )
