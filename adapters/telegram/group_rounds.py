"""Group rounds on Telegram: how a round's questions, countdown, reveals and ranking look and
are sent.

The rounds service (:mod:`bot.rounds`) keeps the round in the database and
:class:`~bot.rounds.driver.RoundDriver` drives it over time (timers, the pause between questions,
restarts); this module renders for Telegram and sends. The open question's message shows a
countdown and the live answer count, and which message that is lives in storage, so a restarted
process edits it instead of posting the question again. A question with an image is posted
once as a photo with the question as its caption (a question too long for a caption follows
the photo as text); the countdown and the buttons are then a short message of their own
below it, the only one edited, so the picture is never sent again. A reveal whose explanation
has an image is that photo with the reveal as its caption, laid out the same way.

Group chats allow about 20 messages a minute, so every send of a round goes through a
:class:`~adapters.telegram.budget.ChatBudget`: questions, reveals and rankings wait for a slot
(the pause before the next question stretches when the chat is busy), countdown edits are made
at most every ``edit_interval`` seconds, only when the text changes, and only when slots remain.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from adapters.telegram.budget import ChatBudget
from adapters.telegram.daily_rendering import daily_body, daily_live, daily_live_fits, daily_reveal
from adapters.telegram.photos import Photos, caption_fits
from adapters.telegram.rendering import split_html
from adapters.telegram.round_rendering import (
    round_body,
    round_end,
    round_keyboard,
    round_live,
    round_live_fits,
    round_reveal,
)
from adapters.telegram.shared import NO_PREVIEW
from bot import rounds as round_service
from bot.rounds import (
    GroupRounds,
    LiveQuestion,
    RoundClock,
    RoundDriver,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    message_scope,
)
from bot.storage import RoundKind
from bot.text_direction import paragraph
from bot.views import ImageView

log = logging.getLogger("quizbot.telegram")

ROUND_MESSAGE_SCOPE = message_scope("telegram")  # round id -> the message of its open question
RESERVED_SLOTS = 2  # budget kept for the reveal and the next question
# Countdown edits also leave a slot for the edit that closes the question (and removes its
# buttons, which would otherwise invite presses that can only be refused).
COUNTDOWN_RESERVE = RESERVED_SLOTS + 1
MIN_SECONDS_TO_EDIT = 1.0  # a countdown edit this close to the deadline is not worth a slot


@dataclass(frozen=True)
class RoundTiming(round_service.RoundTiming):
    """The pace of group rounds, in seconds.

    ``speed`` runs the adapter's own timers (PTB's rate limiter, on the event loop's time, and
    the groups' send budget while rounds run on the system's clock) that many times faster than
    real time. Rounds run on the services' clock; given a virtual one (tests: a ManualClock),
    the send budget follows it, and ``speed`` reaches only PTB's rate limiter.
    """

    pause: float = 3.0  # between a reveal and the next question
    chat_budget: int = 15  # messages and edits per chat per window (Telegram allows 20)
    window: float = 60.0
    speed: float = 1.0


def fingerprint(text: str) -> str:
    """A short digest of a message's text, to know what it shows without keeping it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class _Live(LiveQuestion):
    """The open question of a round, and how its message is laid out."""

    with_body: bool = True  # False: the question went in a message of its own before this one


