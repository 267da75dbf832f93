"""Test-only pieces of a Discord world: a slow database, a clock tests move by hand, a world
on that clock, and a bot process going down.

The users, their payloads and the reading helpers are in :mod:`fakes.discord_users`.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import discord

from adapters.discord import QuizClient
from adapters.discord.group_rounds import RoundTiming
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.discord_api import FakeDiscord, Recorded
from fakes.discord_users import ClientFactory, World


class SlowStorage(SQLiteStorage):
    """A database having a bad moment: every attempt and answer write takes a while."""

    delay = 0.8

    async def create_attempt(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self.delay)
        return await super().create_attempt(*args, **kwargs)

    async def record_answer(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self.delay)
        return await super().record_answer(*args, **kwargs)


class VirtualClock(ManualClock):
    """The engine's clock and the rounds' clock in one: time moves only when a test says
    (:meth:`advance` wakes all sleepers, which look at the time again)."""

    def __init__(self, start: datetime | None = None) -> None:
        super().__init__(start or datetime(2026, 1, 1, tzinfo=UTC))


async def world_on(
    fake: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    timing: RoundTiming,
) -> World:
    """A client on ``engine`` whose rounds run on ``clock``, as does the fake's time."""
    fake.stamp = clock
    return World(fake, await make_client(engine, clock=clock, round_timing=timing))


async def close_process(client: discord.Client | None) -> None:
    """A bot process going down: its client, then the scheduler beside it (the runner's
    order); a later client on the same database is the restarted process."""
    assert isinstance(client, QuizClient)
    await client.close()
    await client.services.scheduling.scheduler.stop()


def uploads(requests: list[Recorded]) -> list[str]:
    """The names of the files ``requests`` sent."""
    return [upload.filename for request in requests for upload in request.files]
