"""Buttons whose ``custom_id`` carries everything needed to handle a press.

Every button is a :class:`discord.ui.DynamicItem`: discord.py matches a pressed ``custom_id``
against the templates registered with :meth:`discord.Client.add_dynamic_items` and rebuilds
the item from it, so a press is understood by any process, including one started after the
message was sent. Views are never kept in memory (they are stopped before sending), so the
same path handles every press, fresh or after a restart, and nothing grows per message.

``custom_id`` formats (all well under Discord's 100 characters):

- ``qz1:a:<attempt>:<question number>:<option index>``: answer (the engine's compact form)
- ``qz1:s:<quiz id>[:<owner user id>]``: start or resume a quiz; with an owner (the retry
  button of a result) only that user may press it
- ``qz1:o``: list the quizzes
- ``qz1:r:<round>:<question number>:<option index>``: answer a group round's question
- ``qz1:g:<quiz id>[:<seconds>]``: start a group round of that quiz in the channel (the
  picker ``/round`` shows when no quiz was named)
- ``qz1:v``: start (or resume) the presser's review (a review reminder's button)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, Self, cast

import discord

from adapters.discord.rendering import truncate
from bot import markup
from bot.rounds import RoundQuestion
from bot.views import AnswerFeedback, OptionView, QuestionView, QuizSummary

BUTTON_LABEL_LIMIT = 80
ROWS = 5
BUTTONS_PER_ROW = 5

ANSWER_TEMPLATE = r"qz1:a:(?P<attempt>[0-9]{1,18}):(?P<number>[0-9]{1,4}):(?P<option>[0-9]{1,2})"
START_TEMPLATE = r"qz1:s:(?P<quiz>[a-z0-9][a-z0-9_-]{0,39})(?::(?P<owner>[0-9]{1,20}))?"
LIST_TEMPLATE = r"qz1:o"
ROUND_TEMPLATE = r"qz1:r:(?P<round>[0-9]{1,18}):(?P<number>[0-9]{1,4}):(?P<option>[0-9]{1,2})"
REVIEW_TEMPLATE = r"qz1:v"
ROUND_START_TEMPLATE = r"qz1:g:(?P<quiz>[a-z0-9][a-z0-9_-]{0,39})(?::(?P<seconds>[0-9]{1,3}))?"


class PressHandler(Protocol):
    """What the buttons call; implemented by :class:`adapters.discord.handlers.QuizHandlers`."""

    async def answer(
        self, interaction: discord.Interaction[Any], attempt_id: int, number: int, option: int
    ) -> None: ...

    async def start_pressed(
        self, interaction: discord.Interaction[Any], quiz_id: str, owner_id: int | None
    ) -> None: ...

    async def list_pressed(self, interaction: discord.Interaction[Any]) -> None: ...

    async def round_answer(
        self, interaction: discord.Interaction[Any], round_id: int, number: int, option: int
    ) -> None: ...

    async def round_start_pressed(
        self, interaction: discord.Interaction[Any], quiz_id: str, seconds: int | None
    ) -> None: ...

    async def review_pressed(self, interaction: discord.Interaction[Any]) -> None: ...

    async def open_typed_answer(
        self, interaction: discord.Interaction[Any], attempt_id: int, number: int
    ) -> None: ...

    async def start_assignment(
        self, interaction: discord.Interaction[Any], assignment_id: int
    ) -> None: ...


def press_handler(interaction: discord.Interaction[Any]) -> PressHandler:
    """The handlers of the client that received ``interaction``."""
    handler = getattr(interaction.client, "quiz_handlers", None)
    if handler is None:
        raise RuntimeError("this client does not handle quiz buttons")
    return cast(PressHandler, handler)


Button = discord.ui.Button[discord.ui.View]


class AnswerButton(discord.ui.DynamicItem[Button], template=ANSWER_TEMPLATE):
    """One option of one question of one attempt."""

    def __init__(
        self,
        attempt_id: int,
        number: int,
        option: int,
        *,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                disabled=disabled,
                custom_id=f"qz1:a:{attempt_id}:{number}:{option}",
            ),
            row=row,
        )
        self.attempt_id = attempt_id
        self.number = number
        self.option = option

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        label = getattr(item, "label", None) or "?"
        return cls(int(match["attempt"]), int(match["number"]), int(match["option"]), label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).answer(
            interaction, self.attempt_id, self.number, self.option
        )


class StartButton(discord.ui.DynamicItem[Button], template=START_TEMPLATE):
    """Start (or resume) a quiz; with an owner, a retry button only its owner may press."""

    def __init__(
        self,
        quiz_id: str,
        owner_id: int | None = None,
        *,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        row: int | None = None,
    ) -> None:
        custom_id = f"qz1:s:{quiz_id}" + (f":{owner_id}" if owner_id is not None else "")
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id), row=row)
        self.quiz_id = quiz_id
        self.owner_id = owner_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        owner = match["owner"]
        label = getattr(item, "label", None) or "?"
        return cls(match["quiz"], int(owner) if owner else None, label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).start_pressed(interaction, self.quiz_id, self.owner_id)


class ListButton(discord.ui.DynamicItem[Button], template=LIST_TEMPLATE):
    """Show the list of quizzes."""

    def __init__(self, *, label: str, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id="qz1:o"),
            row=row,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).list_pressed(interaction)


class RoundAnswerButton(discord.ui.DynamicItem[Button], template=ROUND_TEMPLATE):
    """One option of the open question of a group round; anyone in the channel may press."""

    def __init__(
        self,
        round_id: int,
        number: int,
        option: int,
        *,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                disabled=disabled,
                custom_id=f"qz1:r:{round_id}:{number}:{option}",
            ),
            row=row,
        )
        self.round_id = round_id
        self.number = number
        self.option = option

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        label = getattr(item, "label", None) or "?"
        return cls(int(match["round"]), int(match["number"]), int(match["option"]), label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).round_answer(
            interaction, self.round_id, self.number, self.option
        )


class RoundStartButton(discord.ui.DynamicItem[Button], template=ROUND_START_TEMPLATE):
    """Start a group round of one quiz in the channel where the picker was shown."""

    def __init__(
        self, quiz_id: str, seconds: int | None = None, *, label: str, row: int | None = None
    ) -> None:
        custom_id = f"qz1:g:{quiz_id}" + (f":{seconds}" if seconds is not None else "")
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=custom_id),
            row=row,
        )
        self.quiz_id = quiz_id
        self.seconds = seconds

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        seconds = match["seconds"]
        label = getattr(item, "label", None) or "?"
        return cls(match["quiz"], int(seconds) if seconds else None, label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).round_start_pressed(
            interaction, self.quiz_id, self.seconds
        )


class ReviewButton(discord.ui.DynamicItem[Button], template=REVIEW_TEMPLATE):
    """Start the presser's review (under a review reminder)."""

    def __init__(self, *, label: str = "Review") -> None:
        super().__init__(
            discord.ui.Button(
                label=truncate(label, BUTTON_LABEL_LIMIT),
                style=discord.ButtonStyle.primary,
                custom_id="qz1:v",
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(label=getattr(item, "label", None) or "Review")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).review_pressed(interaction)


def review_view(label: str) -> discord.ui.View:
    """A review reminder's one button."""
    return _frozen([ReviewButton(label=label)])


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    AnswerButton,
    StartButton,
    ListButton,
    RoundAnswerButton,
    RoundStartButton,
    ReviewButton,
)