class TelegramRoundDriver(RoundDriver[_Live]):
    """Drives every group round of one platform in this process, on Telegram."""

    fatal_errors = (Forbidden,)  # the bot left the chat

    def __init__(
        self,
        rounds: GroupRounds,
        platform: str,
        timing: RoundTiming,
        budget: ChatBudget,
        *,
        clock: RoundClock,
    ) -> None:
        """``clock``: time as rounds see it (the services' clock)."""
        super().__init__(rounds, platform, timing=timing, clock=clock)
        self.budget = budget
        self.photos = Photos(rounds.engine.images)
        self._bot: Bot | None = None

    def attach(self, bot: Bot) -> None:
        self._bot = bot

    @property
    def bot(self) -> Bot:
        if self._bot is None:
            raise RuntimeError("the round runner has no bot yet")
        return self._bot

    # -- rendering ---------------------------------------------------------------------------

    def new_live(self, question: RoundQuestion) -> _Live:
        return _Live(question)

    def _text(self, live: _Live, answered: int, seconds_left: float | None) -> str:
        question = live.question
        if question.kind is RoundKind.DAILY:  # open for hours: when it closes, no countdown
            closed = seconds_left is None
            return daily_live(question, answered, closed=closed, with_body=live.with_body)
        shown = None if seconds_left is None else _seconds(seconds_left)
        return round_live(question, answered, shown, with_body=live.with_body)

    def content(self, live: _Live, answered: int, seconds_left: float) -> str:
        return fingerprint(self._text(live, answered, seconds_left))

    def pause_seconds(self, question: RoundQuestion) -> float:
        # Room for the reveal now and the next question after the pause, even in a busy chat.
        wait = self.budget.wait_time(int(question.chat_id), RESERVED_SLOTS)
        return max(self.timing.pause, wait)

    async def post_question(self, live: _Live, answered: int, seconds_left: float) -> int | None:
        question, chat_id = live.question, int(live.question.chat_id)
        daily = question.kind is RoundKind.DAILY
        live.with_body = daily_live_fits(question) if daily else round_live_fits(question)
        body = paragraph(daily_body(question) if daily else round_body(question), question.language)
        photo = None
        if question.image is not None:
            photo = await self._post_image(question.round_id, chat_id, question.image, body)
        if photo is not None:
            live.with_body = False  # the photo (or the text after it) carries the question
        elif not live.with_body:
            await self._post(question.round_id, chat_id, body)
        text = self._text(live, answered, seconds_left)
        message = await self._post(question.round_id, chat_id, text, round_keyboard(question))
        return None if message is None else message.message_id

    async def refresh(self, live: _Live, answered: int, seconds_left: float) -> bool:
        """One countdown edit, when the chat's budget allows it."""
        if live.message_id is None or seconds_left < MIN_SECONDS_TO_EDIT:
            return False
        text = self._text(live, answered, seconds_left)
        if not self.budget.try_take(int(live.question.chat_id), keep=COUNTDOWN_RESERVE):
            return False
        return await self._edit(live, text, round_keyboard(live.question))

    async def close_question(
        self, live: _Live, answered: int, outcome: RoundReveal | RoundEnd
    ) -> None:
        """Take the buttons off a closed question (skipped when the chat is short of slots:
        a late press is then refused with a toast)."""
        if not self.budget.try_take(int(live.question.chat_id), keep=RESERVED_SLOTS):
            return
        await self._edit(live, self._text(live, answered, None), None)

    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> int | None:
        # Telegram has no idempotency key: a post the outbox repeats after a crash between
        # Telegram's reply and marking it sent shows twice (at least once, never lost).
        html = daily_reveal(reveal) if reveal.kind is RoundKind.DAILY else round_reveal(reveal)
        round_id, chat_id, image = reveal.round_id, int(reveal.chat_id), reveal.explanation_image
        sent = await self._post_image(round_id, chat_id, image, html) if image else None
        if sent is None:  # no image, or it could not be sent: the reveal as text
            sent = await self._post(round_id, chat_id, html)
        return _message_id(sent)

    async def post_end(self, end: RoundEnd, dedupe: str = "") -> int | None:
        return _message_id(await self._post(end.round_id, int(end.chat_id), round_end(end)))

    def message_fields(self, live: _Live) -> dict[str, object]:
        # "s": the fingerprint of what it shows, so a restarted process never repeats it.
        return {"b": live.with_body, "s": live.shown}

    def adopt_fields(self, live: _Live, fields: dict[str, Any]) -> None:
        live.with_body, live.shown = bool(fields["b"]), str(fields.get("s", "")) or None

    # -- sending -------------------------------------------------------------------------------

    async def _post_image(
        self, round_id: int, chat_id: int, image: ImageView, html: str
    ) -> Message | None:
        """The photo with ``html`` as its caption, or the photo then ``html`` when it is too
        long for one: the last message sent; None when the photo could not be sent (nothing
        was)."""
        fits = caption_fits(html)
        await self.budget.take(chat_id, self._waiter(round_id))
        photo = await self.photos.send(self.bot, chat_id, image, html if fits else None)
        if photo is None or fits:
            return photo
        return await self._post(round_id, chat_id, html)

    def _waiter(self, round_id: int) -> Callable[[float], Awaitable[None]]:
        """How a send waits for a slot of the chat's budget: on the rounds' clock, as the
        round's other timers do."""

        async def wait(seconds: float) -> None:
            until = self.clock() + timedelta(seconds=seconds)
            await self._sleep_for(round_id, until, asyncio.Event())

        return wait

    async def _post(
        self, round_id: int, chat_id: int, html: str, markup: InlineKeyboardMarkup | None = None
    ) -> Message | None:
        """Send ``html`` (in several messages when too long; the keyboard on the last one),
        each when the chat's budget has a slot."""
        wait = self._waiter(round_id)
        chunks = split_html(html)
        sent = None
        for index, chunk in enumerate(chunks):
            await self.budget.take(chat_id, wait)
            sent = await self.bot.send_message(
                chat_id,
                chunk,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if index == len(chunks) - 1 else None,
                link_preview_options=NO_PREVIEW,
            )
        return sent

    async def _edit(self, live: _Live, text: str, markup: InlineKeyboardMarkup | None) -> bool:
        """Edit the question's message; False when that did not work (and it is not worth
        stopping the round for)."""
        assert live.message_id is not None
        try:
            await self.bot.edit_message_text(
                text,
                chat_id=int(live.question.chat_id),
                message_id=live.message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                link_preview_options=NO_PREVIEW,
            )
        except BadRequest as error:
            if "not modified" not in error.message.lower():
                # Deleted, or too old to edit: the round goes on without a live countdown.
                log.warning("telegram: cannot edit a round question (%s)", error)
                live.message_id = None
                return False
        except Forbidden:
            raise
        except TelegramError as error:  # a network hiccup: the next tick tries again
            log.warning("telegram: a countdown edit failed (%s)", error)
            return False
        return True


def _message_id(message: Message | None) -> int | None:
    return None if message is None else message.message_id


def _seconds(left: float) -> int:
    """Seconds left as shown: rounded up, as countdowns are (a question just posted shows its
    whole time limit)."""
    return max(1, math.ceil(left - 0.01))
