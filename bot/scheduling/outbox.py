"""Posting the outbox: every outgoing message is a row, sent once by whichever replica claims it.

Each platform adapter implements a :class:`Sender` (``adapters/<platform>/outbox_sender.py``):
it renders a message of a kind it knows in the recipient's language and sends it, and says
how that went (:class:`SendResult`). An :class:`OutboxPoster` per platform claims the
platform's pending messages for a lease, a few per recipient, sends them (each recipient's in
order, recipients side by side), and records the outcome:

- sent: marked sent with the platform's message id;
- the recipient cannot be reached (blocked the bot, never started it, left): the recipient is
  marked unreachable (:class:`~bot.scheduling.reachability.Reachability`), this message and
  that recipient's other due ones are undeliverable, and nothing is tried for them again until
  they talk to the bot;
- refused for good (the platform says the message itself is wrong): undeliverable;
- anything else: tried again later with exponential backoff (or the platform's
  ``retry_after``), at most ``max_attempts`` times, then undeliverable.

A message is sent once: a replica killed between the platform's reply and marking it sent
leaves it claimed until the lease runs out, and then another replica sends it again. Discord
drops that repeat (the message's nonce, from its id); Telegram has no such key, so there the
repeat shows (the window docs/replicas.md documents). Pacing is the sender's: Telegram's
messages go through python-telegram-bot's rate limiter, Discord's direct messages through a
limiter of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, resolve_language
from bot.rounds.clock import RoundClock
from bot.scheduling.reachability import Reachability
from bot.scheduling.waking import WakingLoop
from bot.storage.scheduling import OutgoingMessage, SchedulingStore

log = logging.getLogger("quizbot.outbox")


class Delivery(enum.Enum):
    SENT = "sent"
    UNREACHABLE = "unreachable"  # the recipient blocked the bot, left, never started it
    REFUSED = "refused"  # this message can never be sent (bad request)
    RETRY = "retry"  # a hiccup: try again later


@dataclass(frozen=True)
class SendResult:
    """How sending one message went (see the constructors)."""

    delivery: Delivery
    message_id: str | None = None
    error: str = ""
    retry_after: float | None = None  # seconds the platform asked to wait

    @classmethod
    def sent(cls, message_id: str | int | None) -> SendResult:
        return cls(Delivery.SENT, None if message_id is None else str(message_id))

    @classmethod
    def unreachable(cls, error: str) -> SendResult:
        return cls(Delivery.UNREACHABLE, error=error)

    @classmethod
    def refused(cls, error: str) -> SendResult:
        return cls(Delivery.REFUSED, error=error)

    @classmethod
    def retry(cls, error: str, after: float | None = None) -> SendResult:
        return cls(Delivery.RETRY, error=error, retry_after=after)


class Sender(Protocol):
    """One platform's way of posting outbox messages (implemented by each adapter)."""

    platform: str

    def kinds(self) -> Sequence[str]:
        """The message kinds this sender can render (others are left for a process that can)."""

    async def send(self, message: OutgoingMessage, language: str) -> SendResult:
        """Render ``message`` in ``language`` and send it; never raises for a platform's
        refusal (an unexpected exception counts as :meth:`SendResult.retry`)."""


def recipient_language(message: OutgoingMessage) -> str:
    """The language to render ``message`` in, decided at send time: the recipient's own
    choice (for a user), else the ``language`` the payload suggests (the chat's, or the
    platform's language of the user when the message was made), else English."""
    hint = message.payload.get("language")
    tag = hint if isinstance(hint, str) else None
    return resolve_language(message.language, tag, SUPPORTED_LANGUAGES, DEFAULT_LANGUAGE)


@dataclass(frozen=True)
class PosterTiming:
    """An outbox poster's pace, in seconds (counts are messages)."""

    lease: float = 60.0  # a claimed message is this replica's this long
    send_timeout: float = 30.0  # one send, waiting for the rate limiter included
    max_sleep: float = 5.0  # at most this long between looks at the database
    batch: int = 100  # messages claimed at once
    per_target: int = 3  # of them, at most this many to one recipient
    concurrency: int = 50  # recipients sent to side by side
    max_attempts: int = 8  # tries of one message before it is undeliverable
    retry_base: float = 10.0  # the first retry's delay, doubled after each failure
    margin: float = 10.0  # a claim with less than this left is not used for a send


