"""What every Discord handler shares: answering in time, replies and notices, the command
budget, who may do what, and what a started quiz shows.

Discord wants an acknowledgement within 3 seconds. The engine is normally much faster; if a
call has not finished after :data:`DEFER_AFTER` seconds the interaction is deferred (a
"thinking…" placeholder for commands, a silent deferred update for presses) and the real
reply follows as an edit or followup.

Every command and press handler is decorated with :func:`handled`: tracked so that stopping
lets it finish, a crash turned into a short notice, admin commands refused to others, and
commands (and the start/list buttons, which also create messages) within the user's budget;
answering is paced by the quiz itself and is not limited. The interface language is looked up
once per interaction and kept in discord.py's ``Interaction.extras``.

The handlers themselves are :class:`~adapters.discord.handlers.QuizHandlers`, put together
from one class per feature, each an :class:`Interactions`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

import discord

from adapters.discord import buttons, images, rendering, typed_answers
from adapters.discord.group_rounds import PLATFORM, DiscordRoundDriver
from adapters.discord.texts import STRINGS as TEXTS
from adapters.discord.texts import text
from adapters.discord.translator import localize_commands
from bot.i18n import t
from bot.rate_limit import CommandRateLimiter
from bot.services import Services
from bot.stats import QuizStats
from bot.text_direction import paragraph, strip_controls
from bot.views import Participant, QuestionView, StartResult

DEFER_AFTER = 1.0  # seconds; Discord drops interactions not acknowledged within 3, and
# a burst of hundreds of defers needs the rest of that window to reach Discord
LANGUAGE_KEY = "quizbot_language"  # the interaction's interface language, once looked up

log = logging.getLogger("quizbot.discord")
T = TypeVar("T")
StatsChart = Callable[[QuizStats], bytes]  # a quiz's statistics as a PNG


@dataclass
class Outgoing:
    """One message to send or to edit into place."""

    content: str | None = None
    embeds: Sequence[discord.Embed] = ()
    view: discord.ui.View | None = None
    files: Sequence[discord.File] = ()
    # An edit adding ``files``: the message's files it keeps (an edit with files replaces them).
    kept: Sequence[discord.Attachment] = ()

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": list(self.embeds)}
        if self.content:
            kwargs["content"] = rendering.notice(self.content)
        if self.view is not None:
            kwargs["view"] = self.view
        if self.files:
            kwargs["files"] = list(self.files)
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        # Edits replace everything, so say explicitly what goes away.
        content = rendering.notice(self.content) if self.content else None
        kwargs: dict[str, Any] = {
            "content": content,
            "embeds": list(self.embeds),
            "view": self.view,
        }
        if self.files:
            kwargs["attachments"] = [*self.kept, *self.files]
        return kwargs


def participant(interaction: discord.Interaction[Any]) -> Participant:
    """The user behind an interaction, with their Discord client's locale."""
    user = interaction.user
    return Participant(PLATFORM, str(user.id), user.display_name, interaction.locale.value)


def chat_title(interaction: discord.Interaction[Any]) -> str | None:
    """How a member names the interaction's channel elsewhere (a daily streak's chat, an
    assignment's reminder in DMs): ``#general``, with its server's name when discord.py
    knows the server (``#general (Study Club)``); None when the channel's name is unknown."""
    name = getattr(interaction.channel, "name", None)
    if not isinstance(name, str):
        return None
    guild = interaction.guild
    return f"#{name} ({guild.name})" if guild is not None and guild.name else f"#{name}"


def say(interaction: discord.Interaction[Any], message: str, language: str) -> str:
    """Interface text for a message: commands named as the user's client names them, each
    line laid out in the language's direction."""
    return paragraph(localize_commands(message, interaction.locale), language)


def is_private_reply(interaction: discord.Interaction[Any]) -> bool:
    """In a server, quiz messages are ephemeral: only the member who asked sees them."""
    return interaction.guild_id is not None


def can_run_round(interaction: discord.Interaction[Any]) -> bool:
    """Whether the bot may post a round's messages (with embeds) in the interaction's channel:
    rounds post through the channel, where a missing permission would only show up later."""
    allowed = interaction.app_permissions
    if isinstance(interaction.channel, discord.Thread):
        send = allowed.send_messages_in_threads
    else:
        send = allowed.send_messages
    return allowed.view_channel and send and allowed.embed_links


