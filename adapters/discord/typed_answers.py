"""Typed-answer questions on Discord: a "Type your answer" button opens a modal with a text
field; submitting it answers the question.

The button is a :class:`discord.ui.DynamicItem` and the modal is never kept in memory: its
``custom_id`` (``qz1:m:<attempt>:<question number>``) carries what it answers, and the submit
arrives through :meth:`QuizClient.on_interaction` (see :func:`submitted_answer`), so a modal opened
before a restart still counts. The same works in servers (ephemeral, as quiz messages are) and
in DMs; reading plain DM messages would need the privileged message content intent, which the
bot does not ask for. A submit edits the question into its feedback and sends the next
question (or the result) as a followup, exactly as an option press does.

``custom_id`` formats: ``qz1:t:<attempt>:<question number>`` (the button),
``qz1:m:<attempt>:<question number>`` (the modal), ``answer`` (its text field).
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from adapters.discord import buttons, rendering
from adapters.discord.rendering import Page, Section, md, mdx, pack, truncate
from bot import markup
from bot.answer_matching import MAX_TYPED_CHARS
from bot.i18n import t
from bot.text_direction import paragraph
from bot.typed_texts import typed_t
from bot.views import AnswerFeedback, QuestionView, progress_bar

TYPE_TEMPLATE = r"qz1:t:(?P<attempt>[0-9]{1,18}):(?P<number>[0-9]{1,4})"
MODAL_ID = re.compile(r"qz1:m:(?P<attempt>[0-9]{1,18}):(?P<number>[0-9]{1,4})")
FIELD_ID = "answer"
MODAL_TITLE_LIMIT = 45  # Discord's limits on a modal's title, a text input's label and
LABEL_LIMIT = 45  # placeholder
PLACEHOLDER_LIMIT = 100

Button = discord.ui.Button[discord.ui.View]


def _heading(question: QuestionView, *, answered: bool = False) -> str:
    number, total = question.number, question.total
    progress = t("question_progress", question.language, number=number, total=total)
    return f"{progress}  {progress_bar(number if answered else number - 1, total)}"


def question_pages(question: QuestionView) -> list[Page]:
    """The question and how to answer it."""
    lang = question.language
    sections = [
        Section(paragraph(mdx(question.text), lang)),
        Section(paragraph(typed_t("typed_hint", lang), lang)),
    ]
    return pack(
        sections,
        colour=rendering.QUESTION_COLOUR,
        title=paragraph(_heading(question), lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )


def feedback_pages(feedback: AnswerFeedback) -> list[Page]:
    """The answered question: right or wrong, what was typed, the accepted answer, why."""
    question = feedback.question
    assert question is not None
    lang = question.language
    sections = [Section(paragraph(mdx(question.text), lang))]
    if feedback.typed_answer is not None:
        name = typed_t("typed_field", lang)
        sections.append(Section(paragraph(md(feedback.typed_answer), lang), paragraph(name, lang)))
    if not feedback.correct and feedback.accepted_answer is not None:
        name = typed_t("typed_correct", lang)
        answer = mdx(feedback.accepted_answer)
        sections.append(Section(paragraph(answer, lang), paragraph(name, lang)))
    if feedback.explanation:
        name = t("explanation", lang)
        sections.append(Section(paragraph(mdx(feedback.explanation), lang), paragraph(name, lang)))
    return pack(
        sections,
        colour=rendering.RIGHT_COLOUR if feedback.correct else rendering.WRONG_COLOUR,
        title=paragraph(f"{_heading(question, answered=True)} · {feedback.notice}", lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )


class TypeAnswerButton(discord.ui.DynamicItem[Button], template=TYPE_TEMPLATE):
    """Opens the answer modal of one question of one attempt."""

    def __init__(self, attempt_id: int, number: int, *, label: str, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                disabled=disabled,
                custom_id=f"qz1:t:{attempt_id}:{number}",
            )
        )
        self.attempt_id = attempt_id
        self.number = number

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        label = getattr(item, "label", None) or "?"
        return cls(int(match["attempt"]), int(match["number"]), label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handlers = buttons.press_handler(interaction)
        await handlers.open_typed_answer(interaction, self.attempt_id, self.number)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (TypeAnswerButton,)


def answer_view(question: QuestionView, *, answered: bool = False) -> discord.ui.View:
    """The "Type your answer" button (disabled once answered)."""
    label = truncate(typed_t("typed_button", question.language), buttons.BUTTON_LABEL_LIMIT)
    button = TypeAnswerButton(question.attempt_id, question.number, label=label, disabled=answered)
    view = discord.ui.View(timeout=None)
    view.add_item(button)
    view.stop()  # a layout only: presses come back through the dynamic item's template
    return view


def question_layout(question: QuestionView) -> tuple[list[Page], discord.ui.View]:
    """The pages and buttons of any question: typed ones here, choice ones as usual."""
    if question.typed:
        return question_pages(question), answer_view(question)
    return rendering.question_pages(question), buttons.answer_view(question)


def answer_modal(question: QuestionView) -> discord.ui.Modal:
    """A modal with one text field, for ``question``; not kept in memory (see the module)."""
    lang = question.language
    modal = discord.ui.Modal(
        title=truncate(typed_t("typed_field", lang), MODAL_TITLE_LIMIT),
        custom_id=f"qz1:m:{question.attempt_id}:{question.number}",
        timeout=None,
    )
    modal.add_item(
        discord.ui.TextInput(
            label=truncate(typed_t("typed_field", lang), LABEL_LIMIT),
            custom_id=FIELD_ID,
            placeholder=truncate(" ".join(question.text.split()), PLACEHOLDER_LIMIT),
            max_length=MAX_TYPED_CHARS,
            required=True,
        )
    )
    modal.stop()  # never stored: see submitted_answer()
    return modal


def _typed_value(data: Any) -> str:
    """The text field's value from a modal submit's raw components."""
    stack = list(data.get("components") or [])
    while stack:
        component = stack.pop(0)
        if not isinstance(component, dict):
            continue
        if component.get("custom_id") == FIELD_ID and isinstance(component.get("value"), str):
            return str(component["value"])
        stack += component.get("components") or []
        if isinstance(component.get("component"), dict):
            stack.append(component["component"])
    return ""


def submitted_answer(data: Any) -> tuple[int, int, str] | None:
    """(attempt id, question number, typed text) of a modal submit's raw data; None when the
    submit is not one of our answer modals."""
    match = MODAL_ID.fullmatch(str((data or {}).get("custom_id", "")))
    if match is None:
        return None
    return int(match["attempt"]), int(match["number"]), _typed_value(data)
