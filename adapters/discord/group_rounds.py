"""Group rounds on Discord: how a round's questions, reveals and ranking look and are sent.

The rounds service (:mod:`bot.rounds`) keeps each round in the database and
:class:`~bot.rounds.driver.RoundDriver` drives it over time; this module renders for Discord and
sends. Each question is a normal channel message with one button per option and a status field:
the answer count, edited at most every :attr:`RoundTiming.edit_interval` seconds and only when
the count changed (the countdown itself is a Discord timestamp that clients tick down on their
own). A closed question keeps its message: buttons off, the right one green. A round stopped
with ``/stop`` shows its ranking in the reply to that command. A question's image is attached
to its first message and shown in its embed; edits keep the file, so it is sent once. A
reveal's explanation image is a file of the reveal, shown at its end.

Messages go through the bot's channel endpoints, not interaction webhooks, whose tokens
expire after 15 minutes. The open question's message id is kept in the storage's key-value
table, so :meth:`DiscordRoundDriver.resume` (run at login) carries every round on after a restart.

All waiting goes through a :class:`RoundClock`: the engine's clock and real sleeps in
production, a virtual clock in tests.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord

from adapters.discord import images, refusals
from adapters.discord.buttons import round_view
from adapters.discord.rendering import Page
from adapters.discord.round_rendering import (
    closes_text,
    ending_pages,
    reveal_pages,
    round_question_pages,
)
from adapters.discord.texts import text
from bot.i18n import t
from bot.rounds import (
    GroupRounds,
    LiveQuestion,
    RoundClock,
    RoundDriver,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    RoundTiming,
    SystemClock,
    message_scope,
)

__all__ = [
    "PLATFORM",
    "ROUND_MESSAGE_SCOPE",
    "DiscordRoundDriver",
    "RoundClock",
    "RoundTiming",
    "SystemClock",
]

log = logging.getLogger("quizbot.discord")

PLATFORM = "discord"
ROUND_MESSAGE_SCOPE = message_scope(PLATFORM)  # round id -> the message of its open question


@dataclass
class _Live(LiveQuestion):
    """The open question of a round, and whether its message carries its image."""

    pictured: bool = False


class DiscordRoundDriver(RoundDriver[_Live]):
    """Drives the Discord group rounds of one client."""

    # The channel is gone or the bot may no longer post there.
    fatal_errors = (discord.Forbidden, discord.NotFound)

    def __init__(
        self,
        client: discord.Client,
        rounds: GroupRounds,
        *,
        timing: RoundTiming | None = None,
        clock: RoundClock | None = None,
    ) -> None:
        super().__init__(rounds, PLATFORM, timing=timing, clock=clock)
        self.client = client

    def unreachable_reason(self, error: Exception) -> str | None:
        """Only the refusals that say the channel is gone or closed to the bot (a 404 for a
        deleted message, say, does not)."""
        if isinstance(error, discord.HTTPException):
            return refusals.unreachable_reason(error)
        return None

    # -- rendering ------------------------------------------------------------------------

    def new_live(self, question: RoundQuestion) -> _Live:
        return _Live(question)

    def content(self, live: _Live, answered: int, seconds_left: float) -> str:
        return str(answered)  # clients count the time down themselves

    def _pages(self, live: _Live, answered: int, status: str) -> list[Page]:
        """The question's pages; the image shown where its file is (the first message)."""
        pages = round_question_pages(live.question, answered, status)
        if live.pictured and live.question.image is not None:
            images.show(pages[0], live.question.image)
        return pages

    async def post_question(self, live: _Live, answered: int, seconds_left: float) -> int | None:
        question, channel_id = live.question, int(live.question.chat_id)
        file = None
        if question.image is not None:
            file = await images.image_file(self.rounds.engine.images, question.image)
        live.pictured = file is not None
        pages = self._pages(live, answered, closes_text(question))
        # A process that dies between this post and recording its id leaves the question to
        # the next driver, which posts it again: the nonce makes Discord return this one.
        # Its opening time keeps it apart from a question of a database started afresh.
        opened = _base36(int(question.opens_at.timestamp()))
        dedupe = f"q{question.round_id}.{question.number}.{opened}"
        files = [file] if file is not None else []
        if len(pages) > 1:
            await self._post(channel_id, pages[:-1], dedupe, files)
            files = []
        nonce = f"{dedupe}.{len(pages) - 1}"[:25]
        view = round_view(question)
        message = await self._send(channel_id, pages[-1], view, nonce=nonce, files=files)
        return message.id

    async def refresh(self, live: _Live, answered: int, seconds_left: float) -> bool:
        """Edit the open question's status to the answer count."""
        question = live.question
        pages = self._pages(live, answered, closes_text(question))
        return await self._edit(live, pages[-1], round_view(question))

    async def close_question(
        self, live: _Live, answered: int, outcome: RoundReveal | RoundEnd
    ) -> None:
        """Final count and status, buttons off (the right one green when revealed)."""
        question, lang = live.question, live.question.language
        correct_id = None
        if isinstance(outcome, RoundEnd):
            status = outcome.notice
        else:
            correct_id = outcome.correct_option.id
            everyone = text("round_everyone_answered", lang)
            status = everyone if live.close_now else t("round_closed", lang)
        pages = self._pages(live, answered, status)
        await self._edit(live, pages[-1], round_view(question, closed=True, correct_id=correct_id))

    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> int | None:
        pages = reveal_pages(reveal)
        image, files, number = reveal.explanation_image, [], 0
        file = None if image is None else await images.image_file(self.rounds.engine.images, image)
        if image is not None and file is not None:
            number, files = images.show_at_end(pages, image), [file]
        return await self._post(int(reveal.chat_id), pages, dedupe, files, on=number)

    async def post_end(self, end: RoundEnd, dedupe: str = "") -> int | None:
        return await self._post(int(end.chat_id), ending_pages(end), dedupe)

    async def post_stopped(self, end: RoundEnd) -> None:
        """Nothing: the reply to ``/stop`` shows the ranking."""

    def message_fields(self, live: _Live) -> dict[str, object]:
        # The answer count it shows, and whether its message carries the image.
        return {"a": int(live.shown or 0), "i": live.pictured}

    def adopt_fields(self, live: _Live, fields: dict[str, Any]) -> None:
        live.shown = str(int(fields["a"]))
        live.pictured = bool(fields.get("i", False))

    # -- Discord --------------------------------------------------------------------------

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def _send(
        self,
        channel_id: int,
        page: Page,
        view: discord.ui.View | None = None,
        nonce: str | None = None,
        files: list[discord.File] | None = None,
    ) -> discord.Message:
        channel = self._channel(channel_id)
        extra: dict[str, Any] = {}
        if view is not None:
            extra["view"] = view
        if files:
            extra["files"] = files
        if nonce:
            # Discord returns the message already created with this nonce (for a few
            # minutes) instead of creating another: a post repeated after a crash shows once.
            extra["nonce"] = nonce
        return await channel.send(embeds=page, **extra)

    async def _post(
        self,
        channel_id: int,
        pages: list[Page],
        dedupe: str = "",
        files: list[discord.File] | None = None,
        *,
        on: int = 0,
    ) -> int | None:
        """Send each page (a page's nonce is ``dedupe`` and its number; ``files`` go with page
        number ``on``, the first unless told); the id of the last message (None when there was
        nothing)."""
        last = None
        for number, page in enumerate(pages):
            nonce = f"{dedupe}.{number}"[:25] if dedupe else None
            attached = files if number == on else None
            last = (await self._send(channel_id, page, nonce=nonce, files=attached)).id
        return last

    async def _edit(self, live: _Live, page: Page, view: discord.ui.View) -> bool:
        """Edit the question's message; False when that did not work (and it is not worth
        stopping the round for)."""
        assert live.message_id is not None
        channel = self._channel(int(live.question.chat_id))
        message = channel.get_partial_message(live.message_id)
        try:
            await message.edit(embeds=page, view=view)
        except discord.NotFound:
            # Deleted (by a moderator, say): the round goes on without a status line.
            log.warning("discord: the question of round %s is gone", live.question.round_id)
            live.message_id = None
            return False
        except discord.Forbidden:
            raise
        except discord.HTTPException as error:  # a hiccup: the next edit tries again
            log.warning("discord: a round status edit failed (%s)", error)
            return False
        return True


def _base36(number: int) -> str:
    """``number`` in base 36 (a short nonce part)."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, digit = divmod(number, 36)
        out = digits[digit] + out
        if not number:
            return out
