"""The Discord client and the adapter the runner starts and stops.

:meth:`DiscordAdapter.start` logs in over HTTP (which runs :meth:`QuizClient.setup_hook`:
translator, button templates, command sync when needed) and then connects to the gateway in
a background task. Once logged in, the group rounds a previous process left running are
picked up again (:meth:`~adapters.discord.group_rounds.RoundRunner.resume`).
:meth:`DiscordAdapter.stop` lets interactions being handled finish, stops the round timers
(the rounds stay in the database), then closes the gateway and the HTTP session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from adapters.discord.buttons import DYNAMIC_ITEMS, is_known_custom_id
from adapters.discord.commands import build_tree
from adapters.discord.group_rounds import RoundClock, RoundRunner, RoundTiming
from adapters.discord.handlers import DEFER_AFTER, QuizHandlers, StatsChart
from adapters.discord.sync import sync_if_changed
from adapters.discord.translator import QuizTranslator
from bot.engine import QuizEngine
from bot.rate_limit import CommandRateLimiter
from quizbot.settings import Settings

log = logging.getLogger("quizbot.discord")

STOP_GRACE = 5.0  # seconds to let in-flight interactions finish on stop


class QuizClient(discord.Client):
    """A discord.py client that runs quizzes: slash commands plus stateless buttons.

    It never mentions anyone: quiz texts and display names are shown, not pinged.
    """

    def __init__(
        self,
        engine: QuizEngine,
        settings: Settings,
        *,
        defer_after: float = DEFER_AFTER,
        limiter: CommandRateLimiter | None = None,
        round_timing: RoundTiming | None = None,
        round_clock: RoundClock | None = None,
        stats_chart: StatsChart | None = None,
        **options: Any,
    ) -> None:
        # No privileged intents: interactions arrive regardless. The guilds intent keeps
        # discord.py's channel cache (and its startup warning) sane.
        super().__init__(
            intents=discord.Intents(guilds=True),
            allowed_mentions=discord.AllowedMentions.none(),
            **options,
        )
        self.engine = engine
        self.settings = settings
        self.rounds = RoundRunner(self, engine, timing=round_timing, clock=round_clock)
        self.quiz_handlers = QuizHandlers(
            engine,
            self.rounds,
            defer_after=defer_after,
            limiter=limiter,
            admin_ids=settings.admin_discord_ids,
            stats_chart=stats_chart,
        )
        self.tree = build_tree(self)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(QuizTranslator())
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        try:
            await sync_if_changed(self.tree, self.engine, self.settings.discord_guild_id)
        except discord.HTTPException:
            # Stale commands are better than no bot: presses and known commands still work,
            # and `quizbot discord-sync` can retry.
            log.exception("syncing the Discord commands failed")
        try:
            # Logged in, so rounds can post: carry on with those a previous process left.
            await self.rounds.resume()
        except Exception:
            log.exception("resuming the Discord group rounds failed")

    async def close(self) -> None:
        """Stop the round timers (the rounds stay in the database), then disconnect."""
        await self.rounds.shutdown()
        await super().close()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py silently drops presses that match no registered button; answer them.
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or not is_known_custom_id(custom_id):
            await self.quiz_handlers.unknown_button(interaction)


class DiscordAdapter:
    """Runs the Discord bot for the runner: ``await start()``, later ``await stop()``."""

    name = "discord"

    def __init__(
        self,
        engine: QuizEngine,
        settings: Settings,
        *,
        defer_after: float = DEFER_AFTER,
        stats_chart: StatsChart | None = None,
    ) -> None:
        """``stats_chart`` (optional) renders a quiz's statistics as a PNG for ``/stats``."""
        if not settings.discord_token:
            raise ValueError("DISCORD_BOT_TOKEN is not set")
        self.settings = settings
        self.client = QuizClient(engine, settings, defer_after=defer_after, stats_chart=stats_chart)
        self._gateway: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Log in (and sync commands if they changed), then connect in the background."""
        assert self.settings.discord_token is not None
        try:
            await self.client.login(self.settings.discord_token)
        except BaseException:
            await self.client.close()
            raise
        self._gateway = asyncio.create_task(self._connect(), name="discord-gateway")

    async def _connect(self) -> None:
        try:
            await self.client.connect(reconnect=True)
        except Exception:
            log.exception("the Discord gateway connection ended with an error")

    async def stop(self) -> None:
        """Stop taking interactions, let those in progress finish, disconnect cleanly."""
        if self._gateway is not None:
            # Stop reading the gateway first: no new interactions arrive, and the socket is
            # then closed with 1000 by client.close(). (Closed under a pending read,
            # discord.py's reader would send 4000, "reconnect", first, and Discord would keep
            # the session, and the bot shown online, for a while.)
            self._gateway.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._gateway
            self._gateway = None
        await self.client.quiz_handlers.drain(STOP_GRACE)
        await self.client.close()
