"""Assignments as Discord messages: the post with its Start button, the list of open ones,
the reports, and the outbox's reminders, recaps and summaries. Pure functions like
:mod:`adapters.discord.rendering` (embeds within Discord's limits); the wording is
:mod:`bot.assignments.presenters`' and :mod:`bot.assignments.messages`'.

Deadlines are Discord timestamps (``<t:UNIX:F>`` and ``<t:UNIX:R>``): every reader's client
shows the moment in their own time zone and language, and how far away it is, live.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Self

import discord

from adapters.discord.buttons import BUTTON_LABEL_LIMIT, press_handler
from adapters.discord.outbox_sender import DiscordPost
from adapters.discord.rendering import (
    INFO_COLOUR,
    QUESTION_COLOUR,
    RESULT_COLOUR,
    Page,
    Section,
    md,
    mdx,
    pack,
    truncate,
)
from bot.assignments import AssignmentPost, AssignmentReport
from bot.assignments.messages import recap_lines, reminder_line, summary_lines
from bot.assignments.presenters import intro_line, open_lines, post_lines, report_lines
from bot.assignments.reminders import RECAP, REMINDER, SUMMARY
from bot.assignments.texts import assignment_t
from bot.catalog import QuizCatalog
from bot.scheduling import OutgoingMessage
from bot.text_direction import LRI, PDI, is_rtl, paragraph

START_TEMPLATE = r"qz1:as:(?P<assignment>[0-9]{1,18})"
_SLOT = "\ue001"  # stands for a timestamp while the text around it is prepared


def when(deadline: datetime, language: str) -> str:
    """``<t:UNIX:F> (<t:UNIX:R>)``: the moment and how far away, in each reader's client."""
    stamp = int(deadline.timestamp())
    shown = f"<t:{stamp}:F> (<t:{stamp}:R>)"
    return f"{LRI}{shown}{PDI}" if is_rtl(language) else shown


def _stamped(lines: list[str], deadline: datetime, language: str) -> list[str]:
    """Lines made with :data:`_SLOT` for the deadline, the timestamps put in (after the text
    was prepared for its direction, which would isolate the markup's letters)."""
    return [line.replace(_SLOT, when(deadline, language)) for line in lines]


class StartAssignmentButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=START_TEMPLATE
):
    """Start (or continue) an assignment's quiz; any member may press it."""

    def __init__(self, assignment_id: int, *, label: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.success,
                custom_id=f"qz1:as:{assignment_id}",
            )
        )
        self.assignment_id = assignment_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["assignment"]), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_handler(interaction).start_assignment(interaction, self.assignment_id)


def start_view(assignment_id: int, language: str, key: str = "assignment_start") -> discord.ui.View:
    """The one button under an assignment (``key``: its label, Start or Continue)."""
    view = discord.ui.View(timeout=None)
    label = truncate(assignment_t(key, language), BUTTON_LABEL_LIMIT)
    view.add_item(StartAssignmentButton(assignment_id, label=label))
    view.stop()  # a layout only: presses come back through the template
    return view


def assignment_pages(post: AssignmentPost) -> list[Page]:
    """The assignment as posted in its channel."""
    lang = post.language
    title, *rest = post_lines(post, _SLOT, "assignment_hint_here")
    body = _stamped([paragraph(md(line), lang) for line in rest], post.deadline, lang)
    return pack(
        [Section("\n".join(body))],
        colour=QUESTION_COLOUR,
        title=paragraph(title, lang),
        rtl=post.rtl,
    )


def intro_text(post: AssignmentPost) -> str:
    """The line above a quiz started from an assignment (a message's content)."""
    (line,) = _stamped(
        [paragraph(intro_line(post, _SLOT), post.language)], post.deadline, post.language
    )
    return line


def open_pages(posts: Sequence[AssignmentPost], language: str) -> list[Page]:
    """``/assignments``: the channel's open assignments, soonest first."""
    first, *rest = open_lines(posts, language, lambda post: _SLOT)
    lines = [
        _stamped([paragraph(md(line), language)], post.deadline, language)[0]
        for line, post in zip(rest, posts, strict=True)
    ]
    return pack(
        [Section("\n".join(lines))] if lines else [],
        colour=INFO_COLOUR,
        title=paragraph(first, language),
        rtl=is_rtl(language),
    )


def report_pages(reports: Sequence[AssignmentReport], more: str | None = None) -> list[Page]:
    """``/report``: a section per assignment; ``more`` says how many older ones matched."""
    sections = []
    for report in reports:
        post = report.post
        lang = post.language
        title, *rest = report_lines(report, _SLOT)
        body = _stamped([paragraph(mdx(line), lang) for line in rest], post.deadline, lang)
        sections.append(Section("\n".join(body), paragraph(md(title), lang)))
    language = reports[0].post.language if reports else "en"
    if more:
        sections.append(Section(paragraph(md(more), language)))
    return pack(sections, colour=INFO_COLOUR, rtl=is_rtl(language))


# -- the outbox's messages (bot.assignments.reminders) ------------------------------------------


class AssignmentMessages:
    """The renderers of the assignments' outbox messages, on the catalog of quiz titles."""

    def __init__(self, catalog: QuizCatalog) -> None:
        self.catalog = catalog

    def renderers(self) -> dict[str, Callable[[OutgoingMessage, str], Sequence[DiscordPost]]]:
        return {REMINDER: self.reminder, RECAP: self.recap, SUMMARY: self.summary}

    def reminder(self, message: OutgoingMessage, language: str) -> list[DiscordPost]:
        """To a member who has not finished: the deadline, how far they got, Continue."""
        payload = message.payload
        deadline = datetime.fromisoformat(str(payload["deadline"]))
        line = reminder_line(payload, language, self.catalog, _SLOT)
        (shown,) = _stamped([paragraph(md(line), language)], deadline, language)
        embeds = pack([Section(shown)], colour=QUESTION_COLOUR, rtl=is_rtl(language))[0]
        view = start_view(int(payload["assignment"]), language, "assignment_continue")
        return [DiscordPost(embeds=embeds, view=view)]

    def recap(self, message: OutgoingMessage, language: str) -> list[DiscordPost]:
        """In the channel: how long is left, who did what, Start for the others."""
        first, *rest = recap_lines(message.payload, language, self.catalog)
        body = "\n".join(paragraph(md(line), language) for line in rest)
        embeds = pack(
            [Section(body)],
            colour=QUESTION_COLOUR,
            title=paragraph(first, language),
            rtl=is_rtl(language),
        )[0]
        view = start_view(int(message.payload["assignment"]), language)
        return [DiscordPost(embeds=embeds, view=view)]

    def summary(self, message: OutgoingMessage, language: str) -> list[DiscordPost]:
        """In the channel at the deadline: completion, average, hardest question."""
        first, *rest = summary_lines(message.payload, language, self.catalog)
        body = "\n".join(paragraph(mdx(line), language) for line in rest)
        pages = pack(
            [Section(body)],
            colour=RESULT_COLOUR,
            title=paragraph(first, language),
            rtl=is_rtl(language),
        )
        return [DiscordPost(embeds=page) for page in pages]
