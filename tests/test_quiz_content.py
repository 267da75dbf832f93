"""Quiz content gives nothing away: in every bundled quiz and language, a player who picks the
longest option, or avoids options with absolute words, does no better than one who knows."""

from __future__ import annotations

import functools
import re
import unicodedata

import pytest

from bot.quiz import Question, Quiz
from bot.quiz_loader import load_quizzes
from tests.conftest import QUIZ_DIR

# Words that make a wrong option easy to rule out without knowing the subject. Latin and
# Cyrillic match whole words (a trailing \w* covers inflections); Bengali vowel signs are not
# word characters for ``re``, so Bengali matches as substrings.
TELL_WORDS: dict[str, list[str]] = {
    "en": [
        r"\balways\b",
        r"\bnever\b",
        r"\bonly\b",
        r"\bguarantee\w*",
        r"\bentirely\b",
        r"\bcompletely\b",
        r"\bimpossible\b",
    ],
    "ru": [
        r"\bвсегда\b",
        r"\bникогда\b",
        r"\bтолько\b",
        r"\bгарантир\w*",
        r"\bполностью\b",
        r"\bневозможн\w*",
        r"\bисключительно\b",
    ],
    "bn": ["সবসময়", "সর্বদা", "কখনোই", "কখনও না", "কখনো না", "শুধু", "কেবল", "নিশ্চয়তা", "সম্পূর্ণভাবে"],
    "ur": [
        r"\bہمیشہ\b",
        r"\bکبھی نہیں\b",
        r"\bکبھی بھی\b",
        r"\bصرف\b",
        r"\bضمانت\b",
        r"\bمکمل طور پر\b",
        r"\bناممکن\b",
        r"\bہرگز\b",
    ],
}


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


_TELLS = {
    language: [re.compile(_normal(p), re.IGNORECASE) for p in patterns]
    for language, patterns in TELL_WORDS.items()
}


@functools.cache
def bundled_quizzes() -> tuple[Quiz, ...]:
    report = load_quizzes([QUIZ_DIR])
    assert report.errors == []
    return tuple(report.quizzes)


def cases() -> list[tuple[str, str]]:
    return [(quiz.id, language) for quiz in bundled_quizzes() for language in quiz.languages]


def _choice_questions(quiz: Quiz) -> list[Question]:
    # Length only gives something away when there are several wrong options to compare with.
    return [q for q in quiz.questions if len(getattr(q, "options", ())) >= 3]


def correct_is_longest(question: Question, language: str) -> bool:
    """Whether the correct option is (or ties for) the longest one, in characters."""
    lengths = {o.id: len(o.text.get(language)) for o in question.options}
    return lengths[question.correct_option_id] == max(lengths.values())


def correct_is_shortest(question: Question, language: str) -> bool:
    """Whether the correct option is (or ties for) the shortest one, in characters."""
    lengths = {o.id: len(o.text.get(language)) for o in question.options}
    return lengths[question.correct_option_id] == min(lengths.values())


def tell_words(text: str, language: str) -> list[str]:
    """The absolute words in ``text`` that give a wrong option away."""
    text = _normal(text)
    return [m.group(0) for p in _TELLS.get(language, []) for m in p.finditer(text)]


def _quiz(quiz_id: str) -> Quiz:
    return next(q for q in bundled_quizzes() if q.id == quiz_id)


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_the_correct_option_is_the_longest_in_at_most_a_third_of_the_questions(
    quiz_id: str, language: str
) -> None:
    questions = _choice_questions(_quiz(quiz_id))
    longest = [q.id for q in questions if correct_is_longest(q, language)]
    assert len(longest) <= len(questions) // 3, longest


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_nor_is_it_the_shortest_in_more_than_a_third(quiz_id: str, language: str) -> None:
    # Making every wrong option longer would only turn the tell around.
    questions = _choice_questions(_quiz(quiz_id))
    shortest = [q.id for q in questions if correct_is_shortest(q, language)]
    assert len(shortest) <= len(questions) // 3, shortest


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_no_wrong_option_uses_an_absolute_word(quiz_id: str, language: str) -> None:
    found = {
        f"{q.id}/{o.id}": words
        for q in _choice_questions(_quiz(quiz_id))
        for o in q.options
        if o.id != q.correct_option_id and (words := tell_words(o.text.get(language), language))
    }
    assert found == {}


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_every_wrong_option_explains_why_it_is_wrong(quiz_id: str, language: str) -> None:
    for question in _choice_questions(_quiz(quiz_id)):
        assert question.explanation.has(language)
        for option in question.options:
            if option.id != question.correct_option_id:
                assert option.note is not None and option.note.has(language), (
                    question.id,
                    option.id,
                )


def test_every_language_has_a_list_of_tell_words() -> None:
    assert {lang for quiz in bundled_quizzes() for lang in quiz.languages} <= set(TELL_WORDS)


@pytest.mark.parametrize(
    ("text", "language", "words"),
    [
        ("It guarantees the model will never overfit", "en", ["guarantees", "never"]),
        ("Only the final accuracy score", "en", ["Only"]),
        ("ZIP-only archives", "en", ["only"]),
        ("Оно гарантирует, что модель никогда не переобучится", "ru", ["гарантирует", "никогда"]),
        ("শুধু চূড়ান্ত অ্যাকুরেসি স্কোর", "bn", ["শুধু"]),
        ("یہ ضمانت دیتی ہے کہ ماڈل کبھی نہیں بگڑے گا", "ur", ["کبھی نہیں", "ضمانت"]),
        ("صرف آخری ایکیوریسی اسکور", "ur", ["صرف"]),
        ("The index records the global step", "en", []),
        ("Задаёт порядок, в котором шарды нужно загружать", "ru", []),
    ],
)
def test_tell_words_are_recognised_in_every_language(
    text: str, language: str, words: list[str]
) -> None:
    assert sorted(tell_words(text, language)) == sorted(words)
