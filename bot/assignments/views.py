"""What the assignments service hands to adapters: plain, localized values to render."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from bot.stats import QuizStats
from bot.views import StartResult


@dataclass(frozen=True)
class AssignmentPost:
    """An assignment as its chat sees it: the quiz, how many questions, the deadline (UTC,
    and as the chat's local time), in the language its posts are worded in."""

    assignment_id: int
    platform: str
    chat_id: str
    quiz_id: str
    title: str
    question_count: int
    deadline: datetime
    local_deadline: str  # "2026-12-10 18:00 Europe/Berlin"
    language: str
    rtl: bool
    cancelled: bool
    open: bool  # neither cancelled nor past its deadline


class AssignOutcome(enum.Enum):
    CREATED = "created"
    USAGE = "usage"  # nothing (or too little) given: how to use /assign
    NOT_ALLOWED = "not_allowed"  # not an admin of the chat, nor a bot operator
    NOT_IN_GROUP = "not_in_group"  # in a private chat: assignments are for groups
    UNKNOWN_QUIZ = "unknown_quiz"
    BAD_DEADLINE = "bad_deadline"  # not a deadline, past, or over a year away


@dataclass(frozen=True)
class AssignResult:
    """What ``/assign`` did: the post of the new assignment, or the notice saying why not."""

    outcome: AssignOutcome
    language: str
    notice: str
    post: AssignmentPost | None = None


@dataclass(frozen=True)
class CancelResult:
    """What ``/assign cancel`` did: the notice, and the assignment when cancelled now."""

    language: str
    notice: str
    cancelled: AssignmentPost | None = None


@dataclass(frozen=True)
class AssignmentStart:
    """A member starting (or resuming) an assignment's quiz: its post and the engine's start
    (the first unanswered question, or the notice saying why there is none); or, when the
    assignment cannot be started (unknown, cancelled), only a notice."""

    language: str
    notice: str
    post: AssignmentPost | None = None
    start: StartResult | None = None


class MemberStatus(enum.StrEnum):
    DONE = "done"  # finished by the deadline
    LATE = "late"  # finished after it
    IN_PROGRESS = "in_progress"  # started (or stopped), not finished
    NOT_STARTED = "not_started"  # seen in the chat, never started it


@dataclass(frozen=True)
class MemberLine:
    """One member's part in an assignment: the attempt that counts for them (a finished one,
    else their latest), or none (not started)."""

    user_id: str
    name: str
    status: MemberStatus
    answered: int
    correct: int
    total: int
    started_at: datetime | None = None
    finished_at: datetime | None = None
    attempt_id: int | None = None

    @property
    def seconds(self) -> float | None:
        """How long the member took, from start to finish (None: not finished)."""
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


@dataclass(frozen=True)
class AssignmentReport:
    """Every member who started an assignment with their status, best first, and how many
    of the members seen in its chat have not started (listed too, for the CSV)."""

    post: AssignmentPost
    started: tuple[MemberLine, ...]
    waiting: tuple[MemberLine, ...]  # seen in the chat, not started
    stats: QuizStats | None  # per question, over the attempts that count (the chart)

    @property
    def known(self) -> int:
        """The members seen in the chat, or who started it."""
        return len(self.started) + len(self.waiting)

    def count(self, status: MemberStatus) -> int:
        return sum(1 for line in (*self.started, *self.waiting) if line.status is status)


@dataclass(frozen=True)
class OpenAssignments:
    """``/assignments``: a chat's open assignments, soonest deadline first, or the notice
    that there is none."""

    language: str
    posts: tuple[AssignmentPost, ...]
    notice: str = ""


@dataclass(frozen=True)
class AssignmentReports:
    """``/report``: the assignments asked for (newest deadline first), and how many older
    ones matched but are not shown."""

    language: str
    reports: tuple[AssignmentReport, ...]
    more: int = 0
    notice: str = ""  # when there is nothing to report: why