def is_known_custom_id(
    custom_id: str, items: Iterable[type[discord.ui.DynamicItem[Any]]] = DYNAMIC_ITEMS
) -> bool:
    """Whether a pressed ``custom_id`` is one of ``items`` (by default this module's
    buttons); else the press is junk."""
    return any(item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in items)


def _frozen(items: Sequence[discord.ui.Item[Any]]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    # A stopped view is only a component layout: discord.py neither stores it nor times it
    # out; presses come back through the dynamic item templates.
    view.stop()
    return view


def option_label(letter: str, option_text: str) -> str:
    """``A. option text`` (code shown plain) when it fits a button label, else just ``A``."""
    full = f"{letter}. {markup.plain(option_text)}"
    return full if len(full) <= BUTTON_LABEL_LIMIT and "\n" not in full else letter


def answer_view(question: QuestionView, feedback: AnswerFeedback | None = None) -> discord.ui.View:
    """One button per option: one per row up to 5 options, else side by side in 5 rows.

    With ``feedback`` the buttons are disabled and coloured: the correct option green, a
    wrong choice red.
    """
    per_row = _per_row(question.options)
    buttons = []
    for index, option in enumerate(question.options):
        style = discord.ButtonStyle.primary
        if feedback is not None:
            style = discord.ButtonStyle.secondary
            if feedback.correct_option is not None and option.id == feedback.correct_option.id:
                style = discord.ButtonStyle.success
            elif feedback.chosen is not None and option.id == feedback.chosen.id:
                style = discord.ButtonStyle.danger
        buttons.append(
            AnswerButton(
                question.attempt_id,
                question.number,
                index,
                label=option_label(option.letter, option.text),
                style=style,
                disabled=feedback is not None,
                row=index // per_row,
            )
        )
    return _frozen(buttons)


def _per_row(options: Sequence[OptionView]) -> int:
    return max(1, math.ceil(len(options) / ROWS))


def round_view(
    question: RoundQuestion, *, closed: bool = False, correct_id: str | None = None
) -> discord.ui.View:
    """The options of a round's question; once closed, disabled (the correct one green when
    it was revealed)."""
    per_row = _per_row(question.options)
    buttons = []
    for index, option in enumerate(question.options):
        style = discord.ButtonStyle.primary
        if closed:
            right = option.id == correct_id
            style = discord.ButtonStyle.success if right else discord.ButtonStyle.secondary
        buttons.append(
            RoundAnswerButton(
                question.round_id,
                question.number,
                index,
                label=option_label(option.letter, option.text),
                style=style,
                disabled=closed,
                row=index // per_row,
            )
        )
    return _frozen(buttons)


def round_choose_view(quizzes: Sequence[QuizSummary], seconds: int | None) -> discord.ui.View:
    """One round-start button per quiz, at most 25."""
    items: list[discord.ui.Item[Any]] = []
    for index, quiz in enumerate(quizzes[: ROWS * BUTTONS_PER_ROW]):
        label = truncate(markup.plain(quiz.title), BUTTON_LABEL_LIMIT)
        items.append(RoundStartButton(quiz.id, seconds, label=label, row=index // BUTTONS_PER_ROW))
    return _frozen(items)


def result_view(
    quiz_id: str, owner_id: int, retry_label: str | None, other_label: str | None
) -> discord.ui.View | None:
    """Retry (only for the quiz's owner) and, when there are other quizzes, the list; None
    when neither is wanted."""
    items: list[discord.ui.Item[Any]] = []
    if retry_label:
        label = truncate(retry_label, BUTTON_LABEL_LIMIT)
        items.append(StartButton(quiz_id, owner_id, label=label, row=0))
    if other_label:
        items.append(ListButton(label=truncate(other_label, BUTTON_LABEL_LIMIT), row=0))
    return _frozen(items) if items else None


def choose_view(quizzes: Sequence[QuizSummary]) -> discord.ui.View:
    """One start button per quiz, at most 25 (5 rows of 5)."""
    items: list[discord.ui.Item[Any]] = []
    for index, quiz in enumerate(quizzes[: ROWS * BUTTONS_PER_ROW]):
        label = truncate(markup.plain(quiz.title), BUTTON_LABEL_LIMIT)
        items.append(StartButton(quiz.id, label=label, row=index // BUTTONS_PER_ROW))
    return _frozen(items)
