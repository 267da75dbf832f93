"""Group rounds on Telegram: one task per round posts its questions, counts down, reveals.

The engine (:mod:`bot.rounds`) keeps the round in the database; this module owns what the
engine leaves to adapters: the timer of the open question, the countdown and live answer count
in the question message, and the pause before the next question. Everything it needs to carry on
after a restart is in storage (the round itself, and which message shows its open question), so
:meth:`RoundRunner.resume` re-arms every round a previous process left running.

Group chats allow about 20 messages a minute, so every send of a round goes through a
:class:`~adapters.telegram.budget.ChatBudget`: questions, reveals and rankings wait for a slot
(the pause before the next question stretches when the chat is busy), countdown edits are made
at most every ``edit_interval`` seconds, only when the text changes, and only when slots remain.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, LinkPreviewOptions, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from adapters.telegram.budget import ChatBudget
from adapters.telegram.rendering import split_html
from adapters.telegram.round_rendering import (
    round_body,
    round_end,
    round_keyboard,
    round_live,
    round_live_fits,
    round_reveal,
)
from bot.engine import QuizEngine
from bot.rounds import RoundEnd, RoundQuestion
from bot.text_direction import paragraph
from bot.views import Participant

log = logging.getLogger("quizbot.telegram")

ROUND_MESSAGE_SCOPE = "telegram:round-message"  # round id -> the message of its open question
RESERVED_SLOTS = 2  # budget kept for the reveal and the next question
# Countdown edits also leave a slot for the edit that closes the question (and removes its
# buttons, which would otherwise invite presses that can only be refused).
COUNTDOWN_RESERVE = RESERVED_SLOTS + 1
MIN_SECONDS_TO_EDIT = 1.0  # a countdown edit this close to the deadline is not worth a slot
MIN_SLEEP = 0.005  # real seconds
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass(frozen=True)
class RoundTiming:
    """The pace of group rounds, in seconds.

    ``speed`` runs every timer of the adapter (and its rate limits) that many times faster than
    real time; tests use it together with an engine clock that runs as fast.
    """

    pause: float = 3.0  # between a reveal and the next question
    edit_interval: float = 5.0  # at most one countdown edit this often per question
    chat_budget: int = 15  # messages and edits per chat per window (Telegram allows 20)
    window: float = 60.0
    retry: float = 5.0  # after an unexpected error, try the round again this much later
    speed: float = 1.0


def fingerprint(text: str) -> str:
    """A short digest of a message's text, to know what it shows without keeping it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Posted:
    """The message that shows a round's open question (stored, to survive restarts)."""

    number: int
    message_id: int
    with_body: bool  # False: a long question; this short message has the status and buttons
    shown: str  # fingerprint of what it shows: a restarted process never repeats it

    def dumps(self) -> str:
        return json.dumps(
            {"v": 1, "n": self.number, "m": self.message_id, "b": self.with_body, "s": self.shown}
        )

    @classmethod
    def loads(cls, raw: str | None) -> _Posted | None:
        if not raw:
            return None
        try:
            data = json.loads(raw)
            return cls(int(data["n"]), int(data["m"]), bool(data["b"]), str(data.get("s", "")))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass
class _Live:
    """The open question of a round this process is running."""

    question: RoundQuestion
    chat_id: int
    message_id: int | None = None
    with_body: bool = True
    shown: str | None = None  # fingerprint of what the message shows now, when known
    answered: int = 0
    last_tick: float = 0.0  # when the message was last posted or refreshed (adapter time)
    close_now: asyncio.Event = field(default_factory=asyncio.Event)


