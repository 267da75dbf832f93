"""A group round's answers copied into each member's own history once the round ended.

The copy is owed from the moment the round ends (its last close, or a stop): that transaction
queues a ``history`` entry in the round outbox. The process that ended the round copies at once
and marks the entry sent; if it died first, the round's next driver finds the entry and copies.
Copying twice changes nothing: a member whose copy is complete is skipped, a copy that died
half-way is carried on (answers stored already are not stored again, nor their review applied).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from datetime import datetime

from bot.catalog import QuizCatalog
from bot.quiz import Quiz
from bot.review import ReviewScheduler
from bot.storage import (
    AnswerRecord,
    AttemptKind,
    AttemptRecord,
    AttemptStatus,
    AttemptStore,
    NewAttempt,
    OutboxKind,
    RoundAnswer,
    RoundKind,
    RoundRecord,
    RoundStatus,
    RoundStore,
)


class RoundHistory:
    """Copies ended rounds into their members' history (one completed round attempt each,
    with the review schedule updated as if they had answered alone)."""

    def __init__(
        self,
        rounds: RoundStore,
        attempts: AttemptStore,
        catalog: QuizCatalog,
        clock: Callable[[], datetime],
        reviews: ReviewScheduler | None = None,
    ) -> None:
        self._rounds = rounds
        self._reviews = reviews or ReviewScheduler()  # the engine's, so the retention agrees
        self._attempts = attempts
        self._catalog = catalog
        self._clock = clock
        # Held while a round's history is copied; gone once no copy of it runs.
        self._copying: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    async def copy(self, round_id: int) -> bool:
        """Copy each member's answers of an ended round (safe to run again). False when
        there is nothing to copy: the round is unknown, still running, or its quiz is gone."""
        round_, answers = await self._rounds.round_with_answers(round_id)
        if round_ is None or round_.status is RoundStatus.ACTIVE:
            return False
        quiz = await self._catalog.pinned(round_.quiz_id, round_.quiz_version)
        if quiz is None:
            return False
        lock = self._copying.get(round_id)
        if lock is None:
            lock = self._copying[round_id] = asyncio.Lock()
        async with lock:  # one copy of a round at a time in this process
            for user_id, mine in _by_member(answers).items():
                await self._copy_member(round_, quiz, user_id, mine)
        return True

    async def copy_now(self, round_id: int) -> None:
        """Right after a round ended: copy, then mark the outbox entry that owes the copy as
        done (a process that dies before leaves it to the round's next driver)."""
        await self.copy(round_id)
        for entry in await self._rounds.outbox(round_id):
            if entry.kind is OutboxKind.HISTORY and entry.sent_at is None:
                await self._rounds.mark_outbox_sent(entry.id, self._clock(), None)

    async def _copy_member(
        self, round_: RoundRecord, quiz: Quiz, user_id: str, mine: list[RoundAnswer]
    ) -> None:
        store = self._attempts
        summaries = await store.attempt_summaries(round_.platform, user_id)
        if any(
            s.attempt.status is AttemptStatus.COMPLETED and copied_from(s.attempt, round_)
            for s in summaries
        ):
            return  # copied already
        await store.touch_user(round_.platform, user_id, mine[0].display_name)
        new = NewAttempt(
            platform=round_.platform,
            user_id=user_id,
            chat_id=round_.chat_id,
            quiz_id=quiz.id,
            question_order=round_.question_order,
            option_order=round_.option_order,
            started_at=round_.started_at,
            kind=attempt_kind(round_),
            quiz_version=round_.quiz_version,
        )
        attempt, created = await store.create_attempt(new)
        if not created and not copied_from(attempt, round_):
            # Left over from an interrupted copy of another round: that one is lost.
            await store.finish_attempt(attempt.id, AttemptStatus.ABANDONED, self._clock())
            attempt, _ = await store.create_attempt(new)
        scheduled = {
            item.question_id: item
            for item in await store.review_items(round_.platform, user_id, quiz.id)
        }
        for answer in mine:
            question_id = round_.question_order[answer.number - 1]
            review = self._reviews.next_review(
                scheduled.get(question_id),
                platform=round_.platform,
                user_id=user_id,
                quiz_id=quiz.id,
                question_id=question_id,
                correct=answer.correct,
                now=answer.answered_at,
            )
            record = AnswerRecord(
                attempt.id, question_id, answer.option_id, answer.correct, answer.answered_at
            )
            # One an interrupted copy stored is not stored again, nor its review applied.
            await store.record_answer(record, finishes=False, review=review)
        await store.finish_attempt(attempt.id, AttemptStatus.COMPLETED, self._clock())


def _by_member(answers: list[RoundAnswer]) -> dict[str, list[RoundAnswer]]:
    by_user: dict[str, list[RoundAnswer]] = {}
    for answer in answers:
        by_user.setdefault(answer.user_id, []).append(answer)
    return by_user


def attempt_kind(round_: RoundRecord) -> AttemptKind:
    """The kind of attempt a member's copy of ``round_`` is: a group round counts as their
    own play, a daily question only on the chat's leaderboards (and in reviews)."""
    return AttemptKind.DAILY if round_.kind is RoundKind.DAILY else AttemptKind.ROUND


def copied_from(attempt: AttemptRecord, round_: RoundRecord) -> bool:
    """Whether ``attempt`` is (the start of) a member's copy of ``round_``: an attempt of the
    round's kind at its quiz, in its chat, begun when the round began."""
    return (
        attempt.kind is attempt_kind(round_)
        and attempt.platform == round_.platform
        and attempt.quiz_id == round_.quiz_id
        and attempt.chat_id == round_.chat_id
        and attempt.started_at == round_.started_at
    )
