"""Limits as properties for typed-answer questions: the longest question, accepted answer,
typed reply and explanation the format allows, in every language, fit Telegram and Discord
(their own numbers, as in tests/test_platform_limits.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest
import yaml

from adapters.discord import typed_answers as discord_typed
from adapters.telegram import rendering as telegram_rendering
from adapters.telegram import typed_answers as telegram_typed
from bot.answer_matching import MAX_TYPED_CHARS
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES
from bot.quiz_loader import MAX_TEXT_CHARS
from bot.views import Participant
from tests.conftest import FakeClock
from tests.test_platform_limits import (
    DISCORD_CUSTOM_ID,
    DISCORD_LABEL,
    TELEGRAM_TEXT,
    discord_ok,
    discord_view_ok,
)

TELEGRAM_PLACEHOLDER = 64
DISCORD_MODAL_TITLE, DISCORD_INPUT_LABEL, DISCORD_PLACEHOLDER, DISCORD_INPUT_MAX = 45, 45, 100, 4000


def longest_quiz(folder: Path) -> QuizCatalog:
    """A typed question at every limit, in every supported language (words, so text wraps)."""
    long_text = {
        lang: ("ইউআরএল ওয়ার্ড " if lang == "bn" else "word ") for lang in SUPPORTED_LANGUAGES
    }
    texts = {
        lang: (long_text[lang] * MAX_TEXT_CHARS)[: MAX_TEXT_CHARS - 1] + "?" for lang in long_text
    }
    answer = "x" * MAX_TYPED_CHARS
    doc = {
        "id": "longest",
        "languages": list(SUPPORTED_LANGUAGES),
        "title": {lang: "T" * 200 for lang in SUPPORTED_LANGUAGES},
        "questions": [
            {
                "id": "q",
                "kind": "typed",
                "text": dict(texts),
                "answers": {lang: [answer, "y" * MAX_TYPED_CHARS] for lang in SUPPORTED_LANGUAGES},
                "explanation": dict(texts),
            },
            {
                "id": "bare",
                "kind": "typed",
                "text": dict(texts),
                "answers": {lang: [answer] for lang in SUPPORTED_LANGUAGES},
            },
        ],
    }
    folder.mkdir()
    (folder / "longest.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([folder])
    assert not report.errors, report.errors
    return catalog


def telegram_fits(html: str) -> None:
    chunks = telegram_rendering.split_html(html)
    assert chunks
    for chunk in chunks:
        assert 0 < len(telegram_rendering.plain_text(chunk)) <= TELEGRAM_TEXT


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
@pytest.mark.parametrize("right", [True, False])
async def test_the_longest_typed_question_and_its_feedback_fit_both_platforms(
    tmp_path: Path, storage: Any, language: str, right: bool
) -> None:
    engine = QuizEngine(longest_quiz(tmp_path / "quizzes"), storage, clock=FakeClock())
    who = Participant("t", f"u-{language}", "U" * 100, language)
    await engine.set_language(who, language)
    question = (await engine.start(who, "longest")).question
    while question is not None:
        telegram_fits(telegram_typed.typed_question_html(question, owner="U" * 100))
        discord_ok(discord_typed.question_pages(question))
        view = discord_typed.answer_view(question)
        discord_view_ok(view)
        for item in view.children:
            button = getattr(item, "item", item)  # a DynamicItem wraps its button
            assert isinstance(button, discord.ui.Button)
            assert len(button.label or "") <= DISCORD_LABEL
            assert len(button.custom_id or "") <= DISCORD_CUSTOM_ID
        modal = discord_typed.answer_modal(question).to_dict()
        assert 0 < len(modal["title"]) <= DISCORD_MODAL_TITLE
        assert len(modal["custom_id"]) <= DISCORD_CUSTOM_ID
        for row in modal["components"]:
            for field in row["components"]:
                assert 0 < len(field["label"]) <= DISCORD_INPUT_LABEL
                assert len(field.get("placeholder", "")) <= DISCORD_PLACEHOLDER
                assert MAX_TYPED_CHARS <= field["max_length"] <= DISCORD_INPUT_MAX
        placeholder = telegram_typed.MAX_PLACEHOLDER
        assert placeholder <= TELEGRAM_PLACEHOLDER
        reply = ("x" if right else "z") * 1000  # longer than anything stored
        feedback = await engine.answer_text(who, question.attempt_id, question.number, reply)
        assert feedback.typed_answer is not None and len(feedback.typed_answer) == MAX_TYPED_CHARS
        assert feedback.correct is right
        telegram_fits(telegram_typed.typed_feedback_html(feedback))
        discord_ok(discord_typed.feedback_pages(feedback))
        discord_view_ok(discord_typed.answer_view(question, answered=True))
        question = feedback.next_question
