"""What the daily question's tests share on both platforms: local times in Berlin, a streak as
the reveal words it, and time that runs to a moment stopping at every job's due time (as real
time would wake the scheduler), on a manual clock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from bot.daily.texts import daily_t
from bot.scheduling.timezones import find_zone
from fakes.clock import ManualClock

BERLIN = "Europe/Berlin"
STEP = timedelta(minutes=30)  # the clock moves at most this much at once


def at(text: str) -> datetime:
    """A moment given as Berlin's local time, ``2026-03-02 09:00``."""
    zone = find_zone(BERLIN)
    assert zone is not None
    return datetime.fromisoformat(text).replace(tzinfo=zone).astimezone(UTC)


def streak(name: str, rank: str, right: int, answered: int) -> str:
    """A member's line under a daily reveal: ``🥇 Asha — 🔥 2 right in a row · ...``."""
    right_text = daily_t("streak_right", "en", count=right)
    answered_text = daily_t("streak_answered", "en", count=answered)
    return f"{rank} {name} — {right_text} · {answered_text}"


async def settle(quiet: Callable[[], bool], seconds: float = 10.0) -> None:
    """Until ``quiet`` holds three looks in a row (the bot waits for the clock)."""
    deadline = time.monotonic() + seconds
    calm = 0
    while calm < 3:
        await asyncio.sleep(0.005)
        calm = calm + 1 if quiet() else 0
        assert time.monotonic() < deadline, "the bot did not settle"


async def run_until(
    clock: ManualClock,
    target: datetime,
    quiet: Callable[[], bool],
    next_due: Callable[[], Awaitable[datetime | None]],
) -> None:
    """Let time run to ``target``, what falls due on the way happening when it falls due: the
    clock stops at every job's due time (``next_due``), and at least every :data:`STEP`."""
    await settle(quiet)
    while clock() < target:
        step = min(target, clock() + STEP)
        due = await next_due()
        if due is not None and clock() < due < step:
            step = due
        clock.advance((step - clock()).total_seconds())
        await settle(quiet)
