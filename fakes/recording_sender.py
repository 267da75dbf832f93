"""An outbox :class:`~bot.scheduling.Sender` that keeps what it is asked to send, for tests of
the scheduler and the outbox without a platform: it answers as told per recipient."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.scheduling import OutgoingMessage, SendResult


@dataclass
class RecordingSender:
    """Sends nothing; records ``(message, language)`` and answers ``SendResult.sent`` unless a
    recipient is listed in ``answers`` (``(target, to_user)`` -> the results to give in turn;
    the last one repeats)."""

    platform: str = "chat"
    known: Sequence[str] = ("note",)
    sent: list[tuple[OutgoingMessage, str]] = field(default_factory=list)
    tries: list[OutgoingMessage] = field(default_factory=list)
    answers: dict[tuple[str, bool], list[SendResult]] = field(default_factory=dict)

    def kinds(self) -> Sequence[str]:
        return self.known

    async def send(self, message: OutgoingMessage, language: str) -> SendResult:
        self.tries.append(message)
        queued = self.answers.get((message.target, message.to_user))
        if queued:
            result = queued.pop(0) if len(queued) > 1 else queued[0]
            if result.delivery.value != "sent":
                return result
        self.sent.append((message, language))
        return SendResult.sent(len(self.sent))

    def texts(self) -> list[str]:
        """The ``text`` of every message sent, in order."""
        return [str(message.payload.get("text")) for message, _ in self.sent]
