"""What the Discord adapter needs to know, built by the wiring (``quizbot``) from its settings.

The adapter never reads the environment or the application's settings: it gets this object.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DiscordConfig:
    """The bot token, the development server, the admins, the shards and the round lease."""

    token: str = field(repr=False)  # never in a log line
    guild_id: int | None = None  # commands registered in this server only (at once)
    admin_ids: frozenset[str] = frozenset()
    shard_count: int | None = None  # None: as many as Discord recommends
    shard_ids: tuple[int, ...] | None = None  # run here (None: all)
    round_lease_seconds: float = 15.0

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("DISCORD_BOT_TOKEN is not set")
