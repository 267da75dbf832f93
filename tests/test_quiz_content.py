"""Quiz content gives nothing away: in every bundled quiz and language, a player who picks the
longest option, or avoids options with absolute words, does no better than one who knows."""

from __future__ import annotations

import functools
import re
import unicodedata

import pytest

from bot.quiz import Option, Question, Quiz
from bot.quiz_loader import load_quizzes
from tests.conftest import QUIZ_DIR

# Words that make a wrong option easy to rule out without knowing the subject. Latin,
# Cyrillic and Urdu (Arabic letters are word characters) match whole words, with a trailing
# \w* for inflections. Bengali vowel signs and virama are not word characters for ``re``, so
# ``\b`` would split Bengali words: there a word starts where no Bengali letter precedes it
# (``_BN``) and may run on into suffixes (সবই, প্রতিটির).
_BN = "(?<![\u0980-\u09ff])"
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

# Milder absolutes (all, any, every, cannot, nothing, bit for bit...). They are fine in an
# option, true or false, as long as they do not mark the wrong ones: a player who learnt
# "absolute means wrong" must gain nothing from them. They are counted together with
# TELL_WORDS. "all-reduce"/"all-gather" are names, not claims. каждый, প্রতিটি and ہر are left
# out: they render the distributive "each" ("each rank writes its shard") as often as "every".
ABSOLUTE_WORDS: dict[str, list[str]] = {
    "en": [
        r"\ball\b(?!-)",
        r"\bany\w*",
        r"\bevery\w*",
        r"\bcannot\b",
        r"\bcan't\b",
        r"\bnothing\b",
        r"\bnone\b",
        r"\bfully\b",
        r"\bbit for bit\b",
        r"\bbit-identical\b",
    ],
    "ru": [
        r"\b(?:весь|вся|всё|все|всю|всех|всем|всеми|всего|всей)\b",
        r"\bлюб(?:ой|ая|ое|ые|ого|ому|ом|ую|ых|ым|ыми)\b",
        r"\bне\s+мо(?:жет|гут)\b",
        r"\bнельзя\b",
        r"\bничего\b",
        r"\bничто\w*",
        r"\bпобитов\w*",
    ],
    "bn": [
        _BN + "সব",
        _BN + "সমস্ত",
        _BN + "যেকোনো",
        _BN + "কোনো",
        _BN + "পুরোপুরি",
        _BN + "সম্পূর্ণ",
        _BN + "একেবারে",
        _BN + "কিছুই",
        _BN + "অসম্ভব",
        _BN + "হুবহু",
        _BN + "বিট-বাই-বিট",
        r"(?:পারে|যায়) না(?![\u0980-\u09ff])",
    ],
    "ur": [
        r"\bسب\b",
        r"\bسارا\b",
        r"\bساری\b",
        r"\bسارے\b",
        r"\bتمام\b",
        r"\bکوئی بھی\b",
        r"\bکسی بھی\b",
        r"\bکچھ بھی\b",
        r"\bکچھ نہیں\b",
        r"\bبالکل\b",
        r"\bبٹ بہ بٹ\b",
        r"\bنہیں(?:\s+\S+)?\s+سک(?:تا|تی|تے)\b",
    ],
}


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


