"""``/remind [time]`` on Discord: the daily review reminder, which comes as a direct message
(:mod:`bot.review_reminders`; its message is drawn in :mod:`adapters.discord.reminders`)."""

from __future__ import annotations

from typing import Any

import discord

from adapters.discord.interactions import Interactions, handled, participant


class ReminderCommands(Interactions):
    """The handler of ``/remind``."""

    @handled()
    async def remind(self, interaction: discord.Interaction[Any], when: str | None) -> None:
        """``/remind [HH:MM|off]``: the daily review reminder, by direct message."""
        reminders = self.services.reminders
        who = participant(interaction)

        async def decide() -> tuple[str, str]:
            ui = await self._interface_language(interaction)
            return await reminders.command(who, when, ui), ui

        text, ui = await self._in_time(
            interaction, decide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, text, ui)
