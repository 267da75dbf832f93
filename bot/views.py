"""What the engine hands to adapters: plain, localized, ready-to-render values.

Adapters turn these into platform messages; nothing here knows how a platform draws them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Participant:
    """Who is acting: a platform user, with what the platform tells about them."""

    platform: str
    user_id: str
    display_name: str | None = None
    language_tag: str | None = None


@dataclass(frozen=True)
class OptionView:
    id: str
    letter: str
    text: str


@dataclass(frozen=True)
class ImageView:
    """An image a question or its explanation shows, with its alt text in the view's
    language."""

    sha256: str  # names its bytes (see bot.quiz_images.QuizImages)
    media_type: str
    filename: str  # a plain file name for an upload, e.g. ``diagram.png``
    alt: str  # what it shows, in words ("" when the quiz does not say)
    path: str  # the file it was loaded from
    width: int
    height: int


@dataclass(frozen=True)
class QuestionView:
    """One question of an attempt, in the order and language that attempt shows."""

    attempt_id: int
    quiz_id: str
    quiz_title: str
    question_id: str
    number: int
    total: int
    text: str
    options: tuple[OptionView, ...]
    language: str
    rtl: bool
    typed: bool = False  # answered by typing (no options): see QuizEngine.answer_text
    image: ImageView | None = None
    quiz_version: int = 1  # the quiz version the attempt plays

    def option(self, option_id: str) -> OptionView | None:
        return next((o for o in self.options if o.id == option_id), None)

    @property
    def letters(self) -> str:
        return ", ".join(o.letter for o in self.options)


def progress_bar(done: int, total: int, width: int | None = None) -> str:
    """``▰▰▰▱▱▱▱▱``: one mark per question (scaled to ``width`` marks for long quizzes)."""
    marks = width if width is not None else min(total, 10)
    if total <= 0 or marks <= 0:
        return ""
    filled = round(marks * done / total)
    return "▰" * filled + "▱" * (marks - filled)


class AnswerOutcome(enum.StrEnum):
    ACCEPTED = "accepted"  # recorded now
    DUPLICATE = "duplicate"  # the same answer again (double tap, redelivery): nothing changed
    ALREADY_ANSWERED = "already_answered"  # a different answer to an answered question
    STALE = "stale"  # not the current question, or the attempt is closed
    NOT_YOURS = "not_yours"  # someone else's attempt
    INVALID = "invalid"  # unknown attempt, question or option
    FAILED = "failed"  # the database could not store it (after retries): nothing changed


@dataclass(frozen=True)
class AttemptInfo:
    """Whose an attempt is and what it is, for an adapter checking a pressed menu."""

    attempt_id: int
    platform: str
    user_id: str
    quiz_id: str
    review: bool
    active: bool


@dataclass(frozen=True)
class QuestionMark:
    number: int
    question_id: str
    text: str
    correct: bool | None  # None: not answered (stopped early)


@dataclass(frozen=True)
class QuizResult:
    attempt_id: int
    quiz_id: str
    quiz_title: str
    correct: int
    total: int
    marks: tuple[QuestionMark, ...]
    language: str
    rtl: bool
    review: bool = False  # a review's result: "try again" would restart the quiz instead

    @property
    def percent(self) -> int:
        return round(100 * self.correct / self.total) if self.total else 0


@dataclass(frozen=True)
class AnswerDetails:
    """What an answer shows besides its notice: the question with the chosen and correct
    options (for a typed question instead: ``typed_answer`` and ``accepted_answer``), the
    explanation (with ``explanation_image`` when the quiz gives it one), then either
    ``next_question`` or ``result``."""

    question: QuestionView | None = None
    chosen: OptionView | None = None
    correct_option: OptionView | None = None
    explanation: str | None = None
    explanation_image: ImageView | None = None  # shown with the explanation
    wrong_note: str | None = None
    next_question: QuestionView | None = None
    result: QuizResult | None = None
    # Typed questions: what was typed (as stored) and the accepted answer in this language.
    typed_answer: str | None = None
    accepted_answer: str | None = None


_NO_DETAILS = AnswerDetails()  # a refusal's: nothing to show but the notice


@dataclass(frozen=True)
class AnswerFeedback:
    """The engine's answer to a button press or typed letter.

    ``notice`` is the short localized text for a toast. For ACCEPTED and DUPLICATE (and
    ALREADY_ANSWERED, which repeats the stored answer) the :class:`AnswerDetails` are set too,
    readable as this object's own attributes. They are built on first use, from values the
    engine already holds: a press is acknowledged with ``notice`` alone, so the views only
    the follow-up messages need are made after the acknowledgement, not before it.
    """

    outcome: AnswerOutcome
    notice: str
    language: str
    correct: bool | None = None
    owner_name: str | None = None
    build_details: Callable[[], AnswerDetails] | None = field(
        default=None, repr=False, compare=False
    )

    @cached_property
    def details(self) -> AnswerDetails:
        """Built by the engine on the first read, then kept."""
        return self.build_details() if self.build_details is not None else _NO_DETAILS

    @property
    def question(self) -> QuestionView | None:
        return self.details.question

    @property
    def chosen(self) -> OptionView | None:
        return self.details.chosen

    @property
    def correct_option(self) -> OptionView | None:
        return self.details.correct_option

    @property
    def explanation(self) -> str | None:
        return self.details.explanation

    @property
    def explanation_image(self) -> ImageView | None:
        return self.details.explanation_image

    @property
    def wrong_note(self) -> str | None:
        return self.details.wrong_note

    @property
    def next_question(self) -> QuestionView | None:
        return self.details.next_question

    @property
    def result(self) -> QuizResult | None:
        return self.details.result

    @property
    def typed_answer(self) -> str | None:
        return self.details.typed_answer

    @property
    def accepted_answer(self) -> str | None:
        return self.details.accepted_answer


class StartOutcome(enum.StrEnum):
    STARTED = "started"
    RESUMED = "resumed"
    CHOOSE = "choose"  # several quizzes and none named: show ``quizzes``
    UNKNOWN_QUIZ = "unknown_quiz"
    UNKNOWN_TAG = "unknown_tag"  # the quiz has no question with that tag (the notice lists its)
    NO_QUIZZES = "no_quizzes"
    NOTHING_DUE = "nothing_due"  # review: nothing to practise now (the notice says when)
    INVALID = "invalid"  # a retry of an attempt that is not the user's (a forged button)


@dataclass(frozen=True)
class QuizSummary:
    id: str
    title: str
    description: str | None
    level: str | None
    question_count: int
    languages: tuple[str, ...]


@dataclass(frozen=True)
class StartResult:
    outcome: StartOutcome
    language: str
    notice: str = ""
    question: QuestionView | None = None
    quizzes: tuple[QuizSummary, ...] = ()


@dataclass(frozen=True)
class QuizProgress:
    quiz_id: str
    title: str
    total: int
    completed_attempts: int
    best: int | None
    last: int | None
    in_progress_answered: int | None


@dataclass(frozen=True)
class ProgressReport:
    language: str
    quizzes: tuple[QuizProgress, ...] = field(default_factory=tuple)