def may_moderate(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member may end someone else's round in this channel (Manage Messages or
    Administrator, as Discord resolved them for this channel)."""
    permissions = interaction.permissions
    return permissions.administrator or permissions.manage_messages


def pages_to_messages(
    pages: Sequence[rendering.Page], view: discord.ui.View | None = None
) -> list[Outgoing]:
    """A message per page, ``view`` under the last."""
    messages = [Outgoing(embeds=page) for page in pages]
    messages[-1].view = view
    return messages


P = ParamSpec("P")
H = TypeVar("H", bound="Interactions")  # the class whose method it is
Method = Callable[Concatenate[H, "discord.Interaction[Any]", P], Coroutine[Any, Any, None]]


def handled(*, limited: bool = True, admin: bool = False) -> Callable[[Method[H, P]], Method[H, P]]:
    """What every command and press goes through: tracked (so stop() lets it finish), a crash
    turned into a short notice; with ``admin``, refused to anyone but the bot's admins; with
    ``limited`` (commands, not answers), within the user's command budget."""

    def wrap(method: Method[H, P]) -> Method[H, P]:
        @functools.wraps(method)
        async def run(
            self: H,
            interaction: discord.Interaction[Any],
            /,
            *args: P.args,
            **kwargs: P.kwargs,
        ) -> None:
            async with self._handling(interaction):
                if admin and await self._refuse_non_admin(interaction):
                    return
                if (limited or admin) and not await self._allowed(interaction):
                    return
                await method(self, interaction, *args, **kwargs)

        return run

    return wrap


