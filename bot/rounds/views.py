"""What group rounds show: the open question, a reveal, the final ranking, a leaderboard, and
the outcome of starting a round or answering in one. Plain values in the round's language;
adapters only lay them out."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from bot.storage import RoundKind
from bot.views import ImageView, OptionView, QuizSummary


@dataclass(frozen=True)
class RoundQuestion:
    """The open question of a round, as everyone in the chat sees it. A daily question
    (``kind``) is open for hours: it shows when it closes, in ``time_zone``, not a countdown."""

    round_id: int
    platform: str
    chat_id: str
    quiz_id: str
    quiz_title: str
    number: int
    total: int
    text: str
    options: tuple[OptionView, ...]
    language: str
    rtl: bool
    opens_at: datetime
    deadline: datetime
    time_limit_seconds: int
    image: ImageView | None = None  # shown once with the question
    kind: RoundKind = RoundKind.GROUP
    time_zone: str = "UTC"


class RoundStartOutcome(enum.StrEnum):
    STARTED = "started"
    ALREADY_RUNNING = "already_running"
    CHOOSE = "choose"
    UNKNOWN_QUIZ = "unknown_quiz"
    UNKNOWN_TAG = "unknown_tag"  # the quiz has no question with that tag (the notice lists its)
    NO_QUIZZES = "no_quizzes"


@dataclass(frozen=True)
class RoundStart:
    outcome: RoundStartOutcome
    language: str
    notice: str
    question: RoundQuestion | None = None
    quizzes: tuple[QuizSummary, ...] = ()


class RoundAnswerOutcome(enum.StrEnum):
    ACCEPTED = "accepted"  # first answer of this member to this question
    DUPLICATE = "duplicate"  # this member had answered already: the first answer counts
    CLOSED = "closed"  # time is up, or the question was revealed
    INVALID = "invalid"  # unknown round or option


@dataclass(frozen=True)
class RoundAnswerResult:
    outcome: RoundAnswerOutcome
    notice: str
    answered: int = 0  # members who answered the open question
    participants: int = 0  # members who answered any question of the round
    everyone_answered: bool = False
    language: str = "en"  # of ``notice``: the member's interface language


@dataclass(frozen=True)
class ScoreLine:
    rank: int
    user_id: str
    name: str
    score: int
    total_ms: int


@dataclass(frozen=True)
class MemberStreak:
    """A member's run of daily questions in a chat, up to one of them: how many in a row they
    answered right, and how many in a row they answered at all."""

    user_id: str
    right: int
    answered: int


@dataclass(frozen=True)
class OptionCount:
    option: OptionView
    count: int
    correct: bool


@dataclass(frozen=True)
class RoundReveal:
    """A closed question: the answer, why, how many chose what, and the scoreboard."""

    round_id: int
    platform: str
    chat_id: str
    number: int
    total: int
    question_text: str
    correct_option: OptionView
    explanation: str
    counts: tuple[OptionCount, ...]
    scoreboard: tuple[ScoreLine, ...]
    language: str
    rtl: bool
    next_question: RoundQuestion | None
    finished: bool
    # The outbox entry owing this reveal's post, when it comes from the close that queued it
    # (its closer posts it then); None when rebuilt later (the outbox says what is owed).
    post_id: int | None = None
    kind: RoundKind = RoundKind.GROUP
    quiz_title: str = ""
    opened_at: datetime | None = None  # when the question opened (a daily question's day)
    time_zone: str = "UTC"
    # A daily question's: the streak of each member who answered it, up to it (by user id).
    streaks: tuple[MemberStreak, ...] = ()
    explanation_image: ImageView | None = None  # shown with the explanation


@dataclass(frozen=True)
class RoundEnd:
    """A round ended (finished or stopped early), with the final ranking."""

    round_id: int
    quiz_title: str
    scoreboard: tuple[ScoreLine, ...]
    total: int
    stopped: bool
    language: str
    notice: str
    platform: str = ""
    chat_id: str = ""  # where the round was played


@dataclass(frozen=True)
class LeaderboardLine:
    rank: int
    user_id: str
    name: str
    best: int
    seconds: float


@dataclass(frozen=True)
class Leaderboard:
    quiz_id: str
    quiz_title: str
    total: int
    lines: tuple[LeaderboardLine, ...]
    language: str