class RoundRunner:
    """Drives every group round of one platform in this process."""

    def __init__(
        self,
        engine: QuizEngine,
        platform: str,
        timing: RoundTiming,
        budget: ChatBudget,
    ) -> None:
        self.engine = engine
        self.platform = platform
        self.timing = timing
        self.budget = budget
        self._bot: Bot | None = None
        self._tasks: dict[int, asyncio.Task[None]] = {}  # round id -> its driver
        self._live: dict[int, _Live] = {}
        self._background: set[asyncio.Task[None]] = set()

    # -- lifecycle ---------------------------------------------------------------------------

    def attach(self, bot: Bot) -> None:
        self._bot = bot

    @property
    def bot(self) -> Bot:
        if self._bot is None:
            raise RuntimeError("the round runner has no bot yet")
        return self._bot

    async def resume(self) -> None:
        """Carry on with the rounds a previous process left open; questions whose time ran
        out meanwhile are revealed at once."""
        overdue = {round_id for round_id, _ in await self.engine.rounds.due()}
        resumed = 0
        for question in await self.engine.rounds.open_questions():
            if question.platform == self.platform:
                self.ensure(question)
                resumed += 1
        if resumed:
            log.info("telegram: resumed %d group rounds (%d overdue)", resumed, len(overdue))

    async def shutdown(self) -> None:
        """Stop every timer; the rounds stay in the database for the next process."""
        tasks = [*self._tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._live.clear()
        self._background.clear()

    def ensure(self, question: RoundQuestion) -> None:
        """Run the round of ``question`` unless this process already does."""
        if question.round_id in self._tasks:
            return
        task = asyncio.create_task(self._drive(question), name=f"round-{question.round_id}")
        self._tasks[question.round_id] = task

    # -- events from the handlers ------------------------------------------------------------

    def on_answer(self, round_id: int, number: int, answered: int, everyone: bool) -> None:
        """An accepted answer: update the live count (shown at the next tick) and close the
        question early when every participant has answered it."""
        live = self._live.get(round_id)
        if live is None:
            if round_id not in self._tasks:  # e.g. a round another replica started
                self._spawn(self._adopt(round_id))
            return
        if live.question.number != number:
            return
        live.answered = max(live.answered, answered)
        # On question 1 everyone who has answered is everyone who ever answered: closing then
        # would shut out all but the fastest member.
        if everyone and number > 1:
            live.close_now.set()

    async def stopped(self, end: RoundEnd) -> None:
        """The round was stopped early: halt its timer, then post the ranking so far."""
        task = self._tasks.pop(end.round_id, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        live = self._live.pop(end.round_id, None)
        self._spawn(self._finish_stopped(live, end))

    async def _finish_stopped(self, live: _Live | None, end: RoundEnd) -> None:
        try:
            if live is not None:
                await self._close_live(live, live.answered)
                chat_id = live.chat_id
            else:
                round_ = await self.engine.storage.get_round(end.round_id)
                if round_ is None:
                    return
                chat_id = int(round_.chat_id)
            await self._post(chat_id, round_end(end))
            await self._forget(end.round_id)
        except Exception:
            log.exception("telegram: could not post the end of round %s", end.round_id)

    # -- the driver ----------------------------------------------------------------------------

    async def _drive(self, question: RoundQuestion) -> None:
        round_id = question.round_id
        current: RoundQuestion | None = question
        try:
            while current is not None:
                try:
                    current = await self._play(current)
                except Forbidden:
                    log.warning("telegram: round %s: the bot left the chat; ending it", round_id)
                    await self._abandon(round_id)
                    current = None
                except Exception:
                    log.exception("telegram: round %s failed; retrying", round_id)
                    current = await self._recover(round_id)
        finally:
            if self._tasks.get(round_id) is asyncio.current_task():
                del self._tasks[round_id]
                self._live.pop(round_id, None)

    async def _play(self, question: RoundQuestion) -> RoundQuestion | None:
        """Show one question until its time is up (or everyone answered), reveal it; the next
        question, or None when the round is over."""
        round_id, chat_id = question.round_id, int(question.chat_id)
        live = _Live(question, chat_id)
        self._live[round_id] = live
        await self._show(live)
        await self._countdown(live)
        # Room for the reveal now and the next question after the pause, even in a busy chat.
        pause = max(self.timing.pause, self.budget.wait_time(chat_id, RESERVED_SLOTS))
        reveal = await self.engine.rounds.close(round_id, question.number, pause_seconds=pause)
        if reveal is None:
            return None  # stopped, or revealed by another process that now runs the round
        self._live.pop(round_id, None)
        await self._close_live(live, sum(c.count for c in reveal.counts))
        await self._post(chat_id, round_reveal(reveal))
        if reveal.finished or reveal.next_question is None:
            await self._post(chat_id, round_end(await self.engine.rounds.ending(round_id)))
            await self._forget(round_id)
            return None
        return reveal.next_question

    async def _show(self, live: _Live) -> None:
        """Post the question when it opens, or find the message a previous process posted."""
        question = live.question
        posted = _Posted.loads(
            await self.engine.storage.get_value(ROUND_MESSAGE_SCOPE, str(question.round_id))
        )
        if posted is not None and posted.number == question.number:
            live.message_id, live.with_body = posted.message_id, posted.with_body
            live.shown = posted.shown or None
            answers = await self.engine.storage.round_answers(question.round_id)
            live.answered = sum(1 for a in answers if a.number == question.number)
            live.last_tick = self._now()  # the previous process may have edited just now
            return
        await self._sleep(self._left(question.opens_at))
        left = self._left(question.deadline)
        if left <= 0:
            return  # its time ran out while no process was running: just reveal it
        live.with_body = round_live_fits(question)
        if not live.with_body:
            await self._post(live.chat_id, paragraph(round_body(question), question.language))
        text = round_live(question, live.answered, self._seconds(left), with_body=live.with_body)
        message = await self._post(live.chat_id, text, round_keyboard(question))
        if message is None:
            return
        live.message_id, live.last_tick = message.message_id, self._now()
        await self._shown(live, text)

    async def _countdown(self, live: _Live) -> None:
        """Wait for the deadline or an early close, refreshing the message an interval after
        the last refresh: answers in between are coalesced into one edit."""
        question = live.question
        if not live.last_tick:
            live.last_tick = self._now()
        while not live.close_now.is_set():
            left = self._left(question.deadline)
            if left <= 0:
                return
            due = live.last_tick + self.timing.edit_interval
            wait = min(left, due - self._now())
            if wait > 0:
                # The floor keeps this from spinning should the engine's clock stall (a wall
                # clock stepped back) just short of the deadline.
                seconds = max(wait / self.timing.speed, MIN_SLEEP)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(live.close_now.wait(), seconds)
                    return
            if self._now() >= due:
                live.last_tick = self._now()
                await self._refresh(live)

    async def _refresh(self, live: _Live) -> None:
        """One countdown edit, when the text changed and the chat's budget allows it."""
        left = self._left(live.question.deadline)
        if live.message_id is None or left < MIN_SECONDS_TO_EDIT:
            return
        text = round_live(
            live.question, live.answered, self._seconds(left), with_body=live.with_body
        )
        if fingerprint(text) == live.shown:
            return
        if not self.budget.try_take(live.chat_id, keep=COUNTDOWN_RESERVE):
            return
        await self._edit(live, text, round_keyboard(live.question))

    async def _close_live(self, live: _Live, answered: int) -> None:
        """Take the buttons off a closed question (skipped when the chat is short of slots:
        a late press is then refused with a toast)."""
        if live.message_id is None:
            return
        if not self.budget.try_take(live.chat_id, keep=RESERVED_SLOTS):
            return
        text = round_live(live.question, answered, None, with_body=live.with_body)
        await self._edit(live, text, None)
        live.message_id = None

    async def _recover(self, round_id: int) -> RoundQuestion | None:
        """After an error: wait, then carry on from the round's open question (if any)."""
        while True:
            await self._sleep(self.timing.retry)
            try:
                return await self._open_question(round_id)
            except Exception:
                log.warning("telegram: round %s: storage unavailable", round_id, exc_info=True)

    async def _adopt(self, round_id: int) -> None:
        question = await self._open_question(round_id)
        if question is not None:
            self.ensure(question)

    async def _open_question(self, round_id: int) -> RoundQuestion | None:
        for question in await self.engine.rounds.open_questions():
            if question.round_id == round_id and question.platform == self.platform:
                return question
        return None

    async def _abandon(self, round_id: int) -> None:
        """End a round whose chat the bot can no longer post in (removed from the group)."""
        try:
            round_ = await self.engine.storage.get_round(round_id)
            if round_ is not None:
                starter = Participant(self.platform, round_.starter_id)
                await self.engine.rounds.stop(
                    self.platform, round_.chat_id, starter, is_chat_admin=True
                )
            await self._forget(round_id)
        except Exception:
            log.exception("telegram: could not end round %s", round_id)

    async def _forget(self, round_id: int) -> None:
        await self.engine.storage.set_value(ROUND_MESSAGE_SCOPE, str(round_id), None)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- sending -------------------------------------------------------------------------------

    async def _post(
        self, chat_id: int, html: str, markup: InlineKeyboardMarkup | None = None
    ) -> Message | None:
        """Send ``html`` (in several messages when too long; the keyboard on the last one),
        each when the chat's budget has a slot."""
        chunks = split_html(html)
        sent = None
        for index, chunk in enumerate(chunks):
            await self.budget.take(chat_id)
            sent = await self.bot.send_message(
                chat_id,
                chunk,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if index == len(chunks) - 1 else None,
                link_preview_options=NO_PREVIEW,
            )
        return sent

    async def _edit(self, live: _Live, text: str, markup: InlineKeyboardMarkup | None) -> None:
        assert live.message_id is not None
        try:
            await self.bot.edit_message_text(
                text,
                chat_id=live.chat_id,
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
                return
        except Forbidden:
            raise
        except TelegramError as error:  # a network hiccup: the next tick tries again
            log.warning("telegram: a countdown edit failed (%s)", error)
            return
        if markup is not None:  # still open: remember what it shows, for a restarted process
            await self._shown(live, text)

    async def _shown(self, live: _Live, text: str) -> None:
        """Record what the question's message shows now."""
        assert live.message_id is not None
        live.shown = fingerprint(text)
        posted = _Posted(live.question.number, live.message_id, live.with_body, live.shown)
        await self.engine.storage.set_value(
            ROUND_MESSAGE_SCOPE, str(live.question.round_id), posted.dumps()
        )

    # -- time ----------------------------------------------------------------------------------

    def _now(self) -> float:
        """Monotonic seconds at the adapter's speed."""
        return time.monotonic() * self.timing.speed

    def _left(self, when: datetime) -> float:
        """Seconds from the engine's now until ``when``."""
        return (when - self.engine.clock()).total_seconds()

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds / self.timing.speed)

    @staticmethod
    def _seconds(left: float) -> int:
        """Seconds left as shown: rounded up, as countdowns are (a question just posted shows
        its whole time limit)."""
        return max(1, math.ceil(left - 0.01))