class Interactions:
    """The plumbing of one client's handlers, with the engine and the services beside it."""

    def __init__(
        self,
        services: Services,
        round_driver: DiscordRoundDriver,
        *,
        defer_after: float = DEFER_AFTER,
        limiter: CommandRateLimiter | None = None,
        admin_ids: frozenset[str] = frozenset(),
        stats_chart: StatsChart | None = None,
    ) -> None:
        """``services``: the engine and the services beside it; ``stats_chart`` (optional)
        renders a quiz's statistics as a PNG (``/stats``, reports)."""
        self.services = services
        self.engine = services.engine
        self.round_driver = round_driver
        self.rounds = round_driver.rounds  # the rules of group rounds
        self.defer_after = defer_after
        self.limiter = limiter or CommandRateLimiter()
        self.admin_ids = admin_ids
        self.stats_chart = stats_chart
        self._in_flight: set[asyncio.Task[Any]] = set()

    # -- plumbing -------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _handling(self, interaction: discord.Interaction[Any]) -> AsyncIterator[None]:
        """Track the handler (so stop() can let it finish) and turn a crash into a notice."""
        task = asyncio.current_task()
        if task is not None:
            self._in_flight.add(task)
        try:
            # They talk to the bot: the outbox may DM them again (a no-op unless marked).
            channel = interaction.channel_id
            await self.services.scheduling.reachability.seen(
                PLATFORM, str(interaction.user.id), str(channel) if channel else None
            )
            yield
        except Exception:
            log.exception("handling a Discord interaction failed")
            with contextlib.suppress(Exception):
                language = await self._interface_language(interaction)
                await self._notice(interaction, text("error", language), language)
        finally:
            if task is not None:
                self._in_flight.discard(task)

    async def drain(self, grace: float) -> None:
        """Wait (up to ``grace`` seconds) for interactions being handled to finish."""
        pending = {task for task in self._in_flight if task is not asyncio.current_task()}
        if pending:
            await asyncio.wait(pending, timeout=grace)

    async def _in_time(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        defer: Callable[[], Awaitable[object]],
    ) -> T:
        """Run ``work``; if it is still running after ``defer_after`` seconds, acknowledge
        the interaction with ``defer`` so Discord's 3 second window is kept."""
        task = asyncio.ensure_future(work)
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.defer_after)
        except TimeoutError:
            if not interaction.response.is_done():
                try:
                    await defer()
                except discord.HTTPException:
                    log.warning("could not defer interaction %s", interaction.id, exc_info=True)
            return await task

    async def _interface_language(self, interaction: discord.Interaction[Any]) -> str:
        """The user's interface language, asked of the engine once per interaction (kept in
        discord.py's ``Interaction.extras``)."""
        known = interaction.extras.get(LANGUAGE_KEY)
        if isinstance(known, str):
            return known
        language = await self.engine.interface_language(participant(interaction))
        interaction.extras[LANGUAGE_KEY] = language
        return language

    async def _reply(
        self, interaction: discord.Interaction[Any], messages: Sequence[Outgoing], *, private: bool
    ) -> None:
        """New messages: the first as the response (or in place of the "thinking…"
        placeholder when deferred), the others as followups."""
        first, *rest = messages
        if not interaction.response.is_done():
            await interaction.response.send_message(**first.send_kwargs(), ephemeral=private)
        else:
            await interaction.edit_original_response(**first.edit_kwargs())
        for message in rest:
            await interaction.followup.send(**message.send_kwargs(), ephemeral=private, wait=True)

    async def _update(
        self, interaction: discord.Interaction[Any], messages: Sequence[Outgoing], *, private: bool
    ) -> None:
        """Edit the pressed message into the first message, then send the others."""
        first, *rest = messages
        if not interaction.response.is_done():
            await interaction.response.edit_message(**first.edit_kwargs())
        else:
            await interaction.edit_original_response(**first.edit_kwargs())
        for message in rest:
            await interaction.followup.send(**message.send_kwargs(), ephemeral=private, wait=True)

    async def _notice(
        self, interaction: discord.Interaction[Any], notice: str, language: str
    ) -> None:
        """A short note only the presser sees; nothing else changes."""
        content = rendering.notice(say(interaction, notice, language))
        thinking = discord.InteractionResponseType.deferred_channel_message
        if not interaction.response.is_done():
            await interaction.response.send_message(content, ephemeral=True)
        elif interaction.response.type is thinking:  # replace the "thinking…" placeholder
            await interaction.edit_original_response(content=content, embeds=[], view=None)
        else:
            await interaction.followup.send(content, ephemeral=True, wait=True)

    async def _notice_in_time(self, interaction: discord.Interaction[Any], key: str) -> None:
        """A notice from :mod:`adapters.discord.texts` or :data:`bot.i18n.STRINGS`, in the
        user's language (looked up without risking Discord's 3 seconds)."""
        language = await self._in_time(
            interaction,
            self._interface_language(interaction),
            lambda: interaction.response.defer(ephemeral=True, thinking=True),
        )
        notice = text(key, language) if key in TEXTS else t(key, language)
        await self._notice(interaction, notice, language)

    async def _allowed(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether the user may run another command now (a per-user token bucket); if not,
        they are told. Discord needs every interaction answered, and interaction replies do
        not count against the bot's global rate limit, so the notice is repeated rather than
        leaving the user with "this interaction failed". Whoever acts in a server channel is
        remembered as one of its members (for the assignments' reports)."""
        if not self.limiter.check(PLATFORM, str(interaction.user.id)).allowed:
            await self._notice_in_time(interaction, "slow_down")
            return False
        if interaction.guild_id is not None and interaction.channel_id is not None:
            channel = str(interaction.channel_id)
            await self.services.assignments.members.seen(channel, participant(interaction))
        return True

    def _think(
        self, interaction: discord.Interaction[Any], *, private: bool | None = None
    ) -> Callable[[], Awaitable[object]]:
        """A "thinking…" placeholder, private as the reply will be (by default, as quiz
        messages are)."""
        ephemeral = is_private_reply(interaction) if private is None else private
        return lambda: interaction.response.defer(ephemeral=ephemeral, thinking=True)

    def _is_admin(self, interaction: discord.Interaction[Any]) -> bool:
        return str(interaction.user.id) in self.admin_ids

    async def _refuse_non_admin(self, interaction: discord.Interaction[Any]) -> bool:
        """True (after telling them the command is unknown) for anyone but a bot admin."""
        if self._is_admin(interaction):
            return False
        await self._notice_in_time(interaction, "unknown_command")
        return True

    # -- what a started quiz shows --------------------------------------------------------

    async def _resolve_quiz(
        self, interaction: discord.Interaction[Any], query: str | None
    ) -> str | None:
        """A quiz id from what was typed: an id (autocomplete fills those in), else the one
        quiz whose title contains the text."""
        query = (query or "").strip()
        if not query or self.engine.catalog.get(query) is not None:
            return query or None
        language = await self._interface_language(interaction)
        needle = query.casefold()
        found = [
            s.id
            for s in self.engine.quizzes(language)
            if needle in strip_controls(s.title).casefold()
        ]
        return found[0] if len(found) == 1 else query

    async def _start_messages(
        self, interaction: discord.Interaction[Any], result: StartResult
    ) -> list[Outgoing]:
        """What starting a quiz shows (``/quiz``, its buttons, ``/review``, an assignment's
        Start): its question under the notice, the quizzes to choose from, or the notice."""
        if result.question is not None:
            messages = await self._question_messages(result.question)
            if result.notice:
                messages[0].content = say(interaction, result.notice, result.language)
            return messages
        if result.quizzes:
            shown = min(len(result.quizzes), buttons.ROWS * buttons.BUTTONS_PER_ROW)
            notice = localize_commands(result.notice, interaction.locale)
            pages = rendering.choose_pages(result.quizzes, result.language, notice, shown=shown)
            return pages_to_messages(pages, buttons.choose_view(result.quizzes))
        return [Outgoing(content=say(interaction, result.notice, result.language))]

    async def _question_messages(self, question: QuestionView) -> list[Outgoing]:
        """A question's messages, its image (when it has one) attached to the first."""
        pages, view = typed_answers.question_layout(question)
        messages = pages_to_messages(pages, view)
        if question.image is not None:
            file = await images.image_file(self.engine.images, question.image)
            if file is not None:
                images.show(pages[0], question.image)
                messages[0].files = [file]
        return messages
