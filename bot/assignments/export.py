"""Assignment reports as CSV: one row per member (who started it, then who has not), for a
spreadsheet; written once for ``quizbot export --assignment`` and the file sent in a chat."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from bot.assignments.views import AssignmentReport, MemberLine

ASSIGNMENT_COLUMNS = [
    "assignment_id",
    "platform",
    "chat_id",
    "quiz_id",
    "deadline",
    "user_id",
    "name",
    "status",  # done, late, in_progress or not_started
    "correct",
    "answered",
    "total",
    "started_at",
    "finished_at",
    "seconds",  # from start to finish
    "attempt_id",
]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what spreadsheets would run as a formula


def assignment_csv(reports: Sequence[AssignmentReport]) -> str:
    """Every member of every report, a row each, under one header."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ASSIGNMENT_COLUMNS)
    writer.writeheader()
    for report in reports:
        for line in (*report.started, *report.waiting):
            writer.writerow(_row(report, line))
    return buffer.getvalue()


def _row(report: AssignmentReport, line: MemberLine) -> dict[str, object]:
    post = report.post
    seconds = line.seconds
    return {
        "assignment_id": post.assignment_id,
        "platform": post.platform,
        "chat_id": post.chat_id,
        "quiz_id": post.quiz_id,
        "deadline": post.deadline.isoformat(),
        "user_id": line.user_id,
        "name": _cell(line.name),
        "status": line.status.value,
        "correct": line.correct,
        "answered": line.answered,
        "total": line.total,
        "started_at": line.started_at.isoformat() if line.started_at else "",
        "finished_at": line.finished_at.isoformat() if line.finished_at else "",
        "seconds": "" if seconds is None else round(seconds),
        "attempt_id": line.attempt_id or "",
    }


def _cell(text: str) -> str:
    """A member's name as a spreadsheet shows it: never run as a formula."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
