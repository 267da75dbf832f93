"""The Discord adapter: slash commands and stateless buttons on top of the quiz engine.

``DiscordAdapter(engine, settings)`` is what ``quizbot run`` starts when ``DISCORD_BOT_TOKEN``
is set; :func:`discord_sync_command` is ``quizbot discord-sync [--guild ID]`` (registering
the slash commands on demand, through :func:`sync_commands`).
"""

from adapters.discord.adapter import DiscordAdapter, QuizClient
from adapters.discord.sync import SyncResult, discord_sync_command, sync_commands

__all__ = [
    "DiscordAdapter",
    "QuizClient",
    "SyncResult",
    "discord_sync_command",
    "sync_commands",
]
