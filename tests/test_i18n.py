"""Interface strings, language matching and right-to-left display."""

from __future__ import annotations

import string

import pytest

from bot.i18n import (
    STRINGS,
    SUPPORTED_LANGUAGES,
    match_language,
    plural_category,
    resolve_language,
    t,
)
from bot.text_direction import LRI, PDI, RLM, paragraph, prepare, strip_controls
from bot.views import progress_bar

# The plural forms each language needs for integers (CLDR).
NEEDED_FORMS = {"en": {"one", "other"}, "bn": {"one", "other"}, "ur": {"one", "other"}}
NEEDED_FORMS["ru"] = {"one", "few", "many", "other"}


def test_every_interface_string_exists_in_every_language_with_the_same_fields():
    for key, by_language in STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
        fields = set()
        for lang, template in by_language.items():
            forms = {"": template} if isinstance(template, str) else dict(template)
            if not isinstance(template, str):
                assert set(forms) == NEEDED_FORMS[lang], (key, lang)
            for text in forms.values():
                fields.add(frozenset(f for _, f, _, _ in string.Formatter().parse(text) if f))
        assert len(fields) == 1, (key, fields)
        plural = any(not isinstance(v, str) for v in by_language.values())
        assert not plural or "count" in next(iter(fields)), key


COUNTS = (0, 1, 2, 5, 11, 21, 22, 25, 101)
# CLDR cardinal categories of COUNTS, per language.
CATEGORIES = {
    "en": ("other", "one", "other", "other", "other", "other", "other", "other", "other"),
    "ur": ("other", "one", "other", "other", "other", "other", "other", "other", "other"),
    "bn": ("one", "one", "other", "other", "other", "other", "other", "other", "other"),
    "ru": ("many", "one", "few", "many", "many", "one", "few", "many", "one"),
}


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_plural_categories_follow_cldr(language):
    assert tuple(plural_category(language, n) for n in COUNTS) == CATEGORIES[language]


# The counted word each count takes, per language, in "quiz_summary".
QUESTION_WORDS = {
    "en": ("questions", "question", "questions", "questions", "questions", "questions",
           "questions", "questions", "questions"),
    "ur": ("سوالات", "سوال", "سوالات", "سوالات", "سوالات", "سوالات", "سوالات", "سوالات",
           "سوالات"),
    "bn": ("টি প্রশ্ন",) * 9,
    "ru": ("вопросов", "вопрос", "вопроса", "вопросов", "вопросов", "вопрос", "вопроса",
           "вопросов", "вопрос"),
}  # fmt: skip


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
@pytest.mark.parametrize(("index", "n"), list(enumerate(COUNTS)))
def test_counts_take_their_plural_form(language, index, n):
    shown = strip_controls(t("quiz_summary", language, title="T", count=n))
    word = QUESTION_WORDS[language][index]
    assert shown.endswith(f"{n} {word}" if language != "bn" else f"{n}{word}"), shown
    due = strip_controls(t("review_due", language, count=n))
    assert str(n) in due
    if language == "en":
        assert (f"{n} question to" if n == 1 else f"{n} questions to") in due
    if language == "ru":
        ending = {"one": "вопрос ждёт", "few": "вопроса ждут", "many": "вопросов ждут"}
        assert f"{n} {ending[CATEGORIES['ru'][index]]}" in due
    attempts = strip_controls(
        t("progress_line", language, title="T", count=n, best=1, last=1, total=8)
    )
    if language == "ru":
        word = {"one": "попытка", "few": "попытки", "many": "попыток"}[CATEGORIES["ru"][index]]
        assert f"T: {n} {word}," in attempts
    if language == "en":
        assert f"T: {n} attempt{'' if n == 1 else 's'}," in attempts


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("ru-RU", "ru"),
        ("ru_RU.UTF-8", "ru"),
        ("RU", "ru"),
        ("bn-BD", "bn"),
        ("ur", "ur"),
        ("en-GB", "en"),
        ("de-DE", None),
        ("C.UTF-8", None),
        ("", None),
        (None, None),
    ],
)
def test_platform_language_tags_match_supported_languages(tag, expected):
    assert match_language(tag, SUPPORTED_LANGUAGES) == expected


def test_choice_beats_platform_tag_which_beats_the_default():
    assert resolve_language("bn", "ru-RU", SUPPORTED_LANGUAGES, "en") == "bn"
    assert resolve_language(None, "ru-RU", SUPPORTED_LANGUAGES, "en") == "ru"
    assert resolve_language(None, "fr", SUPPORTED_LANGUAGES, "en") == "en"
    assert resolve_language("bn", None, ("en", "ru"), "en") == "en"  # quiz lacks Bengali


def test_urdu_lines_start_right_to_left_and_keep_english_terms_whole():
    text = prepare("فارمیٹ safetensors ہے، RNG اسٹیٹ 3/8", "ur")
    assert f"{LRI}safetensors{PDI}" in text and f"{LRI}RNG{PDI}" in text
    assert f"{LRI}3/8{PDI}" in text
    line = paragraph("A. " + text, "ur")
    assert line.startswith(RLM)
    assert strip_controls(line) == "A. فارمیٹ safetensors ہے، RNG اسٹیٹ 3/8"
    assert prepare("safetensors", "ru") == "safetensors"  # LTR languages untouched
    assert f"{LRI}/quiz{PDI}" in prepare("اپنا کوئز شروع کرنے کے لیے /quiz بھیجیں", "ur")
    assert paragraph("A. text", "en") == "A. text"


def test_interface_strings_are_filled_and_prepared():
    assert t("question_progress", "ru", number=3, total=8) == "Вопрос 3/8"
    assert t("question_progress", "ur", number=3, total=8) == f"سوال {LRI}3/8{PDI}"


def test_progress_bar_has_one_mark_per_question():
    assert progress_bar(3, 8) == "▰▰▰▱▱▱▱▱"
    assert progress_bar(0, 8) == "▱" * 8
    assert len(progress_bar(50, 100)) == 10  # long quizzes are scaled


def test_shared_wording_lives_once() -> None:
    """A string the platforms share is in bot.i18n only: no adapter table repeats a key."""
    from adapters.discord.texts import STRINGS as DISCORD
    from adapters.telegram.texts import TEXTS as TELEGRAM

    assert set(TELEGRAM) & set(STRINGS) == set()
    assert set(DISCORD) & set(STRINGS) == set()
    assert set(TELEGRAM) & set(DISCORD) == set()
