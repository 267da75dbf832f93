"""Discord-only strings, command translations and button ids: complete and within limits."""

from __future__ import annotations

import re
import string
from typing import Any

import discord
import pytest

from adapters.discord.buttons import (
    ANSWER_TEMPLATE,
    ROUND_START_TEMPLATE,
    ROUND_TEMPLATE,
    START_TEMPLATE,
    AnswerButton,
    RoundAnswerButton,
    RoundStartButton,
    StartButton,
    is_known_custom_id,
    option_label,
)
from adapters.discord.texts import STRINGS, templates, text
from adapters.discord.translator import (
    NAMES,
    QuizTranslator,
    command_name,
    description,
    localize_commands,
    name,
)
from bot.i18n import STRINGS as SHARED
from bot.i18n import SUPPORTED_LANGUAGES


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize(
    "key", sorted(set(STRINGS) | {key for key in SHARED if key.startswith("cmd_")})
)
def test_every_string_in_every_language_with_the_same_placeholders(key: str) -> None:
    by_language = templates(key)
    assert by_language is not None
    assert set(by_language) == set(SUPPORTED_LANGUAGES)
    assert len({frozenset(fields(template)) for template in by_language.values()}) == 1
    if key.startswith("cmd_"):  # slash command descriptions
        assert all(1 <= len(template) <= 100 for template in by_language.values())


def test_text_falls_back_to_english_and_fills_in() -> None:
    assert text("more_quizzes", "de", shown=25, total=30).startswith("Showing 25 of 30")
    assert "\u2066" in text("not_your_button", "ur")  # Latin runs isolated in Urdu


async def test_translator_speaks_the_discord_locales_we_have() -> None:
    translator = QuizTranslator()
    context: discord.app_commands.TranslationContext[Any, None]
    context = discord.app_commands.TranslationContext(
        discord.app_commands.TranslationContextLocation.other, None
    )
    quiz = name("quiz")
    assert await translator.translate(quiz, discord.Locale.russian, context) == "тест"
    assert await translator.translate(quiz, discord.Locale.british_english, context) == "quiz"
    assert await translator.translate(quiz, discord.Locale.german, context) is None
    help_text = description("cmd_help")
    assert (
        await translator.translate(help_text, discord.Locale.russian, context)
        == (templates("cmd_help") or {})["ru"]
    )
    untagged = discord.app_commands.locale_str("English")
    assert await translator.translate(untagged, discord.Locale.russian, context) is None


def test_command_names_are_valid_discord_names() -> None:
    for names in NAMES.values():
        for value in names.values():
            assert re.fullmatch(r"[-_\w]{1,32}", value) and value == value.lower()


def test_commands_mentioned_in_text_follow_the_client() -> None:
    assert command_name("stop", "ru") == "стоп"
    assert command_name("stop", discord.Locale.american_english) == "stop"
    assert command_name("stop", "xx-YY") == "stop"
    assert localize_commands("send /quiz or /stop, not /quizmaster", "ru") == (
        "send /тест or /стоп, not /quizmaster"
    )
    assert localize_commands("send /quiz", "en-GB") == "send /quiz"


def test_button_ids_stay_short_and_round_trip() -> None:
    answer = AnswerButton(10**18 - 1, 9999, 99, label="A")
    assert len(answer.custom_id) <= 100
    match = re.fullmatch(ANSWER_TEMPLATE, answer.custom_id)
    assert match and match["attempt"] == str(10**18 - 1)
    longest = StartButton("q" * 40, 2**64, label="Retry")
    assert len(longest.custom_id) <= 100 and re.fullmatch(START_TEMPLATE, longest.custom_id)
    assert is_known_custom_id("qz1:o") and is_known_custom_id("qz1:s:checkpoint-sharding")
    assert not is_known_custom_id("qz1:a:1:1") and not is_known_custom_id("qz1:s:Bad Id")


def test_option_labels_carry_the_text_only_when_it_fits() -> None:
    assert option_label("A", "Short") == "A. Short"
    assert option_label("B", "x" * 77) == "B. " + "x" * 77
    assert option_label("C", "x" * 78) == "C"


def test_round_button_ids_stay_short_and_round_trip() -> None:
    answer = RoundAnswerButton(10**18 - 1, 9999, 99, label="A")
    assert len(answer.custom_id) <= 100
    match = re.fullmatch(ROUND_TEMPLATE, answer.custom_id)
    assert match and (match["round"], match["number"], match["option"]) == (
        str(10**18 - 1),
        "9999",
        "99",
    )
    pick = RoundStartButton("q" * 40, 600, label="Quiz")
    assert len(pick.custom_id) <= 100
    match = re.fullmatch(ROUND_START_TEMPLATE, pick.custom_id)
    assert match and match["seconds"] == "600"
    assert RoundStartButton("quiz", label="Quiz").custom_id == "qz1:g:quiz"
    assert is_known_custom_id("qz1:r:1:1:0") and is_known_custom_id("qz1:g:checkpoint-sharding")
    assert not is_known_custom_id("qz1:r:1:1") and not is_known_custom_id("qz1:g:Bad Id")
