"""A background loop that wakes when its work falls due, or when told, and never sleeps past
a bound (so work another replica added is seen within it): what the scheduler and each
outbox poster run on."""

from __future__ import annotations

import abc
import asyncio
import logging
from datetime import datetime, timedelta

from bot.rounds.clock import RoundClock


class WakingLoop(abc.ABC):
    """Runs :meth:`step` while it finds work, then sleeps until :meth:`next_due` (at most
    ``max_sleep`` seconds, or until :meth:`wake`), on a :class:`RoundClock`."""

    def __init__(self, clock: RoundClock, max_sleep: float, name: str) -> None:
        self.clock = clock
        self.max_sleep = max_sleep
        self.name = name
        self.log = logging.getLogger(f"quizbot.{name}")
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: datetime | None = None

    @abc.abstractmethod
    async def step(self) -> int:
        """Do what is due now (one batch); how much there was (0: nothing)."""

    @abc.abstractmethod
    async def next_due(self) -> datetime | None:
        """When the next work falls due, if known."""

    async def chores(self) -> None:  # noqa: B027 (an optional hook: nothing by default)
        """Run on every wake before :meth:`step` (nothing by default)."""

    def wake(self) -> None:
        """Look for work now."""
        self._wake.set()

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        """Stop the loop; work in progress is cancelled (claims it held run out and are
        taken over)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def settled(self) -> bool:
        """Whether the loop waits for the clock with nothing to do before then (what tests
        driving a virtual clock wait for)."""
        until = self._sleeping_until
        return (
            self._task is not None
            and until is not None
            and until > self.clock()
            and not self._wake.is_set()
        )

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.chores()
                if await self.step():
                    continue  # there may be more
                due = await self.next_due()
            except Exception:
                self.log.warning("%s failed: trying again", self.name, exc_info=True)
                due = None
            now = self.clock()
            until = now + timedelta(seconds=self.max_sleep)
            if due is not None and now < due < until:  # (due already: not ours, the bound)
                until = due
            self._sleeping_until = until
            try:
                await self.clock.sleep(until, self._wake)
            finally:
                self._sleeping_until = None
