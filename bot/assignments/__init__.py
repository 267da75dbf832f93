"""Assignments: a chat's admin sets a quiz with a deadline, members take it, the admin reads
a report; beside the engine, as group rounds are. Deadlines are read and shown in the chat's
time zone (:mod:`bot.scheduling.timezones`).

- :mod:`bot.assignments.service`: :class:`Assignments`, the rules (set, cancel, start, report).
- :mod:`bot.assignments.views`: what it hands to adapters.
- :mod:`bot.assignments.presenters`: posts and reports worded once for every platform.
- :mod:`bot.assignments.reminders`: reminders and the deadline summary, as scheduled jobs.
- :mod:`bot.assignments.messages`: those messages worded from their payloads.
- :mod:`bot.assignments.export`: reports as CSV.
- :mod:`bot.assignments.texts`: the strings, in every language.
"""

from bot.assignments.service import Assignments, parse_id
from bot.assignments.views import (
    AssignmentPost,
    AssignmentReport,
    AssignmentReports,
    AssignmentStart,
    AssignOutcome,
    AssignResult,
    CancelResult,
    MemberLine,
    MemberStatus,
    OpenAssignments,
)

__all__ = [
    "AssignOutcome",
    "AssignResult",
    "AssignmentPost",
    "AssignmentReport",
    "AssignmentReports",
    "AssignmentStart",
    "Assignments",
    "CancelResult",
    "MemberLine",
    "MemberStatus",
    "OpenAssignments",
    "parse_id",
]