_TELLS = {
    language: [re.compile(_normal(p), re.IGNORECASE) for p in patterns]
    for language, patterns in TELL_WORDS.items()
}
_ABSOLUTES = {
    language: [re.compile(_normal(p), re.IGNORECASE) for p in patterns]
    for language, patterns in ABSOLUTE_WORDS.items()
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


def absolute_words(text: str, language: str) -> list[str]:
    """Every absolute word in ``text``: the tell words and the milder ones."""
    text = _normal(text)
    found = tell_words(text, language)
    return found + [m.group(0) for p in _ABSOLUTES.get(language, []) for m in p.finditer(text)]


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


def absolute_shares(quiz: Quiz, language: str) -> tuple[float, float]:
    """The share of correct and of wrong options that contain an absolute word."""
    questions = _choice_questions(quiz)
    right = [o for q in questions for o in q.options if o.id == q.correct_option_id]
    wrong = [o for q in questions for o in q.options if o.id != q.correct_option_id]

    def share(options: list[Option]) -> float:
        marked = [o for o in options if absolute_words(o.text.get(language), language)]
        return len(marked) / len(options) if options else 0.0

    return share(right), share(wrong)


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_absolute_words_are_no_more_common_in_wrong_options_than_in_right_ones(
    quiz_id: str, language: str
) -> None:
    # No tolerance: with 8 to 10 questions one correct option is already 10-12 points of
    # share, so any slack would let two or three marked wrong options through unanswered.
    right, wrong = absolute_shares(_quiz(quiz_id), language)
    marked = {
        f"{q.id}/{o.id}{'*' if o.id == q.correct_option_id else ''}": words
        for q in _choice_questions(_quiz(quiz_id))
        for o in q.options
        if (words := absolute_words(o.text.get(language), language))
    }
    assert right >= wrong, (f"right {right:.0%} < wrong {wrong:.0%}", marked)


@pytest.mark.parametrize(("quiz_id", "language"), cases())
def test_nor_does_an_absolute_word_single_out_the_correct_option(
    quiz_id: str, language: str
) -> None:
    # The tell turned around: "pick the one option that says all/any/every".
    questions = _choice_questions(_quiz(quiz_id))
    singled_out = [
        q.id
        for q in questions
        if [o.id for o in q.options if absolute_words(o.text.get(language), language)]
        == [q.correct_option_id]
    ]
    limit = len(questions) // 3
    assert len(singled_out) <= limit, singled_out


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
    languages = {lang for quiz in bundled_quizzes() for lang in quiz.languages}
    assert languages <= set(TELL_WORDS)
    assert languages <= set(ABSOLUTE_WORDS)


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


@pytest.mark.parametrize(
    ("text", "language", "words"),
    [
        ("A crash cannot corrupt it", "en", ["cannot"]),
        ("Matches bit for bit on any hardware", "en", ["bit for bit", "any"]),
        ("Open every file without any errors", "en", ["every", "any"]),
        ("All ranks all-gather the shards", "en", ["All"]),
        ("Small gradients underflow to zero", "en", []),
        ("Hallmarks of a tall ball", "en", []),
        ("Сбой не может повредить весь чекпойнт", "ru", ["не может", "весь"]),
        ("Побитово совпадает на любом железе", "ru", ["Побитово", "любом"]),
        ("Каждый ранг сохраняет всё", "ru", ["всё"]),
        ("Всесторонняя проверка любопытного лосса", "ru", []),
        ("প্রতিটি র‍্যাঙ্ক কোনো ত্রুটি ছাড়া খোলে", "bn", ["কোনো"]),
        ("সবই যেকোনো হার্ডওয়্যারে বিট-বাই-বিট মেলে", "bn", ["সব", "যেকোনো", "বিট-বাই-বিট"]),
        ("ক্র্যাশে এটি নষ্ট করা যায় না", "bn", ["যায় না"]),
        ("যেকোনো", "bn", ["যেকোনো"]),
        ("রিজিউম করা স্টেপ প্রত্যাশামতো চলে", "bn", []),
        ("ہر رینک کسی بھی خرابی کے بغیر", "ur", ["کسی بھی"]),
        ("کریش اسے خراب نہیں کر سکتا", "ur", ["نہیں کر سکتا"]),
        ("ساری اسٹیٹ بٹ بہ بٹ ملتی ہے", "ur", ["ساری", "بٹ بہ بٹ"]),
        ("ہرگز نہیں", "ur", ["ہرگز"]),
        ("سبق اور ہری جھنڈی", "ur", []),
    ],
)
def test_absolute_words_are_recognised_in_every_language(
    text: str, language: str, words: list[str]
) -> None:
    assert sorted(absolute_words(text, language)) == sorted(words)
