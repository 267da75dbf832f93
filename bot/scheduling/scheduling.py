"""What the features beside the engine share for time, built once by the wiring."""

from __future__ import annotations

from bot.rounds.clock import RoundClock
from bot.rounds.driver import default_owner
from bot.scheduling.outbox import OutboxPoster, PosterTiming, Sender
from bot.scheduling.reachability import Reachability
from bot.scheduling.scheduler import Scheduler, SchedulerTiming
from bot.scheduling.timezones import TimeZones
from bot.storage import Storage


class Scheduling:
    """The time zones, the scheduler, the unreachable marks and a poster per platform, on one
    storage and one clock. :class:`~bot.services.Services` builds it; each adapter makes its
    poster with :meth:`poster` and starts it with itself; the runner starts
    :attr:`scheduler`."""

    def __init__(
        self,
        storage: Storage,
        clock: RoundClock,
        *,
        owner: str | None = None,
        scheduler_timing: SchedulerTiming | None = None,
        poster_timing: PosterTiming | None = None,
    ) -> None:
        """``scheduler_timing`` and ``poster_timing``: the paces (see :meth:`leased` for
        both from one claim lease)."""
        self.storage = storage
        self.clock = clock
        self.owner = owner or default_owner()
        self.timezones = TimeZones(storage)
        self.reachability = Reachability(storage, clock)
        self.scheduler = Scheduler(storage, clock, owner=self.owner, timing=scheduler_timing)
        self.scheduler.every_wake(self.reachability.refresh)
        self.poster_timing = poster_timing
        self.posters: list[OutboxPoster] = []

    @classmethod
    def leased(cls, storage: Storage, clock: RoundClock, lease: float) -> Scheduling:
        """Jobs and outgoing messages claimed for ``lease`` seconds (``CLAIM_LEASE_SECONDS``):
        a run and a send each get half of it, and a send is not started in its last sixth."""
        return cls(
            storage,
            clock,
            scheduler_timing=SchedulerTiming(lease=lease),
            poster_timing=PosterTiming(lease=lease, send_timeout=lease / 2, margin=lease / 6),
        )

    def poster(self, sender: Sender) -> OutboxPoster:
        """A poster of ``sender``'s platform, woken whenever a job queues messages."""
        poster = OutboxPoster(
            self.storage,
            sender,
            self.clock,
            self.reachability,
            owner=self.owner,
            timing=self.poster_timing,
        )
        self.scheduler.on_messages(poster.wake)
        self.posters.append(poster)
        return poster

    def settled(self) -> bool:
        """Whether the scheduler and every started poster wait for the clock (tests)."""
        return self.scheduler.settled() and all(p.settled() for p in self.posters)
