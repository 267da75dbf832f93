"""The scheduling port: jobs due at a time, the outbox of outgoing messages, and recipients
that cannot be reached. Its records and row mappers live here too (one concept, one file).

Scheduled jobs are rows with a kind, a unique key and a due time; a replica claims due ones
for a while (a lease), runs their handler, and completes the claim together with the messages
the handler returned (written to the outbox in the same transaction) and the job's next
occurrence. Outgoing messages are rows too: a platform's poster claims unsent ones, sends them
and marks them sent (or undeliverable). See docs/scheduling.md for the whole contract.
"""

from __future__ import annotations

import abc
import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.storage.rows import Row, optional_timestamp, timestamp

Payload = Mapping[str, Any]  # JSON: plain values only (str, int, float, bool, None, lists, dicts)


@dataclass(frozen=True)
class NewJob:
    """A job to run at ``due_at`` (UTC): the handler registered for ``kind`` gets it.

    ``key`` names the job uniquely (``review-reminder:telegram:42``): scheduling a key again
    is the same job. ``stale_after``: a job claimed later than this past its due time is stale
    (its handler runs to say what comes next, and its messages are dropped, not sent late).
    """

    kind: str
    key: str
    due_at: datetime
    payload: Payload = field(default_factory=dict)
    stale_after: timedelta | None = None


@dataclass(frozen=True)
class Job:
    """A scheduled job as stored; ``claim`` is the claim a replica holds on it, if any."""

    id: int
    kind: str
    key: str
    due_at: datetime
    payload: Payload
    stale_after: timedelta | None
    attempts: int  # runs that failed so far
    claim: str | None
    claimed_until: datetime | None
    created_at: datetime


@dataclass(frozen=True)
class NewMessage:
    """A message to post once: ``kind`` says how the platform's sender renders ``payload`` (in
    the recipient's language, at send time). ``target`` is a chat (a Telegram chat id, a
    Discord channel id) or, with ``to_user``, a user to message directly. ``dedupe_key`` is
    unique: queueing the same key again is the same message."""

    platform: str
    target: str
    kind: str
    dedupe_key: str
    payload: Payload = field(default_factory=dict)
    to_user: bool = False


class MessageStatus(enum.StrEnum):
    PENDING = "pending"  # not sent yet (maybe waiting for a retry)
    SENT = "sent"  # the platform accepted it
    UNDELIVERABLE = "undeliverable"  # never sent: recipient unreachable, refused, too many tries


@dataclass(frozen=True)
class OutgoingMessage:
    """A message in the outbox. ``language`` is the recipient's chosen interface language
    (read with the claim; None for a chat, or when they chose none)."""

    id: int
    platform: str
    target: str
    to_user: bool
    kind: str
    payload: Payload
    dedupe_key: str
    status: MessageStatus
    attempts: int
    next_try_at: datetime
    created_at: datetime
    sent_at: datetime | None
    message_id: str | None
    last_error: str | None
    claim: str | None
    language: str | None = None


@dataclass(frozen=True)
class Unreachable:
    """A recipient the platform refused to deliver to (blocked the bot, left, deleted)."""

    platform: str
    target: str
    to_user: bool
    reason: str
    marked_at: datetime


