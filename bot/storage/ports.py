"""The narrow storage interfaces (ports) the engine's parts depend on.

:class:`AttemptStore`: users, their attempts and answers, review schedules and summaries.
:class:`RoundStore`: group rounds, the leases that let one process drive each, and the
outbox of what a round still owes its chat. :class:`KeyValueStore`: small named values.
:class:`~bot.storage.base.Storage` is all three plus the connection's lifecycle; each
backend implements it. A part that needs only one port can be typed (and faked) by it alone.

The methods are abstract, so a class that derives from a port explicitly must implement
them all; a class that merely has them satisfies the protocol structurally.
"""

from __future__ import annotations

import abc
from datetime import datetime
from typing import Protocol

from bot.storage.records import (
    AnswerRecord,
    AnswerState,
    AttemptRecord,
    AttemptStatus,
    AttemptSummary,
    ExpectedState,
    NewAttempt,
    NewRound,
    OutboxEntry,
    ReviewItem,
    RoundAnswer,
    RoundKind,
    RoundProgress,
    RoundRecord,
    RoundStatus,
    UserRecord,
)


class AttemptStore(Protocol):
    """Users, attempts and answers.

    Every write method returns only after its change is committed, so whatever the engine
    acknowledges to a user survives a crash. Uniqueness (one answer per question, one active
    attempt per user and quiz) is enforced by the database, not by the caller.
    """

    @abc.abstractmethod
    async def get_user(self, platform: str, user_id: str) -> UserRecord | None: ...

    @abc.abstractmethod
    async def touch_user(self, platform: str, user_id: str, display_name: str | None) -> None:
        """Create the user if new, and remember their display name when given."""

    @abc.abstractmethod
    async def set_language(self, platform: str, user_id: str, language: str | None) -> None:
        """Remember the user's explicit language choice (None forgets it)."""

    @abc.abstractmethod
    async def create_attempt(self, new: NewAttempt) -> tuple[AttemptRecord, bool]:
        """Create an active attempt, or return the user's active one for that quiz.

        Returns the attempt and whether it was created now.
        """

    @abc.abstractmethod
    async def get_attempt(self, attempt_id: int) -> AttemptRecord | None: ...

    @abc.abstractmethod
    async def active_attempts(self, platform: str, user_id: str) -> list[AttemptRecord]:
        """The user's active attempts, most recently used first."""

    @abc.abstractmethod
    async def answers(self, attempt_id: int) -> list[AnswerRecord]:
        """The attempt's answers in the order they were given."""

    @abc.abstractmethod
    async def record_answer(
        self,
        answer: AnswerRecord,
        *,
        finishes: bool,
        review: ReviewItem | None = None,
        expected: ExpectedState | None = None,
    ) -> tuple[AnswerRecord, bool]:
        """Store an answer unless the question already has one.

        Returns the answer the database holds and whether it is this one (stored now). In the
        same transaction, only when it is stored: with ``finishes`` the attempt is marked
        completed, and ``review`` updates the question's review card (box 0 removes it).

        With ``expected``, the answer is stored only while the attempt is active and the
        database still holds what ``expected`` says; otherwise, unless the question already
        has an answer (returned as above), :class:`~bot.storage.base.StateChanged` is raised.
        All of it is one statement or one transaction, so it costs one round trip.
        """

    async def answer_state(self, attempt_id: int, platform: str, user_id: str) -> AnswerState:
        """The attempt, the answering user, the attempt's answers and that user's review
        schedule for its quiz. Backends override this to read it all in one round trip."""
        attempt = await self.get_attempt(attempt_id)
        if attempt is None:
            return AnswerState(None, await self.get_user(platform, user_id), [], [])
        return AnswerState(
            attempt,
            await self.get_user(platform, user_id),
            await self.answers(attempt_id),
            await self.review_items(platform, user_id, attempt.quiz_id),
        )

    @abc.abstractmethod
    async def finish_attempt(self, attempt_id: int, status: AttemptStatus, at: datetime) -> bool:
        """Close an active attempt; False when it was not active."""

    @abc.abstractmethod
    async def attempt_summaries(self, platform: str, user_id: str) -> list[AttemptSummary]:
        """All of the user's attempts with their answer counts, oldest first."""

    @abc.abstractmethod
    async def attempts_for_quiz(self, quiz_id: str | None) -> list[AttemptRecord]:
        """Every attempt at ``quiz_id`` (every quiz when None), oldest first."""

    @abc.abstractmethod
    async def answers_for_quiz(self, quiz_id: str | None) -> list[AnswerRecord]:
        """Every answer in attempts at ``quiz_id`` (every quiz when None), in answer order."""

    @abc.abstractmethod
    async def review_items(
        self, platform: str, user_id: str, quiz_id: str | None = None
    ) -> list[ReviewItem]:
        """The user's review schedule (of one quiz, or all), soonest due first."""

    @abc.abstractmethod
    async def quiz_summaries(self, quiz_id: str) -> list[AttemptSummary]:
        """Every attempt at the quiz (all users) with its answer counts, oldest first."""


