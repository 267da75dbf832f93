"""Test-only pieces of a Discord world: a slow database and a clock tests move by hand.

The users, their payloads and the reading helpers are in :mod:`fakes.discord_users`.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from bot.storage import SQLiteStorage
from fakes.clock import ManualClock


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
