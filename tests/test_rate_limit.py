"""Per-user command rate limiting."""

from __future__ import annotations

from bot.rate_limit import MAX_TRACKED, CommandRateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_one_notice_then_silence_until_refilled():
    clock = Clock()
    limiter = CommandRateLimiter(per_second=0.5, burst=3, clock=clock)
    decisions = [limiter.check("telegram", "spammer") for _ in range(6)]
    assert [d.allowed for d in decisions] == [True, True, True, False, False, False]
    assert [d.notify for d in decisions] == [False, False, False, True, False, False]
    assert limiter.check("telegram", "someone-else").allowed  # others are unaffected
    clock.now += 2.0  # one token back
    assert limiter.check("telegram", "spammer").allowed
    assert limiter.check("telegram", "spammer").notify


def test_memory_stays_bounded_by_forgetting_idle_users():
    clock = Clock()
    limiter = CommandRateLimiter(per_second=1.0, burst=2, clock=clock)
    for n in range(MAX_TRACKED):
        limiter.check("discord", str(n))
    clock.now += 10  # everyone's bucket has refilled
    limiter.check("discord", "newcomer")
    assert len(limiter._buckets) == 1
