"""Spaced repetition of missed questions, scheduled by FSRS (the maintained ``fsrs`` package).

A question answered wrong (in a quiz or a review) becomes an FSRS card rated *Again*, and is
due at once, so ``/review`` right after a quiz has it. Each later answer to it, in a review or
in an ordinary quiz (practice anywhere counts), rates the card *Good* when right and *Again*
when wrong, and FSRS decides when it is due next for the desired retention (0.9 by default:
``REVIEW_RETENTION``). A question never missed is never scheduled.

What is stored per question (:class:`~bot.storage.ReviewItem`): ``box`` holds the card's FSRS
state (1 learning, 2 review, 3 relearning), ``due_at`` its due time and ``card`` the rest of
its memory (stability, difficulty, learning step, last review) as JSON. Cards migrated from
the Leitner boxes of schema version 8 have no last review: it is taken to be their stability
before their due time, which is when the box's interval started.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import fsrs

from bot.storage import ReviewItem

DEFAULT_RETENTION = 0.9
MIN_RETENTION, MAX_RETENTION = 0.7, 0.97  # outside this FSRS's intervals stop making sense
CARD_ID = 1  # cards are keyed by their row; fsrs would otherwise make (and sleep for) an id
_SOME_TIME = datetime(2000, 1, 1, tzinfo=UTC)  # any time: a first miss's memory but for it


def _memory(card: fsrs.Card) -> str:
    """The card's memory, as ``ReviewItem.card`` keeps it."""
    last = card.last_review.isoformat() if card.last_review else None
    memory = {
        "difficulty": card.difficulty,
        "last_review": last,
        "stability": card.stability,
        "step": card.step,
    }
    return json.dumps(memory, separators=(",", ":"), sort_keys=True)


def card_of(item: ReviewItem) -> fsrs.Card:
    """The FSRS card an item stores (a migrated or damaged one completed sensibly)."""
    try:
        memory: dict[str, Any] = json.loads(item.card) if item.card else {}
    except ValueError:
        memory = {}
    state = fsrs.State(item.box) if item.box in (1, 2, 3) else fsrs.State.Relearning
    stability = _positive(memory.get("stability"), 1.0)
    difficulty = _positive(memory.get("difficulty"), 5.0)
    step = memory.get("step")
    if state is not fsrs.State.Review and not isinstance(step, int):
        step = 0
    last = memory.get("last_review")
    last_review = (
        datetime.fromisoformat(last)
        if isinstance(last, str)
        else item.due_at - timedelta(days=stability)
    )
    return fsrs.Card(
        card_id=CARD_ID,
        state=state,
        step=step if state is not fsrs.State.Review else None,
        stability=stability,
        difficulty=difficulty,
        due=item.due_at,
        last_review=last_review,
    )


def _positive(value: object, default: float) -> float:
    if isinstance(value, int | float) and math.isfinite(value) and value > 0:
        return float(value)
    return default


class ReviewScheduler:
    """Decides each missed question's next review with FSRS at a desired retention."""

    def __init__(self, desired_retention: float = DEFAULT_RETENTION) -> None:
        if not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
            raise ValueError(
                f"desired retention must be {MIN_RETENTION} to {MAX_RETENTION}, "
                f"not {desired_retention}"
            )
        self.desired_retention = desired_retention
        # No fuzzing: the same answers give the same schedule (and tests can say which).
        self._fsrs = fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)
        # A question's first miss is the review nearly every scheduling answer makes, and FSRS
        # gives a new card rated Again the same memory whenever that happens, but for the
        # time of the review: computed once here, the time filled in per answer (a tenth of
        # the engine's work for a press, through FSRS and JSON every time).
        first, _ = self._fsrs.review_card(
            fsrs.Card(card_id=CARD_ID, due=_SOME_TIME), fsrs.Rating.Again, _SOME_TIME
        )
        self._first_miss_box = int(first.state)
        before, _, after = _memory(first).partition(_SOME_TIME.isoformat())
        self._first_miss_memory = (before, after)

    def next_review(
        self,
        current: ReviewItem | None,
        *,
        platform: str,
        user_id: str,
        quiz_id: str,
        question_id: str,
        correct: bool,
        now: datetime,
    ) -> ReviewItem | None:
        """The question's schedule after this answer; None when nothing changes (a right
        answer to a question never missed)."""
        if correct and current is None:
            return None
        if current is None and now.tzinfo is UTC:  # a first miss (FSRS takes UTC times only)
            before, after = self._first_miss_memory
            memory = before + now.isoformat() + after
            return ReviewItem(
                platform, user_id, quiz_id, question_id, self._first_miss_box, now, memory
            )
        card = card_of(current) if current is not None else fsrs.Card(card_id=CARD_ID, due=now)
        rating = fsrs.Rating.Good if correct else fsrs.Rating.Again
        card, _ = self._fsrs.review_card(card, rating, now)
        due = card.due if correct else now  # a miss can be practised at once
        return ReviewItem(
            platform, user_id, quiz_id, question_id, int(card.state), due, _memory(card)
        )


def due_items(items: list[ReviewItem], now: datetime) -> list[ReviewItem]:
    """The items due now, soonest first."""
    return sorted((i for i in items if i.due_at <= now), key=lambda i: i.due_at)
