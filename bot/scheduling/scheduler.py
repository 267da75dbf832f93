"""The scheduler: jobs on the database, run once each by whichever replica claims them.

A feature registers a handler per job kind (:meth:`Scheduler.register`): a plain async
function that gets the job (:class:`JobRun`), reads what it needs, and returns the messages to
post and, optionally, the job's next occurrence (:class:`JobOutcome`). The scheduler claims
due jobs for a lease, runs their handlers, and completes each claim in one transaction with
the messages (into the outbox) and the next job, only while the claim still holds: a job runs
to completion once, even when a replica dies mid-run (another takes it over when the lease
runs out) or when several replicas claim at once.

A job that was due while no process ran is run once when one comes back (a handler computes
its next occurrence from :attr:`JobRun.now`, not from the due time, so there is no catch-up
flood). A job with ``stale_after`` claimed later than that past its due time is *stale*: its
handler still runs (to say what comes next), but whatever messages it returns are dropped.

Waking: the loop sleeps until the next due time, but never longer than ``max_sleep`` seconds,
so a job another replica scheduled is seen within that; a job scheduled through this process
wakes it at once. A failing handler is retried with exponential backoff, at most ``retries``
times, then dropped (logged). All time goes through a :class:`~bot.rounds.clock.RoundClock`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.rounds.clock import RoundClock
from bot.scheduling.waking import WakingLoop
from bot.storage.scheduling import Job, NewJob, NewMessage, SchedulingStore

log = logging.getLogger("quizbot.scheduler")


@dataclass(frozen=True)
class JobRun:
    """A claimed job being run at ``now``."""

    job: Job
    now: datetime

    @property
    def late(self) -> timedelta:
        """How long after its due time it runs."""
        return max(timedelta(0), self.now - self.job.due_at)

    @property
    def stale(self) -> bool:
        """Whether it runs later than its ``stale_after`` allows: its messages are dropped."""
        window = self.job.stale_after
        return window is not None and self.late > window


@dataclass(frozen=True)
class JobOutcome:
    """What a handler decided: messages to post, and the job's next occurrence (with the
    same key it replaces the job; with another key the job is removed and that one added)."""

    messages: Sequence[NewMessage] = ()
    next_job: NewJob | None = None


JobHandler = Callable[[JobRun], Awaitable[JobOutcome]]
Listener = Callable[[], None]


@dataclass(frozen=True)
class SchedulerTiming:
    """The scheduler's pace, in seconds."""

    lease: float = 60.0  # a claimed job is this replica's this long (a run must finish in it)
    max_sleep: float = 5.0  # at most this long between looks at the database
    batch: int = 20  # jobs claimed at once
    retries: int = 5  # failed runs of one job before it is dropped
    retry_base: float = 30.0  # the first retry's delay, doubled after each failure


class Scheduler(WakingLoop):
    """Runs the jobs registered per kind, on one storage shared by every replica."""

    def __init__(
        self,
        store: SchedulingStore,
        clock: RoundClock,
        *,
        owner: str,
        timing: SchedulerTiming | None = None,
    ) -> None:
        self.timing = timing or SchedulerTiming()
        super().__init__(clock, self.timing.max_sleep, "scheduler")
        self.store = store
        self.owner = owner  # this process on claims: host, pid and a random part
        self._handlers: dict[str, JobHandler] = {}
        self._listeners: list[Listener] = []  # told when a completion queued messages
        self._chores: list[Callable[[], Awaitable[None]]] = []  # run on every wake

    # -- what features use ------------------------------------------------------------------

    def register(self, kind: str, handler: JobHandler) -> None:
        """Run ``handler`` for every job of ``kind`` (one handler per kind)."""
        if kind in self._handlers:
            raise ValueError(f"a handler for job kind {kind!r} is registered already")
        self._handlers[kind] = handler

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self._handlers)

    async def schedule(self, job: NewJob, *, replace: bool = False) -> bool:
        """Store ``job`` (see :meth:`SchedulingStore.schedule_job`); wakes the loop so an
        earlier due time is not slept past."""
        written = await self.store.schedule_job(job, self.clock(), replace=replace)
        self._wake.set()
        return written

    async def cancel(self, key_prefix: str) -> int:
        """Remove every job whose key starts with ``key_prefix``; how many."""
        return await self.store.cancel_jobs(key_prefix)

    async def get(self, key: str) -> Job | None:
        return await self.store.get_job(key)

    def on_messages(self, listener: Listener) -> None:
        """Call ``listener`` whenever a completed job queued messages (a poster wakes up)."""
        self._listeners.append(listener)

    def every_wake(self, chore: Callable[[], Awaitable[None]]) -> None:
        """Run ``chore`` each time the loop wakes (errors logged), e.g. a cache refresh."""
        self._chores.append(chore)

    # -- running ----------------------------------------------------------------------------

    async def step(self) -> int:
        return await self.run_due()

    async def next_due(self) -> datetime | None:
        return await self.store.next_job_due()

    async def chores(self) -> None:
        for chore in self._chores:
            try:
                await chore()
            except Exception:
                log.warning("a scheduler chore failed", exc_info=True)

    async def run_due(self) -> int:
        """Claim the jobs due now and run them (one batch); how many were claimed."""
        now = self.clock()
        until = now + timedelta(seconds=self.timing.lease)
        claim = f"{self.owner}:{uuid.uuid4().hex[:8]}"
        jobs = await self.store.claim_jobs(claim, now, until, self.timing.batch, self.kinds)
        if jobs:
            await asyncio.gather(*(self._run(job) for job in jobs))
        return len(jobs)

    async def _run(self, job: Job) -> None:
        run = JobRun(job, self.clock())
        try:
            async with asyncio.timeout(self.timing.lease / 2):
                outcome = await self._handlers[job.kind](run)
        except Exception as error:
            await self._failed(job, error)
            return
        messages = () if run.stale else outcome.messages
        if run.stale and outcome.messages:
            log.info("job %s is stale (%s late): its messages are dropped", job.key, run.late)
        try:
            done = await self.store.complete_job(job, self.clock(), messages, outcome.next_job)
        except Exception:
            log.warning("completing job %s failed: it runs again", job.key, exc_info=True)
            return
        if not done:
            log.info("job %s was cancelled, replaced or taken over meanwhile", job.key)
        elif messages:
            for listener in self._listeners:
                listener()

    async def _failed(self, job: Job, error: Exception) -> None:
        if job.attempts + 1 >= self.timing.retries:
            log.error("job %s failed %d times: dropped", job.key, job.attempts + 1, exc_info=error)
            retry_at = None
        else:
            delay = self.timing.retry_base * 2**job.attempts
            retry_at = self.clock() + timedelta(seconds=delay)
            log.warning("job %s failed: retried in %g s", job.key, delay, exc_info=error)
        with contextlib.suppress(Exception):
            await self.store.release_job(job, retry_at, repr(error), self.clock())
