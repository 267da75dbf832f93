"""Time as group rounds see it: the engine's clock, and a way to wait for a moment that an
event can cut short. :class:`SystemClock` is asyncio's timers (optionally faster than real
time); tests use :class:`fakes.clock.ManualClock`, which moves only when told to."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

MIN_SLEEP = 0.005  # real seconds: a clock that stalls short of a moment cannot make a loop spin


class RoundClock(Protocol):
    """Time as rounds see it: the engine's clock, and a way to wait for a moment."""

    def __call__(self) -> datetime: ...

    async def sleep(self, until: datetime, wake: asyncio.Event) -> None:
        """Return at ``until`` or as soon as ``wake`` is set (early returns are fine)."""


class SystemClock:
    """The engine's clock and asyncio's timers, ``speed`` times faster than real time (tests
    pair it with an engine clock that runs as fast)."""

    def __init__(self, now: Callable[[], datetime], *, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("a clock needs a positive speed")
        self._now = now
        self.speed = speed

    def __call__(self) -> datetime:
        return self._now()

    async def sleep(self, until: datetime, wake: asyncio.Event) -> None:
        left = (until - self._now()).total_seconds()
        if left > 0 and not wake.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), max(left / self.speed, MIN_SLEEP))
