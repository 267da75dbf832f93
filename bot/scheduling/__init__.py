"""Time beside the engine: time zones, scheduled jobs on the database, and the outbox of
outgoing messages that each platform posts from (the contract: docs/scheduling.md)."""

from bot.scheduling.outbox import (
    Delivery,
    OutboxPoster,
    PosterTiming,
    Sender,
    SendResult,
    recipient_language,
)
from bot.scheduling.reachability import Reachability
from bot.scheduling.scheduler import JobHandler, JobOutcome, JobRun, Scheduler, SchedulerTiming
from bot.scheduling.scheduling import Scheduling
from bot.scheduling.timezones import Place, TimeZones
from bot.storage.scheduling import Job, NewJob, NewMessage, OutgoingMessage

__all__ = [
    "Delivery",
    "Job",
    "JobHandler",
    "JobOutcome",
    "JobRun",
    "NewJob",
    "NewMessage",
    "OutboxPoster",
    "OutgoingMessage",
    "Place",
    "PosterTiming",
    "Reachability",
    "Scheduler",
    "SchedulerTiming",
    "Scheduling",
    "SendResult",
    "Sender",
    "TimeZones",
    "recipient_language",
]
