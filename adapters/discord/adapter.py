"""The Discord client and the adapter the runner starts and stops.

:meth:`DiscordAdapter.start` logs in over HTTP (which runs :meth:`QuizClient.setup_hook`:
translator, button templates, command sync when needed) and then connects to the gateway in
a background task. Once logged in, the group rounds a previous process left running are
picked up again (:meth:`~adapters.discord.group_rounds.DiscordRoundDriver.resume`).

The client is sharded (:class:`discord.AutoShardedClient`): ``SHARD_COUNT`` and ``SHARD_IDS``
say how many shards there are and which run in this process (by default all of those Discord
recommends), so big bots spread their servers over several processes. A gateway that fails for
good (a revoked token, privileged intents not granted) resolves :meth:`DiscordAdapter.failed`,
and ``quizbot run`` exits non-zero so the platform restarts it or alerts.
:meth:`DiscordAdapter.stop` lets interactions being handled finish, stops the round timers
(the rounds stay in the database), then closes the gateway and the HTTP session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from adapters.discord import typed_answers
from adapters.discord.assignment_rendering import AssignmentMessages, StartAssignmentButton
from adapters.discord.buttons import DYNAMIC_ITEMS, is_known_custom_id
from adapters.discord.commands import build_tree
from adapters.discord.config import DiscordConfig
from adapters.discord.group_rounds import PLATFORM, DiscordRoundDriver, RoundTiming
from adapters.discord.handlers import QuizHandlers
from adapters.discord.interactions import DEFER_AFTER, StatsChart
from adapters.discord.outbox_sender import DiscordSender
from adapters.discord.reminders import render_review_due
from adapters.discord.sync import sync_if_changed
from adapters.discord.translator import QuizTranslator
from bot.rate_limit import CommandRateLimiter
from bot.review_reminders import REVIEW_DUE
from bot.services import Services

log = logging.getLogger("quizbot.discord")

STOP_GRACE = 5.0  # seconds to let in-flight interactions finish on stop
# Every button of ours: registered with discord.py, and what a press must match to be ours.
ALL_BUTTONS = (*DYNAMIC_ITEMS, *typed_answers.DYNAMIC_ITEMS, StartAssignmentButton)


class QuizClient(discord.AutoShardedClient):
    """A discord.py client that runs quizzes: slash commands plus stateless buttons.

    It never mentions anyone: quiz texts and display names are shown, not pinged.
    """

    def __init__(
        self,
        services: Services,
        config: DiscordConfig,
        *,
        defer_after: float = DEFER_AFTER,
        limiter: CommandRateLimiter | None = None,
        round_timing: RoundTiming | None = None,
        stats_chart: StatsChart | None = None,
        **options: Any,
    ) -> None:
        """``services``: the engine and the services beside it, the process's (the client
        posts Discord's outbox with their scheduling, whose scheduler the runner runs, and its
        round driver takes on the daily questions it opens); ``stats_chart`` (optional)
        renders a quiz's statistics as a PNG for ``/stats``."""
        # No privileged intents: interactions arrive regardless. The guilds intent keeps
        # discord.py's channel cache (and its startup warning) sane; DM messages carry the
        # files admins upload (a DM's content and attachments need no privileged intent).
        options.setdefault("shard_count", config.shard_count)
        if config.shard_ids is not None:
            options.setdefault("shard_ids", list(config.shard_ids))
        super().__init__(
            intents=discord.Intents(guilds=True, dm_messages=True),
            allowed_mentions=discord.AllowedMentions.none(),
            **options,
        )
        self.services = services
        self.engine = services.engine
        self.config = config
        self.round_driver = DiscordRoundDriver(
            self, services.rounds, timing=round_timing, clock=services.clock
        )
        # A channel a round cannot post in is marked as the outbox marks one.
        self.round_driver.unreachable = services.scheduling.reachability
        services.daily.on_posted(PLATFORM, self.round_driver.ensure)
        # The outbox: scheduled and queued messages (see TelegramAdapter).
        self.sender = DiscordSender(self)
        self.sender.register(REVIEW_DUE, render_review_due)
        for kind, renderer in AssignmentMessages(self.engine.catalog).renderers().items():
            self.sender.register(kind, renderer)
        self.poster = services.scheduling.poster(self.sender)
        self.quiz_handlers = QuizHandlers(
            services,
            self.round_driver,
            defer_after=defer_after,
            limiter=limiter,
            admin_ids=config.admin_ids,
            stats_chart=stats_chart,
        )
        self.tree = build_tree(self)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(QuizTranslator())
        self.add_dynamic_items(*ALL_BUTTONS)
        try:
            await sync_if_changed(self.tree, self.engine, self.config.guild_id)
        except discord.HTTPException:
            # Stale commands are better than no bot: presses and known commands still work,
            # and `quizbot discord-sync` can retry.
            log.exception("syncing the Discord commands failed")
        try:
            # Logged in, so rounds can post: carry on with those a previous process left.
            await self.round_driver.resume()
        except Exception:
            log.exception("resuming the Discord group rounds failed")
        self.poster.start()

    async def close(self) -> None:
        """Stop the outbox and the round timers (messages and rounds stay in the database),
        then disconnect."""
        await self.poster.stop()
        await self.round_driver.shutdown()
        await super().close()

    async def on_message(self, message: discord.Message) -> None:
        """A file sent to the bot in a DM: an admin's quiz upload."""
        await self.quiz_handlers.uploads.on_message(message)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.modal_submit:  # typed answers
            await self.quiz_handlers.answer_typed(interaction)
            return
        # discord.py silently drops presses that match no registered button; answer them.
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not (isinstance(custom_id, str) and is_known_custom_id(custom_id, ALL_BUTTONS)):
            await self.quiz_handlers.unknown_button(interaction)


