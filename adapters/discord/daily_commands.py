"""``/daily [time] [weekdays] [hours] [quizzes]`` on Discord: a server channel's daily
question, shown to anyone, set or turned off by a member who may manage messages there. The
question itself is posted by the scheduled job and driven by the round driver
(:mod:`bot.daily`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
from discord import app_commands

from adapters.discord import rendering
from adapters.discord.daily_rendering import daily_reply_pages
from adapters.discord.group_rounds import PLATFORM
from adapters.discord.interactions import (
    Interactions,
    can_run_round,
    chat_title,
    handled,
    may_moderate,
    pages_to_messages,
    participant,
)
from adapters.discord.texts import STRINGS as TEXTS
from adapters.discord.texts import text
from adapters.discord.translator import localize_commands
from bot.daily.request import OFF_WORDS
from bot.daily.views import DailyOutcome


class DailyCommands(Interactions):
    """The handler of ``/daily`` and the autocomplete of its quizzes."""

    @handled()
    async def daily(
        self,
        interaction: discord.Interaction[Any],
        time: str | None,
        weekdays: bool = False,
        hours: int | None = None,
        quizzes: str | None = None,
    ) -> None:
        """``/daily [time] [weekdays] [hours] [quizzes]`` in a server channel: its daily
        question, shown to anyone; set (``time``) or turned off (``off``) by a member who may
        manage messages there, as ``/stop`` decides who controls a channel's round."""
        daily = self.services.daily
        if interaction.guild_id is None or interaction.channel_id is None:
            await self._notice_in_time(interaction, "daily_server_only")
            return
        words = [time or ""]
        words += ["weekdays"] if weekdays else []
        words += [f"{hours}h"] if hours is not None else []
        words += (quizzes or "").split()
        if not any(words):
            words = []
        setting = bool(words) and (time or "").strip().lower() not in OFF_WORDS
        if setting and not can_run_round(interaction):
            await self._notice_in_time(interaction, "round_no_permission")
            return
        reply = await self._in_time(
            interaction,
            daily.command(
                PLATFORM,
                str(interaction.channel_id),
                participant(interaction),
                words,
                is_chat_admin=may_moderate(interaction),
                chat_title=chat_title(interaction),
                zone_chat=str(interaction.guild_id),  # a channel keeps its server's zone
            ),
            self._think(interaction, private=False),
        )
        if reply.key in TEXTS:  # said in Discord's words
            reply = replace(reply, notice=text(reply.key, reply.language))
        if reply.outcome is DailyOutcome.REFUSED:
            await self._notice(interaction, reply.notice, reply.language)
            return
        notice = localize_commands(reply.notice, interaction.locale)
        pages = daily_reply_pages(replace(reply, notice=notice))
        await self._reply(interaction, pages_to_messages(pages), private=False)

    async def quiz_list_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Autocomplete for ``/daily``'s quizzes: the words typed so far, and the last one
        completed to each quiz id containing it (not chosen yet)."""
        words = current.split()
        done, last = (words, "") if current.endswith(" ") or not words else (words[:-1], words[-1])
        needle = last.casefold()
        choices = []
        for quiz in self.engine.catalog.all():
            if quiz.id in done or needle not in quiz.id:
                continue
            value = " ".join([*done, quiz.id])
            if len(value) <= rendering.CHOICE_NAME_LIMIT:
                choices.append(app_commands.Choice(name=value, value=value))
        return choices[: rendering.CHOICES_LIMIT]
