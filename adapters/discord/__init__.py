"""The Discord adapter: slash commands and stateless buttons on top of the quiz engine.

``DiscordAdapter(services, config)`` is what ``quizbot run`` starts when ``DISCORD_BOT_TOKEN``
is set, on the process's :class:`~bot.services.Services` and a :class:`DiscordConfig` the
wiring builds; :func:`sync_commands` registers the
slash commands on demand (``quizbot discord-sync [--guild ID]``).
"""

from adapters.discord.adapter import DiscordAdapter, QuizClient
from adapters.discord.config import DiscordConfig
from adapters.discord.sync import SyncResult, sync_commands

__all__ = [
    "DiscordAdapter",
    "DiscordConfig",
    "QuizClient",
    "SyncResult",
    "sync_commands",
]
