"""Per-quiz and per-question statistics for operators and quiz authors."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bot.quiz import Quiz
from bot.storage import AnswerRecord, AttemptRecord, AttemptStatus


@dataclass(frozen=True)
class OptionStats:
    option_id: str  # as the quiz file names it (players saw shuffled letters, not these)
    text: str
    picks: int
    correct: bool


@dataclass(frozen=True)
class QuestionStats:
    question_id: str
    number: int
    text: str
    answered: int
    correct: int
    options: tuple[OptionStats, ...]
    median_seconds: float | None  # time from the previous answer (or the start) to this one

    @property
    def percent_correct(self) -> float | None:
        return 100 * self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class QuizStats:
    quiz_id: str
    title: str
    attempts: int
    completed: int
    average_score: float | None  # mean correct answers over completed attempts
    total_questions: int
    questions: tuple[QuestionStats, ...]
    version: int = 1  # the quiz version these attempts played (a quiz's stats come per version)

    @property
    def hardest(self) -> QuestionStats | None:
        """The answered question with the lowest share of correct answers."""
        answered = [q for q in self.questions if q.answered]
        return min(answered, key=lambda q: (q.correct / q.answered, q.number), default=None)


def compute_stats(
    quiz: Quiz,
    attempts: Sequence[AttemptRecord],
    answers: Sequence[AnswerRecord],
    language: str,
) -> QuizStats:
    """Aggregate one quiz's attempts and answers (both as the storage returns them)."""
    lang = quiz.shown_language(language)
    started = {a.id: a.started_at for a in attempts}
    picks: Counter[tuple[str, str]] = Counter()
    durations: defaultdict[str, list[float]] = defaultdict(list)
    right_by_attempt: Counter[int] = Counter()
    typed_answers: Counter[tuple[str, bool]] = Counter()  # (question id, correct): no options
    previous: dict[int, AnswerRecord] = {}
    for answer in answers:
        picks[(answer.question_id, answer.option_id)] += 1
        right_by_attempt[answer.attempt_id] += answer.correct
        typed_answers[(answer.question_id, answer.correct)] += 1
        before = previous.get(answer.attempt_id)
        since = before.answered_at if before else started.get(answer.attempt_id)
        if since is not None:
            durations[answer.question_id].append((answer.answered_at - since).total_seconds())
        previous[answer.attempt_id] = answer
    questions = []
    for number, question in enumerate(quiz.questions, start=1):
        options = tuple(
            OptionStats(
                option_id=option.id,
                text=option.text.get(lang),
                picks=picks[(question.id, option.id)],
                correct=option.id == question.correct_option_id,
            )
            for option in question.options
        )
        answered = sum(o.picks for o in options)
        right = sum(o.picks for o in options if o.correct)
        if question.typed:
            right = typed_answers[(question.id, True)]
            answered = right + typed_answers[(question.id, False)]
        times = durations.get(question.id)
        questions.append(
            QuestionStats(
                question_id=question.id,
                number=number,
                text=question.text.get(lang),
                answered=answered,
                correct=right,
                options=options,
                median_seconds=statistics.median(times) if times else None,
            )
        )
    completed = [a for a in attempts if a.status is AttemptStatus.COMPLETED]
    scores = [right_by_attempt[a.id] for a in completed]
    return QuizStats(
        quiz_id=quiz.id,
        title=quiz.title.get(lang),
        attempts=len(attempts),
        completed=len(completed),
        average_score=statistics.fmean(scores) if scores else None,
        total_questions=quiz.attempt_size(),  # per attempt: a bank's pick, not its size
        questions=tuple(questions),
    )
