"""Per-user command rate limiting, so that one user spamming commands cannot push the bot over
a platform's sending limits (which are per bot, shared by everyone)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_TRACKED = 10_000


@dataclass
class _Bucket:
    tokens: float
    updated: float
    warned: bool = False


@dataclass(frozen=True)
class Decision:
    allowed: bool
    notify: bool  # refused, and the user has not been told since their last allowed command


class CommandRateLimiter:
    """A token bucket per user: ``burst`` commands at once, refilled at ``per_second``.

    A refused user is told once (``notify``) and then ignored until the bucket refills, so the
    limiter itself never becomes a source of messages.
    """

    def __init__(
        self,
        per_second: float = 0.5,
        burst: int = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self._buckets: dict[tuple[str, str], _Bucket] = {}

    def check(self, platform: str, user_id: str) -> Decision:
        """Take one command from the user's bucket if there is one."""
        now = self.clock()
        key = (platform, user_id)
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED:
                self._forget_idle(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.per_second)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.warned = False
            return Decision(True, False)
        notify = not bucket.warned
        bucket.warned = True
        return Decision(False, notify)

    def _forget_idle(self, now: float) -> None:
        """Drop users whose bucket has refilled: they are indistinguishable from new ones."""
        full_after = self.burst / self.per_second
        self._buckets = {
            key: bucket
            for key, bucket in self._buckets.items()
            if now - bucket.updated < full_after
        }
