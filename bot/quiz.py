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
class Question:
    """A multiple-choice question with exactly one correct option."""

    id: str
    text: LocalizedText
    options: tuple[Option, ...]
    correct_option_id: str
    explanation: LocalizedText

    def option(self, option_id: str) -> Option | None:
        return next((o for o in self.options if o.id == option_id), None)


@dataclass(frozen=True)
class Shuffle:
    """Whether questions and options are shown in a per-attempt random order."""

    questions: bool = False
    options: bool = False


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
    _by_id: Mapping[str, Question] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", MappingProxyType({q.id: q for q in self.questions}))

    def question(self, question_id: str) -> Question | None:
        return self._by_id.get(question_id)
