"""Plain records that cross the storage interface."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime


class AttemptKind(enum.StrEnum):
    QUIZ = "quiz"  # a run through a quiz: counts for scores and statistics
    REVIEW = "review"  # spaced-repetition practice of missed questions: does not
    ROUND = "round"  # a member's share of a group round: counts as their own play
    # A member's answer to a chat's daily question: counts on the chat's leaderboards and
    # in reviews, not as a run through the quiz (progress, best scores, statistics).
    DAILY = "daily"


class AttemptStatus(enum.StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    ABANDONED = "abandoned"


@dataclass(frozen=True)
class UserRecord:
    """A user of one platform, with the language they chose (None: not chosen)."""

    platform: str
    user_id: str
    display_name: str | None
    language: str | None


@dataclass(frozen=True)
class NewAttempt:
    """An attempt about to be created, with the question and option order fixed for it."""

    platform: str
    user_id: str
    chat_id: str | None
    quiz_id: str
    question_order: tuple[str, ...]
    option_order: Mapping[str, tuple[str, ...]]
    started_at: datetime
    kind: AttemptKind = AttemptKind.QUIZ
    quiz_version: int = 1  # the library version it plays, to its end


@dataclass(frozen=True)
class AttemptRecord:
    """One user's attempt at one quiz."""

    id: int
    platform: str
    user_id: str
    chat_id: str | None
    quiz_id: str
    question_order: tuple[str, ...]
    option_order: Mapping[str, tuple[str, ...]]
    status: AttemptStatus
    started_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    kind: AttemptKind = AttemptKind.QUIZ
    quiz_version: int = 1  # the library version it plays, to its end


@dataclass(frozen=True)
class AnswerRecord:
    """The one answer an attempt holds for a question."""

    attempt_id: int
    question_id: str
    option_id: str
    correct: bool
    answered_at: datetime


@dataclass(frozen=True)
class AttemptSummary:
    """An attempt with its answer counts, for progress and history."""

    attempt: AttemptRecord
    answered: int
    correct: int


@dataclass(frozen=True)
class AnswerState:
    """What answering a question in an attempt reads first, read together in one snapshot."""

    attempt: AttemptRecord | None
    user: UserRecord | None  # the answering user (not necessarily the attempt's owner)
    answers: list[AnswerRecord]  # the attempt's, in the order given
    review: list[ReviewItem]  # the answering user's schedule for the attempt's quiz


@dataclass(frozen=True)
class ExpectedState:
    """What a decision to record an answer assumed about the database (from an
    :class:`AnswerState`, possibly one remembered from an earlier answer).

    A write made with it happens only while all of it still holds; otherwise the backend
    raises :class:`~bot.storage.base.StateChanged` and the engine reads afresh and decides
    again.
    """

    answered: int  # the attempt's answers so far; the new one becomes number ``answered``
    platform: str  # the answering user
    user_id: str
    language: str | None  # that user's chosen language
    quiz_id: str
    review: ReviewItem | None  # the user's schedule entry for the question being answered


@dataclass(frozen=True)
class ReviewItem:
    """A question a user is due to practise again: an FSRS card (see :mod:`bot.review`)."""

    platform: str
    user_id: str
    quiz_id: str
    question_id: str
    box: int  # the card's FSRS state (1 learning, 2 review, 3 relearning); 0 in an update: remove
    due_at: datetime
    card: str | None = None  # the card's memory as JSON (stability, difficulty, step, last review)


class RoundStatus(enum.StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    STOPPED = "stopped"


class RoundKind(enum.StrEnum):
    """A chat can have one active round of each kind at once."""

    GROUP = "group"  # started by a member, question after question against a countdown
    DAILY = "daily"  # the chat's daily question: one question, open for hours


@dataclass(frozen=True)
class NewRound:
    """A group round about to start in a chat: one quiz played together, question by question."""

    platform: str
    chat_id: str
    quiz_id: str
    starter_id: str
    language: str
    question_order: tuple[str, ...]
    option_order: Mapping[str, tuple[str, ...]]
    time_limit_seconds: int
    started_at: datetime
    quiz_version: int = 1  # the library version it plays, to its end
    kind: RoundKind = RoundKind.GROUP
    time_zone: str | None = None  # the IANA zone its times are shown in (daily questions)


@dataclass(frozen=True)
class RoundRecord:
    """A group round; ``current`` is the 1-based number of the open (or last) question."""

    id: int
    platform: str
    chat_id: str
    quiz_id: str
    starter_id: str
    language: str
    question_order: tuple[str, ...]
    option_order: Mapping[str, tuple[str, ...]]
    time_limit_seconds: int
    status: RoundStatus
    current: int
    question_started_at: datetime
    deadline: datetime
    started_at: datetime
    finished_at: datetime | None
    quiz_version: int = 1  # the library version it plays, to its end
    kind: RoundKind = RoundKind.GROUP
    time_zone: str | None = None


@dataclass(frozen=True)
class RoundAnswer:
    """One member's answer to one question of a round (the first one counts)."""

    round_id: int
    number: int
    user_id: str
    display_name: str | None
    option_id: str
    correct: bool
    elapsed_ms: int
    answered_at: datetime


@dataclass(frozen=True)
class RoundProgress:
    """How a round's question stands: members who answered it, members who answered any
    question of the round, and whether everyone who answered an earlier question answered
    this one too (False on the first question: who plays is known from earlier ones)."""

    answered: int
    participants: int
    everyone_answered: bool


class OutboxKind(enum.StrEnum):
    REVEAL = "reveal"  # a closed question's reveal, posted to the chat
    END = "end"  # the final ranking, posted to the chat
    HISTORY = "history"  # the copy of the members' answers into their history (posts nothing)


@dataclass(frozen=True)
class OutboxEntry:
    """What a round owes once a question closed, queued in the same transaction as the close:
    a post to its chat (a question's reveal, or the final ranking), or, once the round ended,
    the copy of its members' answers into their history (posts nothing). Marked sent once the
    platform accepted the post, or the copy is complete."""

    id: int
    round_id: int
    number: int
    kind: OutboxKind
    platform: str
    chat_id: str
    created_at: datetime
    sent_at: datetime | None
    message_id: str | None
