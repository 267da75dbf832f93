"""(b) Telegram end to end: a burst of button presses, our bot vs. a bare python-telegram-bot
and vs. a raw aiohttp client.

What is measured
    The real bot -- :class:`~adapters.telegram.TelegramAdapter` (python-telegram-bot's
    ``Application`` with the adapter's handlers, the engine and a temporary SQLite database
    with the real storage: WAL, ``synchronous=FULL``) -- long-polls a local fake Bot API server
    (``fakes/telegram_bot_api.py``, the one the Telegram tests use, on purpose: the benchmark
    and the tests share one model of Telegram).

    * setup (untimed): ``users`` users (quick 50, full 500) each send ``/quiz
      checkpoint-sharding`` in their private chat and get a question message with answer
      buttons; one more user answers one question first, as a warm-up of every code path.
    * a burst (timed): every user presses one answer button of their current question; the
      presses are all put in the fake server's update queue in one go, so the bot gets them
      as Telegram would deliver them, up to 100 per ``getUpdates``. Half the users press the
      right answer, half a wrong one (alternating per round).
    * press-to-acknowledge latency: for each press, from the moment it is queued until the
      fake server receives the matching ``answerCallbackQuery`` (the acknowledgement that
      stops the spinner on the button; the adapter sends it right after the answer is
      committed, before editing the message and sending the next question);
      throughput: presses / (last acknowledgement - first press queued);
      CPU per press: the bot process's user + system CPU time (``/proc``) from just before
      the first press to just after the driver saw the last acknowledgement (polled every
      5 ms), over the presses; the JSON also has its main thread's alone, the event loop
      that bounds the throughput (the rest is SQLite's thread).
    * rounds: after a burst, the bot's follow-ups (the answered question edited, the next
      question sent) are awaited outside the timed phase, and the next round presses the
      next question's buttons (quick 2 rounds, full 7: the seed quiz's 8 questions allow no
      more). Presses per second is the median of the rounds; p50/p95 are over all presses of
      all rounds. Single rounds of one run swing by 0.63-0.98x on this 2-core machine, which
      a median of 3 did not smooth out (full runs of the same code gave 0.69-0.89x).
    * quiet period: a burst starts only once its bot has been idle for 5.5 s, past the 5 s
      after which its HTTP client (the adapter's aiohttp transport, which keeps httpx's
      keep-alive) drops idle connections -- the users were reading the question -- and once
      the fake server sees no connection from it but the long poll's. Every burst of every
      side thus starts from the same state. (Bursts that found a pool still warm from the
      previous one ran in a different regime, up to 4x faster or slower, which made the
      ratio depend on the order of the rounds. Idle time alone did not ensure it: aiohttp
      closes expired connections on a timer of the keep-alive's period, so they live 5-10 s,
      and bursts started with up to 150 of them still open.)

Baseline: a bare python-telegram-bot application that only acknowledges
    Built by the adapter's own :meth:`~adapters.telegram.TelegramAdapter.build_application`
    (on an engine, as usual, that is never used), then stripped of every handler but one
    ``CallbackQueryHandler`` calling ``query.answer()``, and started the way the adapter
    starts (same polling timeout and ``allowed_updates``). So it has, by construction, the
    same builder settings: base URL, HTTP transport (the adapter's aiohttp ``BaseRequest``,
    so the baseline is PTB at its best, not on its default httpx that collapses under
    hundreds of requests) and connection pool, the same rate limiter and the same per-user
    update processor (``MAX_CONCURRENT_UPDATES`` at once). Keeping the rate limiter on both
    sides is the fair comparison: it is what the real bot runs with, and it does not throttle
    the bare side at all, because acknowledgements are not paced. What it throttles is our
    bot's follow-up edits and messages (two per press), so the ratio shows whether
    acknowledgements get stuck behind them.

The machine's limit: a raw aiohttp client
    ``--side raw``: no python-telegram-bot; aiohttp long-polls getUpdates on a connection of
    its own, as the bots do, and answers each press at once. It shows what is left for PTB
    and the bot on this machine.

    It gets the same presses on the same question messages (copies of the ones our bot
    sent), against its own instance of the fake server, in the same rounds; which side goes
    first rotates per round.

Processes
    Each bot runs in its own process (``python -m bench.telegram --side ours|bare|raw``), as it
    would in production; the fake servers and the driver share the benchmark's process, so
    the fake's own cost (parsing, JSON) is not charged to the bot on a two-core machine. The
    fake's long-poll wait is capped at :data:`MAX_POLL_WAIT` (it returns at once when updates
    arrive either way; the cap only keeps shutdown quick).

Correctness (checks; exit status 1 when one fails)
    Every press is acknowledged exactly once (``answerCallbackQuery`` calls per query id, on
    both sides); on our side every acknowledgement says "correct" or "wrong" as the pressed
    button deserves, and the database holds exactly the answers acknowledged as correct and
    as wrong (counted per kind after the bot has stopped).

``--profile FILE`` (``python -m bench``) writes a cProfile of our bot's process from each
burst's first press to its last acknowledgement (``python -m pstats FILE``); the profiler
slows the bot down severalfold, so the figures of a profiled run are not comparable.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import datetime as dtm
import math
import os
import sqlite3
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import ROOT, SEED_QUIZ
from bench.report import STATUS_OK, Json, check, figure, percentile, scratch_dir, section

TITLE = "Telegram end to end: button presses (baseline: bare PTB app, acknowledge only)"
RAW_LABEL = "raw aiohttp client, ack only"
RATE_TARGET = 0.8  # x the bare application's presses per second
P95_TARGET_MS = 1000.0
MAX_POLL_WAIT = 0.2  # the fake server's cap on a getUpdates long poll, seconds
# Before a burst each bot has been idle this much longer than its HTTP client keeps idle
# connections (httpx's keep-alive expiry, 5 s), so every burst starts from the same state.
QUIET_MARGIN_S = 0.5
# Connections a bot keeps to its fake while idle: its long poll's (PTB polls on a pool of one).
IDLE_CONNECTIONS = 1
IDLE_TIMEOUT_S = 30.0  # how long past its quiet period a bot may take to close the others
POLLING_TIMEOUT = 10.0  # what the bots ask for (the adapter's default)
FIRST_USER_ID = 700_000_001
LANGUAGE = "en"
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0
SIDES = ("bare", "raw", "ours")
WEBHOOK_URL = "https://bench.example.invalid/telegram/hook"  # the fake delivers to loopback
WEBHOOK_SECRET = "bench-webhook-secret"


class BenchError(Exception):
    """The benchmark itself went wrong (not a performance result)."""


@dataclass(frozen=True)
class Sizes:
    users: int
    rounds: int


def sizes(quick: bool, users: int | None = None, rounds: int | None = None) -> Sizes:
    if quick:
        return Sizes(users or 50, rounds or 2)
    return Sizes(users or 500, rounds or 7)


# -- the bot processes ------------------------------------------------------------------------


async def _start_bare(adapter: Any) -> Any:
    """The adapter's Application with one handler that only acknowledges; started like the
    adapter starts (polling)."""
    from telegram import Update
    from telegram.ext import CallbackQueryHandler, ContextTypes

    from adapters.telegram.app import ALLOWED_UPDATES

    async def acknowledge(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.callback_query is not None:
            await update.callback_query.answer()

    application = adapter.build_application()
    application.handlers.clear()
    application.error_handlers.clear()
    application.add_handler(CallbackQueryHandler(acknowledge))
    await application.initialize()
    await application.start()
    assert application.updater is not None
    await application.updater.start_polling(
        timeout=dtm.timedelta(seconds=adapter.polling_timeout),
        allowed_updates=ALLOWED_UPDATES,
        drop_pending_updates=False,
    )
    return application


async def _stop_bare(application: Any) -> None:
    if application.updater is not None and application.updater.running:
        await application.updater.stop()
    if application.running:
        await application.stop()
    await application.shutdown()


async def _raw_acknowledger(base_url: str) -> None:
    """No python-telegram-bot: long-poll getUpdates and answer every press at once, as the
    bots do: the answers over one aiohttp session (as many connections as the bot's
    transport), the long poll over a connection of its own. What the machine allows."""
    import aiohttp

    from adapters.telegram.app import ALLOWED_UPDATES
    from adapters.telegram.transport import KEEPALIVE_S
    from fakes.telegram_bot_api import TOKEN

    connector = aiohttp.TCPConnector(limit=256, keepalive_timeout=KEEPALIVE_S)
    poll_connector = aiohttp.TCPConnector(limit=1, keepalive_timeout=KEEPALIVE_S)
    async with (
        aiohttp.ClientSession(connector=connector) as http,
        aiohttp.ClientSession(connector=poll_connector) as poll,
    ):
        offset = 0
        pending: set[asyncio.Task[None]] = set()

        async def answer(query_id: str) -> None:
            url = f"{base_url}{TOKEN}/answerCallbackQuery"
            async with http.post(url, json={"callback_query_id": query_id}) as response:
                await response.read()

        while True:
            body = {
                "offset": offset,
                "timeout": POLLING_TIMEOUT,
                "allowed_updates": ALLOWED_UPDATES,
            }
            async with poll.post(f"{base_url}{TOKEN}/getUpdates", json=body) as response:
                updates = (await response.json())["result"]
            for update in updates:
                offset = update["update_id"] + 1
                query = update.get("callback_query")
                if query is not None:
                    task = asyncio.create_task(answer(str(query["id"])))
                    pending.add(task)
                    task.add_done_callback(pending.discard)


async def _serve(
    side: str,
    base_url: str,
    db: Path,
    profile: Path | None,
    message_rate: float = 30.0,
    webhook_port: int | None = None,
) -> None:
    """One bot process: start, say ``ready``, obey ``profile on|off`` lines on stdin, stop
    at end of input. ``webhook_port``: our bot takes updates by webhook on that port."""
    from adapters.telegram import TelegramAdapter, TelegramConfig
    from bench.answers import seed_catalog
    from bot.engine import QuizEngine
    from bot.services import Services
    from bot.storage import SQLiteStorage
    from fakes.telegram_bot_api import TOKEN
    from quizbot.web import WebServer

    storage = SQLiteStorage(db)
    await storage.open()
    try:
        engine = QuizEngine(seed_catalog(), storage)
        services = Services.build(engine, storage)
        config = TelegramConfig(
            token=TOKEN,
            api_base_url=base_url,
            webhook_url=WEBHOOK_URL if webhook_port else None,
            webhook_secret=WEBHOOK_SECRET if webhook_port else None,
        )
        web = None
        if webhook_port:  # the process's web server, as `quizbot run` starts it
            web = WebServer(engine.healthy)
            await web.start("127.0.0.1", webhook_port)
        adapter = TelegramAdapter(
            services,
            config,
            web=web,
            polling_timeout=POLLING_TIMEOUT,
            message_rate=message_rate,
        )
        bare = await _start_bare(adapter) if side == "bare" else None
        acker = asyncio.create_task(_raw_acknowledger(base_url)) if side == "raw" else None
        if bare is None and acker is None:
            await adapter.start()
            services.scheduling.scheduler.start()  # as `quizbot run` starts it
        profiler = cProfile.Profile() if profile is not None else None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        print("ready", flush=True)
        try:
            while raw := await reader.readline():  # b"" at end of input
                line = raw.decode().strip()
                if profiler is not None and line == "profile on":
                    profiler.enable()
                elif profiler is not None and line == "profile off":
                    profiler.disable()
        finally:
            if bare is not None:
                await _stop_bare(bare)
            elif acker is not None:
                acker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await acker
            else:
                await adapter.stop()
                await services.scheduling.scheduler.stop()
            if web is not None:
                await web.stop()
            if profiler is not None and profile is not None:
                profiler.disable()
                profiler.dump_stats(profile)
    finally:
        await storage.close()


def serve_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.telegram")
    parser.add_argument("--side", choices=SIDES, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--message-rate", type=float, default=30.0)
    parser.add_argument("--webhook-port", type=int, default=None)
    args = parser.parse_args(argv)
    from quizbot.runner import fewer_young_collections

    # Every side's process collects as `quizbot run` does: the bare app too, so that the
    # baseline is as strong as the setting makes it.
    with fewer_young_collections():
        asyncio.run(
            _serve(
                args.side,
                args.base_url,
                args.db,
                args.profile,
                args.message_rate,
                args.webhook_port,
            )
        )


def _cpu_s(stat_path: str) -> float:
    """User + system CPU seconds from a Linux ``/proc/.../stat`` file."""
    with open(stat_path, encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class BotProcess:
    """A bot (``ours`` or ``bare``) in a child process, pointed at a fake server."""

    def __init__(
        self,
        side: str,
        base_url: str,
        workdir: Path,
        profile: Path | None = None,
        extra: list[str] | None = None,
    ) -> None:
        self.extra = extra or []
        self.side = side
        self.base_url = base_url
        self.db = workdir / f"{side}.db"
        self.log = workdir / f"{side}.log"
        self.profile = profile
        self.proc: asyncio.subprocess.Process | None = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    async def start(self) -> None:
        command = [sys.executable, "-m", "bench.telegram", "--side", self.side]
        command += ["--base-url", self.base_url, "--db", str(self.db)]
        if self.profile is not None:
            command += ["--profile", str(self.profile)]
        command += self.extra
        with self.log.open("wb") as log:
            self.proc = await asyncio.create_subprocess_exec(
                *command,
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        assert self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), READY_TIMEOUT_S)
        except TimeoutError:
            line = b""
        if line.strip() != b"ready":
            await self.stop()
            raise BenchError(f"the {self.side} bot did not start:\n{self.log_tail()}")

    def cpu_s(self) -> float:
        """User + system CPU seconds the bot process has used so far, its database thread
        included."""
        assert self.proc is not None
        return _cpu_s(f"/proc/{self.proc.pid}/stat")

    def loop_cpu_s(self) -> float:
        """The same for the process's main thread alone, the one that runs its event loop."""
        assert self.proc is not None
        return _cpu_s(f"/proc/{self.proc.pid}/task/{self.proc.pid}/stat")

    async def command(self, text: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        await self.proc.stdin.drain()

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()  # end of input: the bot stops
        try:
            code = await asyncio.wait_for(proc.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise BenchError(f"the {self.side} bot did not stop:\n{self.log_tail()}") from None
        if code != 0:
            raise BenchError(f"the {self.side} bot exited with {code}:\n{self.log_tail()}")


# -- the driver -------------------------------------------------------------------------------


@dataclass
class Burst:
    """One round's burst on one side: when each press was queued and acknowledged."""

    queued: dict[str, float]  # query id -> time.monotonic() when queued
    acked: dict[str, float] = field(default_factory=dict)  # query id -> ack received
    # The bot's CPU seconds from the first press to the last ack: its process, its event loop.
    cpu_s: float = math.nan
    loop_cpu_s: float = math.nan

    @property
    def latencies_s(self) -> list[float]:
        return [self.acked[q] - t for q, t in self.queued.items() if q in self.acked]

    def summary(self) -> Json:
        ms = [x * 1000 for x in self.latencies_s]
        wall = max(self.acked.values()) - min(self.queued.values()) if self.acked else math.nan
        return {
            "presses": len(self.queued),
            "acknowledged": len(self.acked),
            "wall_s": wall,
            "presses_per_s": len(self.acked) / wall if wall else math.nan,
            "p50_ms": percentile(ms, 50),
            "p95_ms": percentile(ms, 95),
            "p99_ms": percentile(ms, 99),
            "max_ms": max(ms) if ms else math.nan,
            "mean_ms": statistics.fmean(ms) if ms else math.nan,
            "cpu_ms_per_press": 1000 * self.cpu_s / len(self.acked) if self.acked else math.nan,
            "loop_cpu_ms_per_press": (
                1000 * self.loop_cpu_s / len(self.acked) if self.acked else math.nan
            ),
        }


@dataclass
class Side:
    """One bot and its fake server, with every press made to it."""

    name: str
    api: Any  # FakeBotApi
    bot: BotProcess | None = None
    bursts: list[Burst] = field(default_factory=list)
    expected: dict[str, bool] = field(default_factory=dict)  # query id -> pressed the right one
    last_active: float = 0.0  # time.monotonic() when its last burst was done


def _press_all(side: Side, presses: list[tuple[Any, Any, str, bool]]) -> dict[str, float]:
    """Queue every press at once (no await in between); returns when each was queued."""
    queued: dict[str, float] = {}
    for user, message, data, correct in presses:
        at = time.monotonic()
        query_id = side.api.press(user, message, data)
        queued[query_id] = at
        side.expected[query_id] = correct
    return queued


async def _acknowledged(
    api: Any, queued: dict[str, float], mark: int, within: float
) -> dict[str, float]:
    """When the fake server received the acknowledgement of each press in ``queued``."""
    pending = set(queued)
    acked: dict[str, float] = {}
    scan = mark
    deadline = time.monotonic() + within
    while True:
        calls = api.calls
        for call in calls[scan:]:
            if call.method == "answerCallbackQuery":
                query_id = str(call.params.get("callback_query_id"))
                if query_id in pending:
                    pending.discard(query_id)
                    acked[query_id] = call.at
        scan = len(calls)
        if not pending:
            return acked
        if time.monotonic() > deadline:
            raise BenchError(
                f"{len(pending)} of {len(queued)} presses not acknowledged within {within:.0f} s"
            )
        await asyncio.sleep(0.005)


async def _questions(api: Any, chat_ids: set[int], mark: int, within: float) -> dict[int, Any]:
    """The next question message (with answer buttons) the bot sent to each chat after call
    index ``mark``, as the user saw it then."""
    from fakes.telegram_chatter import is_question

    found: dict[int, Any] = {}
    scan = mark
    deadline = time.monotonic() + within
    while True:
        calls = api.calls
        for call in calls[scan:]:
            if call.ok and call.method == "sendMessage":
                message = api.message_of(call)
                chat_id = message.chat_id
                if chat_id in chat_ids and chat_id not in found and is_question(message):
                    found[chat_id] = deepcopy(message)
        scan = len(calls)
        if len(found) == len(chat_ids):
            return found
        if time.monotonic() > deadline:
            failed = [(c.method, c.description) for c in api.failed_calls(after=mark)][:5]
            raise BenchError(
                f"{len(chat_ids) - len(found)} of {len(chat_ids)} users got no question "
                f"within {within:.0f} s (failed calls: {failed})"
            )
        await asyncio.sleep(0.01)


def _cpu(side: Side) -> tuple[float, float]:
    """The CPU seconds the side's bot has used so far: its process, its event loop."""
    if side.bot is None:
        return math.nan, math.nan
    return side.bot.cpu_s(), side.bot.loop_cpu_s()


def _quiet_s() -> float:
    """How long a bot stays idle before a burst: past the keep-alive expiry of the bots'
    HTTP client (the adapter's aiohttp transport, which keeps httpx's 5 s)."""
    from adapters.telegram.transport import KEEPALIVE_S

    return KEEPALIVE_S + QUIET_MARGIN_S


async def _idle(side: Side, quiet: float) -> None:
    """Wait until the side's bot has been idle ``quiet`` seconds and its fake sees no
    connection from it but the long poll's."""
    await asyncio.sleep(max(0.0, quiet - (time.monotonic() - side.last_active)))
    deadline = time.monotonic() + IDLE_TIMEOUT_S
    while (still := side.api.open_connections) > IDLE_CONNECTIONS:
        if time.monotonic() > deadline:
            raise BenchError(
                f"{side.name}: {still} connections still open {IDLE_TIMEOUT_S:.0f} s past its "
                f"{quiet:.1f} s of quiet (at most {IDLE_CONNECTIONS} expected when idle)"
            )
        await asyncio.sleep(0.02)


def _send_budget(messages: int) -> float:
    """Seconds to allow for ``messages`` sends and edits: the rate limiter lets 30 a second
    through; generous, for slow machines."""
    return 30.0 + messages / 10


class _Players:
    """The users of one measurement, their chats at our side's fake, and their presses."""

    def __init__(self, api: Any, users: int, quiz: Any, sides: dict[str, Side]) -> None:
        self.api = api
        self.quiz = quiz
        self.sides = sides
        self.ours = sides["ours"]
        self.quiet = _quiet_s()
        # people[0] is the warm-up user; the others press in the bursts.
        self.people = [api.user(FIRST_USER_ID + i, f"User {i}", LANGUAGE) for i in range(users + 1)]
        self.chats = [api.private_chat(user) for user in self.people]
        self.by_chat = {
            int(chat["id"]): user for user, chat in zip(self.people, self.chats, strict=True)
        }

    async def start_quiz(self, indexes: range) -> dict[int, Any]:
        mark = len(self.api.calls)
        for i in indexes:
            self.api.send_text(self.people[i], self.chats[i], f"/quiz {SEED_QUIZ}")
        wanted = {int(self.chats[i]["id"]) for i in indexes}
        return await _questions(self.api, wanted, mark, _send_budget(len(wanted)))

    async def burst(self, side: Side, shown: dict[int, Any], round_no: int, timed: bool) -> Burst:
        from fakes.telegram_chatter import button_for

        presses = []
        for n, (chat_id, message) in enumerate(sorted(shown.items())):
            correct = (n + round_no) % 2 == 0
            data = button_for(message, self.quiz, LANGUAGE, correct)
            presses.append((self.by_chat[chat_id], message, data, correct))
        if timed:  # its HTTP connections of earlier requests have expired
            await _idle(side, self.quiet)
        bot = side.bot if timed and side.bot is not None and side.bot.profile else None
        if bot is not None:  # profiled
            await bot.command("profile on")
        mark = len(side.api.calls)
        cpu_before = _cpu(side)
        queued = _press_all(side, presses)
        within = 60.0 + len(queued) / 5
        try:
            acked = await _acknowledged(side.api, queued, mark, within)
        except BenchError as error:
            log = side.bot.log_tail() if side.bot is not None else ""
            raise BenchError(f"{side.name}: {error}; the bot's log ends:\n{log}") from None
        cpu_after = _cpu(side)
        result = Burst(queued, acked, *(a - b for a, b in zip(cpu_after, cpu_before, strict=True)))
        if bot is not None:
            await bot.command("profile off")
        if side is self.ours:  # wait for the follow-ups: edits and next questions (untimed)
            follow = await _questions(self.api, set(shown), mark, _send_budget(2 * len(shown)))
            shown.clear()
            shown.update(follow)
        side.last_active = time.monotonic()
        return result

    async def play(self, size: Sizes, progress: Callable[[str], None]) -> None:
        """The warm-up, then every side's timed bursts on the same question messages."""
        progress("telegram: setup, warm-up user")
        warm = await self.start_quiz(range(1))
        for side in self.sides.values():  # the other sides get the same question
            if side is not self.ours:
                await self.burst(side, dict(warm), 0, False)
        await self.burst(self.ours, warm, 0, False)
        progress(f"telegram: setup, {size.users:,} users start the quiz")
        shown = await self.start_quiz(range(1, size.users + 1))
        self.ours.last_active = time.monotonic()
        for round_no in range(size.rounds):
            names = SIDES[round_no % len(SIDES) :] + SIDES[: round_no % len(SIDES)]
            order = [self.sides[name] for name in names]  # each side goes first in turn
            current = dict(shown)  # both sides press on the same question messages
            for side in order:
                progress(
                    f"telegram: round {round_no + 1}/{size.rounds}, {side.name}: "
                    f"{size.users:,} presses"
                )
                pressed = shown if side is self.ours else dict(current)
                side.bursts.append(await self.burst(side, pressed, round_no + 1, True))


async def measure(
    size: Sizes,
    progress: Callable[[str], None],
    workdir: Path,
    profile: Path | None = None,
) -> Json:
    from bench.answers import question_count, seed_catalog
    from fakes.telegram_bot_api import FakeBotApi

    catalog = seed_catalog()
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    if size.rounds >= question_count(catalog):
        raise BenchError(f"at most {question_count(catalog) - 1} rounds (questions - 1)")
    sides = {name: Side(name, FakeBotApi(max_poll_wait=MAX_POLL_WAIT)) for name in SIDES}
    ours = sides["ours"]
    try:
        for side in sides.values():
            await side.api.start()
            side.bot = BotProcess(
                side.name, side.api.base_url, workdir, profile if side.name == "ours" else None
            )
        progress(f"telegram: starting both bots, {size.users:,} users")
        await asyncio.gather(*(side.bot.start() for side in sides.values() if side.bot))
        await _Players(ours.api, size.users, quiz, sides).play(size, progress)
        progress("telegram: stopping the bots")
        for side in sides.values():
            if side.bot is not None:
                await side.bot.stop()
    finally:
        for side in sides.values():
            if side.bot is not None:
                with contextlib.suppress(BenchError):  # already failing: keep that error
                    await side.bot.stop()
            await side.api.close()
    return _result(size, sides, ours.bot.db if ours.bot else None)


def _ack_counts(side: Side) -> Json:
    """answerCallbackQuery calls per press, and the acknowledgements by what they said; over
    every press made to the side (the warm-up's included)."""
    from adapters.telegram.rendering import toast
    from bot.i18n import t
    from fakes.telegram_chatter import clean

    calls: Counter[str] = Counter()
    ok: Counter[str] = Counter()
    said: dict[str, str] = {}
    for call in side.api.calls:
        if call.method == "answerCallbackQuery":
            query_id = str(call.params.get("callback_query_id"))
            calls[query_id] += 1
            if call.ok:
                ok[query_id] += 1
                said[query_id] = clean(call.params.get("text"))
    right, wrong = clean(toast(t("correct", LANGUAGE))), clean(toast(t("wrong", LANGUAGE)))
    verdicts: Counter[str] = Counter()
    deserved = 0
    for query_id, correct in side.expected.items():
        text = said.get(query_id)
        kind = "correct" if text == right else "wrong" if text == wrong else "other"
        verdicts[kind] += 1
        deserved += kind == ("correct" if correct else "wrong")
    return {
        "presses": len(side.expected),
        "acknowledged_once": sum(1 for q in side.expected if calls[q] == 1 and ok[q] == 1),
        "ack_calls": sum(calls.values()),
        "acknowledged_correct": verdicts["correct"],
        "acknowledged_wrong": verdicts["wrong"],
        "acknowledged_other": verdicts["other"],
        "acknowledged_as_deserved": deserved,
        "failed_calls": len(side.api.failed_calls()),
        # Telegram hands out at most 100 updates per getUpdates, and so does the fake.
        "largest_update_batch": max(
            (len(c.result) for c in side.api.calls if c.ok and c.method == "getUpdates"),
            default=0,
        ),
    }


def _stored(db: Path | None) -> Json:
    if db is None:
        return {"stored_correct": 0, "stored_wrong": 0}
    conn = sqlite3.connect(db)
    try:
        rows = dict(conn.execute("SELECT correct, COUNT(*) FROM answers GROUP BY correct"))
    finally:
        conn.close()
    return {"stored_correct": rows.get(1, 0), "stored_wrong": rows.get(0, 0)}


def _combined(bursts: list[Burst]) -> Json:
    rounds = [b.summary() for b in bursts]
    ms = [x * 1000 for b in bursts for x in b.latencies_s]
    acked = sum(len(b.acked) for b in bursts)
    return {
        "timed_presses": sum(r["presses"] for r in rounds),
        "timed_acknowledged": sum(r["acknowledged"] for r in rounds),
        "presses_per_s": statistics.median(r["presses_per_s"] for r in rounds),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else math.nan,
        # Over every timed burst: the bot's CPU from each first press to its last ack.
        "cpu_ms_per_press": 1000 * sum(b.cpu_s for b in bursts) / max(1, acked),
        "loop_cpu_ms_per_press": 1000 * sum(b.loop_cpu_s for b in bursts) / max(1, acked),
        "rounds": rounds,
    }


def _result(size: Sizes, sides: dict[str, Side], db: Path | None) -> Json:
    from adapters.telegram.update_processor import MAX_CONCURRENT_UPDATES

    result: Json = {
        "users": size.users,
        "rounds": size.rounds,
        "presses_per_round": size.users,
        "max_poll_wait_s": MAX_POLL_WAIT,
        "polling_timeout_s": POLLING_TIMEOUT,
        "rate_limiter": "the adapter's BudgetedRateLimiter on both PTB sides (30/s, messages only)",
        "transport": "the adapter's AiohttpRequest on both PTB sides",
        "max_concurrent_updates": MAX_CONCURRENT_UPDATES,
        "database": "SQLite, real storage (WAL, synchronous=FULL), temporary file",
    }
    for name, side in sides.items():
        result[name] = {**_combined(side.bursts), **_ack_counts(side)}
    result["ours"].update(_stored(db))
    return result


def _verdicts(result: Json) -> list[Json]:
    ours, bare = result["ours"], result["bare"]
    rate_ratio = ours["presses_per_s"] / bare["presses_per_s"]
    rate_met = rate_ratio >= RATE_TARGET
    p95_met = ours["p95_ms"] <= P95_TARGET_MS
    p95_over = ours["p95_ms"] - P95_TARGET_MS
    who = f"{result['users']:,} users pressing at once"
    label = "bare PTB app, ack only"
    return [
        figure(
            "telegram.presses_per_s",
            f"{who}: presses acknowledged/s",
            "presses/s",
            ours["presses_per_s"],
            bare["presses_per_s"],
            label,
            higher_is_better=True,
            target=f">= {RATE_TARGET}x baseline",
            met=rate_met,
            verdict="MET" if rate_met else f"MISSED: {rate_ratio:.2f}x, needs >= {RATE_TARGET}x",
        ),
        figure(
            "telegram.p50_ms",
            f"{who}: p50 press-to-ack",
            "ms",
            ours["p50_ms"],
            bare["p50_ms"],
            label,
            higher_is_better=False,
        ),
        figure(
            "telegram.p95_ms",
            f"{who}: p95 press-to-ack",
            "ms",
            ours["p95_ms"],
            bare["p95_ms"],
            label,
            higher_is_better=False,
            target=f"<= {P95_TARGET_MS:,.0f} ms",
            met=p95_met,
            verdict="MET"
            if p95_met
            else f"MISSED by {p95_over:,.0f} ms ({ours['p95_ms'] / P95_TARGET_MS:.1f}x the target)",
        ),
        figure(
            "telegram.cpu_ms_per_press",
            f"{who}: bot CPU per press (first press to last ack)",
            "ms/press",
            ours["cpu_ms_per_press"],
            bare["cpu_ms_per_press"],
            label,
            higher_is_better=False,
        ),
        figure(
            "telegram.raw_presses_per_s",
            f"{who}: presses acknowledged/s vs. the machine's limit",
            "presses/s",
            ours["presses_per_s"],
            result["raw"]["presses_per_s"],
            RAW_LABEL,
            higher_is_better=True,
        ),
        figure(
            "telegram.raw_p95_ms",
            f"{who}: p95 press-to-ack vs. the machine's limit",
            "ms",
            ours["p95_ms"],
            result["raw"]["p95_ms"],
            RAW_LABEL,
            higher_is_better=False,
        ),
    ]


def _checks(result: Json) -> list[Json]:
    ours, bare = result["ours"], result["bare"]
    checks = []
    for name in SIDES:
        side = result[name]
        checks.append(
            check(
                f"telegram {name}: every press acknowledged exactly once",
                side["presses"],
                side["acknowledged_once"],
            )
        )
        checks.append(
            check(
                f"telegram {name}: no other answerCallbackQuery call",
                side["presses"],
                side["ack_calls"],
            )
        )
    checks += [
        check(
            "telegram ours: every acknowledgement says correct/wrong as the button deserves",
            ours["presses"],
            ours["acknowledged_as_deserved"],
        ),
        check(
            "telegram ours: answers stored as correct == acknowledged as correct",
            ours["acknowledged_correct"],
            ours["stored_correct"],
        ),
        check(
            "telegram ours: answers stored as wrong == acknowledged as wrong",
            ours["acknowledged_wrong"],
            ours["stored_wrong"],
        ),
        check("telegram ours: no call the fake refused", 0, ours["failed_calls"]),
        check("telegram bare: no call the fake refused", 0, bare["failed_calls"]),
        check("telegram raw: no call the fake refused", 0, result["raw"]["failed_calls"]),
    ]
    return checks


def run(
    quick: bool,
    progress: Callable[[str], None],
    tmp_root: str | None = None,
    users: int | None = None,
    rounds: int | None = None,
    profile: Path | None = None,
) -> Json:
    size = sizes(quick, users, rounds)
    with scratch_dir("quizbot-bench-tg-", tmp_root) as workdir:
        result = asyncio.run(measure(size, progress, workdir, profile))
    note = (
        f"{size.users:,} users x {size.rounds} rounds; each bot in its own process against its "
        "own fake Bot API (fakes/telegram_bot_api.py); presses/s: median of rounds; "
        "p50/p95: all presses"
    )
    if profile is not None:
        note += f"; cProfile of our bot in {profile}"
    return section(
        "b",
        TITLE,
        STATUS_OK,
        note=note,
        figures=_verdicts(result),
        details=result,
        checks=_checks(result),
    )


if __name__ == "__main__":
    serve_main()
