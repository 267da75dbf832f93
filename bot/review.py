"""Spaced repetition of missed questions with Leitner boxes.

A question answered wrong (in a quiz or a review) goes to box 1, due at once. Each right answer
in a review moves it up one box, due after that box's interval; a right answer after the last
box means it is mastered and leaves the schedule. A right answer in an ordinary quiz also moves
a scheduled question up, so practice anywhere counts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.storage import ReviewItem

# Interval before a question in box N is due again (box 1: at once).
BOX_INTERVALS = (
    timedelta(0),
    timedelta(days=1),
    timedelta(days=3),
    timedelta(days=7),
    timedelta(days=16),
)
MASTERED = 0


def next_review(
    current: ReviewItem | None,
    *,
    platform: str,
    user_id: str,
    quiz_id: str,
    question_id: str,
    correct: bool,
    now: datetime,
) -> ReviewItem | None:
    """The question's schedule after this answer; None when nothing changes."""
    if correct and current is None:
        return None  # never missed: nothing to practise
    if not correct:
        box = 1
    else:
        assert current is not None
        box = current.box + 1 if current.box < len(BOX_INTERVALS) else MASTERED
    due = now + BOX_INTERVALS[box - 1] if box != MASTERED else now
    return ReviewItem(platform, user_id, quiz_id, question_id, box, due)


def due_items(items: list[ReviewItem], now: datetime) -> list[ReviewItem]:
    """The items due now, soonest first."""
    return sorted((i for i in items if i.due_at <= now), key=lambda i: i.due_at)
