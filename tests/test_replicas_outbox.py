"""Scheduled messages across three real ``quizbot run`` replicas on one PostgreSQL database:
a burst of review reminders falls due, the replica posting them is killed with SIGKILL mid-burst,
and every reminder still reaches its user; a repeat is possible only for a message the killed
replica had sent but not yet marked sent (Telegram has no idempotency key: the window
docs/replicas.md documents), never lost, never more than twice."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from bench.reminders import FIRST_USER_ID, seed_reminders
from bot.catalog import QuizCatalog
from bot.i18n import t
from bot.storage.postgres import PostgresStorage
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import clean
from tests.conftest import QUIZ_DIR, postgres_url, reset_postgres
from tests.test_replicas import REPLICAS, Replica, healthy, start_replica

USERS = 150
LEASE_SECONDS = 6  # CLAIM_LEASE_SECONDS: a killed replica's claims are taken over quickly
MIN_HELD = 3  # claims the killed replica holds at least when it is killed
SEND_SECONDS = 0.05  # how long the fake takes to answer each sendMessage
DUE = clean(t("review_due", "en", count=1))

pytestmark = pytest.mark.slow


def reminded(api: FakeBotApi) -> Counter[int]:
    """How many reminders each user got at the fake."""
    return Counter(
        int(c.params["chat_id"])
        for c in api.calls
        if c.method == "sendMessage" and c.ok and clean(c.params.get("text")) == DUE
    )


async def seed(url: str, users: int) -> None:
    storage = PostgresStorage(url)
    await storage.open()
    try:
        catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
        now = datetime.now(UTC) - timedelta(minutes=5)
        ids = range(FIRST_USER_ID, FIRST_USER_ID + users)
        await seed_reminders(storage, catalog, lambda: now, ids)
    finally:
        await storage.close()


async def kill_the_poster(url: str, replicas: list[Replica]) -> set[str]:
    """SIGKILL the replica holding the most claims on pending reminders, once some were sent
    and it holds several (so that it dies with some in hand however loaded the machine is);
    the recipients of what it held, which it may have sent without marking."""
    conn = await asyncpg.connect(url)
    try:
        while True:
            holder = await conn.fetchrow(
                "SELECT claimed_by, count(*) AS held FROM outgoing_messages "
                "WHERE status = 'pending' AND claimed_by IS NOT NULL "
                "GROUP BY claimed_by ORDER BY count(*) DESC LIMIT 1"
            )
            if (
                holder is not None
                and holder["held"] >= MIN_HELD
                and await conn.fetchval(
                    "SELECT count(*) FROM outgoing_messages WHERE status = 'sent'"
                )
            ):
                owner = holder["claimed_by"]
                break
            await asyncio.sleep(0.02)
        pid = int(str(owner).split(":")[1])
        (victim,) = [r for r in replicas if r.process.pid == pid]
        victim.process.send_signal(signal.SIGKILL)
        await victim.process.wait()
        prefix = ":".join(str(owner).split(":")[:3])  # host:pid:process part, every claim
        held = await conn.fetch(
            "SELECT target FROM outgoing_messages WHERE status = 'pending' "
            "AND claimed_by LIKE $1 || ':%'",
            prefix,
        )
    finally:
        await conn.close()
    return {str(r["target"]) for r in held}


async def test_every_reminder_reaches_its_user_when_the_posting_replica_is_killed(
    tmp_path: Path,
) -> None:
    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    api = FakeBotApi()
    # Each send takes a moment, as over a network: a claimed batch is in hand for a while.
    api.delays["sendMessage"] = SEND_SECONDS
    await api.start()
    for n in range(USERS):
        api.private_chat(api.user(FIRST_USER_ID + n, f"U{n}"))
    replicas: list[Replica] = []
    http = aiohttp.ClientSession()
    try:
        # The schema, then the burst: every user has a reminder due (five minutes ago).
        await seed(url, USERS)
        env = {"CLAIM_LEASE_SECONDS": str(LEASE_SECONDS)}
        for n in range(REPLICAS):
            replicas.append(
                await start_replica(api, url, QUIZ_DIR, tmp_path / f"r{n}.log", extra_env=env)
            )
        for replica in replicas:
            await healthy(http, replica)
        in_flight = await asyncio.wait_for(kill_the_poster(url, replicas), 60)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        while len(reminded(api)) < USERS:
            assert loop.time() < deadline, f"{USERS - len(reminded(api))} users never reminded"
            await asyncio.sleep(0.1)
        await asyncio.sleep(2 * LEASE_SECONDS)  # a late repeat, if any, has time to show
    finally:
        for replica in replicas:
            if replica.alive:
                replica.process.send_signal(signal.SIGTERM)
        for replica in replicas:
            try:
                await asyncio.wait_for(replica.process.wait(), 20)
            except TimeoutError:
                replica.process.kill()
                await replica.process.wait()
        await http.close()
        await api.close()
    counts = reminded(api)
    assert in_flight, "the killed replica held no message: it was not killed mid-burst"
    assert set(counts) == {FIRST_USER_ID + n for n in range(USERS)}  # none lost
    twice = {str(user) for user, n in counts.items() if n > 1}
    assert all(n <= 2 for n in counts.values())
    assert twice <= in_flight, twice - in_flight  # only what the killed replica had in hand
    conn = await asyncpg.connect(url)
    try:
        statuses = Counter(
            r["status"] for r in await conn.fetch("SELECT status FROM outgoing_messages")
        )
        jobs = await conn.fetch("SELECT due_at, claimed_by FROM scheduled_jobs")
    finally:
        await conn.close()
    assert statuses == {"sent": USERS}  # one row each, every one sent
    assert len(jobs) == USERS  # each reminder ran once and moved to its next day
    assert all(j["due_at"] > datetime.now(UTC) and j["claimed_by"] is None for j in jobs)
