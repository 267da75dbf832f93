"""(c) Memory: resident memory of many users mid-attempt in one process, vs. an idle one.

Each measurement runs in a fresh subprocess (``python -m bench.memory ...``) so that other
benchmarks do not pollute it, and reports from ``/proc/self/status``:

* baseline (idle): the process has imported the engine, loaded the quizzes, opened the SQLite
  storage (file database, WAL, both connections) and served one warm-up user (one start and
  one answer, so that one-time lazy imports and caches are not billed to the users); then
  ``gc.collect()`` and ``VmRSS``.
* loaded: the same process after ``users`` more users have each started the seed quiz and
  answered ``answers`` of its 8 questions (so every attempt is active, mid-quiz), driven with
  ``concurrency`` users in flight at a time as a busy bot would be; it still holds each
  user's :class:`Participant` and attempt id (what an adapter may keep, e.g. in callback
  data). The engine keeps no per-user state in memory, so what remains is the heap high-water
  mark left by the work (pymalloc arenas are rarely returned to the OS) and SQLite's page
  caches. Then ``gc.collect()`` and ``VmRSS``; ``VmHWM`` (peak) is reported too.

A second subprocess repeats the load with :mod:`tracemalloc` started after the idle point, for
the Python-level peak and what remains allocated (tracemalloc slows Python and costs memory
itself, which is why RSS is measured in a run without it).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from bench import QUIZ_DIR, ROOT, SEED_QUIZ
from bench.report import STATUS_OK, Json, check, figure, section

TARGET_MB = 50.0
TARGET_USERS = 10_000


def proc_status() -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` of this process, in MB (from /proc/self/status)."""
    values: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024  # kB -> MB
    return values


async def _worker(db_dir: Path, users: int, answers: int, concurrency: int, trace: bool) -> Json:
    from bench.answers import answer_once, run_slots
    from bot.catalog import QuizCatalog
    from bot.engine import QuizEngine
    from bot.storage import AttemptStatus, SQLiteStorage
    from bot.views import Participant

    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    storage = SQLiteStorage(db_dir / "memory.db")
    await storage.open()
    try:
        engine = QuizEngine(catalog, storage)
        gc.collect()
        cold = proc_status()["VmRSS"]
        warm = Participant("bench", "warm-up", None, "en")
        started = await engine.start(warm, SEED_QUIZ)
        assert started.question is not None
        await engine.answer_by_position(warm, started.question.attempt_id, 1, 0)
        gc.collect()
        idle = proc_status()
        if trace:
            tracemalloc.start()
        held: list[tuple[Participant, int]] = []
        languages = ("en", "bn", "ur", "ru")

        refusals: dict[str, int] = {}

        async def work(i: int, latencies: list[float]) -> int:
            who = Participant("bench", f"user-{i}", f"User {i}", languages[i % 4])
            result = await engine.start(who, SEED_QUIZ)
            assert result.question is not None
            attempt_id = result.question.attempt_id
            for number in range(1, answers + 1):
                await answer_once(engine, who, attempt_id, number, i % 4, None, refusals)
            held.append((who, attempt_id))
            return answers

        t0 = time.perf_counter()
        _, _, acknowledged = await run_slots(concurrency, range(users), work)
        load_s = time.perf_counter() - t0
        gc.collect()
        loaded = proc_status()
        traced: Json = {}
        if trace:
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            traced = {"traced_current_mb": current / 2**20, "traced_peak_mb": peak / 2**20}
        attempts = await storage.attempts_for_quiz(SEED_QUIZ)
        active = sum(1 for a in attempts if a.status is AttemptStatus.ACTIVE)
        stored = len(await storage.answers_for_quiz(SEED_QUIZ))
    finally:
        await storage.close()
    return {
        "users": users,
        "answers_per_user": answers,
        "concurrency": concurrency,
        "cold_rss_mb": cold,
        "idle_rss_mb": idle["VmRSS"],
        "loaded_rss_mb": loaded["VmRSS"],
        "peak_rss_mb": loaded["VmHWM"],
        "delta_rss_mb": loaded["VmRSS"] - idle["VmRSS"],
        "load_s": load_s,
        "held_users": len(held),
        "acknowledged": acknowledged + 1,  # + the warm-up user's answer
        "stored": stored,
        "active_attempts": active,
        "refused": sum(refusals.values()),
        "refused_by_outcome": refusals,
        **traced,
    }


