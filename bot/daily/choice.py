"""Which question a chat gets today: one of the chosen quizzes' questions that this pass
through them (a *cycle*) has not asked yet; once every one was asked, a new cycle starts.

The pool is read when the day's question is chosen, so a quiz added to the catalog (with
every quiz chosen) joins the current cycle, and a question removed from a quiz is no longer
asked. The choice is random but seeded by the chat and the day: every replica (and a retry)
choosing for the same day picks the same question.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from bot.quiz import Quiz

QuestionKey = tuple[str, str]  # (quiz id, question id)


@dataclass(frozen=True)
class DailyChoice:
    cycle: int
    quiz_id: str
    question_id: str


def question_pool(quizzes: Iterable[Quiz]) -> list[QuestionKey]:
    """Every question of ``quizzes`` a chat can answer with buttons (typed ones are left
    out, as in group rounds), in the quizzes' order."""
    return [(quiz.id, q.id) for quiz in quizzes for q in quiz.questions if not q.typed]


def choose_question(
    pool: Sequence[QuestionKey],
    cycle: int,
    asked: Iterable[QuestionKey],
    seed: str,
) -> DailyChoice | None:
    """The next question from ``pool``: one not among ``asked`` in ``cycle`` (the chat's
    latest cycle, 0 before any post), else the first of a new cycle; None for an empty pool."""
    if not pool:
        return None
    done = set(asked)
    left = [key for key in pool if key not in done]
    if cycle == 0 or not left:  # the first post, or every question was asked: start over
        cycle, left = cycle + 1, list(pool)
    quiz_id, question_id = random.Random(seed).choice(left)
    return DailyChoice(cycle, quiz_id, question_id)


def day_seed(platform: str, chat_id: str, day: date) -> str:
    return f"{platform}:{chat_id}:{day.isoformat()}"
