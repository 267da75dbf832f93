"""Group rounds on Discord: how a round's questions, reveals and ranking look and are sent.

The rounds service (:mod:`bot.rounds`) keeps each round in the database and
:class:`~bot.rounds.driver.RoundDriver` drives it over time; this module renders for Discord and
sends. Each question is a normal channel message with one button per option and a status field:
the answer count, edited at most every :attr:`RoundTiming.edit_interval` seconds and only when
the count changed (the countdown itself is a Discord timestamp that clients tick down on their
own). A closed question keeps its message: buttons off, the right one green. A round stopped
with ``/stop`` shows its ranking in the reply to that command.

Messages go through the bot's channel endpoints, not interaction webhooks, whose tokens
expire after 15 minutes. The open question's message id is kept in the storage's key-value
table, so :meth:`DiscordRoundDriver.resume` (run at login) carries every round on after a restart.

All waiting goes through a :class:`RoundClock`: the engine's clock and real sleeps in
production, a virtual clock in tests.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

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


class DiscordRoundDriver(RoundDriver[LiveQuestion]):
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

    # -- rendering ------------------------------------------------------------------------

    def new_live(self, question: RoundQuestion) -> LiveQuestion:
        return LiveQuestion(question)

    def content(self, live: LiveQuestion, answered: int, seconds_left: float) -> str:
        return str(answered)  # clients count the time down themselves

    async def post_question(
        self, live: LiveQuestion, answered: int, seconds_left: float
    ) -> int | None:
        question, channel_id = live.question, int(live.question.chat_id)
        pages = round_question_pages(question, answered, closes_text(question))
        # A process that dies between this post and recording its id leaves the question to
        # the next driver, which posts it again: the nonce makes Discord return this one.
        # Its opening time keeps it apart from a question of a database started afresh.
        opened = _base36(int(question.opens_at.timestamp()))
        dedupe = f"q{question.round_id}.{question.number}.{opened}"
        await self._post(channel_id, pages[:-1], dedupe)
        nonce = f"{dedupe}.{len(pages) - 1}"[:25]
        message = await self._send(channel_id, pages[-1], round_view(question), nonce=nonce)
        return message.id

    async def refresh(self, live: LiveQuestion, answered: int, seconds_left: float) -> bool:
        """Edit the open question's status to the answer count."""
        question = live.question
        pages = round_question_pages(question, answered, closes_text(question))
        return await self._edit(live, pages[-1], round_view(question))

    async def close_question(
        self, live: LiveQuestion, answered: int, outcome: RoundReveal | RoundEnd
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
        pages = round_question_pages(question, answered, status)
        await self._edit(live, pages[-1], round_view(question, closed=True, correct_id=correct_id))

    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> int | None:
        return await self._post(int(reveal.chat_id), reveal_pages(reveal), dedupe)

    async def post_end(self, end: RoundEnd, dedupe: str = "") -> int | None:
        return await self._post(int(end.chat_id), ending_pages(end), dedupe)

    async def post_stopped(self, end: RoundEnd) -> None:
        """Nothing: the reply to ``/stop`` shows the ranking."""

    def message_fields(self, live: LiveQuestion) -> dict[str, object]:
        return {"a": int(live.shown or 0)}  # the answer count it shows

    def adopt_fields(self, live: LiveQuestion, fields: dict[str, Any]) -> None:
        live.shown = str(int(fields["a"]))

    # -- Discord --------------------------------------------------------------------------

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def _send(
        self,
        channel_id: int,
        page: Page,
        view: discord.ui.View | None = None,
        nonce: str | None = None,
    ) -> discord.Message:
        channel = self._channel(channel_id)
        if nonce:
            # Discord returns the message already created with this nonce (for a few
            # minutes) instead of creating another: a post repeated after a crash shows once.
            if view is not None:
                return await channel.send(embeds=page, view=view, nonce=nonce)
            return await channel.send(embeds=page, nonce=nonce)
        if view is not None:
            return await channel.send(embeds=page, view=view)
        return await channel.send(embeds=page)

    async def _post(self, channel_id: int, pages: list[Page], dedupe: str = "") -> int | None:
        """Send each page (a page's nonce is ``dedupe`` and its number); the id of the last
        message (None when there was nothing)."""
        last = None
        for number, page in enumerate(pages):
            nonce = f"{dedupe}.{number}"[:25] if dedupe else None
            last = (await self._send(channel_id, page, nonce=nonce)).id
        return last

    async def _edit(self, live: LiveQuestion, page: Page, view: discord.ui.View) -> bool:
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
