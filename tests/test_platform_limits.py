"""Limits as properties: for every bundled quiz, in every language, for every question and every
possible answer, what the adapters would send stays within the platforms' limits.

The limits here are Telegram's and Discord's own numbers, not the adapters' constants, so a
renderer that drifts past a platform limit fails here even if it agrees with itself. Telegram
text is measured after entity parsing by the fake Bot API's parser (which also rejects
malformed HTML); the same checks run on a test quiz with code in every text.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.discord import rendering as discord_rendering
from adapters.discord.buttons import answer_view, result_view
from adapters.telegram import rendering as telegram_rendering
from adapters.telegram.polls import plan_poll
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.text_direction import LRI, PDI, RLM
from bot.views import AnswerFeedback, Participant, QuizResult
from fakes.telegram_bot_api import parse_html
from tests.code_quiz import CODE_QUIZ, code_catalog
from tests.conftest import QUIZ_DIR, FakeClock

TELEGRAM_TEXT = 4096
TELEGRAM_CALLBACK_BYTES = 64
TELEGRAM_POLL_QUESTION, TELEGRAM_POLL_OPTION, TELEGRAM_POLL_EXPLANATION = 300, 100, 200
DISCORD_CONTENT = 2000
DISCORD_EMBEDS_PER_MESSAGE, DISCORD_EMBED_TOTAL = 10, 6000
DISCORD_TITLE, DISCORD_DESCRIPTION, DISCORD_FIELDS = 256, 4096, 25
DISCORD_FIELD_NAME, DISCORD_FIELD_VALUE, DISCORD_FOOTER, DISCORD_AUTHOR = 256, 1024, 2048, 256
CONTROLS = {RLM, LRI, PDI}
DISCORD_LABEL, DISCORD_CUSTOM_ID, DISCORD_ROWS, DISCORD_PER_ROW = 80, 100, 5, 5


def telegram_ok(rendered: telegram_rendering.Rendered | str) -> None:
    html = rendered if isinstance(rendered, str) else rendered.html
    for chunk in telegram_rendering.split_html(html):
        text, entities = parse_html(chunk)  # raises on HTML Telegram would not parse
        units = text.encode("utf-16-le")
        assert 0 < len(units) // 2 <= TELEGRAM_TEXT
        for entity in entities:
            if entity["type"] in ("code", "pre"):  # code exactly as written: no direction marks
                start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
                assert not set(units[start:end].decode("utf-16-le")) & CONTROLS
    keyboard = None if isinstance(rendered, str) else rendered.markup
    for row in keyboard.inline_keyboard if keyboard else ():
        for button in row:
            assert button.text.strip()
            assert len(str(button.callback_data).encode()) <= TELEGRAM_CALLBACK_BYTES


def discord_ok(pages: list[list[Any]]) -> None:
    for page in pages:
        assert 0 < len(page) <= DISCORD_EMBEDS_PER_MESSAGE
        assert sum(len(embed) for embed in page) <= DISCORD_EMBED_TOTAL
        for embed in page:
            assert len(embed.title or "") <= DISCORD_TITLE
            assert len(embed.description or "") <= DISCORD_DESCRIPTION
            assert len(embed.fields) <= DISCORD_FIELDS
            assert len(embed.footer.text or "") <= DISCORD_FOOTER
            assert len(embed.author.name or "") <= DISCORD_AUTHOR
            for field in embed.fields:
                assert 0 < len(field.name) <= DISCORD_FIELD_NAME
                assert 0 < len(field.value) <= DISCORD_FIELD_VALUE
            for value in [embed.description or "", *(f.value for f in embed.fields)]:
                # Every code block closed where it opens: a split never leaves a fence open.
                assert value.count("```") % 2 == 0, value


def discord_view_ok(view) -> None:
    rows: dict[int, int] = {}
    for item in view.children:
        button = getattr(item, "item", item)  # a DynamicItem wraps its button
        assert 0 < len(button.label or "") <= DISCORD_LABEL
        assert len(button.custom_id or "") <= DISCORD_CUSTOM_ID
        rows[item.row or 0] = rows.get(item.row or 0, 0) + 1
    assert len(rows) <= DISCORD_ROWS and all(n <= DISCORD_PER_ROW for n in rows.values())


def quiz_cases() -> list[tuple[str, str]]:
    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    return [(quiz.id, language) for quiz in catalog.all() for language in quiz.languages]


@pytest.mark.parametrize(("quiz_id", "language"), quiz_cases())
async def test_everything_sent_for_a_quiz_fits_both_platforms(catalog, storage, quiz_id, language):
    await check_everything_fits(catalog, storage, quiz_id, language)


@pytest.mark.parametrize("language", ["en", "ur"])
async def test_everything_sent_for_a_quiz_with_code_fits_both_platforms(
    tmp_path, storage, language
):
    await check_everything_fits(code_catalog(tmp_path), storage, CODE_QUIZ, language)


async def check_everything_fits(catalog, storage, quiz_id, language):
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    quiz = catalog.get(quiz_id)
    # Every option of every question, right and wrong, by one user each.
    for index in range(max(len(q.options) for q in quiz.questions)):
        who = Participant("t", f"{language}-{index}", f"User {index}", language)
        await engine.set_language(who, language)
        question = (await engine.start(who, quiz_id)).question
        feedback: AnswerFeedback | None = None
        while question is not None:
            telegram_ok(telegram_rendering.question_message(question, owner="A. Very-Long Name"))
            discord_ok(discord_rendering.question_pages(question))
            discord_view_ok(answer_view(question))
            key = engine.answer_key(quiz_id, question.question_id, language)
            assert key is not None
            plan = plan_poll(question, key[0], key[1])
            if plan is not None:
                assert len(plan.question) <= TELEGRAM_POLL_QUESTION
                assert all(0 < len(o) <= TELEGRAM_POLL_OPTION for o in plan.options)
                assert len(plan.explanation) <= TELEGRAM_POLL_EXPLANATION
            choice = min(index, len(question.options) - 1)
            feedback = await engine.answer_by_position(
                who, question.attempt_id, question.number, choice
            )
            telegram_ok(telegram_rendering.answered_question(feedback, owner="Owner"))
            telegram_ok(telegram_rendering.feedback_message(feedback))
            assert len(telegram_rendering.toast(feedback.notice)) <= 200
            discord_ok(discord_rendering.feedback_pages(feedback))
            discord_view_ok(answer_view(question, feedback))
            question = feedback.next_question
        assert feedback is not None and isinstance(feedback.result, QuizResult)
        telegram_ok(telegram_rendering.result_message(feedback.result, owner="Owner"))
        discord_ok(discord_rendering.result_pages(feedback.result))
        discord_view_ok(
            result_view(quiz_id, 2**63 - 1, t("retry", language), t("other_quiz", language))
        )
    telegram_ok(telegram_rendering.progress_message(await engine.progress(who)))
    discord_ok(discord_rendering.progress_pages(await engine.progress(who)))
