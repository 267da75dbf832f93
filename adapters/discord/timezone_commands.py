"""``/timezone [zone]`` on Discord: in DMs the user's own time zone, in a server the server's
(members who may manage the server change it); zone names autocomplete. Reminders keep their
local time, and a server's daily questions theirs, when it changes."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from adapters.discord import rendering
from adapters.discord.group_rounds import PLATFORM
from adapters.discord.interactions import Interactions, handled, participant
from bot.scheduling.timezones import Place, zone_names


def zone_choices(current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``/timezone``: IANA names containing what was typed (25 at most,
    those starting with it first)."""
    typed = current.strip().lower().replace(" ", "_")
    names = [n for n in zone_names() if typed in n.lower()]
    names.sort(key=lambda n: (not n.lower().startswith(typed), "/" not in n, n))
    return [app_commands.Choice(name=n, value=n) for n in names[: rendering.CHOICES_LIMIT]]


class TimezoneCommands(Interactions):
    """The handler of ``/timezone``."""

    @handled()
    async def timezone(self, interaction: discord.Interaction[Any], zone: str | None) -> None:
        """``/timezone [zone]``: in a server, the server's zone (changed by members who may
        manage it); in DMs, the user's own."""
        services = self.services
        who = participant(interaction)
        guild = interaction.guild_id
        place = Place(PLATFORM, str(guild) if guild else who.user_id, chat=guild is not None)
        permissions = interaction.permissions
        allowed = guild is None or permissions.administrator or permissions.manage_guild

        async def decide() -> tuple[str, str]:
            ui = await self._interface_language(interaction)
            text, changed = await services.scheduling.timezones.command(
                place, zone, ui, services.clock(), may_change=allowed
            )
            if changed and not place.chat:  # the reminder keeps its local time
                await services.reminders.zone_changed(who)
            if changed and place.chat:  # so do its daily questions
                await services.daily.zone_changed(PLATFORM, place.id)
            return text, ui

        text, ui = await self._in_time(
            interaction, decide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, text, ui)
