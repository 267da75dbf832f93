"""The engine and everything that runs beside it, built once on one storage and one clock.

:class:`Services` is what ``quizbot/bootstrap.py`` builds for a process, what the runner hands
whole to each adapter, and what tests and benchmarks build the same way
(:meth:`Services.build`). Adapters never build a service: they take this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from bot.assignments import Assignments
from bot.assignments.reminders import DEFAULT_REMINDERS
from bot.daily.service import DailyQuestions
from bot.engine import QuizEngine
from bot.leaderboard_periods import PeriodLeaderboards
from bot.review_reminders import ReviewReminders
from bot.rounds import GroupRounds, RoundClock, SystemClock
from bot.scheduling import Scheduling
from bot.scheduling.scheduler import SchedulerTiming
from bot.storage import Storage

DEFAULT_CLAIM_LEASE = SchedulerTiming.lease  # seconds (CLAIM_LEASE_SECONDS)


@dataclass(frozen=True)
class Services:
    """The quiz engine and the services beside it: group rounds, time (zones, the scheduler,
    the outbox), review reminders, assignments, daily questions and leaderboards over a
    period. Every one is always present."""

    engine: QuizEngine
    rounds: GroupRounds
    scheduling: Scheduling
    reminders: ReviewReminders
    assignments: Assignments
    daily: DailyQuestions
    leaderboards: PeriodLeaderboards

    @classmethod
    def build(
        cls,
        engine: QuizEngine,
        storage: Storage,
        *,
        clock: RoundClock | None = None,
        claim_lease: float = DEFAULT_CLAIM_LEASE,
        assignment_reminders: Sequence[timedelta] = DEFAULT_REMINDERS,
    ) -> Services:
        """Everything beside ``engine``, on its ``storage``.

        ``clock``: time as rounds, the scheduler and the outbox see it (default: the
        engine's, on asyncio's timers; tests give the engine's ManualClock). ``claim_lease``:
        how long a replica holds a job or an outgoing message it claimed
        (``CLAIM_LEASE_SECONDS``); ``assignment_reminders``: how long before a deadline its
        reminders go out (``ASSIGNMENT_REMINDERS``). Each feature registers its job kinds on
        the scheduler here, once.
        """
        rounds = GroupRounds(engine, storage)
        scheduling = Scheduling.leased(storage, clock or SystemClock(engine.clock), claim_lease)
        return cls(
            engine=engine,
            rounds=rounds,
            scheduling=scheduling,
            reminders=ReviewReminders(engine, scheduling),
            assignments=Assignments(engine, scheduling, reminders=assignment_reminders),
            daily=DailyQuestions(rounds, scheduling),  # (its reveals' streaks go to the rounds)
            leaderboards=PeriodLeaderboards(engine, storage, scheduling.timezones),
        )

    @property
    def clock(self) -> RoundClock:
        """Time as the services beside the engine see it (the scheduling's)."""
        return self.scheduling.clock
