"""The quiz domain model: quizzes, questions and options with their translations.

These are immutable values built by :mod:`bot.quiz_loader`; nothing here knows about files,
storage or chat platforms.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

LEVELS = ("beginner", "intermediate", "advanced")


@dataclass(frozen=True)
class LocalizedText:
    """One text in several languages, always present in the quiz's default language."""

    by_language: Mapping[str, str]
    default_language: str

    def get(self, language: str) -> str:
        """The text in ``language``, or in the default language when it is not translated."""
        text = self.by_language.get(language)
        return text if text is not None else self.by_language[self.default_language]

    def has(self, language: str) -> bool:
        return language in self.by_language


@dataclass(frozen=True)
class Option:
    """An answer option with a stable id that survives reordering and translation."""

    id: str
    text: LocalizedText
    note: LocalizedText | None = None


@dataclass(frozen=True)
class AcceptedAnswers:
    """The spellings accepted for a typed-answer question, per language (the default language
    always has at least one; other languages fall back to it)."""

    by_language: Mapping[str, tuple[str, ...]]
    default_language: str

    def get(self, language: str) -> tuple[str, ...]:
        """The spellings in ``language``, or in the default language when it has none."""
        spellings = self.by_language.get(language)
        return spellings if spellings else self.by_language[self.default_language]

    def every(self) -> tuple[str, ...]:
        """Every spelling in every language: a typed answer matching any of them is right."""
        seen = dict.fromkeys(s for spellings in self.by_language.values() for s in spellings)
        return tuple(seen)


@dataclass(frozen=True)
class QuizImage:
    """An image a question (or its explanation) shows: a PNG, JPEG, GIF or WebP file beside the
    quiz file, checked at load (:mod:`bot.image_files`) and named by the SHA-256 of its bytes,
    under which the bytes are kept in the database."""

    file: str  # as the quiz file names it, relative to the quiz file's folder
    sha256: str
    media_type: str  # image/png, image/jpeg, image/gif or image/webp
    size: int  # bytes
    width: int
    height: int
    path: str  # the file it was read from at load (absolute)
    alt: LocalizedText | None = None  # what it shows, for whoever cannot see it


CHOICE, TYPED = "choice", "typed"  # question kinds


@dataclass(frozen=True)
class Question:
    """A question: multiple choice with exactly one correct option, or (``kind`` typed) one
    answered by typing one of ``answers``; a typed question has no options, its
    ``correct_option_id`` is empty and its explanation may be empty (imported lists have none).
    """

    id: str
    text: LocalizedText
    options: tuple[Option, ...]
    correct_option_id: str
    explanation: LocalizedText
    kind: str = CHOICE
    answers: AcceptedAnswers | None = None
    tags: tuple[str, ...] = ()  # topics, for practising one of them (``/quiz QUIZ #tag``)
    image: QuizImage | None = None  # shown with the question
    explanation_image: QuizImage | None = None  # shown with the explanation, after an answer

    @property
    def typed(self) -> bool:
        return self.kind == TYPED

    def option(self, option_id: str) -> Option | None:
        return next((o for o in self.options if o.id == option_id), None)


@dataclass(frozen=True)
class Shuffle:
    """Whether questions and options are shown in a per-attempt random order. Options are
    shuffled unless the quiz file says otherwise (so the right answer is not always "A")."""

    questions: bool = False
    options: bool = True


@dataclass(frozen=True)
class Quiz:
    """A validated quiz: metadata, languages and questions in authoring order."""

    id: str
    title: LocalizedText
    description: LocalizedText | None
    level: str | None
    guide_url: str | None
    default_language: str
    languages: tuple[str, ...]
    questions: tuple[Question, ...]
    shuffle: Shuffle = Shuffle()
    native_polls: bool = False  # Telegram: send questions as native quiz polls where they fit
    source: str = ""
    pick: int | None = None  # questions drawn per attempt (None: all of them)
    version: int = 1  # its number in the quiz library (a catalog without one: always 1)
    _by_id: Mapping[str, Question] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", MappingProxyType({q.id: q for q in self.questions}))

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag some question carries, sorted."""
        return tuple(sorted({tag for q in self.questions for tag in q.tags}))

    def tagged(self, tag: str | None) -> tuple[Question, ...]:
        """The questions carrying ``tag`` (None: every question), in authoring order."""
        if tag is None:
            return self.questions
        return tuple(q for q in self.questions if tag in q.tags)

    def attempt_size(self, tag: str | None = None) -> int:
        """How many questions an attempt plays: ``pick`` of the (tagged) questions, or all."""
        pool = len(self.tagged(tag))
        return pool if self.pick is None else min(self.pick, pool)

    def question(self, question_id: str) -> Question | None:
        return self._by_id.get(question_id)

    def shown_language(self, language: str) -> str:
        """``language`` when the quiz has it, else the quiz's default language."""
        return language if language in self.languages else self.default_language

    @property
    def images(self) -> tuple[QuizImage, ...]:
        """Every image the quiz shows, each once (by content), in question order (a
        question's own, then its explanation's)."""
        shown = (i for q in self.questions for i in (q.image, q.explanation_image) if i is not None)
        return tuple({image.sha256: image for image in shown}.values())