class SchedulingStore(Protocol):
    """Scheduled jobs, the outbox of outgoing messages and unreachable recipients.

    Claims are leases: whoever claims a job or a message holds it until ``until``; after that
    another replica may claim it again (the holder died). Completing a job is conditioned on
    still holding its claim, so a job whose claim was taken over completes once.
    """

    # -- jobs -------------------------------------------------------------------------------

    @abc.abstractmethod
    async def schedule_job(self, job: NewJob, now: datetime, *, replace: bool = False) -> bool:
        """Store ``job``. When its key is scheduled already: with ``replace`` the job takes
        the new kind, time and payload (a claim on the old one is void: its completion is
        refused), else nothing changes. Whether anything was written."""

    @abc.abstractmethod
    async def get_job(self, key: str) -> Job | None:
        """The job scheduled under ``key``, if any (a job is gone once completed)."""

    @abc.abstractmethod
    async def cancel_jobs(self, key_prefix: str) -> int:
        """Remove every job whose key starts with ``key_prefix`` (claimed ones too: their
        completion is then refused); how many."""

    @abc.abstractmethod
    async def next_job_due(self) -> datetime | None:
        """The earliest due time of a job nobody holds a live claim on (None: no jobs)."""

    @abc.abstractmethod
    async def claim_jobs(
        self,
        claim: str,
        now: datetime,
        until: datetime,
        limit: int,
        kinds: Sequence[str] | None = None,
    ) -> list[Job]:
        """Claim up to ``limit`` jobs due by ``now`` that nobody holds (or whose claim ran out),
        earliest first, for ``claim`` until ``until`` (only of ``kinds``, when given: a
        process leaves the kinds it has no handler for to one that has). Replicas claiming
        together get different jobs."""

    @abc.abstractmethod
    async def complete_job(
        self,
        job: Job,
        now: datetime,
        messages: Sequence[NewMessage] = (),
        next_job: NewJob | None = None,
    ) -> bool:
        """Finish a claimed job in one transaction: queue ``messages`` (a dedupe key already
        queued is skipped), and remove the job, or, with ``next_job``, schedule that
        (replacing the job when it has the same key). Only while ``job.claim`` still holds
        the job; False, and nothing written, otherwise."""

    @abc.abstractmethod
    async def release_job(
        self, job: Job, retry_at: datetime | None, error: str, now: datetime
    ) -> bool:
        """A claimed job's run failed: run it again at ``retry_at`` (its attempts counted), or
        with None drop it. Only while ``job.claim`` still holds it."""

    # -- outgoing messages ------------------------------------------------------------------

    @abc.abstractmethod
    async def queue_messages(self, messages: Sequence[NewMessage], now: datetime) -> int:
        """Put messages in the outbox to post now (dedupe keys already queued are skipped);
        how many were new."""

    @abc.abstractmethod
    async def next_message_due(self, platform: str) -> datetime | None:
        """When the platform's next pending message may be tried (None: nothing pending)."""

    @abc.abstractmethod
    async def claim_messages(
        self,
        platform: str,
        kinds: Sequence[str],
        claim: str,
        now: datetime,
        until: datetime,
        limit: int,
        per_target: int,
    ) -> list[OutgoingMessage]:
        """Claim pending messages of ``kinds`` due by ``now``, oldest first: at most
        ``limit``, and at most ``per_target`` to one recipient. In the same transaction the
        due messages to unreachable recipients are marked undeliverable (not sent)."""

    @abc.abstractmethod
    async def mark_message_sent(
        self, message: OutgoingMessage, at: datetime, message_id: str | None
    ) -> bool:
        """The platform accepted ``message``: sent, with the platform's message id. False
        when it was marked sent (or undeliverable) already."""

    @abc.abstractmethod
    async def retry_message(self, message: OutgoingMessage, retry_at: datetime, error: str) -> bool:
        """Sending failed for now: try again at ``retry_at`` (its attempts counted). Only
        while ``message.claim`` holds it."""

    @abc.abstractmethod
    async def mark_message_undeliverable(
        self, message: OutgoingMessage, at: datetime, error: str
    ) -> bool:
        """Never send ``message`` (refused for good, or too many tries)."""

    @abc.abstractmethod
    async def outgoing_messages(self, dedupe_prefix: str = "") -> list[OutgoingMessage]:
        """Every message whose dedupe key starts with ``dedupe_prefix``, oldest first."""

    # -- unreachable recipients -------------------------------------------------------------

    @abc.abstractmethod
    async def mark_unreachable(
        self, platform: str, target: str, to_user: bool, reason: str, at: datetime
    ) -> None:
        """Remember that the platform refused to deliver to this recipient."""

    @abc.abstractmethod
    async def clear_unreachable(self, platform: str, target: str, to_user: bool) -> bool:
        """Forget the mark (the recipient talked to the bot again); whether there was one."""

    @abc.abstractmethod
    async def unreachable(self, since: datetime | None = None) -> list[Unreachable]:
        """The recipients marked unreachable (marked at ``since`` or later, when given)."""


# -- rows to records ----------------------------------------------------------------------


def _payload(value: Any) -> Payload:
    loaded = json.loads(value) if isinstance(value, str) else value
    return dict(loaded)


def payload_json(payload: Payload) -> str:
    """A payload as stored: compact JSON (refusing what is not a plain value)."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, allow_nan=False)


def job_from(row: Row) -> Job:
    seconds = row["stale_after_seconds"]
    return Job(
        id=row["id"],
        kind=row["kind"],
        key=row["job_key"],
        due_at=timestamp(row["due_at"]),
        payload=_payload(row["payload"]),
        stale_after=None if seconds is None else timedelta(seconds=seconds),
        attempts=row["attempts"],
        claim=row["claimed_by"],
        claimed_until=optional_timestamp(row["claimed_until"]),
        created_at=timestamp(row["created_at"]),
    )


def message_from(row: Row, language: str | None = None) -> OutgoingMessage:
    return OutgoingMessage(
        id=row["id"],
        platform=row["platform"],
        target=row["target"],
        to_user=bool(row["to_user"]),
        kind=row["kind"],
        payload=_payload(row["payload"]),
        dedupe_key=row["dedupe_key"],
        status=MessageStatus(row["status"]),
        attempts=row["attempts"],
        next_try_at=timestamp(row["next_try_at"]),
        created_at=timestamp(row["created_at"]),
        sent_at=optional_timestamp(row["sent_at"]),
        message_id=row["message_id"],
        last_error=row["last_error"],
        claim=row["claimed_by"],
        language=language,
    )


def unreachable_from(row: Row) -> Unreachable:
    return Unreachable(
        platform=row["platform"],
        target=row["target"],
        to_user=bool(row["to_user"]),
        reason=row["reason"],
        marked_at=timestamp(row["marked_at"]),
    )


def stale_seconds(job: NewJob) -> int | None:
    """A job's staleness window as stored (whole seconds)."""
    return None if job.stale_after is None else int(job.stale_after.total_seconds())


def like_prefix(prefix: str) -> str:
    """A LIKE pattern matching strings that start with ``prefix`` (``ESCAPE '\\'``)."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