class DiscordAdapter:
    """Runs the Discord bot for the runner: ``await start()``, later ``await stop()``."""

    name = "discord"

    def __init__(
        self,
        services: Services,
        config: DiscordConfig,
        *,
        defer_after: float = DEFER_AFTER,
        stats_chart: StatsChart | None = None,
    ) -> None:
        """``services``: the process's (see :class:`QuizClient`); ``stats_chart`` (optional)
        renders a quiz's statistics as a PNG for ``/stats``."""
        self.config = config
        self.client = QuizClient(
            services,
            config,
            defer_after=defer_after,
            stats_chart=stats_chart,
            round_timing=RoundTiming(lease=config.round_lease_seconds),
        )
        self._gateway: asyncio.Task[None] | None = None
        self._failure: asyncio.Future[BaseException] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Log in (and sync commands if they changed), then connect in the background."""
        try:
            await self.client.login(self.config.token)
        except BaseException:
            await self.client.close()
            raise
        self._failure = asyncio.get_running_loop().create_future()
        self._gateway = asyncio.create_task(self._connect(), name="discord-gateway")

    async def _connect(self) -> None:
        # discord.py reconnects on its own after what can be retried; what reaches here is
        # final (a revoked token: 4004, privileged intents: 4014, ...).
        try:
            await self.client.connect(reconnect=True)
        except Exception as error:
            log.error("the Discord gateway failed for good: %s", error)
            self._fail(error)
            return
        if not self._stopping:
            log.error("the Discord gateway closed while the bot was running")
            self._fail(ConnectionError("the Discord gateway closed"))

    def _fail(self, error: BaseException) -> None:
        if self._failure is not None and not self._failure.done():
            self._failure.set_result(error)

    async def failed(self) -> BaseException:
        """Wait until the gateway fails for good (never, while it works): the error."""
        if self._failure is None:
            raise RuntimeError("the adapter has not started")
        return await asyncio.shield(self._failure)

    async def stop(self) -> None:
        """Stop taking interactions, let those in progress finish, disconnect cleanly."""
        self._stopping = True
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
