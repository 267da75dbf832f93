"""A clock for tests and simulations that moves only when told to."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta


class ManualClock:
    """Time that moves only when :meth:`advance` says (tests, simulations). Give it to the
    engine as well, so that the rounds and the engine agree on the time."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self._wakes: set[asyncio.Event] = set()

    def __call__(self) -> datetime:
        return self.now

    async def sleep(self, until: datetime, wake: asyncio.Event) -> None:
        while self.now < until and not wake.is_set():
            self._wakes.add(wake)
            try:
                await wake.wait()
            finally:
                self._wakes.discard(wake)

    def advance(self, seconds: float) -> None:
        """Move time on, and wake every sleeper to look at it again."""
        self.now += timedelta(seconds=seconds)
        for wake in list(self._wakes):
            wake.set()