def worker_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.memory")
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument("--answers", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args(argv)
    result = asyncio.run(
        _worker(args.dir, args.users, args.answers, args.concurrency, args.tracemalloc)
    )
    print(json.dumps(result))


def _spawn(users: int, answers: int, concurrency: int, trace: bool, tmp_root: str | None) -> Json:
    with tempfile.TemporaryDirectory(prefix="quizbot-bench-mem-", dir=tmp_root) as db_dir:
        command = [sys.executable, "-m", "bench.memory", "--users", str(users)]
        command += ["--answers", str(answers), "--concurrency", str(concurrency)]
        command += ["--dir", db_dir] + (["--tracemalloc"] if trace else [])
        out = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=1800
        )
    if out.returncode != 0:
        raise RuntimeError(f"the memory worker failed ({out.returncode}):\n{out.stderr}")
    result: Json = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run(quick: bool, progress: Callable[[str], None], tmp_root: str | None = None) -> Json:
    users = 500 if quick else TARGET_USERS
    answers, concurrency = 3, min(1000, users)
    progress(f"memory: {users:,} users, RSS run")
    rss = _spawn(users, answers, concurrency, False, tmp_root)
    progress(f"memory: {users:,} users, tracemalloc run")
    traced = _spawn(users, answers, concurrency, True, tmp_root)
    at_target = users == TARGET_USERS
    delta = rss["delta_rss_mb"]
    per_user_kb = delta * 1024 / users
    verdict = None
    if at_target:
        verdict = "MET" if delta <= TARGET_MB else f"MISSED by {delta - TARGET_MB:.1f} MB"
    figures = [
        figure(
            "memory.rss_above_idle_mb",
            f"{users:,} users mid-attempt: RSS above idle",
            "MB",
            delta,
            rss["idle_rss_mb"],
            "idle process RSS",
            higher_is_better=False,
            target=f"<= {TARGET_MB:.0f} MB above idle" if at_target else None,
            met=(delta <= TARGET_MB) if at_target else None,
            verdict=verdict,
        ),
        figure(
            "memory.loaded_rss_mb",
            f"{users:,} users mid-attempt: RSS",
            "MB",
            rss["loaded_rss_mb"],
            rss["idle_rss_mb"],
            "idle process RSS",
            higher_is_better=False,
        ),
        figure(
            "memory.peak_rss_mb",
            f"{users:,} users mid-attempt: peak RSS (VmHWM)",
            "MB",
            rss["peak_rss_mb"],
            rss["idle_rss_mb"],
            "idle process RSS",
            higher_is_better=False,
        ),
        figure(
            "memory.tracemalloc_peak_mb",
            f"{users:,} users: Python heap peak (tracemalloc)",
            "MB",
            traced["traced_peak_mb"],
            traced["idle_rss_mb"],
            "idle process RSS",
            higher_is_better=False,
        ),
        figure(
            "memory.tracemalloc_current_mb",
            f"{users:,} users: Python heap still held (tracemalloc)",
            "MB",
            traced["traced_current_mb"],
            traced["idle_rss_mb"],
            "idle process RSS",
            higher_is_better=False,
        ),
    ]
    note = (
        f"{per_user_kb:.2f} kB per user; each user started the seed quiz and answered "
        f"{answers} of its questions, {concurrency:,} in flight at a time"
    )
    if not at_target:
        note += f"; target is judged at {TARGET_USERS:,} users (full size) only"
    checks = [
        check(f"memory {name} run: stored == acknowledged", r["acknowledged"], r["stored"])
        for name, r in (("rss", rss), ("tracemalloc", traced))
    ]
    checks += [
        check(f"memory {name} run: every user mid-attempt", r["users"] + 1, r["active_attempts"])
        for name, r in (("rss", rss), ("tracemalloc", traced))
    ]
    checks += [
        check(
            f"memory {name} run: no valid in-order answer refused ({r['refused_by_outcome']})",
            0,
            r["refused"],
        )
        for name, r in (("rss", rss), ("tracemalloc", traced))
    ]
    return section(
        "c",
        "Memory: users mid-attempt in one process (baseline: idle process)",
        STATUS_OK,
        note=note,
        figures=figures,
        details={"rss_run": rss, "tracemalloc_run": traced, "per_user_kb": per_user_kb},
        checks=checks,
    )


if __name__ == "__main__":
    worker_main()
