"""Assignments on Discord: ``/assign set`` and ``/assign cancel`` (members allowed to manage
the server or its messages, administrators, and the bot's operators), ``/assignments``,
``/report [which]`` (the same admins), and the Start button under an assignment.

The quiz is played where it is on Discord: the Start button opens it right there as an
ephemeral message, seen only by the member who pressed it, headed by the line naming the
assignment. Reports are ephemeral too (only the admin who asked sees them), with the CSV and
the per-question chart attached.

:class:`AssignmentHandlers` is one of the classes the client's
:class:`~adapters.discord.handlers.QuizHandlers` is made of (it shares their plumbing,
:class:`~adapters.discord.interactions.Interactions`: acknowledging in time, notices, the
command budget, and the members seen in each server channel, for the reports' "not
started").
"""

from __future__ import annotations

import dataclasses
import io
import logging
from typing import Any

import discord

from adapters.discord.assignment_rendering import (
    assignment_pages,
    intro_text,
    open_pages,
    report_pages,
    start_view,
)
from adapters.discord.group_rounds import PLATFORM
from adapters.discord.interactions import (
    Interactions,
    Outgoing,
    chat_title,
    handled,
    is_private_reply,
    pages_to_messages,
    participant,
    say,
)
from bot.assignments import AssignmentReports
from bot.assignments.export import assignment_csv
from bot.assignments.texts import assignment_t

log = logging.getLogger("quizbot.discord")


def may_manage(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member may set assignments and read reports in this channel: Manage
    Server, Manage Messages or Administrator, as Discord resolved them here."""
    permissions = interaction.permissions
    return permissions.administrator or permissions.manage_guild or permissions.manage_messages


class AssignmentHandlers(Interactions):
    """The handlers of the assignment commands and of the Start button."""

    def _manages(self, interaction: discord.Interaction[Any]) -> bool:
        """A bot operator anywhere, or an admin of this server channel."""
        if self._is_admin(interaction):
            return True
        return interaction.guild_id is not None and may_manage(interaction)

    # -- commands ---------------------------------------------------------------------------

    @handled()
    async def assign(
        self, interaction: discord.Interaction[Any], query: str | None, deadline: str | None
    ) -> None:
        """``/assign set quiz deadline``: the assignment, posted in the channel."""
        quiz_id = await self._resolve_quiz(interaction, query)
        result = await self._in_time(
            interaction,
            self.services.assignments.assign(
                str(interaction.channel_id),
                participant(interaction),
                quiz_id,
                deadline,
                in_group=interaction.guild_id is not None,
                allowed=self._manages(interaction),
                # A server's time zone is its channels'.
                zone_chat=str(interaction.guild_id) if interaction.guild_id else None,
                chat_title=chat_title(interaction),
            ),
            self._think(interaction, private=False),
        )
        if result.post is None:
            await self._notice(interaction, result.notice, result.language)
            return
        post = result.post
        view = start_view(post.assignment_id, post.language)
        messages = pages_to_messages(assignment_pages(post), view)
        await self._reply(interaction, messages, private=False)

    @handled()
    async def cancel_assignment(self, interaction: discord.Interaction[Any], number: int) -> None:
        """``/assign cancel id``."""
        result = await self._in_time(
            interaction,
            self.services.assignments.cancel(
                str(interaction.channel_id),
                participant(interaction),
                str(number),
                in_group=interaction.guild_id is not None,
                allowed=self._manages(interaction),
            ),
            self._think(interaction, private=False),
        )
        if result.cancelled is None:
            await self._notice(interaction, result.notice, result.language)
            return
        notice = say(interaction, result.notice, result.language)
        await self._reply(interaction, [Outgoing(content=notice)], private=False)

    @handled()
    async def list_assignments(self, interaction: discord.Interaction[Any]) -> None:
        """``/assignments``: the channel's open ones (only the asker sees the list)."""
        found = await self._in_time(
            interaction,
            self.services.assignments.open_in(
                PLATFORM, str(interaction.channel_id), participant(interaction)
            ),
            self._think(interaction, private=True),
        )
        if not found.posts:
            await self._notice(interaction, found.notice, found.language)
            return
        pages = open_pages(found.posts, found.language)
        await self._reply(interaction, pages_to_messages(pages), private=True)

    @handled()
    async def report(self, interaction: discord.Interaction[Any], query: str | None) -> None:
        """``/report [which]``: in a server channel, its assignments (its admins); in DMs,
        those the user set (the bot's operators: every one). With the CSV and the charts."""
        who = participant(interaction)
        if interaction.guild_id is not None and not self._manages(interaction):
            language = await self._interface_language(interaction)
            await self._notice(interaction, assignment_t("report_admins_only", language), language)
            return
        if interaction.guild_id is not None:
            asked = self.services.assignments.reports(
                PLATFORM, str(interaction.channel_id), who, query
            )
        else:
            mine = None if self._is_admin(interaction) else who.user_id
            asked = self.services.assignments.reports(PLATFORM, None, who, query, created_by=mine)
        found = await self._in_time(interaction, asked, self._think(interaction, private=True))
        if not found.reports:
            await self._notice(interaction, found.notice, found.language)
            return
        more = assignment_t("report_more", found.language, count=found.more) if found.more else None
        messages = pages_to_messages(report_pages(found.reports, more))
        messages[-1].files = self._report_files(found)
        await self._reply(interaction, messages, private=True)

    def _report_files(self, found: AssignmentReports) -> list[discord.File]:
        """The reports' CSV, and each report's per-question chart (when it can be drawn)."""
        numbers = "-".join(str(r.post.assignment_id) for r in found.reports)
        data = assignment_csv(found.reports).encode("utf-8-sig")  # spreadsheets read UTF-8
        files = [discord.File(io.BytesIO(data), filename=f"assignment-{numbers}.csv")]
        for report in found.reports:
            stats = report.stats
            if self.stats_chart is None or stats is None:
                continue
            titled = dataclasses.replace(stats, title=f"#{report.post.assignment_id} {stats.title}")
            try:
                png = self.stats_chart(titled)
            except Exception:
                log.warning("discord: no chart for assignment %s", report.post.assignment_id)
                continue
            name = f"assignment-{report.post.assignment_id}.png"
            files.append(discord.File(io.BytesIO(png), filename=name))
        return files

    # -- starting ---------------------------------------------------------------------------

    @handled()
    async def start_assignment(
        self, interaction: discord.Interaction[Any], assignment_id: int
    ) -> None:
        """The Start button: the quiz right here, seen only by the member who pressed it,
        under the line naming the assignment."""
        chat = str(interaction.channel_id) if interaction.channel_id else None
        started = await self._in_time(
            interaction,
            self.services.assignments.start(assignment_id, participant(interaction), chat_id=chat),
            self._think(interaction),
        )
        if started.start is None or started.post is None:
            await self._notice(interaction, started.notice, started.language)
            return
        messages = await self._start_messages(interaction, started.start)
        intro = intro_text(started.post)
        notice = messages[0].content
        messages[0].content = f"{intro}\n{notice}" if notice else intro
        await self._reply(interaction, messages, private=is_private_reply(interaction))