class RoundStore(Protocol):
    """Group rounds, their leases (which process drives a round) and their outbox (what a
    round still owes its chat), which together let several processes share rounds."""

    # -- rounds -----------------------------------------------------------------------------

    @abc.abstractmethod
    async def create_round(self, new: NewRound) -> tuple[RoundRecord, bool]:
        """Start a round at question 1, or return the chat's active round of the same kind
        (created=False)."""

    @abc.abstractmethod
    async def get_round(self, round_id: int) -> RoundRecord | None: ...

    @abc.abstractmethod
    async def round_press(
        self, round_id: int, platform: str, user_id: str
    ) -> tuple[RoundRecord | None, UserRecord | None]:
        """The round and the user pressing one of its buttons, read together in one round
        trip (one snapshot)."""

    @abc.abstractmethod
    async def round_with_answers(
        self, round_id: int
    ) -> tuple[RoundRecord | None, list[RoundAnswer]]:
        """The round and all its answers (in :meth:`round_answers`' order), read together in
        one round trip (one snapshot); no answers when there is no such round."""

    @abc.abstractmethod
    async def active_round(
        self, platform: str, chat_id: str, kind: RoundKind = RoundKind.GROUP
    ) -> RoundRecord | None:
        """The chat's active round of ``kind`` (a group round, unless asked otherwise)."""

    @abc.abstractmethod
    async def rounds_due(self, now: datetime) -> list[RoundRecord]:
        """Active rounds whose open question's deadline has passed."""

    @abc.abstractmethod
    async def record_round_answer(
        self, answer: RoundAnswer
    ) -> tuple[RoundAnswer, bool, RoundProgress]:
        """Store a member's first answer to the round's open question.

        Returns the stored answer, whether it is this one, and how question ``answer.number``
        stands right after (this answer included), all in one round trip (on PostgreSQL one
        statement, whose counts can miss an answer another member's press commits while it
        runs). Refused
        (``StorageError``) when the round is not active at that question any more: the
        database decides, so an answer racing the question's close is either counted or
        refused, never half-counted.
        """

    @abc.abstractmethod
    async def round_answers(self, round_id: int) -> list[RoundAnswer]:
        """Every answer of the round, by question then arrival (then member id, for ties)."""

    @abc.abstractmethod
    async def end_round(
        self, round_id: int, status: RoundStatus, at: datetime, number: int | None = None
    ) -> bool:
        """Finish or stop an active round (only at question ``number`` when given).

        In the same transaction the outbox gets a ``history`` entry (at the round's current
        question): the copy of the members' answers into their own history is owed from then.
        False, and nothing written, when the round was not active (at ``number``).
        """

    @abc.abstractmethod
    async def close_round_question(
        self,
        round_id: int,
        number: int,
        at: datetime,
        next_opens: datetime | None,
        next_deadline: datetime | None,
    ) -> tuple[OutboxEntry, ...]:
        """Close the open question ``number`` of an active round and queue what it posts.

        With ``next_opens`` the round moves to the next question (opening then, closing at
        ``next_deadline``); without, it is finished. In the same transaction the outbox gets
        a ``reveal`` entry (and, when finished, an ``end`` entry, except for a daily question,
        whose reveal is its end, and a ``history`` entry: the members' answers are owed to
        their own history). Returns the entries queued, in that
        order; an empty tuple, and nothing written, when the question was not open: exactly
        one close of a question succeeds.
        """

    # -- leases -----------------------------------------------------------------------------

    @abc.abstractmethod
    async def claim_round(self, round_id: int, owner: str, now: datetime, until: datetime) -> bool:
        """Take or renew the lease that lets ``owner`` drive the round until ``until``.

        Granted (True) when nobody holds it, ``owner`` holds it, or its holder's lease ran out
        by ``now`` (the holder died); refused while another owner's lease runs.
        """

    @abc.abstractmethod
    async def release_round(self, round_id: int, owner: str) -> None:
        """Give up the round's lease, if ``owner`` holds it."""

    @abc.abstractmethod
    async def round_lease(self, round_id: int) -> tuple[str, datetime] | None:
        """The round's lease holder and until when it holds it, if anyone ever held it."""

    # -- outbox -----------------------------------------------------------------------------

    @abc.abstractmethod
    async def unsent_outbox(self, platform: str, round_id: int | None = None) -> list[OutboxEntry]:
        """Outbox entries not yet posted (of one round, when given), oldest first."""

    @abc.abstractmethod
    async def mark_outbox_sent(self, entry_id: int, at: datetime, message_id: str | None) -> bool:
        """Record that the platform accepted the entry's post (and its message id); False
        when it was marked sent already."""

    @abc.abstractmethod
    async def outbox(self, round_id: int) -> list[OutboxEntry]:
        """Every outbox entry of the round, sent or not, oldest first."""


class KeyValueStore(Protocol):
    """Small named values, grouped by scope."""

    @abc.abstractmethod
    async def get_value(self, scope: str, key: str) -> str | None:
        """A small named value (a chat preference, a poll link, a fingerprint), if set."""

    @abc.abstractmethod
    async def set_value(self, scope: str, key: str, value: str | None) -> None:
        """Store a small named value; None deletes it."""
