"""(i) Telegram outbox: a burst of N review reminders falling due at the same moment.

What is measured
    The real Telegram adapter (in this process, production rate limiter: 30 messages a second,
    python-telegram-bot's AIORateLimiter under our fair pacer) long-polling the fake Bot API of
    ``fakes/telegram_bot_api.py``, on a temporary SQLite database. N users each missed a
    question and set a review reminder, all due at the same moment. From the scheduler's start:
    the jobs run (each counts the user's due reviews and queues one ``review-due`` message in
    the outbox), the poster claims and sends them; the clock stops when the fake has every
    reminder. Figure: messages/s from the 30th send to the last (Telegram, and the limiter,
    let a first burst of 30 through at once; the pace is what follows), by the fake's clock.

Baseline
    Telegram's own limit, 30 messages a second to different chats: the outbox should send at
    that pace (not faster: the platform would answer 429; not much slower). Checks: every
    user got exactly one reminder, the fake refused no call, and every outbox row is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import QUIZ_DIR, SEED_QUIZ
from bench.report import STATUS_OK, Json, check, figure, scratch_dir, section

TITLE = "Telegram outbox: a burst of review reminders due at once (baseline: Telegram's 30/s)"
CAP = 30.0  # Telegram's messages a second to different chats, what the rate limiter keeps
FIRST_USER_ID = 900_000


def sizes(quick: bool, users: int | None = None) -> int:
    return users or (90 if quick else 1000)


async def seed_reminders(
    storage: Any,
    catalog: Any,
    clock: Callable[[], datetime],
    user_ids: Sequence[int],
    platform: str = "telegram",
) -> None:
    """Every user of ``platform`` missed the seed quiz's first question and has a reminder
    due now."""
    from bot.engine import QuizEngine
    from bot.review_reminders import REMINDER_JOB, reminder_key
    from bot.storage.scheduling import NewJob
    from bot.views import Participant

    engine = QuizEngine(catalog, storage, clock=clock)
    quiz = catalog.get(SEED_QUIZ)

    async def one(user_id: int) -> None:
        who = Participant(platform, str(user_id), f"U{user_id}", "en")
        start = await engine.start(who, SEED_QUIZ)
        shown = start.question
        assert shown is not None
        question = quiz.question(shown.question_id)
        wrong = next(o.id for o in question.options if o.id != question.correct_option_id)
        await engine.answer_by_option(who, shown.attempt_id, question.id, wrong)
        payload = {"platform": platform, "user_id": str(user_id), "at": "09:00"}
        job = NewJob(REMINDER_JOB, reminder_key(platform, str(user_id)), clock(), payload)
        await storage.schedule_job(job, clock())

    for chunk in range(0, len(user_ids), 200):
        await asyncio.gather(*(one(user_id) for user_id in user_ids[chunk : chunk + 200]))


def pace_figure(
    name: str, label: str, rate: float, pace: float, pace_name: str, pace_label: str
) -> Json:
    """Messages a second against the pace the outbox should hold: met within 10% either way."""
    met = 0.9 * pace <= rate <= 1.1 * pace
    return figure(
        name,
        label,
        "messages/s",
        rate,
        pace,
        pace_label,
        higher_is_better=True,
        target=f"0.9x to 1.1x the {pace_name}",
        met=met,
        verdict="met" if met else "MISSED",
    )


def delivered_figure(name: str, who: str, users: int, r: Json) -> Json:
    """Users reminded against users due: met when everyone got exactly one reminder."""
    everyone = r["users_reminded"] == users and r["duplicates"] == 0
    return figure(
        name,
        f"{who}: users reminded",
        "users",
        float(r["users_reminded"]),
        float(users),
        "due",
        higher_is_better=True,
        target="all, once each",
        met=everyone,
        verdict="met" if everyone else "MISSED",
    )


def delivery_checks(prefix: str, users: int, r: Json) -> list[Json]:
    """Every user reminded, nobody twice, every outbox row sent."""
    return [
        check(f"{prefix}: every user reminded", users, r["users_reminded"]),
        check(f"{prefix}: nobody reminded twice", 0, r["duplicates"]),
        check(f"{prefix}: every outbox row sent", r["outbox_rows"], r["outbox_sent"]),
    ]


async def _measure(users: int, workdir: Path, progress: Callable[[str], None]) -> Json:
    from adapters.telegram import TelegramAdapter
    from bot.catalog import QuizCatalog
    from bot.engine import QuizEngine
    from bot.i18n import t
    from bot.services import Services
    from bot.storage import SQLiteStorage
    from fakes.telegram_bot_api import TOKEN, FakeBotApi
    from fakes.telegram_chatter import clean
    from quizbot.runner import telegram_config
    from quizbot.settings import Settings

    api = FakeBotApi()
    await api.start()
    ids = range(FIRST_USER_ID, FIRST_USER_ID + users)
    for user_id in ids:
        api.private_chat(api.user(user_id, f"U{user_id}"))
    storage = SQLiteStorage(workdir / "bench.db")
    await storage.open()
    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    # The jobs fall due an hour ago, as after a restart; the bot's clock is the real one.
    due_clock = lambda: datetime.now(UTC) - timedelta(hours=1)  # noqa: E731
    progress(f"i: seeding {users} users with a reminder due")
    await seed_reminders(storage, catalog, due_clock, ids)
    engine = QuizEngine(catalog, storage)
    settings = Settings(quiz_dir=QUIZ_DIR, telegram_token=TOKEN, telegram_api_base_url=api.base_url)
    services = Services.build(engine, storage)
    adapter = TelegramAdapter(services, telegram_config(settings))
    text = clean(t("review_due", "en", count=1))
    try:
        progress(f"i: {users} reminders fall due")
        began = time.perf_counter()
        await adapter.start()  # its outbox poster starts with it
        services.scheduling.scheduler.start()  # then the jobs, as `quizbot run` starts them
        while True:
            sent = [
                c
                for c in api.calls
                if c.method == "sendMessage" and clean(c.params.get("text")) == text
            ]
            if len(sent) >= users or time.perf_counter() - began > users / CAP * 4 + 60:
                break
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - began
        await asyncio.sleep(1.0)  # a duplicate, if any, has time to show
    finally:
        await adapter.stop()
        await services.scheduling.scheduler.stop()
        outbox = await storage.outgoing_messages("review-due:")
        await storage.close()
        await api.close()
    calls = [
        c
        for c in api.calls
        if c.method == "sendMessage" and c.ok and clean(c.params.get("text")) == text
    ]
    delivered = Counter(int(c.params["chat_id"]) for c in calls)
    # Telegram (and the limiter) allow a first burst of 30 at once; the pace is what follows.
    burst = int(CAP)
    steady = calls[burst - 1 :] if len(calls) > burst else []
    span = steady[-1].at - steady[0].at if len(steady) > 1 else 0.0
    return {
        "users": users,
        "seconds": elapsed,
        "overall_per_s": len(calls) / elapsed if elapsed else 0.0,
        "messages_per_s": (len(steady) - 1) / span if span else 0.0,
        "users_reminded": len(delivered),
        "duplicates": sum(n - 1 for n in delivered.values()),
        "outbox_sent": sum(1 for m in outbox if m.status.value == "sent"),
        "outbox_rows": len(outbox),
        "failed_calls": len(api.failed_calls()),
    }


def run(
    quick: bool,
    progress: Callable[[str], None],
    tmp_root: str | None = None,
    users: int | None = None,
) -> Json:
    n = sizes(quick, users)
    with scratch_dir("quizbot-bench-reminders-", tmp_root) as workdir:
        r = asyncio.run(_measure(n, workdir, progress))
    who = f"{n} review reminders due at once"
    figures = [
        pace_figure(
            "reminders.messages_per_s",
            f"{who}: messages/s after the first 30",
            r["messages_per_s"],
            CAP,
            "cap",
            "Telegram's cap",
        ),
        delivered_figure("reminders.delivered", who, n, r),
    ]
    checks = [
        *delivery_checks("reminders", n, r),
        check("reminders: no call the fake refused", 0, r["failed_calls"]),
    ]
    note = "in-process bot, production rate limiter; from the scheduler's start to the last send"
    return section("i", TITLE, STATUS_OK, note=note, figures=figures, details=r, checks=checks)
