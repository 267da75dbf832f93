"""Group rounds on Discord: one task per round posts its questions, times them, reveals them.

The engine (:mod:`bot.rounds`) keeps each round in the database; this module owns what the
engine leaves to adapters. For every round this process runs, a driver task:

1. waits until the question opens (the pause after the previous reveal), then posts it as a
   normal channel message with one button per option;
2. keeps its status field current: the answer count, edited at most every
   :attr:`RoundTiming.edit_interval` seconds and only when the count changed (the countdown
   itself is a Discord timestamp that clients tick down on their own);
3. closes it when time is up, or early once everyone taking part answered it; edits the
   message (buttons off, the right one green) and posts the reveal; after the last question,
   the final ranking.

Messages go through the bot's channel endpoints, not interaction webhooks, whose tokens
expire after 15 minutes. The open question's message id is kept in the storage's key-value
table, so :meth:`RoundRunner.resume` (run at login) carries every round on after a restart,
revealing at once the questions whose time ran out meanwhile.

All waiting goes through a :class:`RoundClock`: the engine's clock and real sleeps in
production, a virtual clock in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

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
from bot.engine import QuizEngine
from bot.i18n import t
from bot.rounds import RoundEnd, RoundQuestion
from bot.views import Participant

log = logging.getLogger("quizbot.discord")

PLATFORM = "discord"
ROUND_MESSAGE_SCOPE = "discord:round-message"  # round id -> the message of its open question


@dataclass(frozen=True)
class RoundTiming:
    """The pace of group rounds, in seconds."""

    pause: float = 5.0  # between a reveal and the next question
    edit_interval: float = 5.0  # at most one status edit this often per question
    retry: float = 5.0  # after an unexpected error, carry on with the round this much later


class RoundClock(Protocol):
    """Time as rounds see it: the engine's clock, and a way to wait for a moment."""

    def __call__(self) -> datetime: ...

    async def sleep(self, until: datetime, wake: asyncio.Event) -> None:
        """Return at ``until`` or as soon as ``wake`` is set (early returns are fine)."""


class SystemClock:
    """Real time: the engine's clock and asyncio's timers."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now

    def __call__(self) -> datetime:
        return self._now()

    async def sleep(self, until: datetime, wake: asyncio.Event) -> None:
        left = (until - self._now()).total_seconds()
        if left > 0 and not wake.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), left)


@dataclass(frozen=True)
class _Posted:
    """The message showing a round's open question, and the answer count it shows."""

    number: int
    message_id: int
    shown: int

    def dumps(self) -> str:
        return json.dumps({"v": 1, "n": self.number, "m": self.message_id, "a": self.shown})

    @classmethod
    def loads(cls, raw: str | None) -> _Posted | None:
        if not raw:
            return None
        try:
            data = json.loads(raw)
            return cls(int(data["n"]), int(data["m"]), int(data["a"]))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass
