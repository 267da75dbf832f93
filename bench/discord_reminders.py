"""(j) Discord outbox: a burst of N review reminders falling due at the same moment, as DMs.

What is measured
    The real Discord client (:class:`~adapters.discord.QuizClient` on discord.py, in this
    process) against the fake Discord of ``fakes/discord_api.py``, which enforces Discord's
    global limit of 50 requests a second (past it: 429 with ``retry_after``), on a temporary
    SQLite database. N users each missed a question and set a review reminder, all due at the
    same moment. From the client's login (its scheduler and outbox poster start with it): the
    jobs run (each queues one ``review-due`` message), the poster claims them, and the sender
    opens each user's DM channel and posts the reminder there, paced by its limiter; the clock
    stops when the fake holds every reminder. Figure: direct messages a second from the 5th
    post to the last (the sender's leaky bucket lets a first 5 through at once; the pace is
    what follows), by the fake's arrival times; and, beside it, every request the bot made to
    Discord a second in that span (opening a DM channel and posting in it) against the global
    limit.

Baseline
    The pace the sender holds, ``DM_RATE`` (5 direct messages a second,
    ``adapters/discord/outbox_sender.py``; docs/benchmarks.md says why that figure): the
    outbox should send at that pace (not faster; not much slower). Checks: every user got
    exactly one reminder, Discord answered no 429 and saw no rule broken, and every outbox row
    is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import QUIZ_DIR
from bench.discord import point_discord_at
from bench.reminders import delivered_figure, delivery_checks, pace_figure, seed_reminders
from bench.report import STATUS_OK, Json, check, figure, scratch_dir, section

TITLE = "Discord outbox: a burst of review reminders due at once, as DMs (baseline: the DM pace)"
GLOBAL_LIMIT = 50.0  # Discord's requests a second per bot
FIRST_USER_ID = 1_100_000_000_000_000_000  # Discord user ids are snowflakes


def sizes(quick: bool, users: int | None = None) -> int:
    return users or (50 if quick else 1000)


async def _measure(users: int, workdir: Path, progress: Callable[[str], None]) -> Json:
    from adapters.discord import QuizClient  # imported late: discord.py's set-up is heavy
    from adapters.discord.outbox_sender import DM_RATE
    from bot.catalog import QuizCatalog
    from bot.engine import QuizEngine
    from bot.services import Services
    from bot.storage import SQLiteStorage
    from fakes.discord_api import TOKEN, FakeDiscord
    from quizbot.runner import discord_config
    from quizbot.settings import Settings

    fake = FakeDiscord()
    undo = point_discord_at(await fake.start())
    db_path = workdir / "bench.db"
    storage = SQLiteStorage(db_path)
    await storage.open()
    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    # The jobs fell due an hour ago, as after a restart; the bot's clock is the real one.
    due_clock = lambda: datetime.now(UTC) - timedelta(hours=1)  # noqa: E731
    ids = [FIRST_USER_ID + n for n in range(users)]
    progress(f"j: seeding {users} users with a reminder due")
    await seed_reminders(storage, catalog, due_clock, ids, platform="discord")
    services = Services.build(QuizEngine(catalog, storage), storage)
    settings = Settings(database_url=f"sqlite:///{db_path}", discord_token=TOKEN)
    client = QuizClient(services, discord_config(settings))

    def delivered() -> int:
        return sum(len(fake.dm_messages(user_id)) for user_id in ids)

    try:
        progress(f"j: {users} reminders fall due")
        began = time.perf_counter()
        await client.login(TOKEN)  # its outbox poster starts with it
        services.scheduling.scheduler.start()  # then the jobs, as `quizbot run` starts them
        while True:
            if delivered() >= users or time.perf_counter() - began > users / DM_RATE * 3 + 60:
                break
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - began
        await asyncio.sleep(1.0)  # a duplicate, if any, has time to show
    finally:
        await client.close()
        await services.scheduling.scheduler.stop()
        outbox = await storage.outgoing_messages("review-due:")
        await storage.close()
        await fake.close()
        undo()
    dm_channels = {str(channel) for channel in fake.dm_channels.values()}
    posts = sorted(
        r.at
        for r in fake.requests
        if r.method == "POST"
        and r.status == 200
        and r.path.endswith("/messages")
        and r.path.split("/")[-2] in dm_channels
    )
    counts = [len(fake.dm_messages(user_id)) for user_id in ids]
    burst = int(DM_RATE)  # the limiter's bucket: a first few go at once
    steady = posts[burst - 1 :] if len(posts) > burst else []
    first, last = (steady[0], steady[-1]) if len(steady) > 1 else (0.0, 0.0)
    span = last - first
    in_span = sum(1 for r in fake.requests if first <= r.at <= last)
    return {
        "users": users,
        "dm_rate": DM_RATE,
        "seconds": elapsed,
        "messages_per_s": (len(steady) - 1) / span if span else 0.0,
        "requests_per_s": in_span / span if span else 0.0,
        "users_reminded": sum(1 for n in counts if n),
        "duplicates": sum(n - 1 for n in counts if n),
        "dm_channels_opened": len(dm_channels),
        "rate_limited": len(fake.rate_limited),
        "outbox_sent": sum(1 for m in outbox if m.status.value == "sent"),
        "outbox_rows": len(outbox),
        "violations": list(fake.violations),
    }


def run(
    quick: bool,
    progress: Callable[[str], None],
    tmp_root: str | None = None,
    users: int | None = None,
) -> Json:
    n = sizes(quick, users)
    with scratch_dir("quizbot-bench-discord-reminders-", tmp_root) as workdir:
        r = asyncio.run(_measure(n, workdir, progress))
    pace = float(r["dm_rate"])
    within = r["requests_per_s"] <= GLOBAL_LIMIT and r["rate_limited"] == 0
    who = f"{n} review reminders due at once as Discord DMs"
    figures = [
        pace_figure(
            "discord_reminders.messages_per_s",
            f"{who}: DMs/s after the first {int(pace)}",
            r["messages_per_s"],
            pace,
            "pace",
            "the sender's DM pace",
        ),
        figure(
            "discord_reminders.requests_per_s",
            f"{who}: requests/s to Discord (open + post)",
            "requests/s",
            r["requests_per_s"],
            GLOBAL_LIMIT,
            "Discord's global limit",
            higher_is_better=False,
            target="<= 1.0x the limit, no 429",
            met=within,
            verdict="met" if within else "MISSED",
        ),
        delivered_figure("discord_reminders.delivered", who, n, r),
    ]
    checks = [
        *delivery_checks("discord reminders", n, r),
        check("discord reminders: no 429 from Discord", 0, r["rate_limited"]),
        check("discord reminders: no rule of Discord broken", 0, len(r["violations"])),
    ]
    note = "in-process client, fake Discord with its global limit; from login to the last DM"
    return section("j", TITLE, STATUS_OK, note=note, figures=figures, details=r, checks=checks)
