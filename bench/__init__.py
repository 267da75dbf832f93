"""Benchmarks for quizbot, run with ``python -m bench`` (``--quick`` for the CI size).

Every figure is measured side by side with a baseline in the same run and reported as a ratio
to it, because absolute times on a shared machine drift:

* ``a`` -- engine + SQLite answering vs. raw aiosqlite insert+commit (:mod:`bench.answers`)
* ``b`` -- Telegram: press bursts vs. a bare PTB app and raw aiohttp (:mod:`bench.telegram`)
* ``c`` -- resident memory of users mid-attempt vs. an idle process (:mod:`bench.memory`)
* ``d`` -- start-up: loading generated quizzes vs. a libyaml parse (:mod:`bench.startup`)
* ``e`` -- the same as ``a`` on PostgreSQL vs. raw asyncpg (:mod:`bench.answers`)
* ``f`` -- Telegram closed loop: users taking the whole quiz (:mod:`bench.closed_loop`)
* ``g`` -- Discord: members taking the whole quiz, all pressing at once, against Discord's 3 s
  deadline (:mod:`bench.discord`)
* ``h`` -- Telegram group round: members pressing one question at once vs. the same press on
  a solo quiz (:mod:`bench.group`)
* ``i`` -- Telegram outbox: a burst of review reminders vs. Telegram's 30 messages a second
  (:mod:`bench.reminders`)
* ``j`` -- Discord outbox: a burst of review reminders as DMs vs. the sender's DM pace, within
  Discord's global 50 requests a second (:mod:`bench.discord_reminders`)

The table goes to standard output and the figures, with machine information, to a JSON file
(``bench/results/latest.json`` by default). The exit status is 1 only when a correctness check
fails (an acknowledged answer missing from the database); a missed performance target is
reported, never turned into a failure.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUIZ_DIR = ROOT / "quizzes"
SEED_QUIZ = "checkpoint-sharding"
RESULTS_SCHEMA = 1

__all__ = ["QUIZ_DIR", "RESULTS_SCHEMA", "ROOT", "SEED_QUIZ"]