class _Live:
    """The open question of a round this process runs."""

    question: RoundQuestion
    channel_id: int
    message_id: int | None = None
    answered: int = 0  # answers counted so far (from accepted presses)
    shown: int | None = None  # the count the message shows
    last_edit: datetime | None = None
    close_now: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class RoundRunner:
    """Drives the Discord group rounds of one client."""

    def __init__(
        self,
        client: discord.Client,
        engine: QuizEngine,
        *,
        timing: RoundTiming | None = None,
        clock: RoundClock | None = None,
    ) -> None:
        self.client = client
        self.engine = engine
        self.timing = timing or RoundTiming()
        self.clock: RoundClock = clock or SystemClock(engine.clock)
        self._tasks: dict[int, asyncio.Task[None]] = {}  # round id -> its driver
        self._live: dict[int, _Live] = {}
        self._sleeping: dict[int, tuple[datetime, asyncio.Event]] = {}
        self._background: set[asyncio.Task[None]] = set()

    # -- lifecycle ------------------------------------------------------------------------

    async def resume(self) -> None:
        """Carry on with the rounds a previous process left running; a round whose quiz is
        gone is ended. Questions whose time ran out meanwhile are revealed at once."""
        due = await self.engine.rounds.due()
        for round_id, number in due:
            round_ = await self.engine.storage.get_round(round_id)
            if round_ is None or round_.platform != PLATFORM:
                continue
            if self.engine.catalog.get(round_.quiz_id) is None:
                await self.engine.rounds.close(round_id, number)  # ends it: nothing to show
                await self._forget(round_id)
        resumed = 0
        for question in await self.engine.rounds.open_questions():
            if question.platform == PLATFORM:
                self.ensure(question)
                resumed += 1
        if resumed:
            log.info("discord: resumed %d group rounds (%d overdue)", resumed, len(due))

    async def shutdown(self) -> None:
        """Stop every timer; the rounds stay in the database for the next process."""
        tasks = [*self._tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._live.clear()
        self._sleeping.clear()
        self._background.clear()

    def ensure(self, question: RoundQuestion) -> None:
        """Run the round of ``question`` unless this process already does."""
        if question.round_id in self._tasks:
            return
        task = asyncio.create_task(self._drive(question), name=f"round-{question.round_id}")
        self._tasks[question.round_id] = task

    def running(self, round_id: int) -> bool:
        return round_id in self._tasks

    def settled(self) -> bool:
        """Whether every round is waiting for the clock, with nothing to do before it moves
        (what tests driving a virtual clock wait for)."""
        if self._background:
            return False
        now = self.clock()
        for round_id, task in self._tasks.items():
            if task.done():
                continue
            sleeping = self._sleeping.get(round_id)
            if sleeping is None or sleeping[0] <= now or sleeping[1].is_set():
                return False
        return True

    # -- events from the handlers -----------------------------------------------------------

    def on_answer(self, round_id: int, number: int, answered: int, everyone: bool) -> None:
        """An accepted answer: count it (shown at the next edit) and close the question early
        when everyone taking part has answered it."""
        live = self._live.get(round_id)
        if live is None:
            if round_id not in self._tasks:  # a round whose driver ended on an error
                self._spawn(self._adopt(round_id))
            return
        if live.question.number != number:
            return
        live.answered = max(live.answered, answered)
        # On question 1 everyone who answered is everyone taking part: closing then would
        # shut out all but the fastest member.
        if everyone and number > 1:
            live.close_now = True
        live.wake.set()

    def stopped(self, end: RoundEnd) -> None:
        """The round was stopped: halt its driver now (no await, so nothing more is posted),
        then take the buttons off its open question in the background."""
        task = self._tasks.pop(end.round_id, None)
        if task is not None:
            task.cancel()
        live = self._live.pop(end.round_id, None)
        self._sleeping.pop(end.round_id, None)
        self._spawn(self._finish_stopped(task, live, end))

    async def _finish_stopped(
        self, task: asyncio.Task[None] | None, live: _Live | None, end: RoundEnd
    ) -> None:
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        try:
            if live is not None:
                await self._close_message(live, live.answered, None, end.notice)
            await self._forget(end.round_id)
        except Exception:
            log.exception("discord: could not close the question of stopped round %s", end.round_id)

    # -- the driver -----------------------------------------------------------------------

    async def _drive(self, question: RoundQuestion) -> None:
        round_id = question.round_id
        current: RoundQuestion | None = question
        try:
            while current is not None:
                try:
                    current = await self._play(current)
                except (discord.Forbidden, discord.NotFound) as error:
                    # The channel is gone or the bot may no longer post there.
                    log.warning("discord: round %s cannot post (%s); ending it", round_id, error)
                    await self._abandon(round_id)
                    current = None
                except Exception:
                    log.exception("discord: round %s failed; carrying on shortly", round_id)
                    current = await self._recover(round_id)
        except Exception:
            log.exception("discord: round %s stopped running", round_id)
        finally:
            if self._tasks.get(round_id) is asyncio.current_task():
                del self._tasks[round_id]
                self._live.pop(round_id, None)
                self._sleeping.pop(round_id, None)

    async def _play(self, question: RoundQuestion) -> RoundQuestion | None:
        """Show one question until its time is up (or everyone answered), reveal it; the next
        question, or None when the round is over."""
        round_id = question.round_id
        live = _Live(question, int(question.chat_id))
        self._live[round_id] = live
        await self._show(live)
        await self._countdown(live)
        reveal = await self.engine.rounds.close(
            round_id, question.number, pause_seconds=self.timing.pause
        )
        self._live.pop(round_id, None)
        if reveal is None:
            return None  # stopped, or revealed by another process, which now runs it
        answered = sum(c.count for c in reveal.counts)
        lang = question.language
        status = (
            text("round_everyone_answered", lang) if live.close_now else t("round_closed", lang)
        )
        await self._close_message(live, answered, reveal.correct_option.id, status)
        await self._post(live.channel_id, reveal_pages(reveal))
        if reveal.finished or reveal.next_question is None:
            ending = await self.engine.rounds.ending(round_id)
            await self._post(live.channel_id, ending_pages(ending))
            await self._forget(round_id)
            return None
        return reveal.next_question

    async def _show(self, live: _Live) -> None:
        """Post the question when it opens, or adopt the message a previous process posted."""
        question = live.question
        posted = _Posted.loads(
            await self.engine.storage.get_value(ROUND_MESSAGE_SCOPE, str(question.round_id))
        )
        if posted is not None and posted.number == question.number:
            live.message_id, live.shown = posted.message_id, posted.shown
            live.answered = await self._count(question)
            # When the previous process last edited is unknown: wait a full interval.
            live.last_edit = self.clock()
            return
        while self.clock() < question.opens_at:
            live.wake.clear()
            await self._sleep(live, question.opens_at)
        if self.clock() >= question.deadline:
            return  # its time ran out while no process ran the round: just reveal it
        live.answered = await self._count(question)
        pages = round_question_pages(question, live.answered, closes_text(question))
        await self._post(live.channel_id, pages[:-1])
        message = await self._send(live.channel_id, pages[-1], round_view(question))
        live.message_id, live.shown, live.last_edit = message.id, live.answered, self.clock()
        await self._remember(live)

    async def _countdown(self, live: _Live) -> None:
        """Wait for the deadline or an early close; edit the answer count at most once an
        interval, so a burst of answers becomes one edit."""
        interval = timedelta(seconds=self.timing.edit_interval)
        deadline = live.question.deadline
        while True:
            live.wake.clear()
            now = self.clock()
            if live.close_now or now >= deadline:
                return
            until = deadline
            if live.message_id is not None and live.answered != live.shown:
                due = (live.last_edit or now) + interval
                if now >= due:
                    await self._refresh(live)
                    continue
                until = min(deadline, due)
            await self._sleep(live, until)

    async def _refresh(self, live: _Live) -> None:
        """Edit the open question's status to the current answer count."""
        question, answered = live.question, live.answered
        pages = round_question_pages(question, answered, closes_text(question))
        if await self._edit(live, pages[-1], round_view(question)):
            live.shown = answered
            await self._remember(live)
        live.last_edit = self.clock()

    async def _close_message(
        self, live: _Live, answered: int, correct_id: str | None, status: str
    ) -> None:
        """The question closed: final count and status, buttons off (the right one green
        when revealed)."""
        if live.message_id is None:
            return
        question = live.question
        pages = round_question_pages(question, answered, status)
        await self._edit(live, pages[-1], round_view(question, closed=True, correct_id=correct_id))
        live.message_id = None

    async def _count(self, question: RoundQuestion) -> int:
        answers = await self.engine.storage.round_answers(question.round_id)
        return sum(1 for a in answers if a.number == question.number)

    async def _recover(self, round_id: int) -> RoundQuestion | None:
        """After an error: wait, then carry on from the round's open question (if any)."""
        while True:
            until = self.clock() + timedelta(seconds=self.timing.retry)
            await self._sleep_for(round_id, until, asyncio.Event())
            try:
                return await self._open_question(round_id)
            except Exception:
                log.warning("discord: round %s: storage unavailable", round_id, exc_info=True)

    async def _adopt(self, round_id: int) -> None:
        try:
            question = await self._open_question(round_id)
        except Exception:
            log.exception("discord: could not pick up round %s", round_id)
            return
        if question is not None:
            self.ensure(question)

    async def _open_question(self, round_id: int) -> RoundQuestion | None:
        for question in await self.engine.rounds.open_questions():
            if question.round_id == round_id and question.platform == PLATFORM:
                return question
        return None

    async def _abandon(self, round_id: int) -> None:
        round_ = await self.engine.storage.get_round(round_id)
        if round_ is not None:
            starter = Participant(PLATFORM, round_.starter_id)
            await self.engine.rounds.stop(PLATFORM, round_.chat_id, starter, is_chat_admin=True)
        await self._forget(round_id)

    async def _remember(self, live: _Live) -> None:
        if live.message_id is None or live.shown is None:
            return
        posted = _Posted(live.question.number, live.message_id, live.shown)
        await self.engine.storage.set_value(
            ROUND_MESSAGE_SCOPE, str(live.question.round_id), posted.dumps()
        )

    async def _forget(self, round_id: int) -> None:
        await self.engine.storage.set_value(ROUND_MESSAGE_SCOPE, str(round_id), None)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- time -----------------------------------------------------------------------------

    async def _sleep(self, live: _Live, until: datetime) -> None:
        await self._sleep_for(live.question.round_id, until, live.wake)

    async def _sleep_for(self, round_id: int, until: datetime, wake: asyncio.Event) -> None:
        self._sleeping[round_id] = (until, wake)
        try:
            await self.clock.sleep(until, wake)
        finally:
            self._sleeping.pop(round_id, None)

    # -- Discord --------------------------------------------------------------------------

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def _send(
        self, channel_id: int, page: Page, view: discord.ui.View | None = None
    ) -> discord.Message:
        if view is None:
            return await self._channel(channel_id).send(embeds=page)
        return await self._channel(channel_id).send(embeds=page, view=view)

    async def _post(self, channel_id: int, pages: list[Page]) -> None:
        for page in pages:
            await self._send(channel_id, page)

    async def _edit(self, live: _Live, page: Page, view: discord.ui.View) -> bool:
        """Edit the question's message; False when that did not work (and it is not worth
        stopping the round for)."""
        assert live.message_id is not None
        message = self._channel(live.channel_id).get_partial_message(live.message_id)
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