class OutboxPoster(WakingLoop):
    """Posts one platform's outbox through its :class:`Sender`, in the background."""

    def __init__(
        self,
        store: SchedulingStore,
        sender: Sender,
        clock: RoundClock,
        reachability: Reachability,
        *,
        owner: str,
        timing: PosterTiming | None = None,
    ) -> None:
        self.timing = timing or PosterTiming()
        super().__init__(clock, self.timing.max_sleep, f"{sender.platform}-outbox")
        self.store = store
        self.sender = sender
        self.platform = sender.platform
        self.reachability = reachability
        self.owner = owner

    async def step(self) -> int:
        return await self.post_due()

    async def next_due(self) -> datetime | None:
        return await self.store.next_message_due(self.platform)

    async def post_due(self) -> int:
        """Claim the messages due now and send them (one batch); how many were claimed."""
        timing, now = self.timing, self.clock()
        claim = f"{self.owner}:{uuid.uuid4().hex[:8]}"
        until = now + timedelta(seconds=timing.lease)
        messages = await self.store.claim_messages(
            self.platform,
            self.sender.kinds(),
            claim,
            now,
            until,
            timing.batch,
            timing.per_target,
        )
        by_recipient: dict[tuple[str, bool], list[OutgoingMessage]] = {}
        for message in messages:
            by_recipient.setdefault((message.target, message.to_user), []).append(message)
        gate = asyncio.Semaphore(timing.concurrency)
        await asyncio.gather(
            *(self._post_to(queue, until, gate) for queue in by_recipient.values())
        )
        return len(messages)

    async def _post_to(
        self, queue: list[OutgoingMessage], until: datetime, gate: asyncio.Semaphore
    ) -> None:
        """One recipient's messages, in order; after an unreachable one, none of the rest."""
        margin = timedelta(seconds=self.timing.margin)
        async with gate:
            for number, message in enumerate(queue):
                if self.clock() > until - margin:
                    return  # the claim is nearly over: another replica may take these
                try:
                    result = await self._send(message)
                    await self._record(message, result)
                except Exception:
                    log.warning(
                        "%s: recording message %s failed", self.platform, message.id, exc_info=True
                    )
                    continue
                if result.delivery is Delivery.UNREACHABLE:
                    for rest in queue[number + 1 :]:
                        with contextlib.suppress(Exception):
                            await self.store.mark_message_undeliverable(
                                rest, self.clock(), f"recipient unreachable: {result.error}"
                            )
                    return

    async def _send(self, message: OutgoingMessage) -> SendResult:
        try:
            async with asyncio.timeout(self.timing.send_timeout):
                return await self.sender.send(message, recipient_language(message))
        except Exception as error:  # a bug or an unexpected platform error: retried, bounded
            log.warning("%s: sending message %s failed", self.platform, message.id, exc_info=True)
            return SendResult.retry(repr(error))

    async def _record(self, message: OutgoingMessage, result: SendResult) -> None:
        store, now = self.store, self.clock()
        match result.delivery:
            case Delivery.SENT:
                await store.mark_message_sent(message, now, result.message_id)
            case Delivery.UNREACHABLE:
                await self.reachability.mark(
                    self.platform, message.target, message.to_user, result.error
                )
                await store.mark_message_undeliverable(message, now, result.error)
            case Delivery.REFUSED:
                log.warning("%s: message %s refused: %s", self.platform, message.id, result.error)
                await store.mark_message_undeliverable(message, now, result.error)
            case Delivery.RETRY:
                await self._retry(message, result)

    async def _retry(self, message: OutgoingMessage, result: SendResult) -> None:
        tries = message.attempts + 1
        now = self.clock()
        if tries >= self.timing.max_attempts:
            error = f"gave up after {tries} tries: {result.error}"
            await self.store.mark_message_undeliverable(message, now, error)
            return
        delay = self.timing.retry_base * 2**message.attempts
        if result.retry_after is not None:
            delay = max(delay, result.retry_after)
        await self.store.retry_message(message, now + timedelta(seconds=delay), result.error)
