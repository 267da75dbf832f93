"""Interface strings, language matching and right-to-left display."""

from __future__ import annotations

import string

import pytest

from bot.i18n import STRINGS, SUPPORTED_LANGUAGES, match_language, resolve_language, t
from bot.text_direction import LRI, PDI, RLM, paragraph, prepare, strip_controls
from bot.views import progress_bar


def test_every_interface_string_exists_in_every_language_with_the_same_fields():
    for key, by_language in STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
        fields = {
            lang: {f for _, f, _, _ in string.Formatter().parse(text) if f}
            for lang, text in by_language.items()
        }
        assert len({frozenset(f) for f in fields.values()}) == 1, (key, fields)


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
