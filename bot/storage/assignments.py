"""The assignments port and its records: a quiz a chat's admin sets with a deadline, and the
attempts that count for it.

An attempt counts for an assignment once a member starts it, or resumes the one they had in
progress, from the assignment (:meth:`AssignmentStore.link_attempt`); what the members did is
read back with the attempts' answer counts in one round trip
(:meth:`AssignmentStore.assigned_attempts`). The statements both backends run are here, once.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.storage.records import AnswerRecord, AttemptRecord


@dataclass(frozen=True)
class NewAssignment:
    """An assignment about to be created in a chat."""

    platform: str
    chat_id: str
    quiz_id: str
    created_by: str  # the user id of the admin who set it
    language: str  # what its posts in the chat are worded in (the admin's language)
    created_at: datetime
    deadline: datetime
    zone_chat: str  # whose time zone the deadline is in: the chat, or a channel's server
    chat_title: str | None = None  # the chat's name when it was set (reminders say it)


@dataclass(frozen=True)
class AssignmentRecord:
    """An assignment; cancelled once ``cancelled_at`` is set."""

    id: int
    platform: str
    chat_id: str
    quiz_id: str
    created_by: str
    language: str
    created_at: datetime
    deadline: datetime
    cancelled_at: datetime | None
    zone_chat: str
    chat_title: str | None = None  # the chat's name when it was set (None: not known)

    def open_at(self, now: datetime) -> bool:
        """Whether members are still asked to take it at ``now`` (not cancelled, not due)."""
        return self.cancelled_at is None and now < self.deadline


@dataclass(frozen=True)
class AssignedAttempt:
    """An attempt that counts for an assignment, with its answer counts and its player's
    name (None: never given)."""

    attempt: AttemptRecord
    answered: int
    correct: int
    display_name: str | None
    linked_at: datetime


class AssignmentStore(Protocol):
    """Assignments and the attempts that count for them."""

    @abc.abstractmethod
    async def create_assignment(self, new: NewAssignment) -> AssignmentRecord: ...

    @abc.abstractmethod
    async def get_assignment(self, assignment_id: int) -> AssignmentRecord | None: ...

    @abc.abstractmethod
    async def find_assignments(
        self,
        platform: str | None = None,
        chat_id: str | None = None,
        *,
        created_by: str | None = None,
        quiz_id: str | None = None,
    ) -> list[AssignmentRecord]:
        """Assignments matching every filter given (cancelled ones included), by deadline,
        then id."""

    @abc.abstractmethod
    async def cancel_assignment(self, assignment_id: int, at: datetime) -> bool:
        """Cancel an assignment; False when it was cancelled already (or there is none)."""

    @abc.abstractmethod
    async def link_attempt(
        self, assignment_id: int, attempt_id: int, user_id: str, at: datetime
    ) -> bool:
        """Count the attempt for the assignment; False when it counted already."""

    @abc.abstractmethod
    async def assigned_attempts(self, assignment_id: int) -> list[AssignedAttempt]:
        """Every attempt that counts for the assignment with its answer counts and its
        player's name, in the order they were linked; one round trip."""

    @abc.abstractmethod
    async def assignment_answers(self, assignment_id: int) -> list[AnswerRecord]:
        """Every answer of the attempts that count for the assignment, in answer order."""


# The attempts that count for an assignment, with their answer counts and player's name, in
# the order they were linked; ``{assignment}``: the dialect's placeholder for its id.
ASSIGNED_ATTEMPTS = """
SELECT a.*, l.linked_at, u.display_name AS player_name,
    (SELECT count(*) FROM answers s WHERE s.attempt_id = a.id) AS answered,
    (SELECT count(*) FROM answers s WHERE s.attempt_id = a.id AND s.correct) AS right_count
FROM assignment_attempts l
JOIN attempts a ON a.id = l.attempt_id
LEFT JOIN users u ON u.platform = a.platform AND u.user_id = a.user_id
WHERE l.assignment_id = {assignment}
ORDER BY l.linked_at, a.id
"""


def find_assignments_sql(
    *,
    numbered: bool,
    platform: str | None,
    chat_id: str | None,
    created_by: str | None,
    quiz_id: str | None,
) -> tuple[str, list[object]]:
    """The statement :meth:`AssignmentStore.find_assignments` runs and its parameters, for
    both dialects (``numbered``: PostgreSQL's ``$1`` placeholders, else SQLite's ``?``), with
    only the filters given, so that a chat's can use its index."""
    params: list[object] = []
    conditions: list[str] = []
    filters = (
        ("platform", platform),
        ("chat_id", chat_id),
        ("created_by", created_by),
        ("quiz_id", quiz_id),
    )
    for column, value in filters:
        if value is not None:
            params.append(value)
            conditions.append(f"{column} = {f'${len(params)}' if numbered else '?'}")
    where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
    return f"SELECT * FROM assignments {where}ORDER BY deadline, id", params
